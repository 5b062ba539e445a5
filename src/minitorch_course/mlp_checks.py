"""The two graded properties of the learner's MLP file (issue 27), as check functions.

The learner's file, ``minitorch/mlp.py`` (the stub generated from ``solutions/mlp.py``, the
reference answer), has a small fixed interface:

    HIDDEN: int, LR: float, STEPS: int          the learner's hyper-parameters
    init_params(seed) -> dict of arrays         W1 (23, HIDDEN), b1 (HIDDEN,), W2 (HIDDEN, 5), b2 (5,)
    forward(params, X) -> Tensor                params: dict of Tensors; X (N, 23) -> logits (N, 5)
    train(params0, X, y, lr, steps, batches=None) -> (params, losses)
        from the arrays ``params0`` (left untouched), step s uses the rows ``batches[s]`` (all
        rows when None) and records its loss BEFORE its update (zero_grad, backward,
        p.data -= lr * p.grad); returns the trained arrays and the ``steps`` losses.

1. :func:`check_loss_curve`: with the course's initial weights (biases not zero, so that a bias
   in the wrong place shows before any update), batch order (:func:`course_inputs`) and learning
   rate ``CURVE_LR``, the learner's first ``CURVE_STEPS`` losses equal PyTorch float64's for the
   same model to ``CURVE_TOL``. A failure says at which step and by how much the loss first
   differs, and tells a wrong forward (step 0 already differs), a summed instead of averaged
   loss (step 0 is the batch size times PyTorch's), gradients that are never reset (the curve is
   PyTorch's run without ``zero_grad``) and a training loop that stops early apart.
2. :func:`check_accuracy`: trained with the learner's own ``init_params``, ``LR`` and ``STEPS``
   (at most ``MAX_STEPS`` full-batch steps, ``MAX_CPU`` s of CPU each run) on ``N_TRAIN``
   examples drawn with each of the grader's seeds, the accuracy over all the runs' held-out
   examples (``N_VAL`` per seed, at least ``MIN_VAL``) is above ``THRESHOLD``. Pooling several
   seeds keeps the verdict from hanging on one lucky or unlucky draw: the reference scores
   0.946 on average, and its worst pool of 3 seeds in 33 was 0.924 (one seed alone: 0.904).

The notebook and ``make check`` use the course's fixed inputs (feedback). A score of record
(``minitorch_grading.record``) draws its own from the grading seed: check 1's weights, examples
and batches (its curves computed by PyTorch at grading time, never the stored ones), check 2's
seeds and a permutation of the classes (:func:`relabelling`), so neither the stored curve nor
the grammar's label table answers it.

Each check returns a :class:`Finding` (plain data); :func:`describe` turns it into the sentence a
learner reads (gettext). The expected curves are data (``data/mlp-curve.json``, written from
PyTorch float64 by ``minitorch_authoring.mlp_curve``): nothing here imports torch, and nothing
that ships holds a training loop the learner could copy.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from minitorch_course import grammar as g
from minitorch_course.worker import mlp as worker_mlp

CURVE_STEPS = 20
CURVE_TOL = 1e-9
COURSE_SEED = 27  # the course's initial weights, data and batch order for the loss curve
CURVE_LR = 0.5  # the course's learning rate for the loss curve (the learner's LR is theirs)
CURVE_PATH = Path(__file__).with_name("data") / "mlp-curve.json"
COURSE_HIDDEN = 16
BIAS_SCALE = 0.5  # the course's initial biases: N(0, BIAS_SCALE²), not zero
BATCH_SIZE = 50
THRESHOLD = 0.90
MAX_STEPS = 2000
MAX_CPU = 10.0  # seconds of CPU for one training run
MIN_VAL = 300
N_VAL = 1000  # held-out examples per seed
N_TRAIN = 250
SEEDS = (1, 2, 3)  # the feedback's grader seeds (notebook, make check); a record draws its own
INTERFACE = worker_mlp.INTERFACE


@dataclass(frozen=True)
class Finding:
    """What one check found: ``kind`` says which outcome, the other fields its evidence."""

    check: str  # "loss_curve" | "accuracy"
    kind: str  # "ok" | "forward" | "reduction" | "no_zero_grad" | "update" | "steps" |
    #            "too_many_steps" | "too_slow" | "low_accuracy" | "interface" | "error"
    step: int | None = None  # loss_curve: the first step that differs (0-based)
    got: float | None = None  # the learner's loss at that step
    want: float | None = None  # PyTorch float64's loss at that step
    diff: float | None = None  # |got - want| (ok: the largest difference)
    n_losses: int | None = None  # how many losses train returned
    asked: int | None = None  # how many steps it was asked for
    accuracy: float | None = None  # pooled over the seeds
    n_val: int | None = None  # held-out examples, all seeds together
    seeds: tuple[int, ...] = ()  # accuracy: the grader's seeds
    per_seed: tuple[float, ...] = ()  # accuracy: each seed's
    cpu: float | None = None  # seconds of CPU of the training run
    detail: str = ""  # interface: the missing name; error: the function and its exception

    @property
    def passed(self) -> bool:
        return self.kind == "ok"

    def message(self) -> str:
        return describe(self)


# ---------------------------------------------------------------------------- course inputs


def course_params(seed: int = COURSE_SEED, hidden: int = COURSE_HIDDEN) -> dict[str, np.ndarray]:
    """The course's initial weights: W ~ N(0, 1/fan_in), b ~ N(0, BIAS_SCALE²), drawn in the
    order W1, W2, b1, b2. Not zero biases: a bias added in the wrong place (after tanh, or not
    at all) then changes the loss at step 0, before any update."""
    rng = np.random.default_rng(seed)
    W1 = rng.standard_normal((g.N_FEATURES, hidden)) / np.sqrt(g.N_FEATURES)  # (23, hidden)
    W2 = rng.standard_normal((hidden, g.N_TENSES)) / np.sqrt(hidden)  # (hidden, 5)
    return {"W1": W1, "b1": BIAS_SCALE * rng.standard_normal(hidden), "W2": W2,
            "b2": BIAS_SCALE * rng.standard_normal(g.N_TENSES)}


def batch_order(n: int, size: int, steps: int, seed: int) -> list[np.ndarray]:
    """Row indices for each step: mini-batches of ``size`` from a fresh seeded permutation of
    the ``n`` rows per epoch (``n`` a multiple of ``size``)."""
    if n % size:
        raise ValueError(f"batch_order: {n} rows do not split into batches of {size}")
    rng = np.random.default_rng(seed)
    per_epoch = n // size
    epochs = [rng.permutation(n).reshape(per_epoch, size) for _ in range(-(-steps // per_epoch))]
    return [batch for epoch in epochs for batch in epoch][:steps]


def course_inputs(seed: int = COURSE_SEED) -> tuple[dict, np.ndarray, np.ndarray, list]:
    """``(params0, X, y, batches)`` of the loss-curve check: the course's weights, 250 training
    examples and ``CURVE_STEPS`` mini-batches of ``BATCH_SIZE``."""
    train, _ = g.make_dataset(N_TRAIN, 0, seed=seed)
    return course_params(seed), train.X, train.target, batch_order(N_TRAIN, BATCH_SIZE,
                                                                   CURVE_STEPS, seed)


def expected_curves(path: Path | str = CURVE_PATH) -> dict[str, Any]:
    """PyTorch float64's losses on the course's inputs, stored by the maintainers
    (``python -m minitorch_authoring.mlp_curve``; ``tests/minitorch_course/test_mlp_checks.py`` recomputes them):
    ``loss`` (the right run) and ``loss_no_zero_grad`` (gradients never reset), with the run's
    ``seed``, ``hidden``, ``lr``, ``batch`` and ``steps``. Stored, not computed here: what ships
    holds no training loop, in PyTorch or otherwise."""
    return json.loads(Path(path).read_text(encoding="utf-8"))


# ---------------------------------------------------------------------------- check 1


def compare_curve(losses: Any, expected: list[float], asked: int = CURVE_STEPS,
                  no_zero_grad: list[float] | None = None, tol: float = CURVE_TOL,
                  batch: int | None = None) -> Finding:
    """The learner's ``losses`` against PyTorch's ``expected`` (both per step), as a Finding.

    ``no_zero_grad``: PyTorch's curve when gradients are never reset; a learner curve that
    follows it (and not ``expected``) is named as that mistake. ``batch``: the rows of step 0;
    a first loss ``batch`` times PyTorch's is the summed loss instead of the mean.
    """
    got = np.asarray(losses, dtype=np.float64).ravel()
    want = np.asarray(expected, dtype=np.float64)[:asked]
    n = min(len(got), len(want))
    with np.errstate(invalid="ignore"):
        diff = np.abs(got[:n] - want[:n])
    bad = np.flatnonzero(~(diff <= tol))  # NaN counts as a difference
    if len(bad):
        k = int(bad[0])
        found = dict(check="loss_curve", step=k, got=float(got[k]), want=float(want[k]),
                     diff=float(diff[k]), n_losses=len(got), asked=asked)
        if k == 0:
            summed = batch is not None and batch > 1 and np.isclose(got[0], batch * want[0],
                                                                     rtol=1e-9, atol=0)
            return Finding(kind="reduction" if summed else "forward", **found)
        if no_zero_grad is not None:
            alt = np.asarray(no_zero_grad, dtype=np.float64)[:n]
            if np.all(np.abs(got[:n] - alt) <= tol):
                return Finding(kind="no_zero_grad", **found)
        return Finding(kind="update", **found)
    if len(got) != asked:
        return Finding(check="loss_curve", kind="steps", n_losses=len(got), asked=asked)
    return Finding(check="loss_curve", kind="ok", diff=float(diff.max()), n_losses=len(got),
                   asked=asked)


def curve_setting(curves: dict[str, Any] | None = None) -> dict[str, Any]:
    """What the learner's side of check 1 needs from the stored curves (their ``seed`` and
    ``lr``), without the curves: a grading worker gets this, never the expected losses."""
    curves = expected_curves() if curves is None else curves
    return {"seed": int(curves["seed"]), "lr": float(curves["lr"])}


def curve_data(setting: dict[str, Any] | None = None) -> dict[str, Any]:
    """The inputs of check 1's learner side (``worker.mlp.run_curve``): the course's weights,
    examples and batches for ``setting`` (:func:`curve_setting`), its learning rate, the steps."""
    setting = curve_setting() if setting is None else setting
    params0, X, y, batches = course_inputs(int(setting["seed"]))
    return {"params0": params0, "X": X, "y": y, "batches": batches,
            "lr": float(setting["lr"]), "steps": CURVE_STEPS}


def run_curve(module: ModuleType, setting: dict[str, Any] | None = None) -> dict[str, Any]:
    """The learner's side of check 1, as plain data: ``{"losses": [...]}`` (or ``{"finding":
    ...}``, a Finding as a dict). Runs the learner's code; judges nothing. ``setting``:
    :func:`curve_setting` (default: read from the stored curves)."""
    return worker_mlp.run_curve(module, curve_data(setting))


def judge_curve(answer: dict[str, Any], curves: dict[str, Any] | None = None) -> Finding:
    """Check 1's verdict on ``run_curve``'s answer against ``curves`` (default: the stored
    PyTorch curves; a grader may pass curves it computed itself)."""
    if "finding" in answer:
        return _finding(answer["finding"])
    curves = expected_curves() if curves is None else curves
    return compare_curve(answer["losses"], curves["loss"], CURVE_STEPS,
                         no_zero_grad=curves["loss_no_zero_grad"], batch=int(curves["batch"]))


def check_loss_curve(module: ModuleType) -> Finding:
    """Graded property 1: the learner's first ``CURVE_STEPS`` losses, with the course's inputs
    and learning rate ``CURVE_LR``, equal PyTorch float64's (:func:`expected_curves`)."""
    return judge_curve(run_curve(module))


# ---------------------------------------------------------------------------- check 2


def _seeds(seeds: int | tuple[int, ...], n_val: int) -> tuple[int, ...]:
    seeds = (seeds,) if isinstance(seeds, int) else tuple(seeds)
    if n_val < MIN_VAL or not seeds:
        raise ValueError(f"check_accuracy: n_val={n_val} and {len(seeds)} seeds; at least "
                         f"{MIN_VAL} held-out examples and one seed")
    return seeds


def relabelling(seed: int) -> np.ndarray:
    """A permutation of the ``N_TENSES`` classes that moves every class (a derangement), drawn
    from ``seed``: a score of record trains and judges on ``relabelling(seed)[label]`` instead
    of the grammar's label, so the targets are known only from the training examples and a
    model that answers from :func:`grammar.label_table` instead of learning scores about
    nothing. The classes' roles are symmetric for the model (its output units start i.i.d.),
    so the relabelled task is exactly as hard as the grammar's."""
    rng = np.random.default_rng(seed)
    while True:
        perm = rng.permutation(g.N_TENSES)
        if not np.any(perm == np.arange(g.N_TENSES)):
            return perm


def _targets(target: np.ndarray, relabel: Any) -> np.ndarray:
    return target if relabel is None else np.asarray(relabel)[target]


def accuracy_data(seeds: int | tuple[int, ...] = SEEDS, n_val: int = N_VAL,
                  relabel: Any = None) -> dict[str, Any]:
    """The inputs of check 2's learner side (``worker.mlp.run_accuracy``): for each seed the
    training examples and the held-out inputs (never their targets), and the limits.
    ``relabel``: a permutation of the classes the targets go through (:func:`relabelling`;
    None, the grammar's labels as they are)."""
    runs = []
    for seed in _seeds(seeds, n_val):
        train, val = g.make_dataset(N_TRAIN, n_val, seed=seed)
        runs.append({"seed": seed, "X": train.X, "y": _targets(train.target, relabel),
                     "X_val": val.X})
    return {"runs": runs, "max_steps": MAX_STEPS, "max_cpu": MAX_CPU}


def run_accuracy(module: ModuleType, seeds: int | tuple[int, ...] = SEEDS,
                 n_val: int = N_VAL) -> dict[str, Any]:
    """The learner's side of check 2, as plain data: ``{"steps": S, "runs": [{"seed",
    "n_losses", "cpu", "predicted"}, ...]}`` (or ``{"finding": ...}``). The predictions are the
    classes the trained model gives the held-out inputs; the targets stay with the judge."""
    return worker_mlp.run_accuracy(module, accuracy_data(seeds, n_val))


def judge_accuracy(answer: dict[str, Any], seeds: int | tuple[int, ...] = SEEDS,
                   n_val: int = N_VAL, relabel: Any = None) -> Finding:
    """Check 2's verdict on ``run_accuracy``'s answer: the held-out targets are drawn here, from
    the grader's ``seeds`` (through ``relabel``, as :func:`accuracy_data`'s), and compared with
    the predictions."""
    seeds = _seeds(seeds, n_val)
    if "finding" in answer:
        return _finding(answer["finding"])
    steps = int(answer["steps"])
    if steps > MAX_STEPS:
        return Finding(check="accuracy", kind="too_many_steps", asked=steps)
    runs = {run["seed"]: run for run in answer["runs"]}
    right, per_seed, slowest = 0, [], 0.0
    for seed in seeds:
        run = runs.get(seed)
        if run is None:
            return _error("accuracy", "train", RuntimeError(f"no run for seed {seed}"))
        if run["n_losses"] != steps:
            return Finding(check="accuracy", kind="steps", n_losses=run["n_losses"], asked=steps)
        slowest = max(slowest, float(run["cpu"]))
        if run["cpu"] > MAX_CPU:
            return Finding(check="accuracy", kind="too_slow", cpu=float(run["cpu"]), asked=steps)
        _, val = g.make_dataset(N_TRAIN, n_val, seed=seed)
        predicted = np.asarray(run["predicted"])
        if predicted.shape != val.target.shape:
            return _error("accuracy", "forward", ValueError(
                f"{predicted.shape} predictions for {val.target.shape} held-out examples"))
        hits = int((predicted == _targets(val.target, relabel)).sum())
        per_seed.append(hits / n_val)
        right += hits
    pooled = right / (n_val * len(seeds))
    kind = "ok" if pooled > THRESHOLD else "low_accuracy"
    return Finding(check="accuracy", kind=kind, accuracy=pooled, n_val=n_val * len(seeds),
                   asked=steps, cpu=slowest, seeds=seeds, per_seed=tuple(per_seed))


def check_accuracy(module: ModuleType, seeds: int | tuple[int, ...] = SEEDS,
                   n_val: int = N_VAL) -> Finding:
    """Graded property 2: for each grader seed, trained with the learner's ``init_params(seed)``,
    ``LR`` and ``STEPS`` (full batch, at most ``MAX_STEPS``, each run within ``MAX_CPU`` s of
    CPU) on ``N_TRAIN`` examples drawn with that seed; more than ``THRESHOLD`` of the held-out
    examples of all the runs together (``n_val`` per seed, at least ``MIN_VAL``) right.
    ``run_accuracy`` (the learner's code) then ``judge_accuracy`` (the verdict): a score of
    record runs the first in its sandbox and the second in the instructor's process."""
    return judge_accuracy(run_accuracy(module, seeds, n_val), seeds, n_val)


def check_all(module: ModuleType, seeds: int | tuple[int, ...] = SEEDS) -> list[Finding]:
    """Both graded properties of one MLP file: ``[loss curve, accuracy]``."""
    return [check_loss_curve(module), check_accuracy(module, seeds)]


# ---------------------------------------------------------------------------- helpers


load = worker_mlp.load  # the learner's MLP file, a fresh module each call


def _finding(data: dict[str, Any]) -> Finding:
    """A Finding back from its dict (a worker's answer): tuples are tuples again."""
    return Finding(**{k: tuple(v) if isinstance(v, list) else v for k, v in data.items()})


def _error(check: str, where: str, exc: Exception) -> Finding:
    return _finding(worker_mlp.error(check, where, exc))


def describe(f: Finding) -> str:
    """The sentence a learner reads for ``f``, in the learner's language."""
    from minitorch_course.i18n import t, verbatim

    tol, threshold = CURVE_TOL, THRESHOLD
    if f.kind == "interface":
        return t("Your MLP file has no {names}: it must define HIDDEN, LR, STEPS, init_params, "
                 "forward and train.", names=verbatim(f.detail))
    if f.kind == "error":
        return t("Running your MLP file failed: {error}", error=verbatim(f.detail))
    if f.check == "loss_curve":
        if f.kind == "ok":
            return t("Loss curve: your first {n} losses equal PyTorch float64's (largest "
                     "difference {diff:.1e}, tolerance {tol:.0e}).", n=f.asked, diff=f.diff,
                     tol=tol)
        if f.kind == "steps":
            return t("Loss curve: train returned {got} losses for {asked} steps: it must run "
                     "every step it is asked for and record one loss per step.",
                     got=f.n_losses, asked=f.asked)
        evidence = dict(step=f.step, got=f.got, want=f.want, diff=f.diff)
        if f.kind == "forward":
            return t("Loss curve: at step 0, before any update, your loss is {got:.12g} and "
                     "PyTorch's {want:.12g} (difference {diff:.2g}). The forward pass is not "
                     "the course's model: tanh(X @ W1 + b1) @ W2 + b2 and the mean "
                     "cross-entropy, on the rows batches[0].", **evidence)
        if f.kind == "reduction":
            return t("Loss curve: at step 0, before any update, your loss is {got:.12g}, "
                     "{batch} times PyTorch's {want:.12g}: the sum of the {batch} rows' "
                     "cross-entropies, not their mean. mt.cross_entropy already averages over "
                     "the rows; the loss must be that mean (its gradients are {batch} times "
                     "too large otherwise).", batch=round(f.got / f.want) if f.want else 0,
                     **evidence)
        if f.kind == "no_zero_grad":
            return t("Loss curve: the losses match up to step {prev}, but at step {step} yours "
                     "is {got:.12g} and PyTorch's {want:.12g} (difference {diff:.2g}), and your "
                     "curve is exactly the one whose gradients are never reset, each backward "
                     "adding to the last: call zero_grad() on every parameter before each "
                     "backward().", prev=f.step - 1, **evidence)
        return t("Loss curve: the losses match up to step {prev} and differ at step {step}: "
                 "yours {got:.12g}, PyTorch's {want:.12g} (difference {diff:.2g}). Step 0 "
                 "matches, so your forward pass and loss agree with PyTorch's on those weights: "
                 "look at what changes the weights (zero_grad, backward, p.data -= lr * p.grad "
                 "for every parameter, the lr you were given) and at the rows of step {step} "
                 "(batches[{step}]).", prev=f.step - 1, **evidence)
    seeds = verbatim(", ".join(str(s) for s in f.seeds))
    each = verbatim(", ".join(f"{a:.3f}" for a in f.per_seed))
    if f.kind == "ok":
        return t("Accuracy: {acc:.1%} of {n} held-out examples (seeds {seeds}: {each}) after "
                 "{steps} steps: more than {threshold:.0%}.", acc=f.accuracy, n=f.n_val,
                 seeds=seeds, each=each, steps=f.asked, threshold=threshold)
    if f.kind == "low_accuracy":
        return t("Accuracy: {acc:.1%} of {n} held-out examples (seeds {seeds}: {each}) after "
                 "{steps} steps; more than {threshold:.0%} is needed. If the loss curve check "
                 "passes, your model and loop are right and the training too short: raise STEPS "
                 "(at most {max_steps}) or LR. If it fails, fix that first.", acc=f.accuracy,
                 n=f.n_val, seeds=seeds, each=each, steps=f.asked, threshold=threshold,
                 max_steps=MAX_STEPS)
    if f.kind == "steps":
        return t("Accuracy: train returned {got} losses for STEPS = {asked}: training stopped "
                 "early. Run every step and record one loss per step.", got=f.n_losses,
                 asked=f.asked)
    if f.kind == "too_many_steps":
        return t("Accuracy: STEPS = {asked} is more than the {max_steps} full-batch steps "
                 "allowed.", asked=f.asked, max_steps=MAX_STEPS)
    return t("Accuracy: training took {cpu:.1f} s of CPU, more than the {max_cpu:.0f} s "
             "allowed.", cpu=f.cpu, max_cpu=MAX_CPU)
