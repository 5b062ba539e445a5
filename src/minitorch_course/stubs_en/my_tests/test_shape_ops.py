# Your tests (written by `make stubs` as a skeleton; from now on it is yours).
# Run them with `python -m pytest my_tests`; `make check` says which kinds of
# mistake they catch.
"""Lab 02 · test_shape_ops.py: your tests of reshape, transpose, broadcast_to, x[idx],
cat and stack.

Each shape operation undoes its transformation in the backward pass: check the round trip (the
gradient goes back to the shape of the input, ``grad.shape == data.shape``) with a random
upstream gradient and compare with torch. Cases that tell mistakes apart: reshape between
different shapes ((3, 4) -> (2, 6)), a permutation that is not its own inverse ((1, 2, 0)),
repeated indices (``x[[0, 0, 2]]``: their gradients add up), cat of pieces of different sizes.
And one ``mt.gradcheck`` per operation.
"""

import numpy as np
import pytest
import torch

import minitorch as mt

# YOUR CODE HERE: your tests, what the docstring above asks for
