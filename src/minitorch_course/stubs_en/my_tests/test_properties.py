# Your tests (written by `make stubs` as a skeleton; from now on it is yours).
# Run them with `python -m pytest my_tests`; `make check` says which kinds of
# mistake they catch.
"""Lab 04 · test_properties.py: your property-based tests with Hypothesis.

At least one property over random shapes that broadcast together, generated with
``hypothesis.extra.numpy.mutually_broadcastable_shapes``: for add, sub, mul and div, after
``backward`` with a random upstream gradient, each gradient has the shape of its input
and torch's value. Fix the seeds: the test must give the same result every time.
"""

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import minitorch as mt

# YOUR CODE HERE: your tests, what the docstring above asks for
