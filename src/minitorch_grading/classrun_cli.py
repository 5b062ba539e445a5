"""The class run's command line: ``python -m minitorch_grading.classrun autograde|export``
(or ``python -m minitorch_grading.classrun_cli``). Instructor tooling (never ships).

``autograde`` runs in parallel on a Dask cluster by default (``minitorch_grading.parallel``);
``--serial`` runs learner after learner in this process (``minitorch_grading.classrun``). This
module is the one that knows both, so that neither imports the other's caller.
"""

from __future__ import annotations

from pathlib import Path

from minitorch_grading import classrun, course, parallel


def autograde(course_dir: Path, budget: float = classrun.BUDGET, pattern: str = "*",
              force: bool = False, seed: int | None = None, unsafe: bool = False,
              serial: bool = False, scheduler: str | None = None,
              workers: int | None = None) -> int:
    """``classrun autograde``: serially in this process, or each learner's whole job on a Dask
    cluster (``scheduler``'s, or a local one of ``workers``, default every core)."""
    if serial:
        return classrun.autograde_command(course_dir, budget, pattern, force, seed, unsafe)
    return parallel.autograde(course_dir, budget, pattern, force, seed, unsafe, scheduler,
                              workers)


def default_course_dir() -> Path:
    """The course directory the instructor is in (its ``nbgrader_config.py`` is this course's,
    as docs/INSTRUCTOR.md says to run the commands), else the default one of the instructor's
    language (``~/minitorch-fase08-course``, ``-en`` with ``MINITORCH_LANG=en``)."""
    from minitorch_course import i18n

    config = Path.cwd() / "nbgrader_config.py"
    if config.is_file() and config.read_text(encoding="utf-8").startswith(course.CONFIG_HEADER):
        return Path.cwd()
    return course.default_course_dir(i18n.language())


def main(argv: list[str] | None = None) -> int:
    """``python -m minitorch_grading.classrun autograde|export``."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m minitorch_grading.classrun",
                                     description=classrun.__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    for name, text in (("autograde", "grade every submission learner by learner, within a "
                        "time budget, and report"),
                       ("export", "grades-by-notebook.csv: per-notebook scores, quiz passed")):
        cmd = sub.add_parser(name, help=text)
        cmd.add_argument("--course-dir", type=Path, default=None,
                         help="the course directory (default: the current directory if it is "
                              f"one, else {course.COURSE_DIR}, or its -en twin in English)")
        if name == "autograde":
            cmd.add_argument("--budget", type=float, default=classrun.BUDGET,
                             help=f"seconds per submission, all notebooks (default {classrun.BUDGET})")
            cmd.add_argument("--student", default="*", help="only learners matching this glob")
            cmd.add_argument("--force", action="store_true",
                             help="regrade submissions already autograded")
            cmd.add_argument("--seed", type=int, default=None,
                             help="the grading seed of the inputs' values (default: chosen now)")
            cmd.add_argument("--unsafe-no-sandbox", action="store_true",
                             help="run learner code WITHOUT the OS sandbox, as you (never for "
                                  "a real class: docs/INSTRUCTOR.md)")
            how = cmd.add_mutually_exclusive_group()
            how.add_argument("--serial", action="store_true",
                             help="one learner after another in this process (no Dask)")
            how.add_argument("--scheduler", metavar="ADDRESS", default=None,
                             help="an existing Dask cluster's scheduler (tcp://host:8786); "
                                  "default: a local cluster, one worker per core")
            how.add_argument("--workers", type=int, default=None,
                             help="the local cluster's worker processes (default: every core)")
    args = parser.parse_args(argv)
    args.course_dir = args.course_dir or default_course_dir()
    if args.command == "export":
        return classrun.export_command(args.course_dir)
    return autograde(args.course_dir, budget=args.budget, pattern=args.student,
                     force=args.force, seed=args.seed, unsafe=args.unsafe_no_sandbox,
                     serial=args.serial, scheduler=args.scheduler, workers=args.workers)



if __name__ == "__main__":
    raise SystemExit(main())
