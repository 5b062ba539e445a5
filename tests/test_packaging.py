"""Set-up files agree with each other: pyproject, environment.yml, Makefile, CI entry, README."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]


def _names(requirements):
    return {re.split(r"[<>=!~ \[]", r, maxsplit=1)[0].lower(): r.replace(" ", "")
            for r in requirements}


def test_environment_yml_lists_the_same_dependencies_as_pyproject():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = _names(project["dependencies"] + project["optional-dependencies"]["course"]
                    + project["optional-dependencies"]["test"])
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    pip_lines = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict))
    listed = _names(p for p in pip_lines if not p.startswith("-e"))
    assert listed == wanted


def test_torch_is_pinned_to_the_local_cpu_wheel():
    text = (ROOT / "pyproject.toml").read_text()
    assert '"torch==2.13.0"' in text
    assert "torch==2.13.0" in (ROOT / "environment.yml").read_text()


def test_ci_runs_make_test():
    assert "make test" in (ROOT / ".ci" / "run").read_text()


def test_makefile_has_the_two_setup_commands_and_each_installs():
    text = (ROOT / "Makefile").read_text()
    assert re.search(r"^lab: \$\(STAMP\)", text, re.M)
    assert re.search(r"^test: \$\(STAMP\)", text, re.M)
    assert "pip install" in text and "-m venv" in text


def test_readme_shows_make_lab_and_make_test_first():
    text = (ROOT / "README.md").read_text()
    first_commands = re.findall(r"^make \w+", text, re.M)[:2]
    assert first_commands == ["make lab", "make test"]
