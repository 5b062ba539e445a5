"""The class's report of record: ``reports/record-<time>.{txt,json}`` (seed, scores, flags)."""

from __future__ import annotations

import json
import time
from dataclasses import asdict
from pathlib import Path

from minitorch_course.check import COMMAND as CHECK_COMMAND
from minitorch_grading import course
from minitorch_grading.record.submission import Record

REPORTS = "reports"


def report_text(seed: int, records: list[Record], seconds: float) -> str:
    lines = [f"Scores of record of {course.ASSIGNMENT}: {len(records)} submissions in "
             f"{seconds:.0f} s, seed {seed} ({CHECK_COMMAND} --seed {seed} reproduces a case)", ""]
    for rec in records:
        got, most = rec.total
        lines.append(f"{rec.student}: {got:g}/{most:g}"
                     + (f"  [worker: {rec.problem}]" if rec.problem else ""))
        for flag in rec.flags:
            lines.append(f"  FLAG {flag}")
    flagged = [r.student for r in records if r.flags]
    lines += ["", f"Flagged for the instructor ({len(flagged)}): {', '.join(flagged) or '-'}"]
    return "\n".join(lines) + "\n"


def write_report(course_dir: Path, seed: int, records: list[Record], seconds: float) -> Path:
    folder = course_dir / REPORTS
    folder.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    path = folder / f"record-{stamp}.txt"
    path.write_text(report_text(seed, records, seconds), encoding="utf-8")
    path.with_suffix(".json").write_text(json.dumps(
        {"seed": seed, "seconds": round(seconds, 1),
         "submissions": [asdict(r) for r in records]}, indent=1), encoding="utf-8")
    return path

