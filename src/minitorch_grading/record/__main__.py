"""``python -m minitorch_grading.record``: the record of every submission."""

from minitorch_grading.record import main

raise SystemExit(main())
