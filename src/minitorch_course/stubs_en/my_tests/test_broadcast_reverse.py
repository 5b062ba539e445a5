# Your tests (written by `make stubs` as a skeleton; from now on it is yours).
# Run them with `python -m pytest my_tests`; `make check` says which kinds of
# mistake they catch.
"""Lab 01 · test_broadcast_reverse.py: your tests of reverse broadcasting.

For the binary operations (add, sub, mul, div) and the most used shape pairs, check that the
gradient of each input has the shape of that input (``grad.shape == data.shape``) and torch's
value (float64, 1e-7), with a random upstream gradient. The pairs must expand the shape along
a LEADING axis ((3,) with (4, 3); (5,) with (2, 3, 5)) and along an INNER axis of size 1
((4, 1) with (4, 3); (2, 1, 5) with (2, 3, 5)), and along both at once ((1, 3) with (4, 1)).
Also test ``mt.unbroadcast`` directly.
"""

import numpy as np
import pytest
import torch

import minitorch as mt

# YOUR CODE HERE: your tests, what the docstring above asks for
