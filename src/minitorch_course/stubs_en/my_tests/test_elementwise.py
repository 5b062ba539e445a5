# Your tests (written by `make stubs` as a skeleton; from now on it is yours).
# Run them with `python -m pytest my_tests`; `make check` says which kinds of
# mistake they catch.
"""Lab 01 · test_elementwise.py: your tests of the elementwise operations.

For each operation (add, sub, mul, div, neg, exp, log, sqrt, relu, gelu, tanh, sigmoid)
write a test that compares with torch in float64 (tolerance 1e-7) the forward pass and the
gradient of EACH input, with a random upstream gradient ``g``: ``y.backward(g)``, not
``y.sum().backward()``. And another one that passes ``mt.gradcheck``. Add the cases that tell
one mistake from another: relu exactly at 0 (torch gives gradient 0), negative and positive
inputs, valid domains (log and sqrt with positive inputs). Check ``grad.shape == data.shape``
after each backward pass.
"""

import numpy as np
import pytest
import torch

import minitorch as mt

# YOUR CODE HERE: your tests, what the docstring above asks for
