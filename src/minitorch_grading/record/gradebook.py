"""The record written into the course: nbgrader's gradebook (auto scores) and the feedback
cell at the top of each autograded notebook."""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterable
from pathlib import Path

from minitorch_course.check import COMMAND as CHECK_COMMAND
from minitorch_grading import course
from minitorch_grading.record.submission import Record, say


def write_gradebook(course_dir: Path, rec: Record) -> list[str]:
    """Write the record's scores as nbgrader auto scores; returns flags: in-kernel scores
    above the record's (what a notebook hack would show)."""
    from nbgrader.api import Gradebook, MissingEntry
    from sqlalchemy.exc import SAWarning

    flags = []
    url = f"sqlite:///{course_dir / 'gradebook.db'}"
    with Gradebook(url, course_id=course.COURSE_ID) as gb, warnings.catch_warnings():
        warnings.simplefilter("ignore", SAWarning)
        gb.update_or_create_student(rec.student)
        try:
            gb.find_submission(course.ASSIGNMENT, rec.student)
        except MissingEntry:
            gb.update_or_create_submission(course.ASSIGNMENT, rec.student)
        for notebook, cells in rec.cells.items():
            for grade_id, (score, _) in cells.items():
                try:
                    grade = gb.find_grade(grade_id, notebook, course.ASSIGNMENT, rec.student)
                except MissingEntry:
                    continue
                if grade.auto_score is not None and grade.auto_score > score:
                    flags.append(f"{notebook}/{grade_id}: the kernel scored "
                                 f"{grade.auto_score:g}, the record {score:g}")
                grade.auto_score = score
                if grade.manual_score is None:
                    grade.needs_manual_grade = False
        gb.db.commit()
    return flags


def feedback_cell(rec: Record, notebook: str) -> dict:
    """The Markdown cell put at the top of an autograded notebook (its feedback page)."""
    lines = [f"**{say('record-header', seed=rec.seed, command=CHECK_COMMAND)}**", ""]
    for grade_id, (score, points) in rec.cells.get(notebook, {}).items():
        why = rec.failures.get(f"{notebook}/{grade_id}", "")
        lines.append(say("record-cell", cell=grade_id, score=score, points=points)
                     + (f" — {why}" if why and score < points else ""))
    return {"cell_type": "markdown", "metadata": {"minitorch_record": True},
            "source": "\n".join(lines)}


def annotate_feedback(course_dir: Path, rec: Record) -> None:
    """Put the record (seed and scores) at the top of each autograded notebook, which nbgrader's
    generate_feedback turns into the learner's feedback page."""
    folder = course_dir / "autograded" / rec.student / course.ASSIGNMENT
    for notebook in rec.cells:
        path = folder / f"{notebook}.ipynb"
        if not path.is_file():
            continue
        nb = json.loads(path.read_text(encoding="utf-8"))
        nb["cells"] = [c for c in nb["cells"]
                       if not c.get("metadata", {}).get("minitorch_record")]
        nb["cells"].insert(0, feedback_cell(rec, notebook))
        path.write_text(json.dumps(nb, indent=1, ensure_ascii=False), encoding="utf-8")



def write_record(course_dir: Path, rec: Record, manual: Iterable[str] = ()) -> None:
    """One learner's scores of record written into ``course_dir``: its gradebook's cells and
    the feedback cells of its autograded notebooks. The notebooks in ``manual`` (flagged for
    a human by the class run) are left alone; a course without a gradebook gets nothing."""
    for notebook in manual:
        rec.cells.pop(notebook, None)
    if (course_dir / "gradebook.db").is_file():
        rec.flags += write_gradebook(course_dir, rec)
        annotate_feedback(course_dir, rec)

