"""The grading worker: the code the worker process may load (the standard library, NumPy,
minitorch and this package only)."""
