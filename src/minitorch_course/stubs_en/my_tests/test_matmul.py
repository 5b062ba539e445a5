# Your tests (written by `make stubs` as a skeleton; from now on it is yours).
# Run them with `python -m pytest my_tests`; `make check` says which kinds of
# mistake they catch.
"""Lab 03 · test_matmul.py: your tests of matmul (``@``).

Compare with torch (float64, 1e-7) the forward pass and the gradients of BOTH operands, with a
random upstream gradient, on NON-square matrices ((4, 5) @ (5, 3)), with batch axes
((2, 4, 5) @ (5, 3) and (2, 4, 5) @ (2, 5, 3)) and with 1-D operands. One ``mt.gradcheck`` on
small tensors (about 100 elements).
"""

import numpy as np
import pytest
import torch

import minitorch as mt

# YOUR CODE HERE: your tests, what the docstring above asks for
