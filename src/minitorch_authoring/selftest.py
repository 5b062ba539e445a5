"""Where ``make test`` runs: in place, or in a clean export of HEAD when the learner has work here.

``make test`` checks the course (the reference, the tooling, the committed stub and notebooks).
It never reads, judges or writes the learner's files, ``src/minitorch/tensor.py`` and
``notebooks/``. They are the learner's work as soon as they differ from what the course's own
tools last wrote there: the stub ``make stubs`` recorded in ``src/minitorch/.stub.sha256``, the
notebooks ``make notebooks`` recorded in ``notebooks/.generated.json`` (so a maintainer's
regenerated stub or notebooks, committed or not, are tested where they are). With learner work
in the checkout, the command runs in a clean export of HEAD (``git archive``) in a temporary
folder, with the same interpreter and ``PYTHONPATH`` pointing at the export's ``src/`` (it comes
before the editable install's path entry, so the export's packages are the ones imported). If
there is no HEAD to export, or HEAD itself holds learner work, it stops with one sentence.

    python -m minitorch_authoring.selftest COMMAND [ARG...]   # make test: make suites
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

from minitorch_authoring import repository

ROOT = repository.ROOT
TENSOR = "src/minitorch/tensor.py"
STUB_MARKER = "src/minitorch/.stub.sha256"
NOTEBOOKS = "notebooks"
MANIFEST = "notebooks/.generated.json"

EXPORTED = ("make test prueba el curso tal como está confirmado (HEAD), en una copia limpia en "
            "{where}, sin leer tu src/minitorch/tensor.py ni tus notebooks/; tu progreso lo "
            "mide `make check`.")
STOPPED = ("make test prueba el curso tal como se distribuye y aquí no puede separarlo de tu "
           "trabajo en src/minitorch/tensor.py y notebooks/, así que no lo ejecuta: tu progreso "
           "lo mide `make check`.")


def learner_work(root: Path = ROOT) -> list[str]:
    """The learner's files under ``root`` that hold something the course's tools did not write."""
    from minitorch_grading import course

    work = []
    tensor, marker = root / TENSOR, root / STUB_MARKER
    recorded = marker.read_text().strip() if marker.is_file() else None
    if not tensor.is_file() or hashlib.sha256(tensor.read_bytes()).hexdigest() != recorded:
        work.append(TENSOR)
    try:
        manifest = json.loads((root / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        manifest = {}
    for path in sorted((root / NOTEBOOKS).glob("*.ipynb")):
        try:
            ours = course._hash_of(path.read_text(encoding="utf-8")) == manifest.get(path.name)
        except (OSError, ValueError):
            ours = False
        if not ours:
            work.append(f"{NOTEBOOKS}/{path.name}")
    work += [f"{NOTEBOOKS}/{name}" for name in sorted(manifest)
             if not (root / NOTEBOOKS / name).is_file()]  # deleted
    work += learner_tests_work(root)
    return work


def learner_tests_work(root: Path = ROOT) -> list[str]:
    """The learner's test files (my_tests/) that are not the skeletons ``make stubs`` wrote."""
    from minitorch_authoring import stubgen
    from minitorch_course.examplar import ALL_FILES, FOLDER

    folder = root / FOLDER
    marks = stubgen._read_marks(folder / stubgen.SKELETON_MARKER)
    work = []
    for name in ALL_FILES:
        path = folder / name
        if not path.is_file() or hashlib.sha256(path.read_bytes()).hexdigest() != marks.get(name):
            work.append(f"{FOLDER}/{name}")
    return work


def export_head(root: Path, dest: Path) -> None:
    """Write the files of HEAD under root (no working-tree change, no ignored file) to dest."""
    def git(*args: str) -> bytes:
        return subprocess.run(["git", "-C", str(root), *args], capture_output=True,
                              check=True).stdout

    top, prefix = git("rev-parse", "--show-toplevel", "--show-prefix").decode().splitlines()
    archive = subprocess.run(["git", "-C", top, "archive", "--format=tar", f"HEAD:{prefix}"],
                             capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(dest, filter="data")


def run(command: list[str], root: Path = ROOT) -> int:
    """Run ``command`` in ``root``, or in an export of HEAD if the learner has work in root."""
    if not learner_work(root):
        return subprocess.call(command, cwd=root)
    with tempfile.TemporaryDirectory(prefix="minitorch-head-") as tmp:
        where = Path(tmp)
        try:
            export_head(root, where)
        except (OSError, subprocess.CalledProcessError, tarfile.TarError):
            print(STOPPED, flush=True)
            return 1
        if learner_work(where):
            print(STOPPED, flush=True)
            return 1
        print(EXPORTED.format(where=where), flush=True)
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(
            p for p in (str(where / "src"), env.get("PYTHONPATH", "")) if p)
        return subprocess.call(command, cwd=where, env=env)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv:
        print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
        return 2
    if shutil.which(argv[0]) is None:
        print(f"selftest: command not found: {argv[0]}", file=sys.stderr)
        return 2
    return run(argv)


if __name__ == "__main__":
    sys.exit(main())
