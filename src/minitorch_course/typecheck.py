"""``mypy --strict`` on the learner's ``tensor.py``: a row of the progress report.

The curriculum's convention is ``mypy --strict`` on ``src/``. The learner's file keeps a
micrograd-like style, so two of ``--strict``'s checks are relaxed for it, and only for it:

- ``--allow-untyped-defs``: each op's ``_backward`` closure stays ``def _backward(g):`` (its body
  is still checked: ``--strict`` includes ``--check-untyped-defs``);
- ``--no-warn-return-any``: the Python operators come from the course's ``TensorBase`` and return
  ``Any`` (they dispatch to the learner's methods), so ``self.sum() * k`` is ``Any``.

Only errors in ``tensor.py`` itself are reported (``--follow-imports=silent``). mypy takes seconds
(longer the first time: NumPy's stubs), so a result is cached by the file's hash, mypy's version
and these options, and mypy's own cache is kept beside it (``~/.cache/minitorch-fase08``).
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

OPTIONS = ("--strict", "--allow-untyped-defs", "--no-warn-return-any", "--follow-imports=silent",
           "--no-error-summary", "--hide-error-context", "--no-color-output", "--no-pretty")
CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "minitorch-fase08"


@dataclass
class TypeReport:
    """mypy's verdict on one file: ``ok`` None when mypy could not run (``problem`` says why)."""

    ok: bool | None
    errors: list[str] = field(default_factory=list)
    seconds: float = 0.0
    cached: bool = False
    problem: str = ""


def _version() -> str | None:
    try:
        from importlib.metadata import version

        return version("mypy")
    except Exception:  # noqa: BLE001 - not installed (or a broken install): no row
        return None


def command(tensor_file: Path) -> list[str]:
    """The mypy command line for ``tensor_file`` (its package's folder is on MYPYPATH)."""
    return [sys.executable, "-m", "mypy", *OPTIONS, "--cache-dir", str(CACHE / "mypy"),
            str(tensor_file)]


def check(tensor_file: Path, use_cache: bool = True) -> TypeReport:
    """Run (or recall) mypy on ``tensor_file``."""
    version = _version()
    if version is None:
        return TypeReport(None, problem="mypy is not installed")
    data = Path(tensor_file).read_bytes()
    key = hashlib.sha256(b"\0".join([data, version.encode(), " ".join(OPTIONS).encode()]))
    memo = CACHE / f"mypy-{key.hexdigest()[:32]}.json"
    if use_cache and memo.is_file():
        try:
            saved = json.loads(memo.read_text(encoding="utf-8"))
            return TypeReport(saved["ok"], saved["errors"], 0.0, cached=True)
        except (ValueError, KeyError, OSError):
            pass
    import minitorch

    package_root = Path(minitorch.__file__).resolve().parents[1]  # where `minitorch` is found
    env = {**os.environ, "MYPYPATH": str(package_root)}
    start = time.perf_counter()
    try:
        done = subprocess.run(command(Path(tensor_file)), capture_output=True, text=True,
                              env=env, timeout=300, check=False)
    except (OSError, subprocess.TimeoutExpired) as err:
        return TypeReport(None, problem=f"mypy did not run: {type(err).__name__}")
    seconds = time.perf_counter() - start
    if done.returncode not in (0, 1):  # 2: mypy itself failed (a crash, bad options)
        return TypeReport(None, seconds=seconds,
                          problem=(done.stderr or done.stdout).strip()[:300])
    name = Path(tensor_file).name
    errors = [line.split(name, 1)[1].lstrip(":") if name in line else line
              for line in done.stdout.splitlines() if ": error:" in line]
    report = TypeReport(not errors, errors, seconds)
    try:
        CACHE.mkdir(parents=True, exist_ok=True)
        memo.write_text(json.dumps({"ok": report.ok, "errors": errors}), encoding="utf-8")
    except OSError:
        pass
    return report
