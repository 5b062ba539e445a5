# Your tests (written by `make stubs` as a skeleton; from now on it is yours).
# Run them with `python -m pytest my_tests`; `make check` says which kinds of
# mistake they catch.
"""Lab 04 · test_gradcheck.py: your tests with ``mt.gradcheck``.

``mt.gradcheck(fn, inputs)`` compares the backward pass's gradient with central differences,
with a random upstream gradient. Use it on small tensors (about 100 elements) on a
composition of operations with broadcasting (shapes expanded along a leading axis and along an
inner one), away from the points where a function is not differentiable.
"""

import numpy as np
import pytest

import minitorch as mt

# YOUR CODE HERE: your tests, what the docstring above asks for
