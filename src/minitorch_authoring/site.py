"""The chapter as a bilingual static website: Sphinx, myst-nb and sphinx-book-theme.

    python -m minitorch_authoring.site build              # both languages into build/site/
    python -m minitorch_authoring.site build --out DIR    # elsewhere
    python -m http.server --directory build/site 8000     # any static web server will do

One configuration (``site/conf.py``), one build per language (``build/site/es``,
``build/site/en``), each strict (``-n -W``: a broken link or a page missing from the chapter map
fails it). ``build/site/index.html`` lets a reader choose a language.

What a language's site holds, staged into ``build/cache/site/src/<lang>/`` before Sphinx reads it:

- ``index.md``: the chapter map (``theory/README.md`` or its mirror), which holds the reading
  order, the definition of done and what the phase leaves out, with a hidden table of contents in
  the reading order of its map table (theory and labs interleaved), then the other pages it links
  to (the glossary);
- ``theory/NAME.md``: the theory (never ``solutions/theory/``), ``glossary.md``: the glossary;
- ``labs/NAME.ipynb``: the site variant of each lab (``site_notebook``): the statement, the demo
  cells with their rendered outputs, the learner's cells as nbgrader releases them, with no
  output; no solution and no hidden test.

Every page has the same staged path in every language, so the language switch on each page
leads to the same path in the other language's build. Relative links are rewritten from the
repository's layout to the site's; a link to a page of another language's sources (a Spanish lab
linking to ``../theory/NAME.md`` inside the English site) lands on this language's page of the
same path. A link to anything else is left as it is, and the strict build fails on it.

MathJax 3 and axe-core come from npm, pinned in ``site/package-lock.json``, installed once into
``build/cache/site/npm/`` and MathJax copied into each build: the site works offline.
"""

from __future__ import annotations

import argparse
import ast
import copy
import json
import os
import posixpath
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from minitorch_authoring import repository

ROOT = repository.ROOT
CONF_DIR = ROOT / "site"  # conf.py, templates, CSS, package.json and its lock
DEFAULT_OUT = ROOT / "build" / "site"
CACHE = ROOT / "build" / "cache" / "site"  # staged sources, doctrees, npm packages
MATHJAX_ENTRY = "tex-chtml.js"  # site/conf.py's mathjax_path is mathjax/<this>, under _static/
SYSTEM_DEPS = "`make system-deps` (Debian: apt-get install -y npm chromium)"


@dataclass(frozen=True)
class Language:
    """Where one language's pages come from."""

    code: str  # Sphinx's language, the <html lang> and the build's folder
    name: str  # as the language switch shows it, in the language itself
    theory: Path  # the theory's Markdown files
    readme: str  # the chapter map in ``theory``: the landing page
    glossary: str  # the glossary in ``theory``
    instructor_labs: Path  # rendered instructor notebooks: the demo cells' outputs
    student_labs: Path  # student notebooks: the learner's cells as nbgrader releases them
    labs_language: str  # the language the labs are written in


# Phase 2 (issue 24) points the English site at the English labs: only these paths change.
LANGUAGES = {
    "es": Language("es", "Español", ROOT / "theory", "README.md", "GLOSARIO.md",
                   repository.SOURCE_NOTEBOOKS, repository.STUDENT_NOTEBOOKS, "es"),
    "en": Language("en", "English", ROOT / "theory" / "en", "README.md", "GLOSSARY.md",
                   repository.SOURCE_NOTEBOOKS, repository.STUDENT_NOTEBOOKS, "es"),
}

# The site's own words (everything else comes from the pages and the theme's catalogs).
TEXT = {
    "es": {
        "switch": "Idioma",
        "other_language": "Este laboratorio está escrito en {language}; su versión en español "
                          "llegará con los cuadernos bilingües.",
        "names": {"es": "español", "en": "inglés"},
        "choose": "Elige un idioma",
    },
    "en": {
        "switch": "Language",
        "other_language": "This lab is written in {language} for now; its English version "
                          "comes with the bilingual notebooks.",
        "names": {"es": "Spanish", "en": "English"},
        "choose": "Choose a language",
    },
}


class SiteError(RuntimeError):
    """The site cannot be built; the message says why and what to do."""


# ---------------------------------------------------------------- the chapter map
def _markdown():
    from markdown_it import MarkdownIt  # installed with myst-parser (the `site` extra)

    return MarkdownIt("commonmark").enable("table")


def _links(tokens) -> list[str]:
    return [child.attrs["href"] for token in tokens if token.type == "inline"
            for child in token.children or [] if child.type == "link_open"]


def map_links(readme: str) -> tuple[list[str], list[str]]:
    """The chapter map's links: (those of its reading-order table, in order; all, in order).

    The reading-order table is the first table of the map that links to a notebook."""
    tokens = _markdown().parse(readme)
    table: list = []
    start = None
    for i, token in enumerate(tokens):
        if token.type == "table_open":
            start = i
        elif token.type == "table_close" and start is not None:
            links = _links(tokens[start:i])
            if any(_path_part(h).endswith(".ipynb") for h in links):
                table = links
                break
            start = None
    return table, _links(tokens)


def title(lang: Language) -> str:
    """The site's title: the chapter map's heading up to its colon ("Fase 08 — ... cero")."""
    text = (lang.theory / lang.readme).read_text(encoding="utf-8")
    heading = next((line[2:].strip() for line in text.splitlines() if line.startswith("# ")), "")
    if not heading:
        raise SiteError(f"{lang.theory / lang.readme} has no '# ' heading to title the site")
    return heading.split(":")[0].strip()


# ---------------------------------------------------------------- pages and links
def _path_part(href: str) -> str:
    return href.split("#", 1)[0]


def _is_relative(href: str) -> bool:
    return not (href.startswith(("#", "/")) or re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", href))


def site_paths(lang: Language) -> dict[Path, str]:
    """{source file: its path in the site} for every page of ``lang``."""
    paths = {lang.theory / lang.readme: "index.md", lang.theory / lang.glossary: "glossary.md"}
    for md in sorted(lang.theory.glob("*.md")):
        paths.setdefault(md, f"theory/{md.name}")
    for nb in sorted(lang.student_labs.glob("*.ipynb")):
        paths[nb] = f"labs/{nb.name}"
    return {p.resolve(): staged for p, staged in paths.items()}


LINK = re.compile(r"(\]\()([^)\s]+)(\))")


def link_maps(lang: Language) -> tuple[dict[Path, str], dict[Path, str]]:
    """({source: site path} of ``lang``'s pages, the same for the other languages' pages)."""
    return site_paths(lang), {p: s for other in LANGUAGES.values() if other != lang
                              for p, s in site_paths(other).items()}


def rewrite_links(text: str, source: Path, lang: Language,
                  maps: tuple[dict[Path, str], dict[Path, str]] | None = None) -> str:
    """``text`` (Markdown of ``source``) with relative links retargeted to the site's layout
    (``maps``: ``link_maps(lang)``, computed once by a caller that rewrites many texts)."""
    own, others = maps or link_maps(lang)
    here = own[source.resolve()]

    def retarget(match: re.Match) -> str:
        href = match.group(2)
        if not _is_relative(href):
            return match.group(0)
        path, _, anchor = href.partition("#")
        target = (source.parent / path).resolve()
        staged = own.get(target) or (others.get(target) if others.get(target) in own.values()
                                     else None)
        if staged is None:
            return match.group(0)  # not a page of this site: the strict build says so
        new = posixpath.relpath(staged, posixpath.dirname(here) or ".")
        return f"{match.group(1)}{new}{'#' + anchor if anchor else ''}{match.group(3)}"

    return LINK.sub(retarget, text)


# ---------------------------------------------------------------- the labs
HEADING = re.compile(r"^#{1,6}\s+(.*)$", re.M)
TITLE_CALLS = {"set_title", "suptitle", "title"}


def _plain(markdown: str) -> str:
    return re.sub(r"[`*_$]", "", markdown).strip()


def figure_titles(source: str) -> list[str]:
    """The literal titles a plotting cell gives its figures (``ax.set_title("...")``,
    ``fig.suptitle``, ``ax.set(title=...)``, any ``title=`` argument), in order."""
    code = "\n".join("" if line.lstrip().startswith(("%", "!")) else line
                     for line in source.splitlines())
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return []
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        args = list(node.args[:1]) if getattr(node.func, "attr", None) in TITLE_CALLS else []
        args += [k.value for k in node.keywords if k.arg == "title"]
        found += [(a.lineno, a.col_offset, a.value) for a in args
                  if isinstance(a, ast.Constant) and isinstance(a.value, str)]
    return [_plain(text) for *_, text in sorted(found)]


def figure_alt(source: str, heading: str) -> str:
    """A text alternative for the figures of a cell: the section it illustrates, then the
    titles its code gives them. An author's own ``mystnb.image.alt`` in the cell wins."""
    titles = "; ".join(dict.fromkeys(t for t in figure_titles(source) if t))
    return f"{heading} — {titles}" if titles else heading


def _role(cell: dict) -> dict:
    return cell.get("metadata", {}).get("nbgrader", {})


def site_notebook(instructor: Path, student: Path) -> dict:
    """The web page of a lab: the student notebook (statement and learner's cells exactly as
    nbgrader releases them: solutions replaced by the stub, hidden tests removed), with the
    rendered outputs of the demo cells taken from the instructor notebook.

    A demo cell is a code cell nbgrader does not manage (not graded, not a solution, not
    locked); every other code cell shows no output (a graded cell's output is a grade, the
    locked set-up cell names the reference). A demo cell whose source differs between the two
    notebooks means the student notebook is stale: that is an error, not a guess."""
    inst = json.loads(instructor.read_text(encoding="utf-8"))
    stud = json.loads(student.read_text(encoding="utf-8"))
    rendered = {c.get("id"): c for c in inst.get("cells", [])}
    if [c.get("id") for c in inst["cells"]] != [c.get("id") for c in stud["cells"]]:
        raise SiteError(f"{student} and {instructor} have different cells: regenerate the "
                        "student notebooks (`make notebooks`)")
    page = copy.deepcopy(stud)
    page["metadata"] = {k: v for k, v in stud.get("metadata", {}).items()
                        if k in ("kernelspec", "language_info")}
    heading = ""
    for cell in page["cells"]:
        role = cell.get("metadata", {}).pop("nbgrader", {})
        if cell["cell_type"] == "markdown":
            found = HEADING.findall("".join(cell["source"]))
            heading = _plain(found[-1]) if found else heading
            continue
        if cell["cell_type"] != "code":
            continue
        cell["outputs"], cell["execution_count"] = [], None
        if role.get("grade") or role.get("solution") or role.get("locked"):
            continue
        source = rendered[cell.get("id")]
        if "".join(source["source"]) != "".join(cell["source"]):
            raise SiteError(f"{student}: demo cell {cell.get('id')!r} differs from "
                            f"{instructor}: regenerate the student notebooks (`make notebooks`)")
        cell["outputs"] = copy.deepcopy(source.get("outputs", []))
        cell["execution_count"] = source.get("execution_count")
        if any("image/png" in o.get("data", {}) or "image/svg+xml" in o.get("data", {})
               for o in cell["outputs"]):
            image = cell["metadata"].setdefault("mystnb", {}).setdefault("image", {})
            image.setdefault("alt", figure_alt("".join(cell["source"]), heading))
    return page


def lab_sources(lang: Language) -> list[tuple[Path, Path]]:
    """(instructor, student) notebook pairs of ``lang``'s labs; a missing one is an error."""
    pairs = []
    for student in sorted(lang.student_labs.glob("*.ipynb")):
        instructor = lang.instructor_labs / student.name
        if not instructor.exists():
            raise SiteError(f"{student} has no instructor notebook {instructor}")
        pairs.append((instructor, student))
    if not pairs:
        raise SiteError(f"no lab notebooks in {lang.student_labs}")
    return pairs


# ---------------------------------------------------------------- staging
def _toctree(entries: list[str]) -> str:
    lines = "\n".join(entries)
    return f"\n\n```{{toctree}}\n:hidden:\n:maxdepth: 1\n\n{lines}\n```\n"


def reading_order(lang: Language) -> list[str]:
    """The site's pages after the map, as the sidebar lists them: the map table's theory and
    labs in its order, then the other pages the map links to (the glossary)."""
    readme = lang.theory / lang.readme
    table, every = map_links(readme.read_text(encoding="utf-8"))
    own = site_paths(lang)
    order: list[str] = []
    for href in table + every:
        if not _is_relative(href):
            continue
        staged = own.get((readme.parent / _path_part(href)).resolve())
        if staged and staged != "index.md" and staged not in order:
            order.append(staged)
    return order


def pages(lang: Language) -> dict[str, str]:
    """{staged path: text} of every page of ``lang``'s site."""
    out = {}
    maps = link_maps(lang)
    for source, staged in maps[0].items():
        if source.suffix == ".md":
            out[staged] = rewrite_links(source.read_text(encoding="utf-8"), source, lang, maps)
    out["index.md"] += _toctree([posixpath.splitext(s)[0] for s in reading_order(lang)])
    for instructor, student in lab_sources(lang):
        nb = site_notebook(instructor, student)
        for cell in nb["cells"]:
            if cell["cell_type"] == "markdown":
                cell["source"] = rewrite_links("".join(cell["source"]), student, lang, maps)
        out[f"labs/{student.name}"] = json.dumps(nb, indent=1, ensure_ascii=False) + "\n"
    return out


def _sync(files: dict[str, str], dest: Path) -> None:
    """Make ``dest`` hold exactly ``files``, rewriting only what changed (Sphinx then rereads
    only those)."""
    dest.mkdir(parents=True, exist_ok=True)
    for rel, text in files.items():
        path = dest / rel
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    for path in sorted(dest.rglob("*"), reverse=True):
        rel = path.relative_to(dest).as_posix()
        if path.is_file() and rel not in files:
            path.unlink()
        elif path.is_dir() and not any(path.iterdir()):
            path.rmdir()


def check_pairing(languages: dict[str, Language]) -> None:
    """Every language has the same pages in the same reading order, so that the language
    switch lands on the same page."""
    first, *rest = languages.values()
    for lang in rest:
        for what, fn in (("pages", lambda g: sorted(site_paths(g).values())),
                         ("reading order", reading_order)):
            if fn(lang) != fn(first):
                raise SiteError(f"the {first.code} and {lang.code} sites differ in their {what}: "
                                f"{fn(first)} != {fn(lang)}")


# ---------------------------------------------------------------- npm assets
def npm_assets(cache: Path = CACHE / "npm") -> Path:
    """``node_modules`` with site/package-lock.json's packages (MathJax 3, axe-core), installed
    with ``npm ci`` into ``cache`` the first time and whenever the lock changes."""
    lock = (CONF_DIR / "package-lock.json").read_text(encoding="utf-8")
    stamp = cache / "package-lock.json"
    modules = cache / "node_modules"
    if stamp.exists() and stamp.read_text(encoding="utf-8") == lock and modules.is_dir():
        return modules
    npm = shutil.which("npm")
    if npm is None:
        raise SiteError(f"npm is not installed (it brings MathJax and axe-core): {SYSTEM_DEPS}")
    if cache.exists():
        shutil.rmtree(cache)
    cache.mkdir(parents=True)
    shutil.copy2(CONF_DIR / "package.json", cache / "package.json")
    shutil.copy2(CONF_DIR / "package-lock.json", stamp)
    done = subprocess.run([npm, "ci", "--no-audit", "--no-fund", "--ignore-scripts"], cwd=cache,
                          capture_output=True, text=True)
    if done.returncode:
        shutil.rmtree(cache, ignore_errors=True)
        raise SiteError(f"npm ci failed in {cache}:\n{done.stdout}{done.stderr}")
    return modules


def _link_or_copy(src: str, dst: str) -> None:
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)


def install_mathjax(modules: Path, static: Path) -> None:
    """MathJax's components under ``static/mathjax``: the TeX-to-HTML entry point and what it
    loads on demand (TeX extensions, fonts, menu, accessibility), not the other bundles."""
    es5 = modules / "mathjax" / "es5"
    dest = static / "mathjax"
    if (dest / MATHJAX_ENTRY).exists():
        return
    skip = {p.name for p in es5.glob("*.js") if p.name not in (MATHJAX_ENTRY,)}
    shutil.copytree(es5, dest, copy_function=_link_or_copy,
                    ignore=lambda d, names: [n for n in names if Path(d) == es5 and n in skip
                                             or Path(d) == es5 / "output" and n == "svg"])


# ---------------------------------------------------------------- the build
def chooser(languages: dict[str, Language]) -> str:
    """The site root's page: one link per language, each in its own language."""
    first = next(iter(languages.values()))
    items = "\n".join(
        f'    <li lang="{g.code}"><a href="{g.code}/index.html" hreflang="{g.code}">'
        f'{g.name}: {title(g)}</a></li>' for g in languages.values())
    choose = " · ".join(f'<span lang="{g.code}">{TEXT[g.code]["choose"]}</span>'
                        for g in languages.values())
    return f"""<!DOCTYPE html>
<html lang="{first.code}">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>{" · ".join(title(g) for g in languages.values())}</title>
  <link rel="icon" href="{first.code}/_static/favicon.svg">
  <style>body {{ font-family: sans-serif; max-width: 40rem; margin: 3rem auto; padding: 0 1rem;
    line-height: 1.5; }}</style>
</head>
<body>
<main>
  <h1>{choose}</h1>
  <ul>
{items}
  </ul>
</main>
</body>
</html>
"""


def sphinx_command(code: str, src: Path, out: Path, doctrees: Path) -> list[str]:
    return [sys.executable, "-m", "sphinx", "-b", "html", "-n", "-W", "--keep-going", "-q",
            "-c", str(CONF_DIR), "-D", f"language={code}", "-d", str(doctrees), str(src),
            str(out)]


def build(out: Path = DEFAULT_OUT, cache: Path = CACHE, npm_cache: Path | None = None,
          languages: dict[str, Language] = LANGUAGES) -> dict[str, float]:
    """Build every language's site into ``out/<code>``, in parallel, with Sphinx's work in
    ``cache`` (npm's in ``npm_cache``, by default ``cache/npm``); return seconds per step."""
    times = {}
    start = time.perf_counter()
    check_pairing(languages)
    modules = npm_assets(npm_cache or cache / "npm")
    times["npm"] = time.perf_counter() - start
    start = time.perf_counter()
    for code, lang in languages.items():
        _sync(pages(lang), cache / "src" / code)
    times["stage"] = time.perf_counter() - start
    start = time.perf_counter()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT / "src"), *filter(None, [os.environ.get("PYTHONPATH")])])}
    # Sphinx writes into the cache (myst-nb puts its images beside the output folder), then
    # each language's pages are linked into ``out``.
    runs = {code: subprocess.Popen(
        sphinx_command(code, cache / "src" / code, cache / "html" / code / "site",
                       cache / "doctrees" / code),
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
        for code in languages}
    failed = []
    for code, run in runs.items():
        output, _ = run.communicate()
        if run.returncode:
            failed.append(f"--- the {code} site (sphinx-build -n -W):\n{output}")
    if failed:
        raise SiteError("the strict build failed:\n" + "\n".join(failed))
    times["sphinx"] = time.perf_counter() - start
    for code in languages:
        if (out / code).exists():
            shutil.rmtree(out / code)
        shutil.copytree(cache / "html" / code / "site", out / code, copy_function=_link_or_copy,
                        ignore=shutil.ignore_patterns("_sources", ".buildinfo"))
        install_mathjax(modules, out / code / "_static")
    (out / "index.html").write_text(chooser(languages), encoding="utf-8")
    (out / ".nojekyll").write_text("", encoding="utf-8")  # GitHub Pages: serve _static/ as is
    return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m minitorch_authoring.site",
                                     description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("build", help="build every language's site (strict)")
    run.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    try:
        times = build(args.out.resolve())
    except SiteError as exc:
        print(f"site: {exc}", file=sys.stderr)
        return 1
    spent = ", ".join(f"{k} {v:.1f} s" for k, v in times.items())
    print(f"site: {', '.join(LANGUAGES)} built into {args.out}/ ({spent}); serve it with "
          f"`python -m http.server --directory {args.out} 8000`")
    return 0


if __name__ == "__main__":
    sys.exit(main())
