"""The learner's generated files, and the switch of the unedited ones to English.

The stubs ``minitorch/tensor.py`` and ``minitorch/mlp.py`` and the test skeletons in
``my_tests/`` are generated from the reference (``minitorch_authoring.stubgen``, ``make stubs``),
in Spanish by default. Their English versions are generated too and ship here, in ``stubs_en/``
(``stubgen --check --lang en`` keeps them current), so that a learner on the English route gets
English specifications without ``solutions/``:

    python -m minitorch_course.stubfiles en            # `make english`: the unedited files
    python -m minitorch_course.stubfiles en --force    # `make english FORCE=1`: edited ones too,
                                                       # each backed up first

A file is the learner's once it differs from what a tool last wrote there: the marker beside it
records that (``.stub.sha256``, ``.stub.mlp.sha256``, ``my_tests/.skeletons.sha256``; and
``stubs_en/spanish.sha256`` the generated Spanish files, for a copy without markers), and
``write_protected`` (also ``make stubs``'s) never overwrites such a file without ``force``.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
import time
from pathlib import Path

from minitorch_course import i18n
from minitorch_course.i18n import t

ENGLISH = Path(__file__).resolve().parent / "stubs_en"  # tensor.py, mlp.py, my_tests/*.py
SKELETONS = "my_tests"  # the learner's test folder (examplar.FOLDER), and stubs_en/'s
SKELETON_MARKER = ".skeletons.sha256"  # "hash  name" per skeleton a tool wrote
STUB_MARKERS = {"tensor.py": ".stub.sha256", "mlp.py": ".stub.mlp.sha256"}  # beside the stub
# "hash  path" of each Spanish file the English copies replace (tensor.py, mlp.py,
# my_tests/NAME): a file still equal to it is unedited even where no marker says so (a class
# release ships none)
SPANISH = ENGLISH / "spanish.sha256"


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def read_marks(path: Path) -> dict[str, str]:
    """{file name: hash} of a skeleton marker."""
    if not path.exists():
        return {}
    pairs = (line.split(None, 1) for line in path.read_text().splitlines() if line.strip())
    return {name.strip(): digest for digest, name in pairs}


def write_marks(path: Path, marks: dict[str, str]) -> None:
    path.write_text("".join(f"{digest}  {name}\n" for name, digest in sorted(marks.items())))


def write_protected(target: Path, text: str, last: str | None, force: bool,
                    command: str = "make stubs") -> int:
    """Write ``text`` to ``target`` unless it holds the learner's work: 0 written or already
    current, 2 refused. ``last`` is the hash of what a tool last wrote there; ``force``
    backs the learner's file up to ``NAME.bak-<time>`` first. ``command``: the make target
    that wrote it, named in the refusal (with ``FORCE=1``)."""
    current = target.read_text(encoding="utf-8") if target.exists() else None
    if current == text:
        return 0
    if current is not None and sha(current) != last:
        if not force:
            print(t("refusing to overwrite {target}: it differs from every stub this tool wrote, "
                    "so it holds your own work. To replace it anyway, run `{command} FORCE=1` "
                    "(a backup is kept).", target=str(target), command=command), file=sys.stderr)
            return 2
        backup = target.with_name(f"{target.name}.bak-{time.strftime('%Y%m%d-%H%M%S')}")
        backup.write_text(current, encoding="utf-8")
        print(t("backed up your {name} to {backup}", name=target.name, backup=str(backup)))
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")
    print(f"wrote {target}")
    return 0


def learner_root() -> Path:
    """The folder holding the learner's package ``minitorch/`` and ``my_tests/``: the
    repository (``src/minitorch``) or a class release (``minitorch`` at its top), found without
    importing the learner's code."""
    spec = importlib.util.find_spec("minitorch")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("minitorch is not importable: run this from the course's environment")
    package = Path(next(iter(spec.submodule_search_locations))).resolve()
    return package.parent.parent if package.parent.name == "src" else package.parent


def to_english(force: bool = False, root: Path | None = None,
               english: Path = ENGLISH) -> int:
    """Switch the learner's generated files to their English versions from ``english``: each
    unedited one (or, with ``force``, every one, edited ones backed up first), and write
    ``.minitorch-lang`` (``en``) at ``root`` so that ``make check`` run there speaks English.
    0 done, 2 if some file was left alone because it holds the learner's work."""
    root = root or learner_root()
    package = root / "src" / "minitorch" if (root / "src" / "minitorch").is_dir() \
        else root / "minitorch"
    spanish = read_marks(english / SPANISH.name)

    def unedited(target: Path, key: str, last: str | None) -> str | None:
        """``last``, or the target's own hash when it is still the generated Spanish file."""
        if target.is_file() and spanish.get(key) == sha(target.read_text(encoding="utf-8")):
            return spanish[key]
        return last

    status = 0
    for name, marker_name in STUB_MARKERS.items():
        text = (english / name).read_text(encoding="utf-8")
        target, marker = package / name, package / marker_name
        last = unedited(target, name, marker.read_text().strip() if marker.exists() else None)
        code = write_protected(target, text, last, force, "make english")
        if code == 0:
            marker.write_text(sha(text) + "\n")
        status = max(status, code)
    folder = root / SKELETONS
    marks = read_marks(folder / SKELETON_MARKER)
    for source in sorted((english / SKELETONS).glob("test_*.py")):
        text = source.read_text(encoding="utf-8")
        key = f"{SKELETONS}/{source.name}"
        code = write_protected(folder / source.name, text,
                               unedited(folder / source.name, key, marks.get(source.name)), force,
                               "make english")
        if code == 0:
            marks[source.name] = sha(text)
        status = max(status, code)
    write_marks(folder / SKELETON_MARKER, marks)
    # and what the course prints from here (make check) speaks English without MINITORCH_LANG
    (root / i18n.MARKER).write_text("en\n", encoding="utf-8")
    return status


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(description="Switch your unedited stubs and test "
                                     "skeletons to English.")
    parser.add_argument("lang", choices=["en"], help="the language to switch to")
    parser.add_argument("--force", action="store_true",
                        help="also overwrite files you edited (each backed up first)")
    args = parser.parse_args(argv)
    os.environ.setdefault(i18n.ENV, args.lang)  # the switch to English speaks English
    return to_english(args.force)


if __name__ == "__main__":
    sys.exit(main())
