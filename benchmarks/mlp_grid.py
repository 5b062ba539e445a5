"""make mlp-grid: how a linear softmax model and the MLP compare on the grammatical grid's task.

Both models are trained exactly as the chapter's closing lab trains them (``minitorch.mlp``:
``solutions/mlp.py`` under ``MINITORCH_IMPL=reference``, the reference engine too; measured step
by step by ``minitorch_course.mlp_report``; full-batch gradient descent written by hand with
``minitorch``), on the next chapter's shapes: 23
inputs (one-hot verb ⊕ one-hot person), 5 logits (the tenses), 250 training / 50 validation
examples with 5 % label noise (``grammar.make_dataset``), over several seeds:

- the linear model is ``X W + b``, ``W (23, 5)``; the MLP is ``tanh(X W1 + b1) W2 + b2`` with
  ``HIDDEN`` units; both start from ``mlp.init_params(seed)`` and run ``STEPS`` steps at ``LR``;
- two splits: **examples** (train and validation drawn from all 60 cells, the chapter's split: the
  validation measures recall of cells already seen in training) and **cells** (10 of the 60 cells
  held out of training: the validation asks for cells never seen, the only generalisation a
  one-hot input allows);
- four labels: the course's (``grammar.label_table``: the first tense that breaks the regular
  English rules) and three it was weighed against (see ``benchmarks/mlp-grid.md``).

The tables are written into ``benchmarks/mlp-grid.md`` between its two ``mlp_grid.py`` markers
(the prose around them is the analysis); ``--print`` writes them to stdout instead.
"""

from __future__ import annotations

import argparse
import statistics
import time
import unicodedata
from collections.abc import Callable
from pathlib import Path

import numpy as np

from minitorch import mlp
from minitorch_course import grammar as g
from minitorch_course import mlp_report

SEEDS = range(10)
HIDDEN = 16
LR = 1.0
STEPS = 300
N_TRAIN, N_VAL, HELD_OUT_CELLS = 250, 50, 10
MD = Path(__file__).resolve().with_name("mlp-grid.md")
BEGIN, END = "<!-- mlp_grid.py: begin -->", "<!-- mlp_grid.py: end -->"
N_CELLS = g.N_VERBS * g.N_PERSONS  # 60


# ---------------------------------------------------------------------------- the labels


def longest_form(grid: g.Grid) -> np.ndarray:
    """The tense whose English form has the most letters ("will" not counted); ties: earliest."""
    letters = np.vectorize(lambda s: len(s.removeprefix("will ")), otypes=[np.int64])(grid.english)
    return letters.argmax(axis=-1)


def _code(form: str) -> int:
    """Sum of letter positions (a=1 ... z=26; accents dropped, spaces skipped) mod 7."""
    plain = unicodedata.normalize("NFD", form).encode("ascii", "ignore").decode()
    return sum(ord(c) - ord("a") + 1 for c in plain if c.isalpha()) % 7


def letter_code(grid: g.Grid) -> np.ndarray:
    """The old lab's arbitrary rule, on the English forms: the tense whose form has the largest
    code (:func:`_code`); ties: earliest."""
    return np.vectorize(_code, otypes=[np.int64])(grid.english).argmax(axis=-1)


def letter_code_es(grid: g.Grid) -> np.ndarray:
    """The same arbitrary rule on the Spanish translations, which change with every person."""
    return np.vectorize(_code, otypes=[np.int64])(grid.spanish).argmax(axis=-1)


LABELS: dict[str, tuple[str, Callable[[g.Grid], np.ndarray]]] = {
    "irregular": ("first tense that breaks the regular rules (the course's label)", g.label_table),
    "longest": ("tense of the longest English form", longest_form),
    "letter-code": ("largest letter-position sum mod 7 (arbitrary)", letter_code),
    "letter-code-es": ("the same on the Spanish translations (arbitrary)", letter_code_es),
}


# ---------------------------------------------------------------------------- one run


def split(table: np.ndarray, seed: int, kind: str) -> tuple[g.Examples, g.Examples, np.ndarray]:
    """Train and validation examples, and the validation cells (flat indices)."""
    if kind == "examples":
        train, val = g.make_dataset(N_TRAIN, N_VAL, seed=seed)
        # make_dataset uses the course's label; redraw the same cells with this table's labels
        train, val = relabel(train, table, seed, 0), relabel(val, table, seed, 1)
        return train, val, np.arange(N_CELLS)
    cells_seq, train_seq, val_seq = np.random.SeedSequence([seed, 1]).spawn(3)
    cells = np.random.default_rng(cells_seq).permutation(N_CELLS)
    held, kept = cells[:HELD_OUT_CELLS], cells[HELD_OUT_CELLS:]
    train = g.draw_examples(N_TRAIN, np.random.default_rng(train_seq), table=table, cells=kept)
    val = g.draw_examples(N_VAL, np.random.default_rng(val_seq), table=table, cells=held)
    return train, val, held


def relabel(ex: g.Examples, table: np.ndarray, seed: int, stream: int) -> g.Examples:
    """The same cells with ``table``'s clean labels and fresh label noise (the course's label
    keeps make_dataset's exact noise)."""
    if table is COURSE_TABLE:
        return ex
    rng = np.random.default_rng([seed, 2, stream])
    clean = table[ex.verb, ex.person]
    flip = rng.random(len(ex)) < g.LABEL_NOISE
    target = np.where(flip, (clean + rng.integers(1, g.N_TENSES, len(ex))) % g.N_TENSES, clean)
    return g.Examples(verb=ex.verb, person=ex.person, target=target, clean=clean)


COURSE_TABLE = g.label_table()


def run(table: np.ndarray, seed: int, kind: str, hidden: int) -> dict:
    train, val, val_cells = split(table, seed, kind)
    t0 = time.process_time()
    hist = mlp_report.history(mlp, mlp.init_params(seed, hidden), train.X, train.target, val.X,
                              val.target, lr=LR, steps=STEPS, grads=False)
    cpu = time.process_time() - t0
    verb, person = np.divmod(val_cells, g.N_PERSONS)
    logits = forward_np(hist.params, g.encode(verb, person))
    val_acc = np.array(hist.val_acc)
    reached = np.flatnonzero(val_acc >= 0.9)
    return {
        "val": hist.val_acc[-1],
        "train": hist.acc[-1],
        "cells": float((logits.argmax(1) == table[verb, person]).mean()),
        "missed": [(g.VERBS[v], g.PERSONS[p]) for v, p, ok in
                   zip(verb, person, logits.argmax(1) == table[verb, person]) if not ok],
        "steps_to_90": int(reached[0]) if len(reached) else None,
        "cpu": cpu,
    }


def forward_np(params: dict, X: np.ndarray) -> np.ndarray:
    if "W" in params:
        return X @ params["W"] + params["b"]
    return np.tanh(X @ params["W1"] + params["b1"]) @ params["W2"] + params["b2"]


# ---------------------------------------------------------------------------- tables


def spread(values: list[float]) -> str:
    return (f"{statistics.mean(values):.3f} ± {statistics.stdev(values):.3f} "
            f"({min(values):.2f}–{max(values):.2f})")


def cells_fitted(table: np.ndarray, hidden: int, steps: int = 5 * STEPS) -> int:
    """How many of the 60 cells a model trained on the 60 clean cells (no noise) gets right."""
    verb, person = np.divmod(np.arange(N_CELLS), g.N_PERSONS)
    X, y = g.encode(verb, person), table[verb, person]
    hist = mlp_report.history(mlp, mlp.init_params(0, hidden), X, y, X, y, lr=LR, steps=steps,
                              grads=False)
    return round(N_CELLS * hist.acc[-1])


def report(seeds=SEEDS) -> str:
    grid = g.load_grid()
    lines = [
        f"Seeds {seeds.start}–{seeds.stop - 1} ({len(seeds)} runs per row); {N_TRAIN} training / "
        f"{N_VAL} validation examples, {g.LABEL_NOISE:.0%} label noise; full-batch gradient "
        f"descent, lr {LR}, {STEPS} steps; MLP 23 → {HIDDEN} (tanh) → 5, linear 23 → 5; "
        "reference engine. Accuracies: mean ± standard deviation (min–max) over the seeds.",
        "",
        "| label | classes used (cells per tense 0–4) | cells fitted, linear / MLP (60 clean "
        "cells) |",
        "|---|---|---|",
    ]
    tables = {name: fn(grid) for name, (_, fn) in LABELS.items()}
    for name, (what, _) in LABELS.items():
        counts = np.bincount(tables[name].ravel(), minlength=g.N_TENSES)
        lines.append(f"| {name}: {what} | {np.count_nonzero(counts)}: "
                     f"{' / '.join(map(str, counts))} | {cells_fitted(tables[name], 0)} / "
                     f"{cells_fitted(tables[name], HIDDEN)} |")
    lines += ["", "| label | split | model | validation accuracy | validation cells right "
              "(clean label) | steps to 90 % val. | CPU s |", "|---|---|---|---|---|---|---|"]
    missed: dict[str, dict[tuple[str, str], int]] = {}
    for name in LABELS:
        for kind in ("examples", "cells"):
            for model, hidden in (("linear", 0), ("MLP", HIDDEN)):
                runs = [run(tables[name], s, kind, hidden) for s in seeds]
                reached = [r["steps_to_90"] for r in runs if r["steps_to_90"] is not None]
                to90 = (f"{statistics.median(reached):.0f} (median, {len(reached)}/{len(runs)} "
                        "runs)" if reached else "never")
                lines.append(
                    f"| {name} | {kind} | {model} | {spread([r['val'] for r in runs])} | "
                    f"{spread([r['cells'] for r in runs])} | {to90} | "
                    f"{statistics.mean(r['cpu'] for r in runs):.2f} |")
                if name == "irregular":
                    counter = missed.setdefault(f"{kind} split, {model}", {})
                    for r in runs:
                        for cell in r["missed"]:
                            counter[cell] = counter.get(cell, 0) + 1
    lines += ["", "Cells whose course label a trained model gets wrong (validation cells, "
              f"clean label; times wrong over the {len(seeds)} seeds; in the cells split each "
              "cell is held out in about 1 seed in 6):", ""]
    for model, counter in missed.items():
        worst = sorted(counter.items(), key=lambda kv: (-kv[1], kv[0]))
        lines.append(f"- {model}: " + (", ".join(f"{v}/{p} ({n})" for (v, p), n in worst)
                                       or "none"))
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--print", action="store_true", help="write the tables to stdout only")
    parser.add_argument("--seeds", type=int, default=len(SEEDS), help="number of seeds")
    args = parser.parse_args(argv)
    t0 = time.perf_counter()
    tables = report(range(args.seeds))
    if args.print:
        print(tables)
    else:
        text = MD.read_text(encoding="utf-8")
        head, rest = text.split(BEGIN, 1)
        _, tail = rest.split(END, 1)
        MD.write_text(f"{head}{BEGIN}\n{tables}{END}{tail}", encoding="utf-8")
        print(f"wrote the tables into {MD}")
    print(f"({time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
