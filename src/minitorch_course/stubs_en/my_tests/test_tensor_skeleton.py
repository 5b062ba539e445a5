# Your tests (written by `make stubs` as a skeleton; from now on it is yours).
# Run them with `python -m pytest my_tests`; `make check` says which kinds of
# mistake they catch.
"""Lab 00 · test_tensor_skeleton.py: your tests of the Tensor's skeleton and of backward.

There are no operations yet: build the graphs by hand with
``mt.Tensor._make(data, parents, "name", backward)``, where ``backward(g)`` returns one
gradient per parent. This file must check, each thing in its own test:

- ``grad`` is ``None`` until a backward pass reaches the tensor, and ``backward()`` on a leaf
  breaks nothing;
- a node reached by two paths (a diamond a -> b, c -> d, or a node used twice as a parent)
  receives the SUM of the gradients of both paths, and a shared INTERMEDIATE node passes its
  gradient backwards only once;
- two ``backward()`` calls on new graphs, without ``zero_grad()``, accumulate in the leaf's ``.grad``;
- a second ``backward()`` on the same graph fails (``mt.BackwardError``) except with
  ``retain_graph=True``;
- a constant operand (``requires_grad=False``) keeps ``.grad`` at ``None``;
- a long chain (10 000 nodes or more) does not overflow Python's stack.

Compare with values you compute by hand, not with those your own code returns.
"""

import numpy as np
import pytest

import minitorch as mt

# YOUR CODE HERE: your tests, what the docstring above asks for
