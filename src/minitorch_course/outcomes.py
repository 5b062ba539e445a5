"""What a check returns: plain data (JSON-serialisable), never prose.

An ``Outcome`` says which row, suite and case, the status, the ``Fact`` observed (a message id
and its parameters) and the ``Diagnosis`` (a kind from ``catalog.KINDS``, a message id and its
parameters). ``minitorch_course.messages`` turns them into text where they are shown; a worker
process can send them as JSON (``to_dict`` / ``from_dict``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

PASS, FAIL, NOT_STARTED, SKIP = "pass", "fail", "not started", "n/a"
SUITES = ("forward", "backward", "gradcheck", "broadcast", "property")


def plain(value: Any) -> Any:
    """``value`` as JSON-native data: tuples become lists, NumPy scalars Python numbers."""
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if isinstance(value, np.ndarray):
        return plain(value.tolist())
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    if value is None or isinstance(value, bool | int | float | str):
        return value
    raise TypeError(f"not plain data: {type(value).__name__} {value!r}")


@dataclass
class Fact:
    """Something a check observed: a message id (``messages.TEXT``) and its parameters."""

    id: str
    params: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.params = plain(self.params)


@dataclass
class Diagnosis:
    """The likely mistake: a stable ``kind`` (``catalog.KINDS``), a message id (a generic one in
    ``messages.TEXT`` or a catalog mistake's id) and the parameters its text needs."""

    kind: str
    id: str = ""
    params: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.params = plain(self.params)


class StandIn:
    """Mixed into an exception that stands for one raised elsewhere (in the grading worker):
    only its type's names, message and fields came back, with its ``frames``
    (``traceback.FrameSummary``) and the qualified name of the ``function`` that raised it."""

    frames: list = []
    function: str = ""


@dataclass
class Outcome:
    """The verdict of one check on one case."""

    row: str
    suite: str
    status: str  # pass | fail | not started | n/a
    case: str = ""
    fact: Fact | None = None
    diagnosis: Diagnosis | None = None
    size: int = 0  # total number of input elements of the case: the smallest failure is shown
    # how little the case can tell mistakes apart (0 best): a generic diagnosis, then a case
    # with a one-element or 1-D input; the most telling failing case is the one explained
    rank: int = 0

    @property
    def passed(self) -> bool:
        return self.status in (PASS, SKIP)

    @property
    def kind(self) -> str:
        return self.diagnosis.kind if self.diagnosis else ""

    def to_dict(self) -> dict:
        return plain({"row": self.row, "suite": self.suite, "status": self.status,
                      "case": self.case, "size": self.size, "rank": self.rank,
                      "fact": None if self.fact is None else vars(self.fact),
                      "diagnosis": None if self.diagnosis is None else vars(self.diagnosis)})

    @classmethod
    def from_dict(cls, d: dict) -> Outcome:
        return cls(d["row"], d["suite"], d["status"], d["case"],
                   Fact(**d["fact"]) if d["fact"] else None,
                   Diagnosis(**d["diagnosis"]) if d["diagnosis"] else None, d["size"],
                   d.get("rank", 0))


class CheckFailed(AssertionError):
    """A failed check inside a suite, as data: what was observed and the likely mistake."""

    def __init__(self, fact: Fact, diagnosis: Diagnosis | None = None) -> None:
        super().__init__(fact.id)
        self.fact = fact
        self.diagnosis = diagnosis


def telling(outcomes: list[Outcome]) -> Outcome:
    """The failure to explain: the case that best tells mistakes apart, then the smallest."""
    return min(outcomes, key=lambda o: (o.rank, o.size))


def summarize(outcomes: list[Outcome]) -> str:
    """pass / fail / not started / n/a for a list of outcomes."""
    if not outcomes:
        return SKIP
    if any(o.status == NOT_STARTED for o in outcomes):
        return NOT_STARTED
    return PASS if all(o.passed for o in outcomes) else FAIL


@dataclass
class RowReport:
    """Every suite's outcomes for one catalog row (an op or an engine row)."""

    row: str
    lab: str
    points: int
    engine: bool
    suites: dict[str, list[Outcome]] = field(default_factory=dict)

    def summary(self, suite: str) -> str:
        return summarize(self.suites.get(suite, []))

    @property
    def not_started(self) -> bool:
        states = [self.summary(s) for s in self.suites]
        states = [s for s in states if s != SKIP]
        return bool(states) and all(s == NOT_STARTED for s in states)

    @property
    def status(self) -> str:
        states = {self.summary(s) for s in self.suites}
        if FAIL in states:
            return FAIL
        if NOT_STARTED in states:
            return NOT_STARTED
        return PASS

    def earned(self, graded: tuple[str, ...]) -> int:
        suites = ("engine",) if self.engine else graded
        return self.points if all(self.summary(s) in (PASS, SKIP) for s in suites) else 0

    @property
    def first_failure(self) -> Outcome | None:
        """The failure to fix first: the earliest suite's, and within it the most telling case
        (``telling``)."""
        for outcomes in self.suites.values():
            bad = [o for o in outcomes if o.status == FAIL]
            if bad:
                return telling(bad)
        return None

    @property
    def first_problem(self) -> Outcome | None:
        """What a graded cell reports: the first 'not started', else the first failure."""
        todo = [o for outs in self.suites.values() for o in outs if o.status == NOT_STARTED]
        return todo[0] if todo else self.first_failure

    def to_dict(self) -> dict:
        return {"row": self.row, "lab": self.lab, "points": self.points, "engine": self.engine,
                "suites": {s: [o.to_dict() for o in outs] for s, outs in self.suites.items()}}

    @classmethod
    def from_dict(cls, d: dict) -> RowReport:
        return cls(d["row"], d["lab"], d["points"], d["engine"],
                   {s: [Outcome.from_dict(o) for o in outs] for s, outs in d["suites"].items()})
