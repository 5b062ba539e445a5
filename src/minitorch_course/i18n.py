"""Run-time text in the learner's language: Spanish by default, English with ``MINITORCH_LANG=en``.

Standard gettext. The message ids are the English source strings, so the English run needs
no catalog: gettext falls back to the id itself, and there is no identity ``en.po`` to drift
from the code. Spanish lives in ``locale/es/LC_MESSAGES/minitorch_course.po``, compiled to a
``.mo`` by ``make`` (``pybabel compile``; the ``.mo`` is a build product, not committed). A
checkout whose ``.mo`` is missing or older than its ``.po`` (a plain ``pip install -e .``, a
``.po`` just edited) compiles the ``.po`` in memory with Babel instead, so it never speaks
stale Spanish.

    t("{n} random examples", n=25)   # the translated template, then str.format
    _("wrong values")                      # a plain string, translated

Placeholders are ``str.format`` fields (``{name}``, ``{diff:.3g}``); a translation keeps the
same fields (``tests/minitorch_course/test_i18n.py``). Strings that live in data tables (the catalog's mistake
hints, the kinds' labels, ...) are translated where they are shown. Maintenance (extracting the
ids, merging them into the ``.po``, compiling) lives in ``minitorch_authoring.i18n_build``.
"""

from __future__ import annotations

import functools
import gettext
import io
import os
import string
import sys
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


# A file in the working directory naming the language: the English labs' folders carry one
# (notebooks/en/, an English class release), so their kernels and `python -m
# minitorch_course.check` run there speak English without MINITORCH_LANG.
MARKER = ".minitorch-lang"


def language() -> str:
    """``MINITORCH_LANG``'s language (``en``, ``en_US.UTF-8`` -> ``en``), else the working
    directory's ``.minitorch-lang``, else Spanish."""
    value = os.environ.get(ENV, "").strip().lower()[:2]
    if value in LANGUAGES:
        return value
    try:
        with open(MARKER, encoding="utf-8") as f:
            value = f.read(16).strip().lower()[:2]
    except OSError:
        return LANGUAGES[0]
    return value if value in LANGUAGES else LANGUAGES[0]


def notebook(name: str) -> str:
    """Where a learner opens the lab notebook ``name`` (``00-tensor-skeleton``), in their
    language: ``notebooks/`` holds the Spanish labs, ``notebooks/en/`` the English ones."""
    return f"notebooks/{'en/' if language() == 'en' else ''}{name}.ipynb"


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


def N_(msgid: str) -> str:
    """Mark a table's string for extraction; it is translated where it is shown."""
    return msgid


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
