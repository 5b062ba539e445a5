"""The class release is a working learner kit: what ships imports from the release alone, and the
progress report (with its seed replay) works there as in the repository, in both languages.

The release is built as an instructor builds it (``course build`` + ``nbgrader
generate_assignment``). Every command runs in a fresh interpreter whose current folder is the
release, with no ``PYTHONPATH``, and with the editable install of any checkout of this repository
taken off its import path (``ISOLATE``): a learner's environment has the Python packages, not the
repository. Each test also asserts that what was imported lies in the release.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from minitorch_authoring.repository import ROOT
from minitorch_course.check import COMMAND
from minitorch_grading import course

pytestmark = pytest.mark.slow



@pytest.fixture(scope="module")
def release(tmp_path_factory, generated_course) -> Path:
    return generated_course(tmp_path_factory.mktemp("course") / "course")


def learner_env(lang: str = "es") -> dict[str, str]:
    """A learner's terminal: nothing that points at the repository or the reference."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "MINITORCH_IMPL", "NBGRADER_EXECUTION")}
    env.update(MINITORCH_LANG=lang, PYTHONHASHSEED="0", MPLBACKEND="Agg")
    return env


# Run first in every interpreter: off the import path, any folder but the release that holds the
# course's packages (an editable install's path entry or finder).
ISOLATE = """\
import sys, pathlib
_here = pathlib.Path.cwd().resolve()
def _foreign(p):
    q = pathlib.Path(p or ".").resolve()
    return q != _here and ((q / "minitorch_course").is_dir() or (q / "minitorch").is_dir())
sys.path[:] = [p for p in sys.path if not _foreign(p)]
sys.meta_path[:] = [f for f in sys.meta_path if "editable" not in repr(f).lower()]
"""


def python(cwd: Path, code: str, env: dict[str, str], **kwargs) -> subprocess.CompletedProcess:
    """``code`` in a fresh interpreter in ``cwd``, isolated from the repository."""
    return subprocess.run([sys.executable, "-c", ISOLATE + code], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300, **kwargs)


def shipped_modules(release: Path) -> list[str]:
    """Every Python module of the shipped packages, dotted."""
    names = []
    for package in course.PACKAGES:
        for path in sorted((release / package).rglob("*.py")):
            parts = path.relative_to(release).with_suffix("").parts
            names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


def test_the_release_ships_the_packages_and_no_instructor_or_maintainer_code(release):
    assert {p.name for p in release.iterdir() if p.is_dir()} == {*course.PACKAGES, "theory",
                                                                  "my_tests"}
    assert sorted(p.name for p in (release / "my_tests").iterdir()) == sorted(
        path.removeprefix("my_tests/") for path in course.LEARNER_TESTS)  # the skeletons only
    names = shipped_modules(release)
    assert "minitorch_course.check" in names and "minitorch_course.worker.main" in names
    assert not [n for n in names if n.startswith(("minitorch_grading", "minitorch_authoring"))]


def test_every_shipped_module_imports_from_the_release_alone(release):
    names = shipped_modules(release)
    script = (
        "import importlib\n"
        "here = pathlib.Path.cwd().resolve()\n"
        "bad = []\n"
        f"for name in {names!r}:\n"
        "    try:\n"
        "        m = importlib.import_module(name)\n"
        "    except Exception as err:\n"
        "        bad.append(f'{name}: {type(err).__name__}: {err}')\n"
        "        continue\n"
        "    f = pathlib.Path(m.__file__).resolve()\n"
        "    if not f.is_relative_to(here):\n"
        "        bad.append(f'{name} came from {f}')\n"
        "print('\\n'.join(bad))\n"
    )
    done = python(release, script, learner_env())
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "", done.stdout


def _report(cwd: Path, *args: str, lang: str = "es", env_extra: dict | None = None) -> str:
    """``python -m minitorch_course.check ARGS`` (in the release: isolated from the repository)."""
    env = learner_env(lang) | (env_extra or {})
    if cwd == ROOT:
        done = subprocess.run([sys.executable, "-m", "minitorch_course.check", *args], cwd=cwd,
                              env=env, capture_output=True, text=True, timeout=300)
    else:
        done = python(cwd, f"import runpy\nsys.argv = ['check', *{list(args)!r}]\n"
                      "runpy.run_module('minitorch_course.check', run_name='__main__')\n", env)
    assert done.returncode in (0, 1), done.stdout + done.stderr  # 2: it could not check
    assert "Traceback" not in done.stderr, done.stderr
    return done.stdout


def _comparable(text: str) -> str:
    """The report without what differs between two runs or two folders: the duration (or a
    cached mypy result), where the learner's tensor.py lies, and the quiz, whose key a release
    does not hold (its section and its item of the definition of done)."""
    text = re.sub(r"[\d.]+ s\b", "<s>", text)
    text = re.sub(r"\((?:guardado|cached)\)", "(<s>)", text)
    text = re.sub(r"(?:src/)?minitorch/tensor\.py\b", "tensor.py", text)
    text = re.sub(r"\n(?:Cuestionario|Quiz) 08 .*?\n\n", "\n<quiz>\n\n", text, flags=re.S)
    text = re.sub(r"\d+ (de|of) (\d+) (marcados|ticked)", r"<n> \1 \2 \3", text)
    return re.sub(r"\n  \S+ 8\. ", "\n  <mark> 8. ", text)


@pytest.mark.parametrize("lang", ["es", "en"])
def test_the_progress_report_works_in_the_release_as_in_the_repository(release, lang):
    args = ("--examples", "2")
    there = _report(release, *args, lang=lang)
    # the repository, on the same stub (the release's), through the learner's own switch
    here = _report(ROOT, *args, lang=lang, env_extra={
        "PYTHONPATH": str(ROOT / "src"), "MINITORCH_IMPL": "learner"})
    assert "minitorch/tensor.py" in there
    assert _comparable(there) == _comparable(here)
    closing = {"es": "Aún no está todo", "en": "Not everything is there yet"}[lang]
    assert closing in there and COMMAND in there


@pytest.mark.parametrize("lang", ["es", "en"])
def test_the_seed_replay_and_one_op_work_in_the_release(release, lang):
    text = _report(release, "--op", "add", "--seed", "12345", lang=lang)
    assert "12345" in text and "add" in text
    assert f"{COMMAND} --op" in text  # the report names its own command, not make
    assert "make check" not in text
