"""Start JupyterLab on the lab notebooks: ``make lab`` runs ``python -m minitorch_authoring.lab``.

    python -m minitorch_authoring.lab [--port 8888] [--token TOKEN] [--no-browser] [--instructor]

The server's root is the repository, so the learner can open both ``notebooks/`` (where the
browser lands) and ``src/minitorch/tensor.py`` (the file they edit) in the same JupyterLab, and
the notebooks' links to ``theory/`` work. The settings shipped in ``jupyter/learner/`` open
Markdown files in the rendered preview (``overrides.json``) and hide nbgrader's instructor
interface, the formgrader, "Create Assignment" and the course list (``page_config.json``; their
server extensions are switched off too). ``--instructor`` (``make lab INSTRUCTOR=1``) starts a
plain JupyterLab with all of nbgrader instead, rooted at the course directory ``course.COURSE_DIR``
(built first if missing) in the grading environment (``course.grading_env``).

``--allow-root`` is passed only when running as root (containers), never otherwise. The URL,
with its token, is printed before the server starts.
"""

from __future__ import annotations

import argparse
import os
import secrets
import socket
import sys
from pathlib import Path

from minitorch_authoring import repository
from minitorch_course.i18n import _, t
from minitorch_grading import course

ROOT = repository.ROOT
NOTEBOOKS = "notebooks"


def notebooks_folder() -> str:
    """Where JupyterLab opens: the learner's labs, notebooks/en/ with MINITORCH_LANG=en."""
    from minitorch_course.i18n import language

    return f"{NOTEBOOKS}/en" if language() == "en" else NOTEBOOKS
LEARNER_SETTINGS = ROOT / "jupyter" / "learner"  # overrides.json, page_config.json
INSTRUCTOR_SERVER_EXTENSIONS = ("nbgrader.server_extensions.formgrader",
                                "nbgrader.server_extensions.course_list")


def free_port(start: int, host: str = "127.0.0.1", tries: int = 50) -> int:
    """``start`` if it is free on ``host``, else the next free one."""
    for port in range(start, start + tries):
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            try:
                s.bind((host, port))
            except OSError:
                continue
            return port
    raise RuntimeError(t("no free port in {first}..{last}", first=start, last=start + tries - 1))


def is_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


def command(port: int, token: str, *, host: str = "127.0.0.1", browser: bool = True,
            root_dir: Path = ROOT, instructor: bool = False) -> list[str]:
    """The ``jupyter lab`` command line: the learner's, or with ``instructor`` all of nbgrader."""
    cmd = [sys.executable, "-m", "jupyterlab", f"--ServerApp.ip={host}", f"--ServerApp.port={port}",
           "--ServerApp.port_retries=0", f"--ServerApp.root_dir={root_dir}",
           f"--IdentityProvider.token={token}"]
    if not instructor:
        cmd += [f"--LabApp.default_url=/lab/tree/{notebooks_folder()}",
                f"--LabApp.app_settings_dir={LEARNER_SETTINGS}"]
        for extension in INSTRUCTOR_SERVER_EXTENSIONS:
            cmd += ["--ServerApp.jpserver_extensions", f"{extension}=False"]
    if not browser:
        cmd.append("--no-browser")
    if is_root():
        cmd.append("--allow-root")
    return cmd


def env() -> dict[str, str]:
    """The learner's environment: their own tensor.py, never the reference."""
    e = dict(os.environ)
    if e.get("MINITORCH_IMPL", "learner") != "learner":
        print(t("note: MINITORCH_IMPL={impl} ignored; the lab uses your tensor.py",
                impl=e["MINITORCH_IMPL"]), file=sys.stderr)
    e["MINITORCH_IMPL"] = "learner"
    e.setdefault("PYTHONHASHSEED", "0")
    # JupyterLab's terminals and `!python` run this environment's interpreter first, so the
    # progress report (`python -m minitorch_course.check`) works there without activating it
    bindir = str(Path(sys.executable).parent)
    e["PATH"] = os.pathsep.join([bindir, e["PATH"]]) if e.get("PATH") else bindir
    return e


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m minitorch_authoring.lab",
                                     description="Start JupyterLab on notebooks/.")
    parser.add_argument("--port", type=int, default=8888,
                        help="first port to try (the next free one is used)")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--token", default=None, help="access token (default: random)")
    parser.add_argument("--no-browser", action="store_true", help="do not open a browser")
    parser.add_argument("--instructor", action="store_true",
                        help="nbgrader's formgrader and course tools, on the course directory")
    args = parser.parse_args(argv)
    port = free_port(args.port, args.host)
    token = args.token or secrets.token_hex(16)
    if args.instructor:
        if not (course.COURSE_DIR / "nbgrader_config.py").is_file():
            course.build(course.COURSE_DIR)
        root, path = course.COURSE_DIR, "lab"
        print(f"JupyterLab (instructor: nbgrader, formgrader) on {root}", flush=True)
    else:
        root, path = ROOT, f"lab/tree/{notebooks_folder()}"
        print(t("JupyterLab on {path}", path=str(ROOT / notebooks_folder())), flush=True)
    cmd = command(port, token, host=args.host, browser=not args.no_browser, root_dir=root,
                  instructor=args.instructor)
    print(f"    http://{args.host}:{port}/{path}?token={token}", flush=True)
    if not args.instructor:
        print(_("Edit src/minitorch/tensor.py, save it and run the cell again. To stop: "
                "Ctrl-C."), flush=True)
    environment = course.grading_env() if args.instructor else env()
    os.chdir(root)
    os.execve(sys.executable, cmd, environment)
    return 0  # not reached


if __name__ == "__main__":
    sys.exit(main())
