"""Building the run-time messages' catalogs (``minitorch_course.i18n``), for maintainers.

    python -m minitorch_authoring.i18n_build extract   # sources + tables -> .pot, merged into each .po
    python -m minitorch_authoring.i18n_build compile   # each .po -> its .mo (make does this)

``make messages`` runs ``extract``; then translate the new, empty entries of the ``.po``.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

from minitorch_course.i18n import DOMAIN, LANGUAGES, LOCALE_DIR, SOURCE_LANGUAGE, fields, po_path

# The files whose `_`/`t`/`N_` calls hold run-time text (paths relative to src/): the course's
# packages, and minitorch's error messages.
SOURCES = ("minitorch_course/", "minitorch_grading/", "minitorch_authoring/", "minitorch/errors.py")


def is_source(filename: str) -> bool:
    """Whether ``filename`` (relative to src/) is one of the message catalog's sources."""
    return filename.startswith(SOURCES)


# ---------------------------------------------------------------- strings kept in tables
def table_strings() -> Iterator[tuple[str, str]]:
    """(msgid, where) for every learner-facing string a data table holds: the extractor cannot
    see them in a call to ``_``."""
    from minitorch_course import catalog, messages

    for m in catalog.MISTAKES.values():
        yield m.hint, f"catalog.MISTAKES[{m.id!r}]"
    for kind, text in messages.KIND_LABELS.items():
        yield text, f"messages.KIND_LABELS[{kind!r}]"
    for row in catalog.ENGINE_ROWS:
        yield row.what, f"catalog.ENGINE_ROWS[{row.name!r}].what"
    for cell in catalog.CELLS:
        if cell.what:
            yield cell.what, f"catalog.CELLS[{cell.grade_id!r}].what"
    for title in catalog.LABS.values():
        yield title, "catalog.LABS"
    for note in sorted(catalog.CASE_NOTES):
        yield note, "catalog.Case.note"


# ---------------------------------------------------------------- maintenance
def extract() -> Path:
    """Write ``locale/minitorch_course.pot`` from the package's sources and tables, and merge
    it into every language's ``.po`` (new ids untranslated, vanished ids dropped)."""
    from babel.messages.catalog import Catalog
    from babel.messages.extract import extract_from_dir
    from babel.messages.pofile import read_po, write_po

    package = Path(__file__).parent
    template = Catalog(project="minitorch-fase08", msgid_bugs_address="", fuzzy=False)
    found = extract_from_dir(str(package.parent), method_map=[("**.py", "python")],
                             keywords={"_": None, "t": (1,), "N_": None}, comment_tags=("i18n:",),
                             strip_comment_tags=True)
    for filename, lineno, msgid, comments, _ctx in found:
        if not is_source(filename):
            continue
        if msgid:
            template.add(msgid, locations=[(filename, lineno)], auto_comments=comments,
                         flags=_flags(msgid))
    for msgid, where in table_strings():
        template.add(msgid, locations=[(where, 0)], flags=_flags(msgid))
    _brace_only(template)
    pot = LOCALE_DIR / f"{DOMAIN}.pot"
    pot.parent.mkdir(parents=True, exist_ok=True)
    with open(pot, "wb") as f:
        write_po(f, template, width=100, sort_output=True, include_lineno=False)
    for lang in LANGUAGES:
        if lang == SOURCE_LANGUAGE:
            continue
        po = po_path(lang)
        if po.exists():
            with open(po, "rb") as f:
                catalog = read_po(f, locale=lang)
        else:
            catalog = Catalog(locale=lang, project="minitorch-fase08", fuzzy=False)
        catalog.update(template, no_fuzzy_matching=True)
        catalog.obsolete.clear()
        _brace_only(catalog)
        po.parent.mkdir(parents=True, exist_ok=True)
        with open(po, "wb") as f:
            write_po(f, catalog, width=100, sort_output=True, include_lineno=False)
    return pot


def _brace_only(catalog) -> None:
    """Drop the ``python-format`` flag Babel guesses from a ``%`` in the text ("90 % on" reads
    as the conversion ``% o``): the course formats with braces, and pybabel compile rejects a
    translation whose guessed %-conversions differ from the msgid's."""
    for message in catalog:
        message.flags.discard("python-format")


def _flags(msgid: str) -> tuple[str, ...]:
    return ("python-brace-format",) if fields(msgid) else ()


def compile_all() -> list[Path]:
    """Compile every ``.po`` to its ``.mo``."""
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    out = []
    for lang in LANGUAGES:
        po = po_path(lang)
        if not po.exists():
            continue
        with open(po, "rb") as f:
            catalog = read_po(f, locale=lang)
        mo = po.with_suffix(".mo")
        with open(mo, "wb") as f:
            write_mo(f, catalog)
        out.append(mo)
    return out


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=("extract", "compile"))
    args = parser.parse_args(argv)
    if args.command == "extract":
        print(f"wrote {extract()}")
    for mo in compile_all():
        print(f"wrote {mo}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
