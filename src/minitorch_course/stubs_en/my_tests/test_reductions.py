# Your tests (written by `make stubs` as a skeleton; from now on it is yours).
# Run them with `python -m pytest my_tests`; `make check` says which kinds of
# mistake they catch.
"""Lab 02 · test_reductions.py: your tests of sum, mean and max.

Compare with torch (float64, 1e-7) the forward pass and the gradient, with a random upstream
gradient, reducing over ALL axes and over ONE (axis=0, axis=-1, a tuple of axes), with
``keepdims=False`` and ``keepdims=True``. For max, a case with tied maxima (torch splits the
gradient equally among them). And one ``mt.gradcheck`` per reduction.
"""

import numpy as np
import pytest
import torch

import minitorch as mt

# YOUR CODE HERE: your tests, what the docstring above asks for
