"""Scores of record (``minitorch_grading.record``): a class of honest and hostile submissions,
graded in ONE call outside any learner kernel, asserted through nbgrader's gradebook.

Honest: the reference with every notebook answered (full marks), the stub (zero), the
reference with a planted broadcasting mistake (partial). Hostile, each scores nothing for what
it faked or is flagged in the report (the routes of issue 16, then our own):

1. ``walk_up``: tensor.py looks for ``solutions/tensor.py`` above its own file, above the
   interpreter, above NumPy, and at the repository's exact path, and runs the reference;
   ``direct_url``: it finds the repository through an install's ``direct_url.json``;
2. ``env_cell``: an added first notebook cell unsets NBGRADER_EXECUTION, sets
   MINITORCH_IMPL=reference and puts the instructor's src on sys.path;
3. ``patch_cell``: added cells replace the check functions; ``patch_import``: tensor.py
   replaces them (and the worker's engine comparisons) at import time; ``quiz_shadow``: the quiz
   answers are always-equal subclasses of tuple/str;
4. ``torch_autograd``: tensor.py imports torch for its gradients;
5. ``lookup_tanh``: tanh is a lookup table of the fixed inputs (right there, wrong elsewhere);
ours: ``torch_hidden`` (torch imported through a computed name), ``escape`` (a process, ctypes,
a file written, a directory listed), ``answer_forger`` (writes a fake answer on the worker's
pipe and exits), ``verdict_forger`` (patches the engine cases' comparison to record the
expected value instead of its own).
"""

from __future__ import annotations

import json
import shutil
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from minitorch_authoring import mutants
from minitorch_authoring.repository import REFERENCE, ROOT
from minitorch_course import mlp_checks, runner
from minitorch_course.catalog import BY_NAME, ENGINE_BY_NAME
from minitorch_course.catalog import MLP_CELLS as MLP_CELL_BY_CHECK
from minitorch_course.catalog import MY_TESTS_CELLS as MY_TESTS_CELL_BY_LAB
from minitorch_grading import course, record
from minitorch_grading.record import cells as record_cells

pytestmark = pytest.mark.slow

ASSIGNMENT = course.ASSIGNMENT
LEARNER_TESTS = ROOT / "solutions" / "learner_tests"  # issue 29's proof sets
MY_TESTS_CELLS = {(c.lab, c.grade_id) for c in MY_TESTS_CELL_BY_LAB.values()}
SEED = 20261201
BROADCAST_MISTAKE = "unbroadcast_forgets_size1_axes"

# What a hostile tensor.py does when its trick fails: the stub's NotImplementedError.
FIND_REFERENCE = '''
import os as _os, sys as _sys
from pathlib import Path as _Path

def _steal():
    places = [_Path(__file__), _Path(_sys.executable), _Path(_os.__file__)]
    try:
        import numpy as _np
        places += [_Path(_np.__file__), _Path(_np.__file__).resolve()]
    except Exception:
        pass
    candidates = [_Path({root!r}) / "solutions" / "tensor.py"]
    for place in places:
        candidates += [p / "solutions" / "tensor.py" for p in place.parents]
    for path in candidates:
        try:
            source = open(path, encoding="utf-8").read()
        except OSError:
            continue
        exec(compile(source, str(path), "exec"), globals())
        return True
    return False

_steal()
'''

DIRECT_URL = '''
import json as _json, os as _os
from pathlib import Path as _Path

def _steal():
    import numpy as _np
    site = _Path(_os.path.realpath(_np.__file__)).parents[1]
    for info in sorted(site.glob("*.dist-info")):
        try:
            url = json.loads((info / "direct_url.json").read_text())["url"]
        except (OSError, ValueError, KeyError):
            continue
        path = _Path(url.removeprefix("file://")) / "solutions" / "tensor.py"
        try:
            exec(compile(path.read_text(), str(path), "exec"), globals())
            return True
        except OSError:
            continue
    return False

try:
    _steal()
except OSError:
    pass
'''

ENV_CELL = f'''import os, sys
os.environ.pop("NBGRADER_EXECUTION", None)
os.environ["MINITORCH_IMPL"] = "reference"
sys.path.insert(0, {str(ROOT / "src")!r})
'''

PATCH_CELL = '''import minitorch_course.grading as _g
_g.check_ops = lambda *a, **k: None
_g.check_engine = lambda *a, **k: None
_g.refuse_foreign_code = lambda: None
'''

PATCH_IMPORT = '''
import sys as _sys
for _name in ("minitorch_course.grading", "minitorch_course.runner",
              "minitorch_course.op_checks", "minitorch_course.engine_checks"):
    try:
        __import__(_name)
    except Exception:
        continue
    _m = _sys.modules[_name]
    for _f in ("check_ops", "check_engine", "refuse_foreign_code", "compare_forward",
               "compare_backward", "_compare", "_known", "_assert_topological", "_gradcheck"):
        if hasattr(_m, _f):
            setattr(_m, _f, lambda *a, **k: None)
'''

VERDICT_FORGER = '''
import sys as _sys

def _forge():
    import minitorch_course.engine_checks as _e
    def _compare(where, got, want, *a, **k):
        _e.observe(where, want)
    _e._compare = _compare
    _e._assert_topological = lambda order, root, expected, graph: _e.observe(graph, {
        "order": list(expected), "root": list(expected)[-1], "parents": {}})

_forge()
'''

TORCH = '''
import torch as _torch

def _tanh_backward(x, g):
    t = _torch.tensor(x, requires_grad=True)
    _torch.tanh(t).backward(_torch.tensor(g))
    return t.grad.numpy()
'''

TORCH_HIDDEN = '''
_lib = __import__("to" + "rch")
'''

ESCAPE = '''
import os as _os
_tries = []
for _attempt in (
    lambda: __import__("subprocess").run(["cat", {ref!r}], capture_output=True),
    lambda: __import__("ctypes").CDLL(None),
    lambda: _os.system("cat " + {ref!r}),
    lambda: open("/tmp/minitorch-escaped.txt", "w").write("x"),
    lambda: _os.listdir("/"),
    lambda: _os.listdir({root!r}),
):
    try:
        _attempt()
        _tries.append("ok")
    except BaseException:
        _tries.append("refused")
'''

ANSWER_FORGER = '''
import json as _json, os as _os

def _forge():
    fake = {"tasks": [], "engine": {}, "refused": []}
    for fd in range(3, 12):
        try:
            _os.write(fd, json.dumps(fake).encode())
        except OSError:
            continue
    _os._exit(0)

_forge()
'''

# Issue 26's routes, each logging on stderr when its mechanism fires (Record.log keeps the
# worker's stderr), so a zero is never a trick that did not engage.
DIR_FD = '''
import os as _os, sys as _sys

def _steal():
    here = _os.path.dirname(_os.path.abspath(__file__))  # minitorch/, inside the allowed folder
    fd, cwd = _os.open(here, _os.O_RDONLY), _os.getcwd()
    _os.chdir(here)  # the audit hook resolves ".." against the cwd (allowed), not against fd
    try:
        for _ in range(40):  # up to the root
            fd = _os.open("..", _os.O_RDONLY, dir_fd=fd)
    finally:
        _os.chdir(cwd)
    print("HOSTILE dir_fd fired: at the root, it holds", sorted(_os.listdir(fd)),
          file=_sys.stderr)
    try:
        target = _os.open({rel!r}, _os.O_RDONLY, dir_fd=fd)
    except OSError as err:
        print("HOSTILE dir_fd: no reference", err, file=_sys.stderr)
        return False
    source = _os.read(target, 10_000_000).decode()
    print("HOSTILE dir_fd: read the reference", file=_sys.stderr)
    exec(compile(source, "reference", "exec"), globals())
    return True

_steal()
'''

MYGRAD_BY_PATH = '''
import importlib.util as _u, os as _os, sys as _sys

def _mygrad():
    """Another autograd library, loaded by path: the import statement (and its audit event)
    never runs for the top module."""
    import numpy as _np
    site = _os.path.dirname(_os.path.dirname(_os.path.realpath(_np.__file__)))
    init = _os.path.join(site, "mygrad", "__init__.py")
    print("HOSTILE mygrad fired: looking for", init, file=_sys.stderr)
    spec = _u.spec_from_file_location("mygrad", init,
                                      submodule_search_locations=[_os.path.dirname(init)])
    module = _u.module_from_spec(spec)
    _sys.modules["mygrad"] = module
    spec.loader.exec_module(module)
    return module

_mg = _mygrad()  # without it this tensor.py does not import: it scores only if mygrad loads
print("HOSTILE mygrad: loaded", _mg.__name__, file=_sys.stderr)
'''

ERASER = '''
import gc as _gc, sys as _sys

def _erase():
    for attempt in (lambda: __import__("torch"), lambda: open({ref!r}).read()):
        try:
            attempt()
        except BaseException:
            pass
    cleared = 0
    for obj in _gc.get_objects():
        if type(obj) is list and obj and all(type(x) is str for x in obj) and any(
                x == "torch" or x.startswith("reading ") for x in obj):
            obj.clear()
            cleared += 1
    print("HOSTILE eraser fired: emptied", cleared, "lists of refusals", file=_sys.stderr)

_erase()
'''

ORACLE_CALLER = '''

def unbroadcast(grad, shape):  # the course's own oracle, if the worker carries it
    import sys as _sys
    print("HOSTILE oracle fired", file=_sys.stderr)
    from minitorch_course import engine_checks as _e
    return _e._sum_to(grad, shape)
'''

NO_UNBROADCAST = '''

def unbroadcast(grad, shape):  # the baseline of ORACLE_CALLER: no reverse broadcasting
    raise NotImplementedError("unbroadcast")
'''


def _derivatives(body: str) -> str:
    """The reference whose exp and tanh backward closures return ``body`` (``a``: the input,
    ``h``: a step), everything else unchanged."""
    source = REFERENCE.read_text("utf-8")
    for op, line in (("exp", "return (g * out_data,)"), ("tanh", "return (g * (1.0 - t * t),)")):
        start = source.index(f"    def {op}(self)")
        end = source.index("\n    def ", start + 10)
        method = source[start:end]
        assert method.count(line) == 1, f"{op}'s backward moved: update the FD submission"
        fn = f"np.{op}"
        new = body.format(fn=fn)
        method = method.replace(line, f"a, h = self.data, 1e-6\n            {new}")
        source = source[:start] + method + source[end:]
    return source


FINITE_DIFFERENCES = "return (g * ({fn}(a + h) - {fn}(a - h)) / (2 * h),)"
NO_DERIVATIVE = "raise NotImplementedError('no derivative written')"


def _inject(code: str, source: str) -> str:
    """``source`` with ``code`` run first (after its docstring and ``from __future__``)."""
    marker = "from __future__ import annotations\n"
    assert source.count(marker) == 1
    return source.replace(marker, marker + code + "\n")


def _runtime_forger_source() -> str:
    """The reference whose backward, when called by an engine case, looks for that case's
    comparison through the hand-built node's closure globals, to rebind it to the expected
    value and compute nothing: a run-time forgery of the engine rows (flagged, see below). The
    closures belong to ``worker.engine``, which holds no comparison: it logs what it found
    once, and finds nothing to rebind."""
    source = REFERENCE.read_text("utf-8")
    marker = "        seed = self._seed(grad)"
    forge = textwrap.indent(textwrap.dedent("""\
        _g = getattr(self._backward, "__globals__", {})
        if _g and not _g.get("_forger_logged"):
            import sys as _sys
            found = sorted(n for n in ("_compare", "observe", "_sum_to", "judge") if n in _g)
            print("HOSTILE runtime forger fired: found", found or "nothing", file=_sys.stderr)
            _g["_forger_logged"] = True
        if "_compare" in _g and "observe" in _g:
            _g["_compare"] = lambda where, got, want, *a, **k: _g["observe"](where, want)
            return
        """), " " * 8)
    assert source.count(marker) == 1, "backward moved: update the run-time forger"
    return source.replace(marker, forge + marker)


def _tanh_table_source() -> str:
    """The reference with tanh's forward a lookup table of the seed-0 inputs (0 elsewhere)."""
    op = BY_NAME["tanh"]
    eps = 1e-6  # gradcheck's: the table holds the perturbed inputs too
    keys = sorted({float(w) for case in op.all_cases for a in op.inputs(case, 0) for v in a.flat
                   for w in (v, v + eps, v - eps)})
    table = {k: float(np.tanh(k)) for k in keys}
    source = REFERENCE.read_text("utf-8")
    header = f"_TANH_TABLE = {table!r}\n"
    lookup = ("np.vectorize(lambda v: _TANH_TABLE.get(float(v), 0.0), otypes=[float])"
              "(self.data)")
    marker = "t = np.tanh(self.data)"
    assert source.count(marker) == 1, "tanh's forward moved: update the lookup test"
    return _inject(header, source.replace(marker, f"t = {lookup}"))


def _dies_in_mul_source() -> str:
    """The reference whose mul ends the process (os._exit: no exception, no answer)."""
    source = REFERENCE.read_text("utf-8")
    marker = 'return Tensor._make(a * b, (self, other), "mul", _backward)'
    assert source.count(marker) == 1, "mul moved: update the dying submission"
    return source.replace(marker, "import os\n        os._exit(3)\n        " + marker)


def _quiz_shadow(path: Path) -> None:
    """Every quiz answer an always-equal subclass of tuple/str (route 3)."""
    nb = json.loads(path.read_text("utf-8"))
    for cell in nb["cells"]:
        meta = cell["metadata"].get("nbgrader", {})
        if meta.get("solution"):
            name = meta["grade_id"]  # the quiz's answer cells: grade id = variable (answer_NN)
            cell["source"] = textwrap.dedent(f"""\
                class tuple(tuple):
                    def __eq__(self, other): return True
                    def __iter__(self): return iter(())
                class str(str):
                    def __eq__(self, other): return True
                    def strip(self): return self
                    def lower(self): return "a"
                {name} = tuple()
                """)
    path.write_text(json.dumps(nb, indent=1, ensure_ascii=False), "utf-8")


def _add_first_cell(folder: Path, source: str) -> None:
    """An added code cell (no nbgrader metadata) at the top of every notebook."""
    for path in folder.glob("*.ipynb"):
        nb = json.loads(path.read_text("utf-8"))
        nb["cells"].insert(0, {"cell_type": "code", "metadata": {}, "source": source,
                               "outputs": [], "execution_count": None})
        path.write_text(json.dumps(nb, indent=1, ensure_ascii=False), "utf-8")


@pytest.fixture(scope="module")
def graded(tmp_path_factory, submissions, generated_course) -> dict:
    start = time.monotonic()
    course_dir = tmp_path_factory.mktemp("record") / "course"
    release = generated_course(course_dir)
    stub = (release / course.GRADED_FILE).read_text("utf-8")
    reference = REFERENCE.read_text("utf-8")
    ref_path = str(REFERENCE)
    learners = {
        "honest": (reference, True),
        "stub": (stub, False),
        "broadcast": (mutants.plant(mutants.reference_source(), mutants.PLANTS[BROADCAST_MISTAKE]),
                      True),
        "walk_up": (stub + FIND_REFERENCE.format(root=str(ROOT)), False),
        "direct_url": (stub + DIRECT_URL, False),
        "env_cell": (stub, False),
        "patch_cell": (stub, False),
        "patch_import": (_inject(PATCH_IMPORT, stub), False),
        "quiz_shadow": (stub, False),
        "torch_autograd": (_inject(TORCH, reference), False),
        "torch_hidden": (_inject(TORCH_HIDDEN, reference), False),
        "lookup_tanh": (_tanh_table_source(), False),
        "escape": (_inject(ESCAPE.format(ref=ref_path, root=str(ROOT)), stub), False),
        "answer_forger": (_inject(ANSWER_FORGER, stub), False),
        "verdict_forger": (_inject(VERDICT_FORGER, stub), False),
        "runtime_forger": (_runtime_forger_source(), False),
        "dies_in_mul": (_dies_in_mul_source(), True),
        "dir_fd": (stub + DIR_FD.format(rel=str(REFERENCE).lstrip("/")), False),
        "mygrad_by_path": (_inject(MYGRAD_BY_PATH, reference), False),
        "eraser": (_inject(ERASER.format(ref=ref_path), stub), False),
        "oracle_caller": (reference + ORACLE_CALLER, False),
        "no_unbroadcast": (reference + NO_UNBROADCAST, False),
        "symlinked": (stub, False),
        "finite_diff": (_derivatives(FINITE_DIFFERENCES), False),
        "no_derivative": (_derivatives(NO_DERIVATIVE), False),
        "fingerprint_tests": (stub, False),
    }
    for name, (source, answered) in learners.items():
        submissions.submit(course_dir, release, name, source, answered=answered)
    folder = course_dir / "submitted"
    # the learner's tests (issue 29): the honest learner hands in the model set, one learner the
    # set that fingerprints the implementation; everyone else the skeletons (no test yet)
    for student, proof in (("honest", "model"), ("fingerprint_tests", "fingerprint")):
        for path in (LEARNER_TESTS / proof).glob("test_*.py"):
            shutil.copy(path, folder / student / ASSIGNMENT / "my_tests" / path.name)
    _add_first_cell(folder / "env_cell" / ASSIGNMENT, ENV_CELL)
    _add_first_cell(folder / "patch_cell" / ASSIGNMENT, PATCH_CELL)
    _quiz_shadow(folder / "quiz_shadow" / ASSIGNMENT / "07-quiz.ipynb")
    linked = folder / "symlinked" / ASSIGNMENT / course.GRADED_FILE
    linked.unlink()
    linked.symlink_to(REFERENCE)  # a hand-in holding a link to the instructor's reference
    setup = time.monotonic() - start
    start = time.monotonic()
    seed, records, path = record.record_class(course_dir, seed=SEED)  # ONE call, every learner
    # a figure for the reader of -s output, not a test: timings live in benchmarks/ (class-bench)
    print(f"record: setup {setup:.0f} s, {time.monotonic() - start:.0f} s for every submission")
    return {"course": course_dir, "grades": submissions.grades,
            "manual": submissions.manual_cells(), "seed": seed,
            "records": {r.student: r for r in records},
            "report": path.read_text("utf-8"), "json": json.loads(
                path.with_suffix(".json").read_text("utf-8")), "names": list(learners)}


def _cells(graded, student) -> dict[tuple[str, str], tuple[float, float]]:
    return graded["grades"](graded["course"], student)


def _total(graded, student) -> tuple[float, float]:
    """Score and maximum of the cells the record grades (a human grades lab 06's note)."""
    grades = {k: v for k, v in _cells(graded, student).items() if k not in graded["manual"]}
    return sum(s for s, _ in grades.values()), sum(m for _, m in grades.values())


def test_everyone_is_graded_in_one_call_and_reported(graded):
    assert set(graded["records"]) == set(graded["names"])
    assert {s["student"] for s in graded["json"]["submissions"]} == set(graded["names"])
    assert graded["json"]["seed"] == SEED and f"seed {SEED}" in graded["report"]


MLP_CELLS = {("05-mlp-grammar", c.grade_id) for c in MLP_CELL_BY_CHECK.values()}


def test_honest_submissions_score_as_before(graded):
    skip = MLP_CELLS | MY_TESTS_CELLS | set(graded["manual"])  # a human grades lab 06's note
    cells = {k: v for k, v in _cells(graded, "honest").items() if k not in skip}
    got, most = sum(s for s, _ in cells.values()), sum(m for _, m in cells.values())
    assert got == most > 0, {k: v for k, v in cells.items() if v[0] != v[1]}
    assert _total(graded, "stub")[0] == 0
    partial, most = _total(graded, "broadcast")
    assert 0 < partial < most
    cells = _cells(graded, "broadcast")
    assert cells[("01-elementwise-ops", "check_unbroadcast")][0] == 0
    assert cells[("00-tensor-skeleton", "check_backward")][0] > 0


def test_the_record_grades_the_mlp_file(graded):
    """Lab 05's cells: the submission's minitorch/mlp.py runs in the worker, the instructor
    judges (the reference's MLP full, the stub's nothing, with the finding as the reason)."""
    cells = _cells(graded, "honest")
    assert all(cells[k][0] == cells[k][1] > 0 for k in MLP_CELLS)
    stub = _cells(graded, "stub")
    assert all(stub[k][0] == 0 for k in MLP_CELLS)
    failures = graded["records"]["stub"].failures
    assert all("NotImplementedError" in failures[f"{nb}/{cell}"] for nb, cell in MLP_CELLS)


def test_the_record_grades_the_learners_tests(graded):
    """Labs 00-04's tests cells: the submission's my_tests/ run in a sandboxed job against the
    wheats and every chaff, the points computed here. The model set scores full, the skeletons
    nothing (no job started), the fingerprinting set nothing and is flagged."""
    honest, stub = _cells(graded, "honest"), _cells(graded, "stub")
    fingerprint = _cells(graded, "fingerprint_tests")
    assert MY_TESTS_CELLS and all(honest[k][0] == honest[k][1] > 0 for k in MY_TESTS_CELLS)
    assert all(stub[k][0] == 0 and fingerprint[k][0] == 0 for k in MY_TESTS_CELLS)
    flags = graded["records"]["fingerprint_tests"].flags
    assert any("my_tests/test_elementwise.py reaches for" in f for f in flags), flags
    assert "fingerprint_tests:" in graded["report"]
    why = graded["records"]["stub"].failures["00-tensor-skeleton/check_my_tests_00"]
    assert "test_tensor_skeleton.py" in why


def test_the_worker_holds_no_mlp_curve(tmp_path):
    """PyTorch's losses are expected values: the worker's folder has none, and the learner's
    mlp.py is the submission's (or none at all)."""
    (tmp_path / "w").mkdir()
    folder = record.worker_folder(REFERENCE, tmp_path / "w")
    assert not list(folder.rglob(mlp_checks.CURVE_PATH.name))
    assert not (folder / "minitorch" / "mlp.py").exists()
    curves = mlp_checks.expected_curves()
    task = record.mlp_task("loss_curve", SEED, curves)
    assert set(task["data"]) == {"params0", "X", "y", "batches", "lr", "steps"}  # inputs only
    accuracy = record.mlp_task("accuracy", SEED, curves)["data"]
    assert all(set(run) == {"seed", "X", "y", "X_val"} for run in accuracy["runs"])  # no target


LOOKUP_MLP = '''
import numpy as np

HIDDEN, LR, STEPS = 16, 1.0, 1
CURVE = {curve!r}  # what ships: minitorch_course/data/mlp-curve.json
TABLE = np.array({table!r})  # what ships: grammar.label_table()


def init_params(seed, hidden=HIDDEN):
    return {{"W1": np.zeros(({features}, hidden)), "b1": np.zeros(hidden),
            "W2": np.zeros((hidden, {classes})), "b2": np.zeros({classes})}}


def forward(params, X):
    x = np.asarray(X.data)
    return np.eye({classes})[TABLE[x[:, :{verbs}].argmax(1), x[:, {verbs}:].argmax(1)]]


def train(params0, X, y, lr=LR, steps=STEPS, batches=None):
    return dict(params0), list(CURVE[:steps]) if batches is not None else [0.0] * steps
'''


def test_a_lookup_mlp_scores_nothing_of_record_the_reference_everything(tmp_path):
    """Lab 05 without a model (x37's route 2), on the stub tensor.py: the loss curve that ships
    for the notebook's check, the accuracy from the grammar's label table. The record draws its
    curve's inputs and a permutation of the classes from the grading seed (PyTorch's curve
    computed now): the lookup earns none of lab 05's record points, the reference all."""
    from minitorch_authoring.repository import MLP_REFERENCE, STUB, STUDENT_NOTEBOOKS
    from minitorch_course import grammar, mlp_checks

    lookup = LOOKUP_MLP.format(curve=mlp_checks.expected_curves()["loss"],
                               table=grammar.label_table().tolist(), verbs=grammar.N_VERBS,
                               features=grammar.N_FEATURES, classes=grammar.N_TENSES)
    cells = {nb: [c for c in nb_cells if c.mlp]
             for nb, nb_cells in record.graded_cells(course.SOURCE_NOTEBOOKS).items()}
    cells = {nb: nb_cells for nb, nb_cells in cells.items() if nb_cells}
    points = sum(c.points for nb_cells in cells.values() for c in nb_cells)
    assert points > 0 and {c for nb_cells in cells.values() for cell in nb_cells
                            for c in cell.mlp} == set(record_cells.MLP_CHECKS)
    plan_ = record.plan(cells, SEED)
    got = {}
    for name, tensor, mlp in (("lookup", STUB.read_text("utf-8"), lookup),
                              ("reference", REFERENCE.read_text("utf-8"),
                               MLP_REFERENCE.read_text("utf-8"))):
        folder = tmp_path / name
        (folder / "minitorch").mkdir(parents=True)
        (folder / course.GRADED_FILE).write_text(tensor, "utf-8")
        (folder / course.MLP_FILE).write_text(mlp, "utf-8")
        for nb in cells:
            shutil.copy(STUDENT_NOTEBOOKS / f"{nb}.ipynb", folder / f"{nb}.ipynb")
        rec = record.grade_submission(folder, name, plan_)
        got[name] = (rec.total, rec.failures)
    assert got["reference"] == ((points, points), {}), got["reference"]
    (score, most), failures = got["lookup"]
    assert (score, most) == (0, points), failures
    assert "at step 0" in " ".join(failures.values()), failures  # not the shipped curve
    assert plan_.curves["seed"] != mlp_checks.COURSE_SEED


ENGINE_MUTANTS = [m.name for m in mutants.MUTANTS if set(m.affects) & set(ENGINE_BY_NAME)]


@pytest.mark.parametrize("name", ["reference", "stub", *ENGINE_MUTANTS])
def test_the_record_judges_the_engine_rows_as_the_notebook_does(name):
    """Lab 00's graphs go to the worker as programs; what its run observed, through the pipe's
    encoding, judged here gives the notebook's outcome, fact, diagnosis and words, on the
    grading seed: for the reference, the stub, and every planted engine mistake (a test that
    can fail: the mutants fail their rows, and the stub is not started)."""
    from minitorch_course import engine_checks, messages
    from minitorch_course.worker import engine
    from minitorch_course.worker import main as worker

    if name == "reference":
        impl = runner.load("reference")[0]
    elif name == "stub":
        impl = runner.load_impl(ROOT / "src" / "minitorch" / "tensor.py", name="stub")
    else:
        impl = mutants.load(name)
    rows = sorted(ENGINE_BY_NAME) if name in ("reference", "stub") else sorted(
        set(mutants.MUTANT_BY_NAME[name].affects) & set(ENGINE_BY_NAME))
    statuses = set()
    for row in rows:
        cases = engine_checks.cases(row, SEED)
        sent = worker.decode(json.loads(json.dumps(worker.encode(
            [{"name": c.name, "program": c.program} for c in cases]))))
        with runner.using(impl):
            answer = worker.run_engine(sent, engine, impl)
        answer = worker.decode(json.loads(json.dumps(worker.encode_results({"a": answer}))))
        got = record.judge_engine(row, cases, answer["a"])
        want = runner.run_engine_row(row, impl, SEED)
        assert got.to_dict() == want.to_dict(), (name, row)
        assert messages.block(got) == messages.block(want)
        statuses.add(got.status)
    assert statuses == {"pass" if name == "reference" else
                        "not started" if name == "stub" else "fail"}, statuses


def _planted_crash(name: str) -> tuple[str, str]:
    """(tensor.py source, the row it breaks): the reference with a crash planted by hand, the
    catalog's crash mistake, or the stub (not started)."""
    source = REFERENCE.read_text("utf-8")
    planted = {
        "exp_backward_raises": ("exp", "return (g * out_data,)",
                                "raise ValueError('planted: no derivative today')"),
        "mul_forward_matmul": ("mul", 'return Tensor._make(a * b, (self, other), "mul"',
                               'return Tensor._make(a @ b, (self, other), "mul"'),
    }
    if name in planted:
        row, old, new = planted[name]
        assert source.count(old) == 1, f"{row} moved: update the planted crash"
        return source.replace(old, new), row
    if name == "stub":
        return (ROOT / "src" / "minitorch" / "tensor.py").read_text("utf-8"), "exp"
    return mutants.MUTANT_BY_NAME[name].apply(source), mutants.MUTANT_BY_NAME[name].affects[0]


@pytest.mark.parametrize("name, expected", [
    ("exp_backward_raises", ("fail", "crashed")), ("mul_forward_matmul", ("fail", "crashed")),
    ("sum_backward_keepdims_lost", ("fail", "crashed")), ("stub", ("not started", "not-started")),
    ("tanh_derivative_sign", ("fail", "gradcheck-values")),
    ("mul_forgets_second_parent", ("fail", "gradcheck-none"))])
def test_a_crash_in_an_op_is_classified_as_make_check_classifies_it(name, expected, monkeypatch):
    """ONE guard (``op_checks.guard``): the learner's exception, sent by the worker as data,
    is classified by the record exactly as ``make check`` classifies it in process (status,
    fact, diagnosis, rank and words), suite by suite and case by case, on the grading seed;
    and gradcheck's failures (``gradcheck.compare`` on the worker's gradients) have make
    check's facts. The worker's own code runs here, on the same module, through the pipe's
    encoding."""
    import importlib

    from minitorch_course import messages, op_checks
    from minitorch_course.worker import main as worker

    source, row = _planted_crash(name)
    impl = runner.load_impl(source=source, name=f"planted_{name}")
    monkeypatch.setattr(worker, "GRADCHECK", importlib.import_module("minitorch.gradcheck"))
    op = BY_NAME[row]
    plan = record.Plan(SEED, {})
    checks = {"forward": op_checks.check_forward, "backward": op_checks.check_backward,
              "gradcheck": op_checks.check_gradcheck}
    statuses, compared = set(), 0
    for case in op.all_cases:
        plan.add(row, "fixed", case, op.inputs(case, SEED), case.gradcheck)
        task = plan.tasks[-1]
        sent = worker.decode(json.loads(json.dumps(worker.encode(task.job()))))
        with runner.using(impl):
            answer = worker.run_op(sent, impl)
            answer = worker.decode(json.loads(json.dumps(worker.encode_results({"a": answer}))))
            for suite, check in checks.items():
                want = check(op, case, impl, SEED)
                got = record.judge_task(task, answer["a"], (suite,))[suite]
                assert got.to_dict() == want.to_dict(), (name, case.label, suite)
                assert messages.block(got) == messages.block(want), (name, case.label, suite)
                statuses.add((got.status, got.fact.id if got.fact else ""))
                compared += 1
    assert compared >= 3
    # the test can fail: each planted source crashes, is not started or fails gradcheck
    assert expected in statuses, statuses


def test_what_the_record_says_on_its_own_is_worded():
    """The outcomes the record builds without the learner's exception (no answer for a case
    or an engine row, an answer of the wrong kind) are failures whose fact and diagnosis the
    course can put in words, in both languages, naming the row."""
    from minitorch_course import engine_checks, i18n, messages

    op = BY_NAME["exp"]
    plan = record.Plan(SEED, {})
    case = next(c for c in op.all_cases if c.gradcheck)
    plan.add("exp", "fixed", case, op.inputs(case, SEED), True)
    task = plan.tasks[-1]
    outcomes = [*record.judge_task(task, None, ("forward", "backward", "gradcheck")).values(),
                *record.judge_task(task, {"out": "forged", "grads": 3, "gradcheck": []},
                                   ("forward", "backward", "gradcheck")).values(),
                record.judge_engine("backward", engine_checks.cases("backward", SEED), None)]
    for lang in ("en", "es"):
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv(i18n.ENV, lang)
            for outcome in outcomes:
                assert outcome.status == "fail", outcome
                assert outcome.row in messages.block(outcome), outcome


def test_a_worker_that_dies_costs_only_the_row_it_died_in(graded):
    # one worker for everything would lose every answer; the rows are run again one by one
    cells = _cells(graded, "dies_in_mul")
    assert cells[("01-elementwise-ops", "check_mul")][0] == 0
    for cell in (("00-tensor-skeleton", "check_backward"), ("01-elementwise-ops", "check_add"),
                 ("03-matmul-softmax-ce", "check_matmul")):
        score, points = cells[cell]
        assert score == points > 0, cell
    assert "the worker died in mul" in graded["records"]["dies_in_mul"].problem


def test_the_record_agrees_with_the_in_process_checks(graded):
    """Cell by cell, the partial submission's record equals what the notebook's own checks
    (runner.run_row, all or nothing per cell) give on the same seed."""
    impl = runner.load_impl(graded["course"] / "submitted" / "broadcast" / ASSIGNMENT
                            / course.GRADED_FILE, name="broadcast_mistake")
    cells = _cells(graded, "broadcast")
    compared = 0
    for notebook, nb_cells in record.graded_cells(course.SOURCE_NOTEBOOKS).items():
        for cell in nb_cells:
            if not cell.checks:
                continue
            passed = all(runner.run_row(row, impl, check.suites, check.max_examples,
                                        seed=SEED).first_problem is None
                         for check in cell.checks for row in check.rows)
            assert cells[(notebook, cell.grade_id)][0] == (cell.points if passed else 0), (
                notebook, cell.grade_id)
            compared += 1
    assert compared > 30


@pytest.mark.parametrize("student", ["walk_up", "direct_url", "env_cell", "patch_cell",
                                     "patch_import", "quiz_shadow", "escape", "answer_forger",
                                     "verdict_forger"])
def test_a_forged_submission_scores_nothing(graded, student):
    """Each of these is the stub plus a trick: the record gives it nothing at all."""
    got, most = _total(graded, student)
    assert most > 0 and got == 0, (student, graded["records"][student].failures)


@pytest.mark.parametrize("student, flag", [
    ("torch_autograd", "imports torch"),
    ("torch_hidden", "tried to use torch"),
    ("escape", "the grading sandbox refused: os.system; writing /tmp/minitorch-escaped.txt; "
               f"os.listdir /; os.listdir {ROOT}"),
    ("walk_up", f"the grading sandbox refused: reading {REFERENCE}"),
    ("direct_url", "the grading sandbox refused: os.scandir"),
    ("patch_import", "'minitorch_course'"),
    ("env_cell", "00-tensor-skeleton/cell 0: uses 'NBGRADER_EXECUTION'"),
    ("patch_cell", "01-elementwise-ops/cell 0: uses '.check_ops ='"),
    ("quiz_shadow", "07-quiz/answer_01: uses '__eq__'"),
    ("runtime_forger", "uses '__globals__'"),
    ("verdict_forger", "'minitorch_course'"),
])
def test_a_hostile_submission_is_flagged(graded, student, flag):
    flags = graded["records"][student].flags
    assert any(flag in f for f in flags), flags
    assert f"{student}:" in graded["report"] and flag in graded["report"]


def test_honest_submissions_are_not_flagged(graded):
    for student in ("honest", "stub", "broadcast", "no_unbroadcast", "no_derivative"):
        assert graded["records"][student].flags == [], student


def test_autograd_from_torch_scores_nothing(graded):
    for student in ("torch_autograd", "torch_hidden"):
        got, _ = _total(graded, student)
        quiz = sum(s for (nb, _), (s, _) in _cells(graded, student).items() if nb == "07-quiz")
        assert got == quiz == 0, student  # tensor.py did not import: no op, no engine


@pytest.mark.parametrize("student, fired", [
    ("dir_fd", "HOSTILE dir_fd fired: at the root"),
    ("mygrad_by_path", "HOSTILE mygrad fired"),
])
def test_a_route_out_of_the_worker_earns_nothing(graded, student, fired):
    """Issue 26: a relative path against a directory descriptor, another autograd library
    loaded by path. Each fired (its log line) and found nothing: the sandbox shows neither
    the reference nor any installed package but NumPy."""
    rec = graded["records"][student]
    assert fired in rec.log, rec.log
    if student == "dir_fd":  # it walked out of the hook's folders, into the sandbox's root
        assert "'job'" in rec.log and "no reference" in rec.log, rec.log
    assert _total(graded, student)[0] == 0, rec.failures
    assert "read the reference" not in rec.log and "mygrad: loaded" not in rec.log


def test_the_engine_cases_hold_no_comparison_to_forge(graded):
    """The run-time forger reached the hand-built nodes' closures and found no comparison
    there (they are ``worker.engine``'s): its engine cells score what the reference's do."""
    rec = graded["records"]["runtime_forger"]
    assert "HOSTILE runtime forger fired: found nothing" in rec.log, rec.log
    cells, honest = _cells(graded, "runtime_forger"), _cells(graded, "honest")
    engine = [k for k in honest if k[0] == "00-tensor-skeleton" and k in cells
              and k[1] in ("check_topological_order", "check_backward", "check_retain_graph")]
    assert engine and all(cells[k] == honest[k] for k in engine), engine


def test_emptying_the_workers_refusals_is_flagged(graded):
    rec = graded["records"]["eraser"]
    assert "HOSTILE eraser fired: emptied" in rec.log and "emptied 0 " not in rec.log, rec.log
    assert any("erased from the worker's record" in f and "import torch" in f
               for f in rec.flags), rec.flags
    assert _total(graded, "eraser")[0] == 0


def test_the_course_oracle_is_not_in_the_worker(graded):
    """A tensor.py whose unbroadcast calls the course's own reverse broadcasting earns what the
    same file without unbroadcast earns (its baseline), cell by cell."""
    oracle, baseline = _cells(graded, "oracle_caller"), _cells(graded, "no_unbroadcast")
    assert oracle == baseline
    assert oracle[("01-elementwise-ops", "check_unbroadcast")][0] == 0
    assert _total(graded, "oracle_caller")[0] < _total(graded, "honest")[0]
    assert "HOSTILE oracle fired" in graded["records"]["oracle_caller"].log


def test_finite_differences_earn_what_no_derivative_earns(graded, monkeypatch):
    """exp's and tanh's backward as central differences of their own forward: cell by cell
    what the same file without those derivatives scores, flagged, and the feedback says why
    (in the learner's language)."""
    from minitorch_course import i18n

    fd, baseline = _cells(graded, "finite_diff"), _cells(graded, "no_derivative")
    assert fd == baseline
    assert fd[("01-elementwise-ops", "check_exp")][0] == 0
    assert fd[("01-elementwise-ops", "check_add")][0] > 0
    rec = graded["records"]["finite_diff"]
    assert any("exp: its backward divides a difference" in f for f in rec.flags), rec.flags
    why = rec.failures["01-elementwise-ops/check_exp"]
    assert why == record.say("record-finite-differences", row="exp"), why  # the run's language
    monkeypatch.setenv(i18n.ENV, "es")
    assert "diferencias finitas" in record.say("record-finite-differences", row="exp")
    impl = runner.load_impl(graded["course"] / "submitted" / "finite_diff" / ASSIGNMENT
                            / course.GRADED_FILE, name="finite_diff")
    assert runner.run(["exp"], impl, runner.GRADED_SUITES)[0].status == "pass"  # in a kernel


def test_a_link_in_the_hand_in_is_not_followed(graded):
    """tensor.py handed in as a symbolic link to the reference: the snapshot leaves it out."""
    assert _total(graded, "symlinked")[0] == 0
    assert "no minitorch/tensor.py" in graded["records"]["symlinked"].problem


@pytest.mark.parametrize("student", ["walk_up", "patch_import", "dir_fd", "mygrad_by_path",
                                     "oracle_caller"])
def test_the_trick_works_outside_the_worker(graded, student):
    """In an ordinary process (a notebook's kernel, make check) the same tensor.py passes:
    the record's zero is the sandbox's doing, not a broken trick."""
    impl = runner.load_impl(graded["course"] / "submitted" / student / ASSIGNMENT
                            / course.GRADED_FILE, name=student)
    if student in ("walk_up", "dir_fd", "mygrad_by_path"):
        assert runner.run(["add"], impl, runner.GRADED_SUITES)[0].status == "pass"
    elif student == "oracle_caller":
        assert runner.run(["unbroadcast"], impl, ("engine",))[0].status == "pass"
    else:
        from minitorch_course import grading
        assert grading.check_ops("add") is None  # patched away: "passes" without an engine
        import importlib

        for name in ("grading", "runner", "op_checks", "engine_checks"):
            importlib.reload(importlib.import_module(f"minitorch_course.{name}"))


def test_a_lookup_table_passes_the_fixed_inputs_not_the_record(graded):
    """The table forges tanh on the seed-0 inputs (the notebook's check passes) but not on
    the grading seed's; every other cell is the reference's."""
    impl = runner.load_impl(graded["course"] / "submitted" / "lookup_tanh" / ASSIGNMENT
                            / course.GRADED_FILE, name="lookup_tanh")
    assert runner.run(["tanh"], impl, runner.GRADED_SUITES)[0].status == "pass"
    cells = _cells(graded, "lookup_tanh")
    assert cells[("01-elementwise-ops", "check_tanh")][0] == 0
    assert cells[("01-elementwise-ops", "check_add")][0] > 0
    assert "check_tanh" in " ".join(graded["records"]["lookup_tanh"].failures)


def test_the_seed_reproduces_a_failing_case(graded):
    """``make check SEED=N`` runs the record's inputs: the same row fails on the same case."""
    rec = graded["records"]["lookup_tanh"]
    why = rec.failures["01-elementwise-ops/check_tanh"]
    impl = runner.load_impl(graded["course"] / "submitted" / "lookup_tanh" / ASSIGNMENT
                            / course.GRADED_FILE, name="lookup_tanh")
    report = runner.run(["tanh"], impl, runner.GRADED_SUITES, seed=graded["seed"])[0]
    failing = {o.case for outs in report.suites.values() for o in outs if o.status == "fail"}
    assert report.status == "fail" and any(f"({case})" in why for case in failing), (why,
                                                                                     failing)


def test_the_worker_cannot_read_the_reference(tmp_path):
    """A tensor.py that reports, in its import error, what it could read: nothing outside its
    folder, whatever the path (absolute, relative, through a symbolic link, via /proc)."""
    link = tmp_path / "link"
    link.symlink_to(ROOT)
    probes = [str(REFERENCE), str(link / "solutions" / "tensor.py"),
              "/proc/self/root" + str(REFERENCE), "../" * 12 + str(REFERENCE).lstrip("/"),
              str(ROOT / ".venv" / "pyvenv.cfg"), str(course.COURSE_DIR / "gradebook.db")]
    probe = textwrap.dedent(f"""\
        import importlib.util, io, os, pathlib
        _readers = [lambda p: open(p, "rb").read(1), lambda p: io.open_code(p).read(1),
                    lambda p: os.read(os.open(p, os.O_RDONLY), 1),
                    lambda p: pathlib.Path(p).read_bytes(),
                    lambda p: importlib.util.spec_from_file_location("x", p).loader
                    .get_data(p)]
        _read = []
        for _p in {probes!r}:
            for _k, _reader in enumerate(_readers):
                try:
                    _reader(_p)
                    _read.append((_k, _p))
                except Exception:
                    pass
        raise RuntimeError("READ:" + repr(_read))
        """)
    tensor = tmp_path / "tensor.py"
    tensor.write_text(probe, "utf-8")
    plan = record.Plan(0, {})
    run = record.run_worker(tensor, plan)
    error = run.results["import_error"]
    assert error["message"] == "READ:[]", error


def test_the_grading_folder_holds_no_reference():
    folder = record.worker_folder(REFERENCE)
    try:
        files = {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()
                 and "lib/" not in p.relative_to(folder).as_posix()}
        assert "minitorch/tensor.py" in files
        assert not any("solutions" in f or "mutants" in f for f in files), files
        assert not folder.resolve().is_relative_to(ROOT)
    finally:
        shutil.rmtree(folder)


def test_an_in_kernel_score_above_the_record_is_flagged(graded):
    """What a notebook hack shows: nbgrader's kernel gave points the record does not."""
    from nbgrader.api import Gradebook

    course_dir, rec = graded["course"], graded["records"]["patch_cell"]
    with Gradebook(f"sqlite:///{course_dir / 'gradebook.db'}") as gb:
        grade = gb.find_grade("check_add", "01-elementwise-ops", ASSIGNMENT, "patch_cell")
        grade.auto_score = grade.max_score  # as the patched check_ops made the kernel say
        gb.db.commit()
    flags = record.write_gradebook(course_dir, rec)
    assert flags == ["01-elementwise-ops/check_add: the kernel scored 2, the record 0"]
    assert _cells(graded, "patch_cell")[("01-elementwise-ops", "check_add")][0] == 0


def test_no_in_kernel_score_survives_the_record(graded):
    """Every autograded cell's score is the record's: a kernel that gave full marks to every
    cell (what any notebook hack could make it say) leaves nothing behind once the record
    writes (the in-kernel cells are feedback only; a human grades lab 06's Markdown note)."""
    from nbgrader.api import Gradebook

    course_dir, rec = graded["course"], graded["records"]["stub"]
    with Gradebook(f"sqlite:///{course_dir / 'gradebook.db'}") as gb:
        for nb in gb.find_submission(ASSIGNMENT, "stub").notebooks:
            for grade in nb.grades:
                if (nb.name, grade.name) not in graded["manual"]:
                    grade.auto_score = grade.max_score
        gb.db.commit()
    record.write_gradebook(course_dir, rec)
    kept = {k: v for k, v in _cells(graded, "stub").items()
            if k not in graded["manual"] and v[0] != rec.cells[k[0]][k[1]][0]}
    assert not kept, kept
    assert _total(graded, "stub")[0] == 0


def test_quiz_answers_are_data(graded):
    """Right literals pass the instructor's hidden tests, wrong ones and code do not."""
    cells = {c.grade_id: c for c in record.graded_cells(course.SOURCE_NOTEBOOKS)["07-quiz"]}
    solution = record.literal_answers(course.SOURCE_NOTEBOOKS / "07-quiz.ipynb")[0]
    assert record.judge_answer(cells["test_01"], solution)
    assert not record.judge_answer(cells["test_01"], {**solution, "answer_01": (1, 3)})
    assert not record.judge_answer(cells["test_04"], {**solution, "answer_04": "a"})
    assert not record.judge_answer(cells["test_01"], {})  # unanswered: a NameError, not a pass


