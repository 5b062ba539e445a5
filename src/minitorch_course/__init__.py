"""Course tooling for minitorch: the op catalog, checks, grading and generators."""
