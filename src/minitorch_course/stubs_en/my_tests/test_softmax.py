# Your tests (written by `make stubs` as a skeleton; from now on it is yours).
# Run them with `python -m pytest my_tests`; `make check` says which kinds of
# mistake they catch.
"""Lab 03 · test_softmax.py: your tests of softmax and log_softmax.

Compare with torch (float64, 1e-7) the forward pass and the gradient, with a random upstream
gradient (with ``.sum()`` the gradient of softmax is zero and proves nothing), along
axis=-1 and axis=0. With large logits (±1e4) the output must be finite. One ``mt.gradcheck``.
"""

import numpy as np
import pytest
import torch

import minitorch as mt

# YOUR CODE HERE: your tests, what the docstring above asks for
