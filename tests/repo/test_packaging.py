"""Set-up files agree with each other: pyproject, environment.yml, Makefile, CI entry, README."""

from __future__ import annotations

import os
import re
import subprocess
import tomllib

import pytest
import yaml

from minitorch_authoring.repository import ROOT


def _names(requirements):
    return {re.split(r"[<>=!~ \[]", r, maxsplit=1)[0].lower(): r.replace(" ", "")
            for r in requirements}


def test_environment_yml_lists_the_same_dependencies_as_pyproject():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    wanted = _names(project["dependencies"] + extras["course"] + extras["test"] + extras["site"])
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    pip_lines = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict))
    listed = _names(p for p in pip_lines if not p.startswith("-e"))
    assert listed == wanted


def test_a_learners_installation_holds_no_grading_tools():
    """Dask (the instructor's class run in parallel) is the `grading` extra: not in the extras
    `make lab` installs nor in environment.yml (the learner's conda route); the targets that
    grade a class or test that they do install it."""
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]
    grading = set(_names(extras["grading"]))
    assert "distributed" in grading
    makefile = (ROOT / "Makefile").read_text()
    learner = re.search(r"pip install --quiet -e '\.\[([a-z,]+)\]'", makefile)
    assert learner, "the Makefile's installation line moved: update this test"
    for extra in learner.group(1).split(","):
        assert not grading & set(_names(extras[extra])), extra
    assert not grading & set(_names(
        p for d in yaml.safe_load((ROOT / "environment.yml").read_text())["dependencies"]
        if isinstance(d, dict) for p in d["pip"]))
    for target in ("test", "quick", "class-bench"):
        line = re.search(rf"^{target}:(.*)##", makefile, re.M)
        assert line and "$(GRADING_STAMP)" in line.group(1), target


def test_torch_is_pinned_to_the_local_cpu_wheel():
    text = (ROOT / "pyproject.toml").read_text()
    assert '"torch==2.13.0"' in text
    assert "torch==2.13.0" in (ROOT / "environment.yml").read_text()


def test_ci_runs_make_test():
    assert "make test" in (ROOT / ".ci" / "run").read_text()


def _system_deps() -> dict[str, str]:
    """The Makefile's SYSTEM_DEPS: command -> Debian package."""
    line = re.search(r"^SYSTEM_DEPS := (.*)$", (ROOT / "Makefile").read_text(), re.M)
    assert line, "the Makefile has no SYSTEM_DEPS list"
    return dict(pair.split(":") for pair in line.group(1).split())


def test_ci_installs_the_system_packages_before_make_test():
    commands = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()
                if line.strip().startswith("make ")]
    assert commands == ["make system-deps", "make test"], commands


def test_the_readme_lists_every_system_package_and_who_needs_it():
    """One list of what the system needs: each Debian package `make system-deps` installs is a
    row of the README's table, and the suites' browser and sandbox are among them."""
    deps = _system_deps()
    assert {"chromium", "npm", "bubblewrap"} <= set(deps.values()), deps
    readme = (ROOT / "README.md").read_text()
    table = readme[readme.index("### Qué necesita el sistema"):]
    table = table[:table.index("\n\n", table.index("|"))]
    rows = [line for line in table.splitlines() if line.startswith("| ")]
    for package in deps.values():
        assert any(f"`{package}`" in row.split("|")[1] for row in rows), (package, rows)


def _make_system_deps(tmp_path, deps: str, path: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    env["PATH"] = path
    make = subprocess.run(["which", "make"], capture_output=True, text=True).stdout.strip()
    return subprocess.run([make, "--no-print-directory", "system-deps", f"SYSTEM_DEPS={deps}"],
                          cwd=ROOT, env=env, capture_output=True, text=True)


def test_system_deps_installs_nothing_when_everything_is_there(tmp_path):
    done = _make_system_deps(tmp_path, "sh:dash", os.environ["PATH"])
    assert done.returncode == 0 and "all present (dash)" in done.stdout, done
    assert "apt-get" not in done.stdout + done.stderr


def test_system_deps_names_what_is_missing_without_apt_get(tmp_path):
    """Without Debian's apt-get, a missing package is named, not guessed at."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("sh", "bash", "id"):  # what the recipe itself runs
        found = subprocess.run(["which", tool], capture_output=True, text=True).stdout.strip()
        (bin_dir / tool).symlink_to(found)
    done = _make_system_deps(tmp_path, "sh:dash fase08-no-such-tool:fase08-pkg", str(bin_dir))
    assert done.returncode != 0, done
    assert "missing: fase08-pkg" in done.stderr and "dash" not in done.stderr, done.stderr


def test_makefile_has_the_two_setup_commands_and_each_installs():
    text = (ROOT / "Makefile").read_text()
    assert re.search(r"^lab: \$\(STAMP\)", text, re.M)
    assert re.search(r"^test: \$\(STAMP\)", text, re.M)
    assert "pip install" in text and "-m venv" in text


def test_readme_shows_the_learners_two_commands_first():
    text = (ROOT / "README.md").read_text()
    first_commands = re.findall(r"^make \w+", text, re.M)[:2]
    assert first_commands == ["make lab", "make check"]


README_ENGLISH = "\n## For learners (English)\n"  # README.md: the learner's part in English


def test_the_readme_mirrors_the_learners_part_in_english():
    """The English route reads README.md's learner part in English: linked both ways, the same
    make commands as the Spanish part, the same hiding step, and how to get English output and
    English specifications."""
    text = (ROOT / "README.md").read_text()
    learner = text.split("\n## For instructors")[0]
    assert README_ENGLISH in learner, "README.md has no English learner's part"
    spanish, english = learner.split(README_ENGLISH)
    assert "](#for-learners-english)" in spanish and "](#empezar)" in english
    assert "](#qué-necesita-el-sistema)" in english  # that table is linked, not mirrored
    table = spanish.index("### Qué necesita el sistema")
    named = spanish[:table] + spanish[spanish.index("\n## ", table):]
    commands = set(re.findall(r"`(make [\w-]+)", named))
    assert commands and commands <= set(re.findall(r"`(make [\w-]+)", english)), commands
    hiding = re.compile(r"^\s*(git sparse-checkout set [^#\n]+?)\s*#", re.M)
    assert hiding.findall(spanish) == hiding.findall(english) != []
    for needed in ("MINITORCH_LANG=en make check", "make english", "make english FORCE=1",
                   "notebooks/en/", "theory/en/README.md"):
        assert needed in english, needed


def test_license_is_an_spdx_expression():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert isinstance(project["project"]["license"], str)  # a TOML table is deprecated
    assert "setuptools>=77" in project["build-system"]["requires"]  # reads SPDX strings


def _dry_run(target: str, **active: str) -> str:
    """``make -n TARGET`` with these environment variables and no other environment active."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("VIRTUAL_ENV", "CONDA_PREFIX", "CONDA_DEFAULT_ENV", "MAKEFLAGS", "MFLAGS",
                        "MAKELEVEL")}
    env.update(active)
    return subprocess.run(["make", "-n", target], cwd=ROOT, env=env, capture_output=True,
                          text=True, check=True).stdout


@pytest.mark.parametrize("active, used", [
    ({"VIRTUAL_ENV": "/tmp/fase08-venv"}, "/tmp/fase08-venv"),
    ({"CONDA_PREFIX": "/opt/conda/envs/fase08", "CONDA_DEFAULT_ENV": "fase08"},
     "/opt/conda/envs/fase08"),
    ({"CONDA_PREFIX": "/opt/conda", "CONDA_DEFAULT_ENV": "base"}, None),  # active everywhere
    ({}, None),
], ids=["venv", "conda", "conda-base", "none"])
def test_lab_and_check_use_the_active_environment(active, used):
    python = f"{used or ROOT / '.venv'}/bin/python"
    for target, module in (("lab", "minitorch_authoring.lab"), ("check", "minitorch_course.check"),
                           ("english", "minitorch_course.stubfiles en")):
        commands = _dry_run(target, **active)
        assert f"{python} -m {module}" in commands, commands
        if used:  # installs into it if needed, never creates .venv
            assert "-m venv" not in commands and ".venv" not in commands, commands


@pytest.mark.parametrize("status", [0, 1, 2], ids=["all-pass", "work-pending", "cannot-check"])
def test_make_check_ends_with_a_sentence_not_a_make_error(tmp_path, status):
    """`make check` with a stand-in interpreter that prints a table and exits with ``status``:
    make asks check_cli for its closing sentence (``--closing``, tested in test_check_cli) and
    does not turn pending work into make's "Error 1"."""
    fake = tmp_path / "bin" / "python"
    fake.parent.mkdir()
    fake.write_text(f"#!/bin/sh\necho 'the table' \"$@\"\nexit {status}\n")
    fake.chmod(0o755)
    stamp = tmp_path / "installed"
    stamp.touch()
    os.utime(stamp, (4e9, 4e9))  # newer than pyproject.toml: nothing to install
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    args = ["make", "--no-print-directory", "check", f"BIN={fake.parent}", f"STAMP={stamp}",
            "COMPILED="]  # no message catalog to compile with the stand-in
    done = subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True)
    lines = done.stdout.strip().splitlines()
    assert done.returncode == 0 and "make: ***" not in done.stderr, done.stdout + done.stderr
    assert lines[-1].startswith("the table") and "--closing" in lines[-1].split(), lines
    strict = subprocess.run(args + ["STRICT=1"], cwd=ROOT, env=env, capture_output=True)
    assert (strict.returncode == 0) == (status == 0)
