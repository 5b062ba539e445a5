# Your tests (written by `make stubs` as a skeleton; from now on it is yours).
# Run them with `python -m pytest my_tests`; `make check` says which kinds of
# mistake they catch.
"""Lab 03 · test_cross_entropy.py: your tests of ``mt.cross_entropy``.

Compare with ``torch.nn.functional.cross_entropy`` (float64, 1e-7) the loss and the gradient of
the logits for a batch of SEVERAL rows (N > 1: the mean divides the gradient by N), with
different target classes, in the three reductions: ``reduction='mean'`` (the default),
``'sum'`` and ``'none'`` (one loss per row: its backward with a non-uniform upstream
gradient). Large logits (±1e4): the loss and the gradient are finite. One ``mt.gradcheck``.
"""

import numpy as np
import pytest
import torch

import minitorch as mt

# YOUR CODE HERE: your tests, what the docstring above asks for
