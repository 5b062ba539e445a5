"""The learner's own tests (my_tests/), graded by the chaffs they catch (minitorch_course.examplar).

The five proof sets of solutions/learner_tests/ score as the issue states: the model set every
kind of every lab, the weak set some (its feedback names the rest), the skeletons, an
always-failing set and a fingerprinting set zero (the last one flagged). The in-kernel route's
boundary faults are proved on the reference as the learner's implementation.
"""

from __future__ import annotations

import json
import subprocess
import sys
import types

import pytest

from minitorch_authoring import stubgen
from minitorch_authoring.repository import ROOT
from minitorch_course import examplar, i18n, runner
from minitorch_course.catalog import OPS

PROOF = ROOT / "solutions" / "learner_tests"
LAB01 = "01-elementwise-ops"


@pytest.fixture(scope="module")
def course_set():
    impls = examplar.course_set()
    assert impls is not None, "solutions/examplar_set.py is missing"
    return impls


# ---------------------------------------------------------------- skeletons
def test_the_skeletons_are_the_model_set_without_its_bodies():
    for name, text in stubgen.skeletons().items():
        model = (stubgen.SKELETON_SOURCE / name).read_text(encoding="utf-8")
        assert stubgen.BEGIN in model, f"{name}: the model has no fenced body"
        assert stubgen.BEGIN not in text and stubgen.SKELETON_BODY in text
        assert not examplar.has_tests_text(text), f"{name}: the skeleton hands over a test"
        fenced = model.split(stubgen.BEGIN, 1)[1].split(stubgen.END, 1)[0]
        leaked = [line for line in fenced.splitlines()
                  if len(line.strip()) > 25 and line.strip() in text]
        assert not leaked, (name, leaked)
        docstring = model.split('"""')[1]
        assert docstring in text and "Laboratorio" in docstring  # the learner's spec, Spanish


def skeleton_gaps(by_lang: dict[str, dict[str, str]]) -> list[str]:
    """An op's skeleton (``test_<op>.py``) must name, in each language, every value of a text
    argument the graded checks try (cross_entropy's reductions): a docstring naming only the
    mean sent a learner to write the rest after the graded check failed."""
    gaps = []
    for lang, skeletons in by_lang.items():
        for name, text in skeletons.items():
            op = next((o for o in OPS if f"test_{o.name}.py" == name), None)
            if op is None:
                continue
            docstring = text.split('"""')[1]
            values = {v for c in op.all_cases for v in c.kwargs.values() if isinstance(v, str)}
            gaps += [f"{name} [{lang}]: {v!r}" for v in sorted(values)
                     if f"'{v}'" not in docstring]
    return gaps


def test_an_ops_skeleton_names_every_argument_form_it_is_graded_on():
    by_lang = {lang: stubgen.skeletons(lang) for lang in ("es", "en")}
    assert "test_cross_entropy.py" in by_lang["en"]
    assert not skeleton_gaps(by_lang), skeleton_gaps(by_lang)
    planted = dict(by_lang["es"])
    planted["test_cross_entropy.py"] = planted["test_cross_entropy.py"].replace("'sum'", "sum")
    assert skeleton_gaps({"es": planted}) == ["test_cross_entropy.py [es]: 'sum'"]


def test_the_committed_skeletons_are_current():
    assert stubgen.write_skeletons(ROOT / examplar.FOLDER, check=True) == 0, "run `make stubs`"


def test_regenerating_never_overwrites_an_edited_test(tmp_path):
    tensor, folder = tmp_path / "tensor.py", tmp_path / "my_tests"

    def run(*args):
        return subprocess.run([sys.executable, "-m", "minitorch_authoring.stubgen",
                               "--target", str(tensor), "--tests-target", str(folder), *args],
                              capture_output=True, text=True, cwd=ROOT)

    assert run().returncode == 0
    edited = folder / "test_elementwise.py"
    edited.write_text(edited.read_text() + "\ndef test_mine():\n    pass\n")
    refused = run()
    assert refused.returncode == 2 and "make stubs FORCE=1" in refused.stderr
    assert "test_mine" in edited.read_text()
    assert run("--check").returncode == 1
    assert run("--force").returncode == 0
    backups = list(folder.glob("test_elementwise.py.bak-*"))
    assert len(backups) == 1 and "test_mine" in backups[0].read_text()
    assert "test_mine" not in edited.read_text()


# ---------------------------------------------------------------- the proof sets
@pytest.mark.slow
def test_the_model_set_catches_every_kind_of_every_lab(course_set):
    grades = examplar.grade(PROOF / "model", course_set)
    for lab, g in grades.items():
        assert g.tests and not g.dropped and not g.flagged and not g.problems, g.to_dict()
        assert g.missed == [] and g.score == 1.0, (lab, g.kinds)
        assert set(g.kinds) == set(course_set.kinds_for(lab))


def test_a_module_imported_under_a_test_files_name_does_not_replace_the_learners_file(
        course_set, tmp_path, monkeypatch):
    """pytest's importlib mode reuses a module already in sys.modules under a test file's name:
    an xdist worker holds the course's own tests/minitorch/test_gradcheck.py as
    ``test_gradcheck``, and lab 04's model tests then caught half of its 'upstream' chaffs (the
    course's tests ran against every implementation instead of the learner's)."""
    impostor = types.ModuleType("test_gradcheck")
    exec("def test_impostor():\n    pass\n", impostor.__dict__)
    monkeypatch.setitem(sys.modules, "test_gradcheck", impostor)  # the forked run inherits it
    (tmp_path / "test_gradcheck.py").write_text("def test_mine():\n    assert False\n")
    run, = examplar.run_many(course_set.wheats[:1], [str(tmp_path / "test_gradcheck.py")],
                             tmp_path)
    assert [nodeid.split("::")[-1] for nodeid in run.outcomes] == ["test_mine"], run.outcomes
    assert set(run.outcomes.values()) == {"failed"} and not run.problem


def test_the_weak_set_catches_some_and_its_feedback_names_what_it_missed(course_set, monkeypatch):
    g = examplar.grade_lab(PROOF / "weak", LAB01, course_set)
    assert g.valid and not g.dropped
    assert 0 < len(g.caught) < len(g.kinds) and 0 < g.score < 1
    assert {"upstream", "broadcast-leading", "broadcast-inner"} <= set(g.missed)
    for lang in i18n.LANGUAGES:
        monkeypatch.setenv(i18n.ENV, lang)
        text = "\n".join(examplar.feedback(g))
        for kind in g.missed:
            assert examplar.kind_missed(kind) in text
    monkeypatch.setenv(i18n.ENV, "es")
    assert "gradiente" in "\n".join(examplar.feedback(g))  # Spanish by default


def test_the_skeletons_score_zero_without_running_anything(course_set, tmp_path):
    for name, text in stubgen.skeletons().items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    for lab, g in examplar.grade(tmp_path, course_set).items():
        assert g.files and g.tests == [] and g.score == 0 and g.caught == [], lab
        assert g.seconds < 5


def test_an_always_failing_set_scores_zero_and_names_every_dropped_test(course_set):
    g = examplar.grade_lab(PROOF / "failing", LAB01, course_set)
    assert g.tests and g.valid == [] and set(g.dropped) == set(g.tests)
    assert g.score == 0
    text = "\n".join(examplar.feedback(g))
    assert all(test in text for test in g.dropped)


def test_a_fingerprinting_set_scores_zero_and_is_flagged(course_set):
    g = examplar.grade_lab(PROOF / "fingerprint", LAB01, course_set)
    assert g.score == 0 and g.valid == []
    assert {"co_code", "getsource", "hashlib"} <= set(g.flagged["test_elementwise.py"])


def test_fingerprinting_without_the_telltale_names_still_fails_on_a_wheat(course_set, tmp_path):
    """Recognising the public reference by its behaviour-free details (a closure's code object,
    reached without any flagged name) fails on the wheats, whose form differs."""
    reference = repr(str(runner.REFERENCE_FILE))
    (tmp_path / "test_elementwise.py").write_text(
        "import minitorch as mt\n"
        "REF = {}\n"
        f"exec(compile(open({reference}).read(), 'tensor.py', 'exec'), REF)\n"
        "def code(f):\n"
        "    c = getattr(getattr(f, '__wrapped__', f), '__co' + 'de__')\n"
        "    return getattr(c, 'co_' + 'consts')\n"
        "def test_sub():\n"
        "    assert code(mt.Tensor.sub) == code(REF['Tensor'].sub)\n"
        "def test_tanh():\n"
        "    assert code(mt.Tensor.tanh) == code(REF['Tensor'].tanh)\n")
    g = examplar.grade_lab(tmp_path, LAB01, course_set)
    assert not g.flagged and g.tests and g.valid == [] and g.score == 0


# ---------------------------------------------------------------- implementations
def test_the_wheats_differ_in_form_and_pass_the_rows_they_rewrite(course_set):
    reference = runner.REFERENCE_FILE.read_text(encoding="utf-8")
    sources = [w.source for w in course_set.wheats]
    assert len(set(sources + [reference])) == len(sources) + 1 >= 4
    wheat_plants = examplar.load_set_module(PROOF.parent / "examplar_set.py").WHEATS
    engine = ["topological_order", "backward", "retain_graph", "unbroadcast"]
    for wheat in course_set.wheats:
        methods = {p.function.rsplit(".", 1)[-1] for p in wheat_plants[wheat.name]}
        names = engine + [op.name for op in OPS if op.method in methods]
        impl = runner.load_impl(source=wheat.source, name=wheat.name)
        bad = [r.row for r in runner.run(names, impl, runner.GRADED_SUITES,
                                         gradcheck_max_size=60) if r.status != runner.PASS]
        assert bad == [], (wheat.name, bad)


def test_every_chaff_differs_from_every_wheat(course_set):
    wheats = {w.source for w in course_set.wheats}
    assert all(c.source not in wheats for c in course_set.chaffs)
    assert {c.kind for c in course_set.chaffs} <= set(examplar.TEST_KINDS)
    for lab in examplar.LAB_FILES:
        assert course_set.kinds_for(lab), lab


def test_a_wheat_that_is_wrong_drops_the_tests_that_catch_it(course_set):
    """The grader itself can fail: with a chaff posing as a wheat, the model tests that
    catch it are dropped and named (never silently counted)."""
    fake = examplar.ImplSet("t", course_set.wheats[:1] + [
        next(c for c in course_set.chaffs if c.name == "relu_gradient_one_at_zero")], [])
    g = examplar.grade_lab(PROOF / "model", LAB01, fake)
    assert any("kink" in test for test in g.dropped)


def test_following_the_paths_advice_catches_its_kind_and_a_leaf_diamond_does_not(course_set,
                                                                                  tmp_path):
    """The 'paths' advice once read "y = x * x, or a diamond a -> b, c -> d": a suite doing
    exactly that (the diamond's top a leaf) let a topological sort without a visited set
    through (found by a suite written as an outsider). The advice's examples now catch the
    kind; the old ones still miss it."""
    advice = examplar.TEST_KINDS["paths"][1]
    assert "y = x * x" in advice and "h = x * 3; y = h * 2 + h * 5" in advice
    head = "import numpy as np\n\nimport minitorch as mt\n\n\n"
    square = ("def test_square():\n"
              "    x = mt.Tensor(np.array([2.0, -1.0]), requires_grad=True)\n"
              "    (x * x).backward(np.array([1.0, 0.5]))\n"
              "    assert np.allclose(x.grad, [4.0, -1.0])\n\n\n")
    advised = ("def test_intermediate_node_on_two_paths():\n"
               "    x = mt.Tensor(np.array([1.0, 2.0]), requires_grad=True)\n"
               "    h = x * 3.0\n"
               "    (h * 2.0 + h * 5.0).backward(np.array([1.0, -1.0]))\n"
               "    assert np.allclose(x.grad, [21.0, -21.0])\n")
    leaf = ("def test_leaf_diamond():\n"
            "    a = mt.Tensor(np.array([1.5]), requires_grad=True)\n"
            "    (a * 2.0 * (a * 3.0)).backward(np.array([1.0]))\n"
            "    assert np.allclose(a.grad, [18.0])\n")
    kinds = {}
    for name, body in (("advised", advised), ("leaf", leaf)):
        (tmp_path / name).mkdir()
        (tmp_path / name / "test_tensor_skeleton.py").write_text(head + square + body)
        g = examplar.grade_lab(tmp_path / name, "00-tensor-skeleton", course_set)
        assert g.valid == g.tests and len(g.tests) == 2, g.to_dict()
        kinds[name] = g.kinds["paths"]
    assert kinds["advised"][0] == kinds["advised"][1] > kinds["leaf"][0], kinds


LAB02 = "02-reductions-and-shapes"
EVERY_METHOD = {op.method for op in OPS} | {"backward", "unbroadcast"}


@pytest.mark.parametrize("route", ["course", "faults"])
def test_lab02_tests_that_miss_a_transpose_or_cat_bug_lose_those_kinds(course_set, route,
                                                                       monkeypatch):
    """A lab 02 suite that transposes only two axes and concatenates only pieces of equal size
    let a backward applying the permutation instead of its inverse and a cat cut into equal
    pieces through, yet scored 4/4 kinds (stop 34's outsider): both are kinds of their own now,
    in the course's set and among the faults, and the feedback names them."""
    impls = (course_set if route == "course"
             else examplar.fault_set(str(runner.REFERENCE_FILE), EVERY_METHOD))
    g = examplar.grade_lab(PROOF / "weak", LAB02, impls)
    assert g.tests and g.valid == g.tests and not g.problems, g.to_dict()
    assert {"permutation", "uneven-pieces"} <= set(g.missed), g.kinds
    assert {"axis", "ties", "repeated-indices", "grad-shape"} <= set(g.caught), g.kinds
    for lang in i18n.LANGUAGES:
        monkeypatch.setenv(i18n.ENV, lang)
        text = "\n".join(examplar.feedback(g))
        assert all(examplar.kind_missed(k) in text for k in ("permutation", "uneven-pieces"))
    model = examplar.grade_lab(PROOF / "model", LAB02, impls)
    assert model.missed == [] and not model.dropped, model.kinds


def test_a_test_calling_an_op_not_written_yet_says_so_and_claims_no_kind_untested(
        tmp_path, monkeypatch):
    """On the learner's own half-written tensor.py (the in-kernel route), a lab 01 test that
    reduces with .sum() (lab 02, not written yet) was dropped as "fails on a correct
    implementation... random without a seed?", and the kind it does test was then reported as
    never tested (stop 34's outsider)."""
    anchor = '"""Σ over ``axis`` (int, tuple or None = all). (...) -> reduced shape."""\n'
    reference = runner.REFERENCE_FILE.read_text(encoding="utf-8")
    assert reference.count(anchor) == 1
    partial = tmp_path / "tensor.py"
    partial.write_text(reference.replace(anchor, anchor + (
        '        raise NotImplementedError("Tensor.sum: aún sin escribir / not written yet '
        '(notebooks/02-reductions-and-shapes.ipynb)")\n')), encoding="utf-8")
    folder = tmp_path / "my_tests"
    folder.mkdir()
    (folder / "test_broadcast_reverse.py").write_text(
        "import numpy as np\nimport pytest\n\nimport minitorch as mt\n\n\n"
        "def test_leading_axis_summed_with_sum():\n"
        "    a = mt.Tensor(np.ones(3), requires_grad=True)\n"
        "    (a * mt.Tensor(np.ones((4, 3)))).sum().backward()\n"
        "    assert a.grad.tolist() == [4.0, 4.0, 4.0]\n\n\n"
        "def test_product_with_a_random_upstream():\n"
        "    g = np.array([0.5, -2.0])\n"
        "    a, b = mt.Tensor([1.0, 2.0], requires_grad=True), mt.Tensor([3.0, 4.0])\n"
        "    (a * b).backward(g)\n"
        "    assert np.allclose(a.grad, g * [3.0, 4.0])\n\n\n"
        "def test_my_own_unfinished_test():\n"
        "    raise NotImplementedError('later')\n", encoding="utf-8")
    impls = examplar.fault_set(str(partial), EVERY_METHOD - {"sum", "mean"})
    g = examplar.grade_lab(folder, LAB01, impls)
    waiting = "test_broadcast_reverse.py::test_leading_axis_summed_with_sum"
    mine = "test_broadcast_reverse.py::test_my_own_unfinished_test"
    assert set(g.dropped) == {waiting, mine} and g.unwritten == {waiting: "Tensor.sum"}, g
    assert "broadcast-leading" in g.missed
    for lang in i18n.LANGUAGES:
        monkeypatch.setenv(i18n.ENV, lang)
        lines = examplar.feedback(g)
        said = next(line for line in lines if waiting in line)
        assert "Tensor.sum" in said and "NotImplementedError" in said, said
        assert i18n.t("{test} fails on a correct implementation, so it does not count (is its "
                      "expected value right? is it random without a seed?)", test=waiting) \
            not in said
        assert any(mine in line and line != said for line in lines)  # a failure like any other
        leading = next(line for line in lines if examplar.kind_label("broadcast-leading") in line)
        assert leading.strip() != i18n.t(
            "✗ {label} ({caught}/{total}): {advice}", label=examplar.kind_label("broadcast-leading"),
            caught=0, total=1, advice=examplar.kind_missed("broadcast-leading")), leading
    monkeypatch.setenv(i18n.ENV, "es")
    assert "aleatorio" not in next(line for line in examplar.feedback(g) if waiting in line)


# ---------------------------------------------------------------- the in-kernel route
def test_boundary_faults_on_the_learners_own_implementation():
    every = {op.method for op in OPS} | {"backward", "unbroadcast"}
    impls = examplar.fault_set(str(runner.REFERENCE_FILE), every)
    model = examplar.grade(PROOF / "model", impls, ["00-tensor-skeleton", LAB01])
    for lab, g in model.items():
        assert not g.dropped and g.missed == [], (lab, g.kinds, g.problems)
    weak = examplar.grade_lab(PROOF / "weak", LAB01, impls)
    assert "upstream" in weak.missed and "local-derivative" in weak.caught
    none = examplar.fault_set(str(runner.REFERENCE_FILE), set())
    assert none.chaffs == []  # no fault in an op the learner has not got right


def test_the_grade_is_cached_by_file_hash(course_set, tmp_path, monkeypatch):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_elementwise.py").write_text(
        (PROOF / "failing" / "test_elementwise.py").read_text())
    cache = tmp_path / "cache.json"
    first = examplar.cached_grade(tmp_path / "tests", LAB01, course_set, cache)
    monkeypatch.setattr(examplar, "grade_lab", lambda *a, **k: pytest.fail("not cached"))
    again = examplar.cached_grade(tmp_path / "tests", LAB01, course_set, cache)
    assert again.to_dict() == first.to_dict()
    assert json.loads(cache.read_text())


def test_every_kind_has_its_words_in_both_languages(monkeypatch):
    monkeypatch.setenv(i18n.ENV, "es")
    for kind in examplar.TEST_KINDS:
        assert examplar.kind_missed(kind) != examplar.TEST_KINDS[kind][1], kind
        assert examplar.kind_label(kind) != examplar.TEST_KINDS[kind][0] or kind == "kink", kind


def test_a_hanging_test_is_dropped_and_the_tests_before_it_still_count(course_set, tmp_path):
    (tmp_path / "test_elementwise.py").write_text(
        "import numpy as np\nimport minitorch as mt\n\n"
        "def test_a_product():\n"
        "    x = mt.Tensor(np.array([1.0, 2.0]), requires_grad=True)\n"
        "    (x * x).backward(np.array([1.0, 3.0]))\n"
        "    assert np.allclose(x.grad, [2.0, 12.0])\n\n"
        "def test_z_hangs():\n    while True:\n        pass\n")
    # every wheat (each must drop the hanging test) and the chaffs of the kind asserted below:
    # every run spins out its whole CPU limit, so each implementation costs ``timeout`` seconds
    # (all 14 of the lab's, 4 s each, cost 56 s of CPU)
    impls = examplar.ImplSet("hanging", course_set.wheats,
                             [c for c in course_set.chaffs if c.kind == "every-input"])
    g = examplar.grade_lab(tmp_path, LAB01, impls, timeout=2)
    assert g.valid == ["test_elementwise.py::test_a_product"]
    assert list(g.dropped) == ["test_elementwise.py::test_z_hangs"]
    assert any("timeout" in p for p in g.problems)
    assert g.kinds["every-input"][0] >= 1  # x * x catches a mul that forgets its 2nd parent


def test_a_run_that_dies_everywhere_catches_nothing(course_set, tmp_path):
    """Tests that test nothing and then kill their own process (on every implementation, so on
    every chaff too) once caught every kind: a chaff's run that died counted as caught (found by
    an outsider playing a hostile student, with os._exit). A death proves something only when
    every wheat's run finished; then, as for a timeout, only a failed test that counts catches."""
    (tmp_path / "test_elementwise.py").write_text(
        "import os, signal\nimport minitorch as mt\n\n"
        "def test_a_tensor_has_a_shape():\n"
        "    assert mt.Tensor([1.0, 2.0, 3.0]).shape == (3,)\n\n"
        "def test_z_the_end():\n    os.kill(os.getpid(), signal.SIGSEGV)\n")
    g = examplar.grade_lab(tmp_path, LAB01, course_set, timeout=10)
    assert g.valid == ["test_elementwise.py::test_a_tensor_has_a_shape"], g.to_dict()
    assert g.caught == [] and g.score == 0 and g.ended, g.to_dict()
    assert any("died" in line for line in examplar.feedback(g)), examplar.feedback(g)


def test_a_test_that_dies_only_on_a_mistake_still_catches_it(course_set, tmp_path):
    """The other side: a test that ends its process only when the gradient is wrong tells the
    wheats from the chaffs, so its death on a chaff still catches (every wheat's run finished)."""
    (tmp_path / "test_elementwise.py").write_text(
        "import os\nimport numpy as np\nimport minitorch as mt\n\n"
        "def test_a_product():\n"
        "    x = mt.Tensor(np.array([1.0, 2.0]), requires_grad=True)\n"
        "    (x * x).backward(np.array([1.0, 3.0]))\n"
        "    if not np.allclose(x.grad, [2.0, 12.0]):\n"
        "        os._exit(3)\n")
    g = examplar.grade_lab(tmp_path, LAB01, course_set, timeout=10)
    assert g.valid == g.tests and not g.ended, g.to_dict()
    assert g.kinds["every-input"][0] >= 1, g.to_dict()


def test_the_time_limit_counts_cpu_time_not_a_loaded_machines_wait(course_set, tmp_path):
    """On a loaded machine a run waits for a core without spending CPU time: a test that spends
    little CPU but takes longer than the limit in wall time (here: a blocking wait) still
    counts; a test that spins past the CPU limit is dropped (the test above)."""
    (tmp_path / "test_elementwise.py").write_text(
        "import select\n\nimport numpy as np\n"
        "import minitorch as mt\n\n\n"
        "def test_a_product_after_waiting():\n"
        "    select.select([], [], [], 3.0)  # no CPU spent: as a run waiting for a core\n"
        "    a, b = mt.Tensor([1.0, 2.0], requires_grad=True), mt.Tensor([3.0, 4.0])\n"
        "    (a * b).backward(np.ones(2))\n"
        "    assert a.grad.tolist() == [3.0, 4.0]\n")
    # the wheats only: every run waits its 3 s (the lab's 14 implementations, two at a time,
    # kept a worker idle for 21 s)
    impls = examplar.ImplSet("waiting", course_set.wheats, [])
    g = examplar.grade_lab(tmp_path, LAB01, impls, timeout=2)
    assert g.valid == g.tests and len(g.tests) == 1 and not g.dropped, g.to_dict()
    assert not any("timeout" in p for p in g.problems), g.problems


def test_the_class_benchmark_imports_and_hands_in_proof_sets_that_exist():
    """`make class-bench` grades honest learners' model tests and the tanh mistake's weak ones
    (benchmarks/class_run.py failed at import once, unnoticed: no test loaded it)."""
    import importlib.util

    from minitorch_authoring.repository import ROOT as REPO

    spec = importlib.util.spec_from_file_location("class_run", REPO / "benchmarks" / "class_run.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    handed_in = {v[2]["tests"] for _, variants in module.kinds("ref", "stub").values()
                 for v in variants if "tests" in v[2]}
    assert handed_in == {"model", "weak"}
    assert all(list((module.PROOF_SETS / name).glob("test_*.py")) for name in handed_in)


def test_an_isolated_run_keeps_what_it_runs_from_under_tmp(tmp_path, monkeypatch):
    """An isolated run replaces /tmp with a fresh tmpfs; the Python environment and the
    folders on sys.path that lie under /tmp (a fresh clone in /tmp: CI's) must stay visible, or
    a lazily imported module (pytest's own) is not found and every run fails. The outermost
    folders are kept, nothing outside /tmp."""
    assert str(tmp_path).startswith("/tmp/")  # pytest's base temp, as in CI
    env, src = tmp_path / "clone" / ".venv", tmp_path / "clone" / "src"
    for folder in (env / "bin", src / "pkg"):
        folder.mkdir(parents=True)
    monkeypatch.setattr(sys, "prefix", str(env))
    monkeypatch.setattr(sys, "path", [str(src), str(src / "pkg"), "/usr/lib/python3.11", ""])
    kept = examplar._under_tmp()
    assert str(env) in kept and str(src) in kept, kept
    assert str(src / "pkg") not in kept and not any(not k.startswith("/tmp/") for k in kept)
