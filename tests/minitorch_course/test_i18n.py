"""Run-time text in the learner's language (minitorch_course.i18n): every message id has its
Spanish translation with the same fields; ``make check`` in Spanish prints no English of the
course's own; in English it reports exactly the same outcomes."""

from __future__ import annotations

import io
import re
from collections import Counter
from pathlib import Path

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po
from conftest import english_words, run_report

from minitorch_authoring import i18n_build, mutants, stubgen
from minitorch_authoring.repository import ROOT
from minitorch_course import catalog, i18n, messages

PACKAGE = ROOT / "src"

# a sample of planted mistakes whose diagnoses cover the message families: a generic and a
# catalog diagnosis, a factor, reverse broadcasting, a crash, the engine checks, unbroadcast
SAMPLE = ("div_gradients_swapped", "sqrt_forgets_one_half", "sigmoid_forgets_upstream",
          "matmul_T_reverses_batch_axes", "reshape_backward_flattens", "max_ties_not_split",
          "mean_divides_by_total_size", "sum_backward_keepdims_lost", "accumulate_overwrites",
          "recursive_topological_sort", "backward_skips_unbroadcast", "unbroadcast_returns_grad",
          "graph_never_freed", "softmax_without_max_shift", "leaf_grads_alias",
          "getitem_assigns_repeated_indices")


class Terminal(io.StringIO):
    encoding = "utf-8"


def run(*args: str) -> str:
    args = list(args)
    mutant = None
    if "--mutant" in args:  # a maintainer's view: the reference with a planted mistake
        i = args.index("--mutant")
        mutant = args.pop(i + 1)
        args.pop(i)
    return run_report(*args, mutant=mutant)[1]


def source_msgids() -> dict[str, str]:
    """Every message id the package passes to ``_``/``t``/``N_``, and every table string."""
    found = {}
    for filename, lineno, msgid, _c, _x in extract_from_dir(
            str(PACKAGE), method_map=[("**.py", "python")],
            keywords={"_": None, "t": (1,), "N_": None}):
        if i18n_build.is_source(filename) and msgid:
            found[msgid] = f"{filename}:{lineno}"
    for msgid, where in i18n_build.table_strings():
        if msgid:
            found[msgid] = where
    return found


def spanish() -> dict[str, str]:
    with open(i18n.po_path("es"), "rb") as f:
        po = read_po(f, locale="es")
    assert not po.obsolete
    return {m.id: (m.string, m.fuzzy) for m in po if m.id}


def untranslated(text: str) -> list[str]:
    """The lines of ``text`` (an audited run) where, once every parameter is taken out, an
    English word is left: a sentence that did not come through the catalog."""
    fence = re.compile(re.escape(i18n.OPEN) + f"[^{i18n.OPEN}{i18n.CLOSE}]*"
                       + re.escape(i18n.CLOSE))
    while True:
        stripped = fence.sub("", text)
        if stripped == text:
            break
        text = stripped
    bad = []
    for line in text.splitlines():
        if words := english_words(line):
            bad.append(f"{words}: {line}")
    return bad


def test_every_message_id_has_a_spanish_translation_with_the_same_fields():
    ids, es = source_msgids(), spanish()
    missing = sorted(f"{where}: {m!r}" for m, where in ids.items() if not es.get(m, ("",))[0])
    assert not missing, "run `make messages` and translate:\n" + "\n".join(missing)
    fuzzy = sorted(m for m, (_s, f) in es.items() if f)
    assert not fuzzy, f"fuzzy translations: {fuzzy}"
    stale = sorted(set(es) - set(ids))
    assert not stale, f"ids no source uses any more (run `make messages`): {stale}"
    for msgid, (text, _f) in es.items():
        assert i18n.fields(text) == i18n.fields(msgid), (msgid, text)


def test_translations_fill_with_the_same_parameters_as_the_english():
    """Each Spanish template formats with exactly the English one's parameters (a field that
    only the translation names would raise KeyError at run time)."""
    for msgid, (text, _f) in spanish().items():
        names = {f.split(":")[0].split("!")[0] for f in i18n.fields(msgid)}
        assert {f.split(":")[0].split("!")[0] for f in i18n.fields(text)} == names, msgid


def test_every_catalog_case_note_is_translated():
    notes = {c.note for op in catalog.OPS for c in op.all_cases + op.broadcast_cases if c.note}
    assert notes <= catalog.CASE_NOTES, notes - catalog.CASE_NOTES


def test_the_switch(monkeypatch):
    monkeypatch.delenv("MINITORCH_LANG", raising=False)
    assert i18n.language() == "es"
    monkeypatch.setenv("MINITORCH_LANG", "en_GB.UTF-8")
    assert i18n.language() == "en" and messages.status("not started") == "not started"
    monkeypatch.setenv("MINITORCH_LANG", "es")
    assert messages.status("not started") == "sin empezar"


def test_a_stale_or_missing_mo_falls_back_to_the_po(monkeypatch, tmp_path):
    """A fresh clone without `make` (no .mo) still speaks Spanish: the .po compiled in memory."""
    po = tmp_path / "es" / "LC_MESSAGES" / f"{i18n.DOMAIN}.po"
    po.parent.mkdir(parents=True)
    po.write_bytes(i18n.po_path("es").read_bytes())
    monkeypatch.setattr(i18n, "LOCALE_DIR", tmp_path)
    i18n.translations.cache_clear()
    try:
        assert not po.with_suffix(".mo").exists()
        assert i18n.translations("es").gettext("not started") == "sin empezar"
    finally:
        i18n.translations.cache_clear()


@pytest.fixture
def audit(monkeypatch):
    monkeypatch.setenv("MINITORCH_LANG", "es")
    monkeypatch.setenv(i18n.AUDIT_ENV, "1")
    i18n.MISSES.clear()
    yield
    i18n.MISSES.clear()


@pytest.fixture(scope="module")
def stub_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("stub") / "tensor.py"
    path.write_text(stubgen.generate((ROOT / "solutions" / "tensor.py").read_text()))
    return path


def test_the_scan_finds_a_sentence_that_skipped_the_catalog(audit, monkeypatch):
    """The scan below can fail: a diagnosis written as a plain f-string is caught."""
    monkeypatch.setitem(messages.DIAGNOSES, "sign", lambda p: f"Sign flipped in {p['method']}.")
    out = run("--mutant", "tanh_derivative_sign", "--op", "tanh", "--examples", "3")
    assert any("Sign flipped" in line for line in untranslated(out)), out


def test_spanish_make_check_on_the_stub_is_all_spanish(audit, stub_file):
    out = run("--impl", str(stub_file), "--examples", "3", "--closing")
    out += run("--impl", str(stub_file), "--op", "backward,add,sum", "--examples", "3")
    assert not i18n.MISSES, sorted(i18n.MISSES)
    assert not untranslated(out), "\n".join(untranslated(out))
    assert "sin empezar" in out


@pytest.mark.parametrize("name", SAMPLE)
def test_spanish_diagnosis_of_a_planted_mistake_is_all_spanish(audit, name):
    row = ",".join(mutants.MUTANT_BY_NAME[name].affects)
    out = run("--mutant", name, "--op", row, "--examples", "5", "--closing")
    assert "✗" in out, out  # the mistake was caught: there is a diagnosis to read
    assert not i18n.MISSES, sorted(i18n.MISSES)
    assert not untranslated(out), "\n".join(untranslated(out))


def skeleton(text: str) -> tuple:
    """What must not depend on the language: the statuses, points, shapes and measured values."""
    text = re.sub(r"· [\d.]+ s\n", "\n", text)  # the run's duration
    text = re.sub(r"\s+", " ", text)  # lines wrap at other places in other words
    return (re.findall(r"[✓✗–]", text),
            re.findall(r"\b\d+/\d+\b", text),
            Counter(re.findall(r"\(\d+(?:, \d+)*,?\)|\(\)", text)),
            Counter(re.findall(r"-?\d+\.\d{4,}(?:e[-+]?\d+)?", text)))


@pytest.mark.parametrize("name", ["div_gradients_swapped", "backward_skips_unbroadcast"])
def test_english_and_spanish_report_the_same_outcomes(monkeypatch, name):
    affects = mutants.MUTANT_BY_NAME[name].affects  # the first and the last row: the words of every
    row = ",".join(dict.fromkeys((affects[0], affects[-1])))  # row are audited above, in Spanish
    args = ("--mutant", name, "--op", row, "--examples", "5")
    monkeypatch.setenv("MINITORCH_LANG", "en")
    english = run(*args)
    monkeypatch.setenv("MINITORCH_LANG", "es")
    spanish_ = run(*args)
    assert english != spanish_
    assert "Total:" in english and "puntos" in spanish_
    assert skeleton(english) == skeleton(spanish_)
    assert len(english.splitlines()) > 10


def test_the_course_names_the_same_lab_as_the_stub_for_every_unwritten_function():
    """make check words "not started" itself (in the learner's language) from the function that
    raised and the catalog's lab: it must agree with the stub's own (bilingual) message."""
    stub = stubgen.generate((ROOT / "solutions" / "tensor.py").read_text())
    found = re.findall(r'NotImplementedError\("([\w.]+): .*\(notebooks/([\w-]+)\.ipynb\)"\)', stub)
    assert len(found) >= len({op.method for op in catalog.OPS})
    for function, lab in found:
        assert catalog.lab_asking_for(function) == lab, function


def test_every_engine_case_has_a_label_to_translate():
    from minitorch_course import engine_checks

    names = {case.name for row in catalog.ENGINE_ROWS for case in engine_checks.cases(row.name)}
    words = {n for n in names if not n.startswith("unbroadcast ")}  # those name their call
    assert words and words <= set(engine_checks.LABELS), words - set(engine_checks.LABELS)
    wheres = set(engine_checks.READS)  # every comparison's words, and only those
    assert {"two_leaves_x", "reset_a", "unbroadcast"} <= wheres


@pytest.mark.parametrize("lang", [lang for lang in i18n_build.LANGUAGES
                                  if i18n_build.po_path(lang).exists()])
def test_each_catalog_compiles_as_the_makefile_compiles_it(lang, tmp_path):
    """A fresh clone has no .mo: `make lab`, `make check` and `make test` first run pybabel
    compile, whose checks reject what a test reading the .po would accept (a "90 % on" in a
    msgid is read as the %-conversion "% o", and the translation's "% e" then mismatches)."""
    import subprocess
    import sys

    pybabel = Path(sys.executable).with_name("pybabel")
    proc = subprocess.run([str(pybabel), "--quiet", "compile", "--domain", i18n_build.DOMAIN,
                           "--input-file", str(i18n_build.po_path(lang)),
                           "--output-file", str(tmp_path / "out.mo")],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_every_fact_and_diagnosis_id_any_module_produces_has_wording():
    """A Fact or Diagnosis built with a literal id anywhere in src/ (the record included) can be
    put in words: messages.FACTS, DIAGNOSES or MISTAKES holds it."""
    import ast

    from minitorch_authoring.repository import SRC
    from minitorch_course import messages

    special = {"property-failed"}  # worded from the example it carries (messages.fact_text)
    missing = []
    for path in sorted(SRC.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
                continue
            literal = [a.value if isinstance(a, ast.Constant) else None for a in node.args]
            where = f"{path.relative_to(SRC)}:{node.lineno}"
            if node.func.id in ("Fact", "_fail") and literal[:1] and literal[0]:
                if literal[0] not in messages.FACTS and literal[0] not in special:
                    missing.append(f"{where}: fact {literal[0]!r}")
            diagnosis_id = (literal[1:2] if node.func.id == "Diagnosis"
                            else literal[2:3] if node.func.id == "_fail" else [])
            if diagnosis_id and diagnosis_id[0] and diagnosis_id[0] not in messages.DIAGNOSES \
                    and diagnosis_id[0] not in messages.MISTAKES:
                missing.append(f"{where}: diagnosis {diagnosis_id[0]!r}")
    assert not missing, "\n".join(missing)


@pytest.mark.parametrize("lang", ["es", "en"])
def test_messages_name_the_notebook_of_the_learners_language(lang, monkeypatch):
    """What is not answered or not written points to the lab in the learner's language:
    notebooks/NN-*.ipynb in Spanish, notebooks/en/NN-*.ipynb in English; so does the stub."""
    from minitorch_course import exercises, quiz

    monkeypatch.setenv("MINITORCH_LANG", lang)
    folder = "notebooks/en/" if lang == "en" else "notebooks/"
    name, ex = next(iter(exercises.EXERCISES.items()))
    with pytest.raises(NotImplementedError) as err:
        exercises.check_exercise(name, *[None] * len(ex.answers))
    assert f"({folder}{ex.lab}.ipynb)" in str(err.value)
    with pytest.raises(NotImplementedError) as err:
        quiz.check_format(1, None)
    assert f"({folder}07-quiz.ipynb)" in str(err.value)
    text = messages._not_started({"function": "Tensor.add", "lab": "01-elementwise-ops"})
    assert f"({folder}01-elementwise-ops.ipynb)" in text
    stub = stubgen.stub_text(stubgen.STUBS["tensor"], lang)
    assert f"({folder}01-elementwise-ops.ipynb)" in stub
