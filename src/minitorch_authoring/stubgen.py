"""Generate the learner's ``src/minitorch/tensor.py`` from the reference ``solutions/tensor.py``.

Every region between ``### BEGIN SOLUTION`` and ``### END SOLUTION`` (nbgrader's fences) is
replaced by ``raise NotImplementedError(...)`` naming the function and the lab notebook of the
section it sits in: the nearest ``# @lab NN-name`` line above it.

    python -m minitorch_authoring.stubgen            # write the stub (refuses to overwrite edits)
    python -m minitorch_authoring.stubgen --check    # exit 1 if the committed stub is stale
    python -m minitorch_authoring.stubgen --force    # overwrite an edited file, keeping a backup

A learner's edited file is never overwritten silently: the tool compares the target with the
stub it would write and with ``.stub.sha256`` beside it (the hash of the last stub it wrote);
anything else is the learner's work, and ``--force`` copies it to ``tensor.py.bak-<time>`` first.
"""

from __future__ import annotations

import argparse
import hashlib
import re
import sys
import time
from pathlib import Path

from minitorch_authoring import repository
from minitorch_course.i18n import t

ROOT = repository.ROOT
REFERENCE = repository.REFERENCE
TARGET = repository.STUB

BEGIN, END = repository.SOLUTION
_LAB = re.compile(r"^\s*#\s*@lab\s+(\S+)")
_DEF = re.compile(r"^\s*def\s+(\w+)\s*\(")
_CLASS = re.compile(r"^class\s+(\w+)")

HEADER = '''"""minitorch.tensor: reverse-mode autodiff on NumPy arrays. YOUR implementation.

This is the file you fill in during Fase 08. Every ``raise NotImplementedError`` names the lab
notebook that asks for it; replace it with your code. Run ``make check`` to see your progress.
(Generated from the reference by ``make stubs``; the docstrings below are your specification.)
'''


def generate(source: str) -> str:
    """The stub text for the reference text ``source``."""
    out: list[str] = []
    lab, cls, func = None, None, None
    inside = False
    lines = source.splitlines()
    for number, line in enumerate(lines, 1):
        stripped = line.strip()
        if inside:
            if stripped == END:
                inside = False
            continue
        if m := _LAB.match(line):
            lab = m.group(1)
        if m := _CLASS.match(line):
            cls = m.group(1)
        if m := _DEF.match(line):
            indented = line.startswith((" ", "\t"))
            func = f"{cls}.{m.group(1)}" if indented and cls else m.group(1)
            if not indented:
                cls = None
        if stripped == BEGIN:
            if lab is None or func is None:
                raise ValueError(f"{REFERENCE.name}:{number}: solution fence outside a # @lab section")
            indent = line[: len(line) - len(line.lstrip())]
            out.append(
                f'{indent}raise NotImplementedError("{func}: {NOT_WRITTEN} '
                f'(notebooks/{lab}.ipynb)")'
            )
            inside = True
            continue
        if stripped == END:
            raise ValueError(f"{REFERENCE.name}:{number}: {END} without {BEGIN}")
        out.append(line)
    if inside:
        raise ValueError(f"{REFERENCE.name}: unterminated {BEGIN}")
    text = "\n".join(out) + "\n"
    # the reference's module docstring is for maintainers; the learner gets their own
    return _replace_docstring(text)


def learner_lines(source: str) -> int:
    """How many lines of code the learner writes: the fenced lines of the reference ``source``
    that are neither blank nor only a comment (the figure README.md and the theory state)."""
    count, inside = 0, False
    for line in source.splitlines():
        stripped = line.strip()
        if stripped in (BEGIN, END):
            inside = stripped == BEGIN
        elif inside and stripped and not stripped.startswith("#"):
            count += 1
    return count


# The stub's words when a learner calls what they have not written yet: in both of the course's
# languages, since a file's text cannot follow MINITORCH_LANG.
NOT_WRITTEN = "aún sin escribir / not written yet"


def _replace_docstring(text: str) -> str:
    end = text.index('"""', 3) + 3  # the closing quotes of the module docstring
    return HEADER + '"""' + text[end:]


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the target is stale")
    parser.add_argument("--force", action="store_true", help="overwrite learner edits (backed up)")
    parser.add_argument("--target", type=Path, default=TARGET)
    args = parser.parse_args(argv)

    stub = generate(REFERENCE.read_text(encoding="utf-8"))
    target: Path = args.target
    current = target.read_text(encoding="utf-8") if target.exists() else None
    marker = target.with_name(".stub.sha256")
    if args.check:
        if current != stub:
            print(f"{target} differs from the stub generated from {REFERENCE}; run `make stubs`")
            return 1
        if not marker.exists() or marker.read_text().strip() != _sha(stub):
            print(f"{marker} does not record the current stub; run `make stubs`")
            return 1
        print(f"{target} is up to date")
        return 0
    if current == stub:
        marker.write_text(_sha(stub) + "\n")
        print(f"{target} is already up to date")
        return 0
    last = marker.read_text().strip() if marker.exists() else None
    if current is not None and _sha(current) != last:
        if not args.force:
            print(t("refusing to overwrite {target}: it differs from every stub this tool wrote, "
                    "so it holds your own work. To replace it anyway, run `make stubs FORCE=1` "
                    "(a backup is kept).", target=str(target)), file=sys.stderr)
            return 2
        backup = target.with_name(f"{target.name}.bak-{time.strftime('%Y%m%d-%H%M%S')}")
        backup.write_text(current, encoding="utf-8")
        print(t("backed up your {name} to {backup}", name=target.name, backup=str(backup)))
    target.write_text(stub, encoding="utf-8")
    marker.write_text(_sha(stub) + "\n")
    print(f"wrote {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
