"""Held-out set of classic learner mistakes (see README.md)."""
