"""The chapter's website (minitorch_authoring.site): built strictly, then read in a real browser.

The site is built fresh (both languages, ``sphinx-build -n -W``) into a temporary folder, served
from 127.0.0.1 and read with Playwright driving Debian's Chromium (``/usr/bin/chromium``;
Playwright's own browser download does not work here). Every page of both languages is loaded
once, at 1280 x 900 and offline (a request that leaves 127.0.0.1 is a failure); the tests below
judge what each visit recorded: formulas, images and their text alternatives, links, the
language switch, the sidebar's reading order, the lab cells' outputs, each page's language,
nothing wider than its column, solution text, axe-core. One test clicks its way as a reader
would (root, English, a lab in the sidebar, the switch there and back). A missing browser FAILS
the tests, with the command that installs it.

What must never appear on a page is derived from ``solutions/``: the fenced lines of
``solutions/tensor.py`` that no student material publishes, the lines nbgrader strips from the
instructor notebooks (solutions and hidden tests), and the sentences of the theory's answers.
"""

from __future__ import annotations

import functools
import html
import json
import re
import subprocess
import sys
import threading
import time
from html.parser import HTMLParser
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urldefrag, urlsplit

import pytest
from conftest import english_words

from minitorch_authoring import nb_i18n, site
from minitorch_authoring.repository import ROOT
from minitorch_authoring.stubgen import BEGIN, END
from minitorch_course.grammar import load_grid

SOLUTIONS = ROOT / "solutions"
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run",
                 "--disable-dev-shm-usage"]
MISSING_BROWSER = ("the site's browser tests need Chromium at {path}: install it with "
                   "`make system-deps` (Debian: apt-get install -y chromium); Playwright's own "
                   "browser download does not work here")
SERIOUS = ("serious", "critical")  # axe-core impacts that fail the accessibility check


# ---------------------------------------------------------------- what must never appear
def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def _published_text() -> str:
    """Everything a learner is given to read: the stub, the theory, the student notebooks."""
    parts = [(ROOT / "src" / "minitorch" / "tensor.py").read_text(encoding="utf-8")]
    parts += [p.read_text(encoding="utf-8") for p in sorted((ROOT / "theory").rglob("*.md"))]
    for lang in site.LANGUAGES.values():
        for _, student in site.lab_sources(lang):
            nb = json.loads(student.read_text(encoding="utf-8"))
            parts += ["".join(c["source"]) for c in nb["cells"]]
    return _norm("\n".join(parts))


def _fenced_lines(text: str) -> list[str]:
    lines, inside = [], False
    for line in text.splitlines():
        if line.strip().startswith(BEGIN):
            inside = True
        elif line.strip().startswith(END):
            inside = False
        elif inside:
            lines.append(line.strip())
    return lines


def _answer_sentences(markdown: str) -> list[str]:
    """Pieces of an answers file as a page would show them: between formulas, without
    Markdown's marks, split into sentences."""
    pieces = []
    for paragraph in markdown.split("\n\n"):
        if paragraph.lstrip().startswith(("#", "```")):
            continue
        for piece in re.split(r"\$\$.*?\$\$|\$[^$]*\$", paragraph, flags=re.S):
            piece = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", piece)
            piece = re.sub(r"\*\*\d+\.\*\*|[*`]", "", piece)
            pieces += [s.strip() for s in re.split(r"(?<=[.:;?!])\s", _norm(piece))]
    return pieces


@functools.cache
def solution_strings() -> dict[str, str]:
    """{text that must not appear on the site: where it comes from}."""
    published = _published_text()
    found: dict[str, str] = {}
    for line in _fenced_lines((SOLUTIONS / "tensor.py").read_text(encoding="utf-8")):
        if len(line) >= 12 and not line.startswith("#") and _norm(line) not in published:
            found.setdefault(_norm(line), "solutions/tensor.py")
    for lang in site.LANGUAGES.values():
        for instructor, student in site.lab_sources(lang):
            released = json.loads(student.read_text(encoding="utf-8"))["cells"]
            for inst, stud in zip(json.loads(instructor.read_text(encoding="utf-8"))["cells"],
                                  released):
                kept = set(_norm(line) for line in "".join(stud["source"]).splitlines())
                for line in "".join(inst["source"]).splitlines():
                    # a line the learner's materials show elsewhere (y.backward(g) in a demo)
                    # is not the answer, even where a solution cell also holds it
                    if len(line.strip()) >= 8 and _norm(line) not in kept \
                            and _norm(line) not in published:
                        found.setdefault(_norm(line), f"{instructor.relative_to(ROOT)}")
    plain = re.sub(r"[*`]", "", published)  # as _answer_sentences leaves it
    for answers in sorted((SOLUTIONS / "theory").rglob("*.md")):
        for sentence in _answer_sentences(answers.read_text(encoding="utf-8")):
            if len(sentence) >= 40 and sentence not in plain:
                found.setdefault(sentence, str(answers.relative_to(ROOT)))
    return found


def leaks(text: str) -> list[str]:
    """The solution strings found in ``text`` (any whitespace), with their origin."""
    text = _norm(text)
    return [f"{origin}: {s!r}" for s, origin in solution_strings().items() if s in text]


class _Text(HTMLParser):
    """All the text of an HTML file, hidden parts included, scripts and styles excluded."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag, attrs):
        self._skip += tag in ("script", "style")

    def handle_endtag(self, tag):
        self._skip -= tag in ("script", "style") and self._skip > 0

    def handle_data(self, data):
        if not self._skip:
            self.parts.append(data)


def html_text(markup: str) -> str:
    parser = _Text()
    parser.feed(markup)
    return "".join(parser.parts)


def test_solution_strings_come_from_every_kind_of_solution():
    origins = set(solution_strings().values())
    assert "solutions/tensor.py" in origins
    assert any(o.startswith("solutions/notebooks/") for o in origins)
    assert any(o.startswith("solutions/theory/en/") for o in origins)
    assert any(o.startswith("solutions/theory/answers") for o in origins)


def test_the_leak_detector_finds_solutions_where_they_are():
    """It can fail: the instructor notebooks and the answers, rendered, are flagged (every
    notebook with a solution or hidden test, every answers file), the site's labs are not."""
    markdown = site._markdown()
    for answers in sorted((SOLUTIONS / "theory").rglob("*.md")):
        assert leaks(html_text(markdown.render(answers.read_text(encoding="utf-8")))), answers
    lang = site.LANGUAGES["es"]
    for instructor, student in site.lab_sources(lang):
        cells = json.loads(instructor.read_text(encoding="utf-8"))["cells"]
        if any(c["metadata"].get("nbgrader", {}).get("solution")
               or "BEGIN HIDDEN TESTS" in "".join(c["source"]) for c in cells):
            assert leaks("\n".join("".join(c["source"]) for c in cells)), instructor
        page = site.site_notebook(instructor, student)
        assert not leaks("\n".join("".join(c["source"]) + json.dumps(c.get("outputs", []))
                                   for c in page["cells"])), student


# ---------------------------------------------------------------- the static checks
class _Refs(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.refs: list[str] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        for key in ("id",) + (("name",) if tag == "a" else ()):
            if attrs.get(key):
                self.ids.add(attrs[key])
        for key in ("href", "src"):
            if attrs.get(key) is not None and tag in ("a", "link", "img", "script", "iframe"):
                self.refs.append(attrs[key])


def html_pages(folder: Path) -> list[Path]:
    """The pages under ``folder`` (not the theme's template files Sphinx copies to _static)."""
    return sorted(p for p in folder.rglob("*.html")
                  if "_static" not in p.relative_to(folder).parts)


def broken_links(folder: Path) -> list[str]:
    """Internal links and anchors of every page under ``folder`` that lead nowhere."""
    parsed = {}
    for page in html_pages(folder):
        parser = _Refs()
        parser.feed(page.read_text(encoding="utf-8"))
        parsed[page.resolve()] = parser
    broken = []
    for page, parser in parsed.items():
        for ref in parser.refs:
            if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:|^//", ref) or ref in ("", "#"):
                continue
            path, _, anchor = html.unescape(ref).split("?")[0].partition("#")
            target = (page.parent / path).resolve() if path else page
            if target.is_dir():
                target = target / "index.html"
            where = f"{page.relative_to(folder.resolve())}: {ref}"
            if not target.exists():
                broken.append(f"{where} (no such file)")
            elif anchor and target in parsed and anchor not in parsed[target].ids:
                broken.append(f"{where} (no such anchor)")
    return broken


def test_the_link_checker_finds_broken_links_and_anchors(tmp_path):
    (tmp_path / "a.html").write_text('<p id="here"><a href="b.html#there">b</a>'
                                     '<a href="b.html#nowhere">x</a><a href="c.html">c</a>'
                                     '<a href="#here">self</a><img src="missing.png"></p>')
    (tmp_path / "b.html").write_text('<h1 id="there">b</h1><a href="https://example.org">x</a>')
    assert broken_links(tmp_path) == ["a.html: b.html#nowhere (no such anchor)",
                                      "a.html: c.html (no such file)",
                                      "a.html: missing.png (no such file)"]


# ---------------------------------------------------------------- build, serve, browse
@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    """Both languages built from scratch, strict; the seconds it took on ``site.BUILD_TIME``."""
    work = tmp_path_factory.mktemp("site")
    start = time.perf_counter()
    try:
        site.build(work / "out", cache=work / "cache", npm_cache=site.CACHE / "npm")
    except site.SiteError as exc:
        pytest.fail(str(exc), pytrace=False)
    print(f"\nsite build: {time.perf_counter() - start:.1f} s")
    return work / "out"


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


SERVER = """
import functools, http.server, sys
class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass
server = http.server.ThreadingHTTPServer(
    ("127.0.0.1", 0), functools.partial(Quiet, directory=sys.argv[1]))
print(server.server_address[1], flush=True)
server.serve_forever()
"""


@pytest.fixture(scope="module")
def served(built):
    """The built site on 127.0.0.1, from a server in its own process (in this one it would
    compete with Playwright's client for the interpreter)."""
    server = subprocess.Popen([sys.executable, "-c", SERVER, str(built)], stdout=subprocess.PIPE,
                              text=True)
    port = int(server.stdout.readline())
    yield f"http://127.0.0.1:{port}/"
    server.terminate()
    server.wait(timeout=10)


def launch(playwright, executable: Path = CHROMIUM):
    """Debian's Chromium, headless; a missing browser fails the test with how to install it."""
    if not executable.exists():
        pytest.fail(MISSING_BROWSER.format(path=executable), pytrace=False)
    return playwright.chromium.launch(executable_path=str(executable), args=CHROMIUM_ARGS)


def test_a_missing_browser_fails_with_how_to_install_it():
    with pytest.raises(pytest.fail.Exception, match=r"make system-deps.*apt-get install -y chromium"):
        launch(None, Path("/nonexistent/chromium"))


@pytest.fixture(scope="module")
def browser():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail("Playwright for Python is missing: install the `site` extra "
                    "(pip install -e '.[site]')", pytrace=False)
    with sync_playwright() as playwright:
        chromium = launch(playwright)
        yield chromium
        chromium.close()


PAGE_FACTS = r"""async () => {
  if (window.MathJax && MathJax.startup) await MathJax.startup.promise;
  await Promise.all([...document.images].map(i => i.complete ? null
      : new Promise(r => { i.addEventListener('load', r); i.addEventListener('error', r); })));
  await document.fonts.ready;
  const main = document.querySelector('main') || document.body;
  const raw = [];
  const walker = document.createTreeWalker(main, NodeFilter.SHOW_TEXT);
  const code = 'pre, code, script, style, textarea, mjx-container, .highlight, .cell_output';
  while (walker.nextNode()) {
    const node = walker.currentNode;
    if (node.parentElement.closest(code)) continue;
    const text = node.textContent;
    if (/\$[^$\s][^$]*\$|\$\$|\\[a-zA-Z]{2,}|\\\(|\\\[/.test(text)) raw.push(text.trim().slice(0, 120));
  }
  // the page's prose: not code, formulas, what it sets as a mention (italics, a title, a
  // quotation) or what it tags with another language than its own
  const here = document.documentElement.lang;
  const mention = code + ', kbd, em, i, cite, q';
  const prose = [];
  const all = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (all.nextNode()) {
    const parent = all.currentNode.parentElement;
    if (parent.closest(mention) || parent.closest('[lang]').lang !== here) continue;
    prose.push(all.currentNode.textContent);
  }
  return {
    lang: document.documentElement.lang,
    title: document.title,
    prose: prose.join(''),
    labels: [...document.querySelectorAll('[title], [aria-label], [placeholder]')]  // shown
        .filter(e => e.checkVisibility() && e.closest('[lang]').lang === here)
        .flatMap(e => ['title', 'aria-label', 'placeholder'].map(a => e.getAttribute(a)))
        .filter(Boolean),
    overflow: ['html', '.bd-sidebar-primary', '.bd-sidebar-secondary', '.bd-article']
        .flatMap(s => [...document.querySelectorAll(s)])
        .filter(e => e.scrollWidth > e.clientWidth + 1)
        .map(e => `${e.tagName.toLowerCase()}.${e.classList[0] || ''}: ${e.scrollWidth} > ${e.clientWidth}`),
    outputs: [...main.querySelectorAll('div.cell')].map(c => !!c.querySelector('.cell_output')),
    math: document.querySelectorAll('.math').length,
    untypeset: [...document.querySelectorAll('.math')]
        .filter(e => !e.querySelector('mjx-container')).map(e => e.textContent.slice(0, 80)),
    mathErrors: [...document.querySelectorAll('mjx-merror, [data-mjx-error]')]
        .map(e => e.getAttribute('data-mjx-error') || e.textContent),
    raw: raw,
    images: [...document.images].map(i => ({src: i.currentSrc || i.src,
        loaded: i.complete && i.naturalWidth > 0, alt: i.getAttribute('alt')})),
    sidebar: [...document.querySelectorAll('nav.bd-docs-nav a.reference')].map(a => a.href),
    switch: Object.fromEntries([...document.querySelectorAll('.site-lang-switch a')]
        .map(a => [a.hreflang, a.href])),
    links: [...main.querySelectorAll('a[href]')].map(a => a.href),
    text: document.body.textContent,
  };
}"""

AXE = """async () => (await axe.run(document, {resultTypes: ['violations']})).violations
  .map(v => ({id: v.id, impact: v.impact, help: v.help,
              nodes: v.nodes.slice(0, 3).map(n => n.target.join(' '))}))"""


def visit(page, url: str, axe_script: Path | None) -> dict:
    """Load ``url`` and record what a reader would meet (see PAGE_FACTS), with the page's
    console errors, failed requests, 4xx/5xx responses and axe-core's violations."""
    problems: list[str] = []
    handlers = {
        "console": lambda m: m.type == "error" and problems.append(f"console: {m.text}"),
        "pageerror": lambda e: problems.append(f"page error: {e}"),
        # net::ERR_ABORTED is the browser cancelling a request it no longer needs (seen for the
        # favicon of a page still loading its search index); a missing file shows as a 404 below.
        "requestfailed": lambda r: (r.failure or "").startswith("net::ERR_ABORTED")
        or problems.append(f"failed: {r.url} {r.failure}"),
        "response": lambda r: r.status >= 400 and problems.append(f"{r.status}: {r.url}"),
    }
    here = urlsplit(url).netloc

    def offline(route):  # the site works offline: nothing leaves the local server
        if urlsplit(route.request.url).netloc == here:
            route.continue_()
        else:
            problems.append(f"external request: {route.request.url}")
            route.abort()

    page.route("**/*", offline)
    for event, handler in handlers.items():
        page.on(event, handler)
    try:
        page.goto(url, wait_until="load")
        facts = page.evaluate(PAGE_FACTS)
        facts["axe"] = None
        if axe_script is not None:
            page.add_script_tag(path=str(axe_script))
            facts["axe"] = page.evaluate(AXE)
    finally:
        page.unroute("**/*", offline)
        for event, handler in handlers.items():
            page.remove_listener(event, handler)
    facts["problems"] = problems
    return facts


def site_pages(built: Path) -> list[str]:
    return [p.relative_to(built).as_posix() for p in html_pages(built)]


def kind(path: str) -> str:
    """A page's kind: theory, labs, or the page itself (index.html, glossary.html...)."""
    parts = path.split("/")
    return parts[1] if len(parts) > 2 else parts[-1]


def axe_sample(paths: list[str]) -> set[str]:
    """The pages axe-core audits: the first page of each kind, each language's chapter map
    and the root. Pages of one kind share their template and their kinds of content in both
    languages; what differs with the language (lang attributes, the switch, the theme's
    strings) is on every page, so on each map. axe costs 1.5 to 7 s a page here, most of it
    in MathJax's output; every other check runs on every page."""
    first = {min(p for p in paths if kind(p) == k) for k in {kind(p) for p in paths}}
    return first | {p for p in paths if kind(p) == "index.html"}


@pytest.fixture(scope="module")
def visits(built, served, browser) -> dict[str, dict]:
    """{page path: what its visit recorded}, every page of the site; axe-core's audit for the
    pages of ``axe_sample`` (the others record ``axe: None``)."""
    axe = site.CACHE / "npm" / "node_modules" / "axe-core" / "axe.min.js"
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    paths = site_pages(built)
    audited = axe_sample(paths)
    start = time.perf_counter()
    found = {path: visit(page, served + path, axe if path in audited else None)
             for path in paths}
    print(f"\nsite visits: {len(found)} pages ({len(audited)} audited by axe-core) in "
          f"{time.perf_counter() - start:.1f} s")
    page.close()
    return found


def _by_page(visits: dict, key) -> dict[str, object]:
    return {path: v for path, facts in visits.items() if (v := key(facts))}


QUOTED = re.compile(r"«[^»]*»|“[^”]*”|\"[^\"]*\"")  # a quotation is a mention, not prose


@functools.cache
def grid_words() -> dict[str, frozenset[str]]:
    """{language: the words of the grammatical grid's forms in it}: the curriculum's data, which
    a page of the other language names (*has*, not *haves*; *works* / trabaja)."""
    grid = load_grid()
    forms = {"en": [*grid.english.ravel(), *grid.persons], "es": [*grid.spanish.ravel()]}
    return {code: frozenset(w.lower() for f in texts for w in re.findall(r"[^\W\d_]+", str(f)))
            for code, texts in forms.items()}


def foreign_sentences(code: str, facts: dict) -> list[str]:
    """The sentences of a page in ``code`` that hold words of another language: its prose (see
    PAGE_FACTS), its title, the tooltips and labels of what it shows, and its images' text
    alternatives, quotations left out. Spanish is found by ``nb_i18n.spanish_words`` (what
    the English labs are checked with), English by ``english_words`` (what the Spanish
    reports are checked with). A sentence whose only foreign words are the grid's forms names
    the data (an untranslated sentence has words the grid lacks: the, of, to, la, una...)."""
    find = nb_i18n.spanish_words if code == "en" else english_words
    other = grid_words()["es" if code == "en" else "en"]
    text = "\n".join([facts["title"], facts["prose"], *facts["labels"],
                      *((i["alt"] or "") for i in facts["images"])])
    sentences = re.split(r"(?<=[.:;?!])\s+|\n", QUOTED.sub(" ", text))
    return [f"{_norm(s)[:120]} {words}" for s in sentences
            if (words := [w for w in find(s) if w.lower() not in other])]


# ---------------------------------------------------------------- the checks
@pytest.mark.slow  # builds the site or drives the browser
def test_the_site_is_built_strictly_in_both_languages(built):
    for code in site.LANGUAGES:
        assert (built / code / "index.html").exists()
    assert (built / "index.html").exists() and (built / ".nojekyll").exists()
    assert not list(built.rglob("_sources")), "the site publishes its pages, not their sources"


@pytest.mark.slow  # builds the site or drives the browser
def test_internal_links_and_anchors_resolve(built):
    assert broken_links(built) == []


@pytest.mark.slow  # builds the site or drives the browser
def test_no_page_holds_solution_text(built):
    found = {page.relative_to(built).as_posix(): hits for page in sorted(built.rglob("*"))
             if page.suffix in (".html", ".js", ".ipynb", ".txt")
             and (hits := leaks(html_text(page.read_text(encoding="utf-8"))
                                if page.suffix == ".html" else page.read_text(encoding="utf-8")))}
    assert found == {}


@pytest.mark.slow  # builds the site or drives the browser
def test_each_page_has_its_language(visits):
    for path, facts in visits.items():
        code = path.split("/")[0]
        expected = code if code in site.LANGUAGES else next(iter(site.LANGUAGES))
        assert facts["lang"] == expected, path


@pytest.mark.slow  # builds the site or drives the browser
def test_no_request_fails_leaves_the_site_or_logs_an_error(visits):
    assert _by_page(visits, lambda f: f["problems"]) == {}


@pytest.mark.slow  # builds the site or drives the browser
def test_every_formula_typesets(visits):
    assert _by_page(visits, lambda f: f["untypeset"] + f["mathErrors"] + f["raw"]) == {}
    theory = [p for p in visits if "/theory/" in p]
    assert all(visits[p]["math"] for p in theory), "every theory page has formulas"


@pytest.mark.slow  # builds the site or drives the browser
def test_images_load_and_have_text_alternatives(visits):
    assert _by_page(visits, lambda f: [i for i in f["images"]
                                       if not i["loaded"] or not (i["alt"] or "").strip()]) == {}
    labs = [facts for path, facts in visits.items() if "/labs/" in path]
    assert sum(len(f["images"]) for f in labs) >= 2 * len(site.LANGUAGES)


@pytest.mark.slow  # builds the site or drives the browser
def test_no_page_shows_solution_text(visits):
    assert _by_page(visits, lambda f: leaks(f["text"])) == {}


@pytest.mark.slow  # builds the site or drives the browser
def test_the_language_switch_lands_on_the_same_page_and_back(visits, served):
    for path, facts in visits.items():
        code = path.split("/")[0]
        if code not in site.LANGUAGES:
            continue
        assert set(facts["switch"]) == set(site.LANGUAGES) - {code}, path
        for other, url in facts["switch"].items():
            target = url.removeprefix(served)
            assert target == f"{other}/{path.split('/', 1)[1]}" and target in visits, path
            assert visits[target]["switch"][code] == served + path, f"{target} -> {path}"


def _lab_title(notebook: Path) -> str:
    """A lab's title as its page shows it: the first heading of its first Markdown cell."""
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    first = next(c for c in cells if c["cell_type"] == "markdown")
    return site._plain(site.HEADING.findall("".join(first["source"]))[0])


@pytest.mark.slow  # builds the site or drives the browser
def test_a_reader_clicks_from_the_root_to_an_english_lab_and_switches_language(browser, served):
    """As a reader would: on the root page, "English"; in the sidebar, the first lab by its
    title; on the lab, the switch to Spanish and back. Every click lands on that lab, in the
    language clicked, with its title."""
    english, spanish = (site.lab_sources(site.LANGUAGES[code])[0][1] for code in ("en", "es"))
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    try:
        page.goto(served)
        page.get_by_role("link", name=re.compile("^English")).click()
        page.wait_for_load_state()
        assert page.url == served + "en/index.html"
        sidebar = page.get_by_role("navigation", name=site.TEXT["en"]["navigation"])
        sidebar.get_by_role("link", name=_lab_title(english), exact=True).click()
        page.wait_for_load_state()
        for code, notebook in (("en", english), ("es", spanish), ("en", english)):
            if code != page.evaluate("document.documentElement.lang"):
                page.locator(".site-lang-switch").get_by_role("link", name=site.LANGUAGES[
                    code].name).click()
                page.wait_for_load_state()
            assert page.url == f"{served}{code}/labs/{notebook.stem}.html"
            assert page.evaluate("document.documentElement.lang") == code
            heading = page.locator("main h1").first.inner_text()
            assert _norm(heading.replace("#", "")) == _lab_title(notebook), code
    finally:
        page.close()


@pytest.mark.slow  # builds the site or drives the browser
def test_lab_pages_show_demo_outputs_and_empty_learner_cells(visits):
    """Read in the browser: each lab page, in each language, shows an output under exactly the
    code cells whose site variant has one (the demo cells), none under the learner's cells."""
    shown = {True: 0, False: 0}
    for code, lang in site.LANGUAGES.items():
        for instructor, student in site.lab_sources(lang):
            cells = site.site_notebook(instructor, student)["cells"]
            expected = [bool(c["outputs"]) for c in cells if c["cell_type"] == "code"]
            assert visits[f"{code}/labs/{student.stem}.html"]["outputs"] == expected, \
                f"{code}/{student.name}"
            shown.update({v: shown[v] + expected.count(v) for v in shown})
    assert shown[True] and shown[False]


@pytest.mark.slow  # builds the site or drives the browser
def test_each_page_reads_in_its_language(visits):
    """No Spanish on an English page, no English on a Spanish one (its text, and the tooltips
    and labels of what it shows: the theme's too), apart from kept terms: what a page marks as
    such (code, formulas, italics, quotations, text tagged with its own ``lang``: the language
    switch, the glossary's column of the other language)."""
    assert _by_page({p: f for p, f in visits.items() if p.split("/")[0] in site.LANGUAGES},
                    lambda f: foreign_sentences(f["lang"], f)) == {}


@pytest.mark.slow  # builds the site or drives the browser
def test_nothing_overflows_the_window_or_its_column(visits):
    """At 1280 px, no page scrolls sideways and no sidebar or article is wider than its
    column (a long inline code in a heading once pushed the contents past the edge)."""
    assert _by_page(visits, lambda f: f["overflow"]) == {}


def _map_order(lang: site.Language) -> list[str]:
    """The reading order as the chapter map's table gives it, read here with a plain pattern
    over its rows (the builder reads it with a Markdown parser): theory and labs in the order
    they appear in the first table that links a notebook; then the glossary."""
    text = (lang.theory / lang.readme).read_text(encoding="utf-8")
    blocks = re.split(r"\n\s*\n", text)
    table = next(b for b in blocks if b.startswith("|") and ".ipynb)" in b)
    order = []
    for target in re.findall(r"\]\(([^)#]+\.(?:md|ipynb))", table):
        name = Path(target).stem
        page = f"labs/{name}.html" if target.endswith(".ipynb") else f"theory/{name}.html"
        if page not in order:
            order.append(page)
    return ["index.html", *order, "glossary.html"]


@pytest.mark.slow  # builds the site or drives the browser
def test_the_sidebar_lists_the_chapter_in_reading_order(visits, served):
    for code, lang in site.LANGUAGES.items():
        expected = [f"{served}{code}/{page}" for page in _map_order(lang)]
        assert len(expected) == len(list(lang.theory.glob("*.md"))) + len(
            site.lab_sources(lang)), "every theory file and lab is in the chapter map"
        listed = {path: [urldefrag(u).url for u in facts["sidebar"]]
                  for path, facts in visits.items() if path.startswith(f"{code}/")}
        for url in expected:  # every chapter page lists the chapter
            assert listed[url.removeprefix(served)] == expected, url
        for path, sidebar in listed.items():  # search and index pages: none, or the same
            assert not sidebar or sidebar == expected, path


@pytest.mark.slow  # builds the site or drives the browser
def test_theory_and_labs_link_each_other(visits, served):
    def links(source: str, target: str) -> list[str]:
        return [url for path, facts in visits.items() if f"/{source}/" in path
                for url in facts["links"] if url.startswith(served) and f"/{target}/" in url]

    for source, target in (("theory", "labs"), ("labs", "theory")):
        found = links(source, target)
        assert found, f"no link from {source} to {target}"
        for url in found:
            assert urldefrag(url).url.removeprefix(served) in visits, url
    for code, lang in site.LANGUAGES.items():  # the chapter map links every lab
        on_map = {urldefrag(u).url for u in visits[f"{code}/index.html"]["links"]}
        for _, student in site.lab_sources(lang):
            assert f"{served}{code}/labs/{student.stem}.html" in on_map, student.name


@pytest.mark.slow  # builds the site or drives the browser
def test_the_landing_page_has_the_definition_of_done_and_what_is_left_out(visits):
    for code, lang in site.LANGUAGES.items():
        readme = (lang.theory / lang.readme).read_text(encoding="utf-8")
        headings = re.findall(r"^## (.+)$", readme, re.M)
        text = _norm(visits[f"{code}/index.html"]["text"])
        for heading in headings:
            assert _norm(heading) in text, (code, heading)
        done = next(h for h in headings if re.search(r"terminad|[Dd]one", h))
        left_out = next(h for h in headings if re.search(r"no cubre|not cover", h))
        assert done and left_out


@pytest.mark.slow  # builds the site or drives the browser
def test_no_serious_accessibility_violation(visits):
    audited = {p for p, f in visits.items() if f["axe"] is not None}
    assert {kind(p) for p in audited} == {kind(p) for p in visits}
    assert {f"{code}/index.html" for code in site.LANGUAGES} <= audited
    assert _by_page(visits, lambda f: [v for v in f["axe"] or [] if v["impact"] in SERIOUS]) == {}


@pytest.mark.slow  # builds the site or drives the browser
def test_the_page_checks_catch_what_they_look_for(browser, served, tmp_path_factory):
    """A planted page: raw TeX, a TeX error, an image that does not load and one without
    alt, a missing script, one from a CDN, a console error, a solution line, an English
    sentence on a Spanish page (beside kept terms) and a block wider than the window; each
    check reports it, and only it."""
    planted = tmp_path_factory.mktemp("planted")
    line = next(s for s, origin in solution_strings().items() if origin == "solutions/tensor.py")
    mathjax = site.CACHE / "npm" / "node_modules" / "mathjax" / "es5" / site.MATHJAX_ENTRY
    (planted / "mathjax.js").write_bytes(mathjax.read_bytes())
    (planted / "page.html").write_text(f"""<!DOCTYPE html><html lang="es"><head>
<script>window.MathJax = {{options: {{processHtmlClass: 'math', ignoreHtmlClass: 'document'}}}};</script>
<script src="mathjax.js"></script><script src="missing.js"></script>
<script src="https://cdn.example.invalid/tex-chtml.js"></script></head>
<body class="document"><main><p>Crudo: $x^2$ aquí, y \\frac{{a}}{{b}}.</p>
<p class="math">\\(\\frac{{a}}\\)</p>
<img src="missing.png" alt="a plot"><img src="data:image/gif;base64,R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7">
<pre>{html.escape(line)}</pre><script>console.error("planted");</script>
<p>Una frase en español con <em>in place</em>, «as it says» y <span lang="en">English</span>.
Sus formas: wrote, was, is.
But this sentence was never translated.</p>
<button title="Toggle the sidebar">&lt;</button>
<div style="width: 4000px">wide</div></main></body></html>""",
                                       encoding="utf-8")
    handler = functools.partial(_Quiet, directory=str(planted))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    page = browser.new_page()
    try:
        facts = visit(page, f"http://127.0.0.1:{server.server_address[1]}/page.html", None)
    finally:
        page.close()
        server.shutdown()
        server.server_close()
    assert facts["raw"] and facts["mathErrors"]
    assert [i["loaded"] for i in facts["images"]] == [False, True]
    assert facts["images"][1]["alt"] is None
    assert any("missing.js" in p for p in facts["problems"])
    assert any(p.startswith("external request: https://cdn.example.invalid/") for p in
               facts["problems"])
    assert any("planted" in p for p in facts["problems"])
    assert leaks(facts["text"])
    assert [s.split(" [")[0] for s in foreign_sentences("es", facts)] == [
        "But this sentence was never translated.", "Toggle the sidebar"]
    assert [o.split(":")[0] for o in facts["overflow"]] == ["html."]


# ---------------------------------------------------------------- the builder's parts
def _pair(tmp_path: Path, name: str = "06-extension-silu.ipynb") -> tuple[Path, Path]:
    lang = site.LANGUAGES["es"]
    (tmp_path / "inst").mkdir(exist_ok=True)
    (tmp_path / "stud").mkdir(exist_ok=True)
    inst, stud = tmp_path / "inst" / name, tmp_path / "stud" / name
    inst.write_bytes((lang.instructor_labs / name).read_bytes())
    stud.write_bytes((lang.student_labs / name).read_bytes())
    return inst, stud


@pytest.mark.parametrize("code", site.LANGUAGES)
def test_a_lab_page_shows_demo_outputs_and_empty_learner_cells(code):
    for instructor, student in site.lab_sources(site.LANGUAGES[code]):
        page = site.site_notebook(instructor, student)
        rendered = json.loads(instructor.read_text(encoding="utf-8"))["cells"]
        released = json.loads(student.read_text(encoding="utf-8"))["cells"]
        for cell, inst, stud in zip(page["cells"], rendered, released):
            role = inst["metadata"].get("nbgrader", {})
            assert cell["source"] == stud["source"]  # the learner's cells as released
            if cell["cell_type"] != "code":
                continue
            if role.get("grade") or role.get("solution") or role.get("locked"):
                assert cell["outputs"] == [], (student.name, cell.get("id"))
            else:
                assert cell["outputs"] == inst["outputs"], (student.name, cell.get("id"))
            if any("image/png" in o.get("data", {}) for o in cell["outputs"]):
                assert cell["metadata"]["mystnb"]["image"]["alt"].strip()


def test_a_stale_student_notebook_is_an_error_not_a_guess(tmp_path):
    inst, stud = _pair(tmp_path)
    nb = json.loads(stud.read_text(encoding="utf-8"))
    demo = next(c for c in nb["cells"] if c["cell_type"] == "code"
                and not c["metadata"].get("nbgrader") and c.get("outputs"))
    demo["source"] = "print('edited')\n"
    stud.write_text(json.dumps(nb), encoding="utf-8")
    with pytest.raises(site.SiteError, match="make notebooks"):
        site.site_notebook(inst, stud)
    nb["cells"].pop()
    stud.write_text(json.dumps(nb), encoding="utf-8")
    with pytest.raises(site.SiteError, match="different cells"):
        site.site_notebook(inst, stud)


def test_figure_titles_are_read_from_the_plotting_code():
    code = ("%matplotlib inline\nfig, ax = plt.subplots()\nax.set_title('first')\n"
            "ax.set(title='second', xlabel='x')\nfig.suptitle(f'{n} skipped')\n"
            "draw_graph(s, title='third')\n")
    assert site.figure_titles(code) == ["first", "second", "third"]
    assert site.figure_alt(code, "2. Section") == "2. Section — first; second; third"
    assert site.figure_alt("plt.plot(x)", "2. Section") == "2. Section"


def test_links_are_retargeted_to_the_site_and_the_rest_left_for_the_strict_build():
    es, en = site.LANGUAGES["es"], site.LANGUAGES["en"]
    lab = es.student_labs / "00-tensor-skeleton.ipynb"
    text = ("[a](../theory/01-tensor-as-node.md#el-grafo) [b](../src/x.py) [c](https://x.org/a.md) "
            "[d](#here)")
    assert site.rewrite_links(text, lab, es) == (
        "[a](../theory/01-tensor-as-node.md#el-grafo) [b](../src/x.py) [c](https://x.org/a.md) "
        "[d](#here)")
    readme = en.theory / en.readme
    assert site.rewrite_links("[g](GLOSSARY.md) [l](../../notebooks/07-quiz.ipynb) "
                              "[t](01-tensor-as-node.md)", readme, en) == (
        "[g](glossary.md) [l](labs/07-quiz.ipynb) [t](theory/01-tensor-as-node.md)")
    # an English lab (notebooks/en/) links the English theory, staged beside the Spanish site's
    lab_en = en.student_labs / "00-tensor-skeleton.ipynb"
    assert site.rewrite_links("[t](../../theory/en/02-tensor-op-derivatives.md)", lab_en, en) == (
        "[t](../theory/02-tensor-op-derivatives.md)")


def test_the_reading_order_interleaves_theory_and_labs_as_the_map_does():
    for lang in site.LANGUAGES.values():
        order = site.reading_order(lang)
        assert order[:3] == ["theory/00-motivation.md", "theory/01-tensor-as-node.md",
                             "labs/00-tensor-skeleton.ipynb"]
        assert order[-1] == "glossary.md"
    site.check_pairing(site.LANGUAGES)


@pytest.mark.slow  # one small Sphinx build
def test_the_strict_build_fails_on_a_broken_link_and_a_page_off_the_map(tmp_path):
    """A one-theory, one-lab chapter whose theory links a page that does not exist and whose
    folder holds a page the map does not list: the build fails and names both."""
    inst, stud = _pair(tmp_path)
    theory = tmp_path / "theory"
    theory.mkdir()
    (theory / "README.md").write_text(
        "# Fase X: mapa\n\n| Paso | Teoría | Laboratorio |\n|---|---|---|\n"
        f"| 1 | [00](00-a.md) | [lab](../stud/{stud.name}) |\n\n[glosario](G.md)\n",
        encoding="utf-8")
    (theory / "00-a.md").write_text("# 00 — A\n\nVer [la nada](99-nowhere.md), $x^2$.\n",
                                    encoding="utf-8")
    (theory / "G.md").write_text("# Glosario\n", encoding="utf-8")
    (theory / "01-orphan.md").write_text("# 01 — Sin mapa\n", encoding="utf-8")
    lang = site.Language("es", "Español", theory, "README.md", "G.md", inst.parent, stud.parent)
    with pytest.raises(site.SiteError) as failed:
        site.build(tmp_path / "out", cache=tmp_path / "cache", npm_cache=site.CACHE / "npm",
                   languages={"es": lang})
    assert "99-nowhere" in str(failed.value)
    assert "01-orphan" in str(failed.value) and "toctree" in str(failed.value)
