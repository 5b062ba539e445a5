"""The stubs' docstrings, the learner's specification, in the learner's language.

One source: the reference's English docstrings, and their Spanish in solutions/i18n/es/*.po by
qualified name. The committed stubs are Spanish (the default); ``--lang en`` (or
``MINITORCH_LANG=en make stubs``) writes English ones; the code is the same in both; an edited
stub is never overwritten without ``--force``, whatever the language.
"""

from __future__ import annotations

import ast
import textwrap

import pytest

from minitorch_authoring import cell_catalog, nb_i18n, stubgen

NAMES = sorted(stubgen.STUBS)


def _without_docstrings_and_messages(text: str) -> str:
    tree = ast.parse(text)
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr) and isinstance(
                getattr(body[0], "value", None), ast.Constant) and isinstance(body[0].value.value,
                                                                               str):
            body[0] = ast.Pass()
        if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call):
            node.exc.args = []  # the stub's "not written yet" words
    return ast.dump(tree)


def test_every_docstring_has_a_current_spanish_translation():
    assert stubgen.doc_problems() == [], "fix solutions/i18n/es/*.po, then `make stubs`"


@pytest.mark.parametrize("name", NAMES)
def test_the_two_stubs_differ_only_in_words(name):
    stub = stubgen.STUBS[name]
    es, en = stubgen.stub_text(stub, "es"), stubgen.stub_text(stub, "en")
    assert _without_docstrings_and_messages(es) == _without_docstrings_and_messages(en)
    reference = {q: d for q, _a, _b, d in stubgen.docstrings(stub.reference.read_text())}
    english = {q: d for q, _a, _b, d in stubgen.docstrings(en)}
    spanish = {q: d for q, _a, _b, d in stubgen.docstrings(es)}
    assert english == reference  # the English stub carries the reference's own words
    assert set(spanish) == set(reference)
    assert all(spanish[q] != reference[q] for q in reference), "a docstring stayed English"
    assert stubgen.NOT_WRITTEN_EN in en and "aún" not in en
    assert not nb_i18n.spanish_words(" ".join(english.values()))
    assert nb_i18n.spanish_words(" ".join(spanish.values()))


@pytest.mark.parametrize("name", NAMES)
def test_the_committed_stub_is_spanish(name):
    stub = stubgen.STUBS[name]
    assert stub.target.read_text(encoding="utf-8") == stubgen.stub_text(stub, "es")


def test_a_changed_english_docstring_stays_english_and_is_named(monkeypatch, tmp_path):
    stub = stubgen.STUBS["mlp"]
    reference = stub.reference.read_text(encoding="utf-8")
    changed = reference.replace("Initial weights as float64 arrays",
                                "Initial weights as float64 NumPy arrays", 1)
    assert changed != reference
    copy = tmp_path / "mlp.py"
    copy.write_text(changed, encoding="utf-8")
    monkeypatch.setitem(stubgen.STUBS, "mlp", stubgen.Stub(
        "mlp", copy, tmp_path / "out.py", ".m", stub.header, stub.header_es))
    problems = stubgen.doc_problems()
    assert problems == ["mlp.py init_params: docstring changed since it was translated (mlp.po)"]
    spanish = stubgen.stub_text(stubgen.STUBS["mlp"], "es")
    assert "Initial weights as float64 NumPy arrays" in spanish  # English, never a stale Spanish
    assert "Logits ``(N, 5)`` para" in spanish  # the others stay translated


def test_switching_language_never_overwrites_an_edited_stub(tmp_path, capsys):
    stub = stubgen.STUBS["tensor"]
    target = tmp_path / "tensor.py"
    assert stubgen.write(stub, target, check=False, force=False, lang="es") == 0
    assert stubgen.write(stub, target, check=False, force=False, lang="en") == 0  # unedited
    assert "not written yet" in target.read_text(encoding="utf-8")
    target.write_text(target.read_text(encoding="utf-8") + "\n# my work\n", encoding="utf-8")
    assert stubgen.write(stub, target, check=False, force=False, lang="es") == 2
    assert "# my work" in target.read_text(encoding="utf-8")
    assert "make stubs FORCE=1" in capsys.readouterr().err
    assert stubgen.write(stub, target, check=False, force=True, lang="es") == 0
    assert list(tmp_path.glob("tensor.py.bak-*"))


def test_the_catalog_round_trips(tmp_path):
    entries = [cell_catalog.Entry("a.b", "x\n    y\n", "equis\n    i griega\n"),
               cell_catalog.Entry("c", "z", "zeta", fuzzy=True, previous='old\n"z"\n')]
    path = tmp_path / "x.po"
    cell_catalog.write_catalog(path, "x", entries, "es")
    back = cell_catalog.read_catalog(path)
    assert back == {e.cell_id: e for e in entries}
    assert "Date" not in path.read_text(encoding="utf-8")


def test_the_english_test_skeletons_hold_no_spanish():
    es, en = stubgen.skeletons("es"), stubgen.skeletons("en")
    assert set(es) == set(en)
    for name in es:
        assert nb_i18n.spanish_words(es[name]), name  # the default stays Spanish
        assert not nb_i18n.spanish_words(en[name]), (name, nb_i18n.spanish_words(en[name]))
        assert _without_docstrings_and_messages(es[name]) == \
            _without_docstrings_and_messages(en[name])
        assert stubgen.SKELETON_BODY_EN in en[name]


@pytest.mark.parametrize("lang", ["es", "en"])
def test_every_test_skeleton_is_ready_for_a_parametrized_test(lang):
    """Two skeletons once lacked ``import pytest`` (issue 28): a learner's first
    ``@pytest.mark.parametrize`` died at collection with a NameError. Each skeleton, with such
    a test appended, runs as a module (what pytest's collection does) without an error."""
    learner_test = textwrap.dedent('''
        @pytest.mark.parametrize("n", [1, 2])
        def test_learner(n):
            with pytest.raises(ZeroDivisionError):
                n / 0
        ''')
    for name, text in stubgen.skeletons(lang).items():
        module: dict = {"__name__": name.removesuffix(".py")}
        exec(compile(text + learner_test, name, "exec"), module)
        assert callable(module["test_learner"]), name


# ---------------------------------------------------------------- the English copies, shipped
def test_the_shipped_english_copies_are_current(tmp_path, monkeypatch, capsys):
    """``stubgen --check --lang en`` (make test) holds src/minitorch_course/stubs_en/ to what
    the reference generates: each stub and skeleton in English; a stale or extra one fails."""
    assert stubgen.write_english(check=True) == 0
    copies = stubgen.english_copies()
    assert {p.name for p in copies} == {"tensor.py", "mlp.py", "spanish.sha256"} | set(
        stubgen.skeletons("en"))
    for path, text in copies.items():
        assert path.read_text(encoding="utf-8") == text
        assert not nb_i18n.spanish_words(text), path
    stale = tmp_path / "stubs_en"
    for path, text in copies.items():
        target = stale / path.relative_to(stubgen.ENGLISH)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    monkeypatch.setattr(stubgen, "ENGLISH", stale)
    assert stubgen.write_english(check=True) == 0
    mlp = (stale / "mlp.py").read_text(encoding="utf-8")
    (stale / "mlp.py").write_text(mlp.replace("Initial", "Initiall"), encoding="utf-8")
    assert stubgen.write_english(check=True) == 1
    assert "mlp.py is not the current English stub" in capsys.readouterr().out


def _spanish_checkout(root):
    """A learner's copy as `make stubs` leaves it: Spanish stubs and skeletons, with markers."""
    for stub in stubgen.STUBS.values():
        assert stubgen.write(stub, root / "src" / "minitorch" / stub.target.name, check=False,
                             force=False, lang="es") == 0
    assert stubgen.write_skeletons(root / "my_tests", lang="es") == 0


def test_make_english_switches_the_unedited_files_without_solutions(tmp_path, capsys,
                                                                    monkeypatch):
    """`make english` (minitorch_course.stubfiles) reads only the shipped copies: the unedited
    stubs and skeletons become English, an edited one stays (status 2, named) until FORCE=1,
    which backs it up."""
    from minitorch_course import i18n, stubfiles

    root = tmp_path / "copy"
    _spanish_checkout(root)
    mlp = root / "src" / "minitorch" / "mlp.py"
    mlp.write_text(mlp.read_text(encoding="utf-8") + "\n# my work\n", encoding="utf-8")
    edited_test = root / "my_tests" / "test_gradcheck.py"
    edited_test.write_text(edited_test.read_text(encoding="utf-8") + "\n# mine\n",
                           encoding="utf-8")
    monkeypatch.setenv("MINITORCH_LANG", "es")  # recorded, so main()'s setdefault is undone
    monkeypatch.delenv("MINITORCH_LANG")
    monkeypatch.setattr(stubfiles, "learner_root", lambda: root)
    assert stubfiles.main(["en"]) == 2  # make english: it speaks English without MINITORCH_LANG
    err = capsys.readouterr().err
    assert "refusing to overwrite" in err and "make english FORCE=1" in err
    assert "mlp.py" in err and "test_gradcheck.py" in err
    english = stubgen.english_copies()
    by_name = {p.relative_to(stubgen.ENGLISH).as_posix(): text for p, text in english.items()}
    assert (root / "src" / "minitorch" / "tensor.py").read_text() == by_name["tensor.py"]
    assert "# my work" in mlp.read_text() and "# mine" in edited_test.read_text()
    assert (root / ".minitorch-lang").read_text().strip() == "en"  # make check speaks English
    monkeypatch.chdir(root)
    assert i18n.language() == "en"
    for name in stubgen.skeletons("en"):
        if name != edited_test.name:
            assert (root / "my_tests" / name).read_text() == by_name[f"my_tests/{name}"]
    # once switched, each file is still "unedited" for make stubs (its marker follows)
    tensor = stubgen.STUBS["tensor"]
    assert stubgen.write(tensor, root / "src" / "minitorch" / "tensor.py", False, False,
                         "es") == 0
    assert stubfiles.to_english(force=True, root=root) == 0
    assert "# my work" not in mlp.read_text()
    assert list(mlp.parent.glob("mlp.py.bak-*")) and list(edited_test.parent.glob(
        "test_gradcheck.py.bak-*"))
    assert stubfiles.to_english(root=root) == 0  # nothing left to do


def test_make_english_without_markers_replaces_only_the_generated_spanish_files(tmp_path):
    """A class release ships no markers: a file still equal to the generated Spanish one
    (stubs_en/spanish.sha256) is replaced, an edited one is not."""
    from minitorch_course import stubfiles

    root = tmp_path / "release"
    _spanish_checkout(root)
    for marker in [*root.rglob(".stub*.sha256"), *root.rglob(stubfiles.SKELETON_MARKER)]:
        marker.unlink()
    tensor = root / "src" / "minitorch" / "tensor.py"
    mlp = root / "src" / "minitorch" / "mlp.py"
    mlp.write_text(mlp.read_text(encoding="utf-8") + "\n# my work\n", encoding="utf-8")
    assert stubfiles.to_english(root=root) == 2
    assert "not written yet (notebooks/en/" in tensor.read_text(encoding="utf-8")
    assert "aún" not in (root / "my_tests" / "test_gradcheck.py").read_text(encoding="utf-8")
    assert "# my work" in mlp.read_text(encoding="utf-8")
