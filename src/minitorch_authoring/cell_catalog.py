"""A translation catalog keyed by a stable name: gettext ``.po``, one entry per cell or docstring.

``msgctxt`` is the key (a notebook cell's id, a function's qualified name), ``msgid`` the text
in the source language, ``msgstr`` its translation. A source edit leaves the entry's ``msgid``
behind, so the entry is stale until a translator updates it (gettext's fuzzy). Used by
``minitorch_authoring.nb_i18n`` (the notebooks) and ``minitorch_authoring.stubgen`` (the stubs'
docstrings).
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass
from pathlib import Path


@dataclass
class Entry:
    """One catalog entry: a notebook cell's (Spanish -> English) or a docstring's (English ->
    Spanish)."""

    cell_id: str  # the msgctxt: a cell id or a qualified name
    source: str  # the msgid: the source-language text this entry translates
    translation: str  # the msgstr ("" untranslated)
    fuzzy: bool = False
    previous: str | None = None  # the source it was translated from, when fuzzy


def read_catalog(path: Path) -> dict[str, Entry]:
    """{key: Entry} of a catalog ({} if there is none)."""
    if not path.exists():
        return {}
    from babel.messages.pofile import read_po

    with open(path, "rb") as f:
        cat = read_po(f, abort_invalid=True)
    previous = _previous_ids(path.read_text(encoding="utf-8"))  # Babel does not read "#|"
    entries = {}
    for msg in cat:
        if not msg.id or not msg.context:
            continue
        entries[msg.context] = Entry(msg.context, msg.id, msg.string or "", msg.fuzzy,
                                     previous.get(msg.context))
    return entries


_PREVIOUS = re.compile(r'^#\| msgid (".*"\n(?:#\| ".*"\n)*)msgctxt (".*")$', re.M)
_QUOTED = re.compile(r'"(?:[^"\\]|\\.)*"')


def _previous_ids(text: str) -> dict[str, str]:
    """{msgctxt: the previous msgid} of the fuzzy entries (gettext's ``#| msgid`` lines; Babel
    writes them but does not read them back)."""
    from babel.messages.pofile import unescape

    return {unescape(m.group(2)): "".join(unescape(q) for q in _QUOTED.findall(m.group(1)))
            for m in _PREVIOUS.finditer(text)}


def write_catalog(path: Path, stem: str, entries: list[Entry], lang: str = "en") -> None:
    """Write ``entries`` in their order, with no timestamps (no churn in diffs)."""
    from babel.messages.catalog import Catalog
    from babel.messages.pofile import write_po

    cat = Catalog(locale=lang, project=f"minitorch fase08 {stem}", fuzzy=False)
    for e in entries:
        cat.add(e.source, e.translation, context=e.cell_id,
                flags=("fuzzy",) if e.fuzzy else (),
                previous_id=e.previous if e.fuzzy and e.previous else ())
    path.parent.mkdir(parents=True, exist_ok=True)
    buf = io.BytesIO()
    write_po(buf, cat, width=0, omit_header=False, include_previous=False, sort_output=False)
    text = buf.getvalue().decode("utf-8")
    # gettext's "#| msgid" of fuzzy entries, one line per line (Babel wraps them mid-string)
    from babel.messages.pofile import escape

    for e in entries:
        if e.fuzzy and e.previous:
            lines = e.previous.splitlines(keepends=True)
            previous = "".join(['#| msgid ""\n'] + [f"#| {escape(line)}\n" for line in lines])
            anchor = f"msgctxt {escape(e.cell_id)}\n"
            text = text.replace(anchor, previous + anchor, 1)
    text = re.sub(r'"POT-Creation-Date: .*\\n"\n', "", text)  # no churn in every diff
    text = re.sub(r'"PO-Revision-Date: .*\\n"\n', "", text)
    text = text.replace("#, python-format\n", "").replace(", python-format", "")
    path.write_text(text, encoding="utf-8")
