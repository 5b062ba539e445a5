import pytest
from minitorch_course import classrun
_orig = classrun.malformed
classrun.malformed = lambda path, expected: None  # before the fix: no pre-check
from test_classrun import *  # noqa
