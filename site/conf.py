"""Sphinx configuration of the chapter's website: one file for every language.

Built by ``python -m minitorch_authoring.site build`` (``make site``), which stages each
language's pages and runs ``sphinx-build -n -W -c site -D language=<code> ...`` once per
language. The language decides the <html lang>, the theme's strings and the search language
(Sphinx takes both from ``language``); see minitorch_authoring/site.py for the pages.
"""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from minitorch_authoring import site as _site  # noqa: E402

# nbformat imports jsonschema, whose optional IRI format checker (rfc3987_syntax, installed here
# by Jupyter's dependencies) compiles 38 grammars at import: 2 to 7 s per build, for a format no
# notebook schema uses. Sphinx reads this file before it loads myst-nb.
sys.modules.setdefault("rfc3987_syntax", None)

project = "minitorch"
author = "minitorch"
language = "es"  # the course's default; each build passes -D language=<code>
root_doc = "index"

extensions = ["myst_nb", "sphinx.ext.mathjax"]
myst_enable_extensions = ["dollarmath", "amsmath"]
myst_heading_anchors = 4  # the theory links to sections: [01](01-tensor-as-node.md#...)
nb_execution_mode = "off"  # the labs' outputs are the rendered instructor notebooks'
nb_merge_streams = True

# MathJax 3 from the site itself (copied into _static/mathjax/ by the build), never a CDN.
mathjax_path = f"mathjax/{_site.MATHJAX_ENTRY}"
# An undefined macro is an error MathJax shows (and the browser tests catch), not red text.
mathjax3_config = {"tex": {"packages": {"[-]": ["noundefined"]}}}

html_theme = "sphinx_book_theme"
html_theme_options = {
    "home_page_in_toc": True,  # the chapter map heads the sidebar
    "show_navbar_depth": 1,
    "use_download_button": False,
    "use_fullscreen_button": True,
    "article_header_end": ["lang-switch.html", "article-header-buttons.html"],
}
html_context = {"default_mode": "auto"}  # light or dark as the reader's system prefers
html_favicon = "_static/favicon.svg"
html_static_path = ["_static"]
html_css_files = ["site.css"]
templates_path = ["_templates"]
locale_dirs = ["locales"]  # staged by the build: Sphinx's messages its own catalog lacks
html_copy_source = False  # no _sources/: the pages are the site
html_show_sourcelink = False
html_last_updated_fmt = None


def _configure(app, config):
    lang = _site.LANGUAGES[config.language]
    config.html_title = _site.title(lang)
    config.project = config.html_title
    config.html_theme_options = {**config.html_theme_options,
                                 "search_bar_text": _site.TEXT[lang.code]["search"]}


def _page_context(app, pagename, templatename, context, doctree):
    """The language switch: the same page in each language."""
    here = app.config.language
    up = "../" * (pagename.count("/") + 1)  # from this page to the site root
    context["site_text"] = _site.TEXT[here]
    context["site_switch_label"] = _site.TEXT[here]["switch"]
    context["site_languages"] = [
        {"code": code, "name": lang.name, "current": code == here,
         "href": f"{up}{code}/{pagename}.html"}
        for code, lang in _site.LANGUAGES.items()]


def setup(app):
    app.connect("config-inited", _configure)
    app.connect("html-page-context", _page_context)
    app.connect("doctree-resolved", _site.mark_language_columns)
