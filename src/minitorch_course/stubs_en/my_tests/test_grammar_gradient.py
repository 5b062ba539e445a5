# Your tests (written by `make stubs` as a skeleton; from now on it is yours).
# Run them with `python -m pytest my_tests`; `make check` says which kinds of
# mistake they catch.
"""Lab 03 · test_grammar_gradient.py: an end-to-end test with the grammatical
grid.

One-hot person (N, 3) @ weights (3, 5) -> tense logits (N, 5) -> cross_entropy with the
target tenses (0..4): the loss and the gradients of the weights must be torch's
(float64, 1e-7). Use a batch of several rows and random weights with a seed.
"""

import numpy as np
import pytest
import torch

import minitorch as mt

# YOUR CODE HERE: your tests, what the docstring above asks for
