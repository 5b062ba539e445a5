"""Run-time text in the learner's language: Spanish by default, English with ``MINITORCH_LANG=en``.

Standard gettext. The message ids are the English source strings, so the English run needs
no catalog: gettext falls back to the id itself, and there is no identity ``en.po`` to drift
from the code. Spanish lives in ``locale/es/LC_MESSAGES/minitorch_course.po``, compiled to a
``.mo`` by ``make`` (``pybabel compile``; the ``.mo`` is a build product, not committed). A
checkout whose ``.mo`` is missing or older than its ``.po`` (a plain ``pip install -e .``, a
``.po`` just edited) compiles the ``.po`` in memory with Babel instead, so it never speaks
stale Spanish.

    t("{count} checks passed", count=3)   # the translated template, then str.format
    _("wrong values")                      # a plain string, translated

Placeholders are ``str.format`` fields (``{name}``, ``{diff:.3g}``); a translation keeps the
same fields (``tests/test_i18n.py``). Strings that live in data tables (the catalog's mistake
hints, the kinds' labels, ...) are translated where they are shown and extracted by
:func:`table_strings`. ``python -m minitorch_course.i18n extract`` refreshes the template
and merges it into every ``.po``; ``compile`` writes the ``.mo`` files.
"""

from __future__ import annotations

import functools
import gettext
import io
import os
import string
import sys
from collections.abc import Iterator
from pathlib import Path

DOMAIN = "minitorch_course"
LOCALE_DIR = Path(__file__).parent / "locale"
LANGUAGES = ("es", "en")  # the first is the default
SOURCE_LANGUAGE = "en"  # the msgids' language
ENV = "MINITORCH_LANG"
# MINITORCH_I18N_AUDIT=1: every parameter substituted into a message is fenced by these two
# characters, so a test can strip what the catalog did not write and look at what is left
AUDIT_ENV = "MINITORCH_I18N_AUDIT"
OPEN, CLOSE = "\x02", "\x03"

# msgids looked up in a non-English run without a translation (tests read it)
MISSES: set[str] = set()


class Msg(str):
    """A string that came out of the catalog (an audit does not fence it when nested)."""


def language() -> str:
    """``MINITORCH_LANG``'s language (``en``, ``en_US.UTF-8`` -> ``en``), else Spanish."""
    value = os.environ.get(ENV, "").strip().lower()[:2]
    return value if value in LANGUAGES else LANGUAGES[0]


def po_path(lang: str) -> Path:
    return LOCALE_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


@functools.cache
def translations(lang: str) -> gettext.NullTranslations:
    """The catalog of ``lang``: the compiled ``.mo`` if current, else its ``.po`` compiled in
    memory; English (the msgids) needs none."""
    if lang == SOURCE_LANGUAGE:
        return gettext.NullTranslations()
    po = po_path(lang)
    mo = po.with_suffix(".mo")
    if mo.exists() and (not po.exists() or mo.stat().st_mtime >= po.stat().st_mtime):
        with open(mo, "rb") as f:
            return gettext.GNUTranslations(f)
    if not po.exists():
        return gettext.NullTranslations()
    try:
        from babel.messages.mofile import write_mo
        from babel.messages.pofile import read_po
    except ImportError:  # no Babel: English rather than a crash
        print(f"minitorch_course: Babel is not installed, {po.name} cannot be read; "
              "messages stay in English (pip install babel)", file=sys.stderr)
        return gettext.NullTranslations()
    with open(po, "rb") as f:
        catalog = read_po(f)
    buffer = io.BytesIO()
    write_mo(buffer, catalog)
    buffer.seek(0)
    return gettext.GNUTranslations(buffer)


def _(msgid: str) -> Msg:
    """``msgid`` in the current language."""
    if not msgid:  # gettext's "" is the catalog's header
        return Msg("")
    lang = language()
    trans = translations(lang)
    text = trans.gettext(msgid)
    if lang != SOURCE_LANGUAGE and text == msgid and msgid:
        catalog = getattr(trans, "_catalog", {})
        if msgid not in catalog:
            MISSES.add(msgid)
    return Msg(text)


class _Formatter(string.Formatter):
    def format_field(self, value, format_spec):
        text = super().format_field(value, format_spec)
        return text if isinstance(value, Msg) else f"{OPEN}{text}{CLOSE}"


_AUDIT = _Formatter()


def t(msgid: str, /, **params) -> Msg:
    """``msgid`` translated, then filled with ``params`` (``str.format`` fields)."""
    template = _(msgid)
    if os.environ.get(AUDIT_ENV):
        return Msg(_AUDIT.vformat(template, (), params))
    return Msg(template.format(**params))


def verbatim(text: str) -> str:
    """Text that is not the course's to translate (an exception's message, the stub's own
    words): as it is, fenced like a parameter under an audit."""
    return f"{OPEN}{text}{CLOSE}" if os.environ.get(AUDIT_ENV) else text


def fields(template: str) -> list[str]:
    """The ``str.format`` fields of a template, with their format specs (sorted)."""
    return sorted(f"{name}:{spec}" for _text, name, spec, _conv in
                  string.Formatter().parse(template) if name is not None)


# ---------------------------------------------------------------- strings kept in tables
def table_strings() -> Iterator[tuple[str, str]]:
    """(msgid, where) for every learner-facing string a data table holds: the extractor cannot
    see them in a call to ``_``."""
    from minitorch_course import catalog, messages

    for m in catalog.MISTAKES.values():
        yield m.hint, f"catalog.MISTAKES[{m.id!r}]"
    for kind, text in messages.KIND_LABELS.items():
        yield text, f"messages.KIND_LABELS[{kind!r}]"
    for name, text in messages.ENGINE_HINTS.items():
        yield text, f"messages.ENGINE_HINTS[{name!r}]"
    for name, text in messages.TOPO_GRAPHS.items():
        yield text, f"messages.TOPO_GRAPHS[{name!r}]"
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
        if not (filename.startswith("minitorch_course/") or filename == "minitorch/errors.py"):
            continue
        if msgid:
            template.add(msgid, locations=[(filename, lineno)], auto_comments=comments,
                         flags=_flags(msgid))
    for msgid, where in table_strings():
        template.add(msgid, locations=[(where, 0)], flags=_flags(msgid))
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
        po.parent.mkdir(parents=True, exist_ok=True)
        with open(po, "wb") as f:
            write_po(f, catalog, width=100, sort_output=True, include_lineno=False)
    return pot


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
