"""LEGACY, to delete with phase 2 of issue 27: lab 05's Spanish grid and its toy task, as they
were before the curriculum's English grid (``minitorch_course.grammar``) replaced them.

Kept verbatim only so that today's ``05-mlp-grammar`` notebook can run unchanged by switching
its import (``minitorch_course.grammar`` -> ``minitorch_course.grammar_es_legacy``) until the
notebook is rewritten on the English grid; nothing else imports it.

The grammatical grid (20 verbs x 3 persons x 5 tenses) and the toy task built on it.

``data/conjugations.csv`` holds the 300 real forms: 20 Spanish verbs (-ar/-er/-ir, regular and
irregular), the persons yo, tú, él/ella and five indicative tenses. :func:`load_grid` turns it into
a ``(20, 3, 5)`` array of strings, the grid the chapter uses for shapes.

The toy classification task (chapter close, ``05-mlp-grammar``): input = one-hot(verb) ⊕
one-hot(person), 23 features; target = a tense index 0..4 given by :func:`label_table`:

1. every form gets a *code*: the sum of its letters' positions in the alphabet (a=1 ... z=26,
   accents ignored), modulo 7 (:func:`form_code`);
2. the label of the cell (verb, person) is the tense whose form has the highest code; a tie goes
   to the first tense in ``TENSES`` order (``codes.argmax(axis=-1)``).

The rule reads the real forms, so it depends on the verb and the person *jointly*: no sum of a
verb term and a person term reproduces it: a linear softmax model over the 23 features, trained
to convergence, fits 35 of the 60 cells (58%), and the best additive classifier a direct search
found fits 50 (83%); one hidden layer fits all 60.
It is a toy whose only job is to exercise the engine end to end; it is not linguistics.
"""

from __future__ import annotations

import csv
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

DATA_PATH = Path(__file__).with_name("data") / "conjugations.csv"

PERSONS: tuple[str, ...] = ("yo", "tú", "él/ella")
TENSES: tuple[str, ...] = (
    "presente",
    "pretérito indefinido",
    "pretérito imperfecto",
    "futuro simple",
    "condicional simple",
)
GROUPS: tuple[str, ...] = ("-ar", "-er", "-ir")

CODE_MODULUS = 7
LABEL_NOISE = 0.05


@dataclass(frozen=True)
class Grid:
    """The 300 forms as a ``(verb, person, tense)`` array plus the labels of each axis."""

    forms: np.ndarray  # (20, 3, 5) of str
    verbs: tuple[str, ...]  # (20,)
    persons: tuple[str, ...]  # (3,)
    tenses: tuple[str, ...]  # (5,)
    groups: tuple[str, ...]  # (20,) "-ar" / "-er" / "-ir", one per verb
    regular: tuple[bool, ...]  # (20,) one per verb

    @property
    def shape(self) -> tuple[int, ...]:
        return self.forms.shape

    def form(self, verb: str, person: str, tense: str) -> str:
        """The conjugated form, by names: ``grid.form("tener", "yo", "futuro simple")``."""
        return str(
            self.forms[self.verbs.index(verb), self.persons.index(person), self.tenses.index(tense)]
        )


def read_rows(path: Path | str = DATA_PATH) -> list[dict[str, str]]:
    """The CSV rows as dicts (columns verb, group, regular, person, tense, form), NFC strings."""
    with open(path, encoding="utf-8", newline="") as f:
        return [
            {k: unicodedata.normalize("NFC", v) for k, v in row.items()} for row in csv.DictReader(f)
        ]


def load_grid(path: Path | str = DATA_PATH) -> Grid:
    """Read the CSV into a :class:`Grid`; verbs keep the file's order. Checks completeness."""
    rows = read_rows(path)
    verbs = tuple(dict.fromkeys(r["verb"] for r in rows))
    forms = np.full((len(verbs), len(PERSONS), len(TENSES)), "", dtype=object)
    groups: dict[str, str] = {}
    regular: dict[str, bool] = {}
    for r in rows:
        i, j, k = verbs.index(r["verb"]), PERSONS.index(r["person"]), TENSES.index(r["tense"])
        if forms[i, j, k]:
            raise ValueError(f"duplicate row for {r['verb']!r}, {r['person']!r}, {r['tense']!r}")
        forms[i, j, k] = r["form"]
        groups[r["verb"]] = r["group"]
        regular[r["verb"]] = r["regular"] == "yes"
    missing = np.argwhere(forms == "")
    if len(missing):
        i, j, k = missing[0]
        raise ValueError(
            f"{len(missing)} missing forms, e.g. {verbs[i]!r}, {PERSONS[j]!r}, {TENSES[k]!r}"
        )
    return Grid(
        forms=forms,
        verbs=verbs,
        persons=PERSONS,
        tenses=TENSES,
        groups=tuple(groups[v] for v in verbs),
        regular=tuple(regular[v] for v in verbs),
    )


VERBS: tuple[str, ...] = load_grid().verbs
N_VERBS, N_PERSONS, N_TENSES = len(VERBS), len(PERSONS), len(TENSES)
N_FEATURES = N_VERBS + N_PERSONS  # 23


# ---------------------------------------------------------------------------- the label rule


def _strip_accents(form: str) -> str:
    decomposed = unicodedata.normalize("NFD", form)
    return "".join(c for c in decomposed if unicodedata.category(c) != "Mn")


def letter_sum(form: str) -> int:
    """Sum of the letters' positions in the alphabet, a=1 ... z=26, accents ignored."""
    letters = _strip_accents(form).lower()
    if not letters.isascii() or not letters.isalpha():
        raise ValueError(f"letter_sum expects a single word in a-z (accents allowed), got {form!r}")
    return sum(ord(c) - ord("a") + 1 for c in letters)


def form_code(form: str) -> int:
    """``letter_sum(form) % 7``: comí -> (3+15+13+9) % 7 = 40 % 7 = 5."""
    return letter_sum(form) % CODE_MODULUS


def code_grid(grid: Grid | None = None) -> np.ndarray:
    """The code of every form: (20, 3, 5) ints."""
    grid = load_grid() if grid is None else grid
    return np.vectorize(form_code, otypes=[np.int64])(grid.forms)


def label_table(grid: Grid | None = None) -> np.ndarray:
    """The clean label of each cell (verb, person): (20, 3) ints in 0..4.

    The tense whose form has the highest code; ties go to the earlier tense (argmax semantics).
    """
    return code_grid(grid).argmax(axis=-1)


# ---------------------------------------------------------------------------- the examples


@dataclass(frozen=True)
class Examples:
    """One row per drawn cell: verb index, person index, label (noisy) and the clean label."""

    verb: np.ndarray  # (N,) ints in 0..19
    person: np.ndarray  # (N,) ints in 0..2
    target: np.ndarray  # (N,) ints in 0..4, after label noise
    clean: np.ndarray  # (N,) ints in 0..4, the rule's label

    def __len__(self) -> int:
        return len(self.target)

    @property
    def X(self) -> np.ndarray:  # noqa: N802 (the usual name for a design matrix)
        """The 23 features: one-hot(verb) ⊕ one-hot(person), (N, 23) float64."""
        return encode(self.verb, self.person)

    @property
    def flipped(self) -> np.ndarray:
        """Where the label noise changed the label, (N,) bool."""
        return self.target != self.clean


def draw_examples(
    n: int, rng: np.random.Generator, noise: float = LABEL_NOISE, table: np.ndarray | None = None
) -> Examples:
    """Draw ``n`` cells uniformly from the 60; with probability ``noise`` a label is replaced by
    one of the four OTHER tenses, uniformly (so ``noise`` is exactly the expected flip rate)."""
    table = label_table() if table is None else table
    verb = rng.integers(0, N_VERBS, size=n)
    person = rng.integers(0, N_PERSONS, size=n)
    clean = table[verb, person]
    flip = rng.random(n) < noise
    shift = rng.integers(1, N_TENSES, size=n)  # 1..4: never lands back on the clean label
    target = np.where(flip, (clean + shift) % N_TENSES, clean)
    return Examples(verb=verb, person=person, target=target, clean=clean)


def make_dataset(
    n_train: int = 600, n_val: int = 300, noise: float = LABEL_NOISE, seed: int = 0
) -> tuple[Examples, Examples]:
    """The seeded train and validation splits.

    Train and validation draw from independent streams of ``np.random.SeedSequence(seed)``, so
    changing ``n_val`` never changes the training set. Both splits have label noise. There are
    only 60 distinct inputs, so the validation split does NOT measure generalisation to unseen
    (verb, person) pairs: it measures whether the model recovered the rule of the 60 cells from
    noisy training labels, scored on fresh draws with their own noise (ceiling ≈ 1 - noise).
    """
    train_seq, val_seq = np.random.SeedSequence(seed).spawn(2)
    table = label_table()
    train = draw_examples(n_train, np.random.default_rng(train_seq), noise, table)
    val = draw_examples(n_val, np.random.default_rng(val_seq), noise, table)
    return train, val


# ---------------------------------------------------------------------------- encoding, metrics


def one_hot(indices: Any, n_classes: int) -> np.ndarray:
    """(N,) ints in 0..n_classes-1 -> (N, n_classes) float64 with a single 1 per row."""
    indices = np.asarray(indices)
    if indices.ndim != 1 or not np.issubdtype(indices.dtype, np.integer):
        raise ValueError(f"one_hot expects a 1-D array of ints, got {indices.dtype} {indices.shape}")
    if len(indices) and (indices.min() < 0 or indices.max() >= n_classes):
        raise ValueError(f"one_hot: indices must lie in 0..{n_classes - 1}")
    out = np.zeros((len(indices), n_classes))
    out[np.arange(len(indices)), indices] = 1.0
    return out


def encode(verb: Any, person: Any) -> np.ndarray:
    """one-hot(verb, 20) ⊕ one-hot(person, 3): (N,), (N,) -> (N, 23) float64."""
    return np.concatenate([one_hot(verb, N_VERBS), one_hot(person, N_PERSONS)], axis=1)


def _as_array(x: Any) -> np.ndarray:
    """ndarray, minitorch Tensor or torch tensor -> ndarray (no torch import needed)."""
    if isinstance(x, np.ndarray):
        return x
    if hasattr(x, "detach"):
        x = x.detach()
    return x.numpy() if hasattr(x, "numpy") else np.asarray(x)


def predict(scores: Any) -> np.ndarray:
    """Logits or probabilities (N, C) -> predicted class (N,) ints (argmax over the last axis)."""
    return _as_array(scores).argmax(axis=-1)


def accuracy(scores: Any, targets: Any) -> float:
    """Fraction of rows whose argmax equals the target: (N, C), (N,) -> float in [0, 1]."""
    targets = _as_array(targets)
    pred = predict(scores)
    if pred.shape != targets.shape:
        raise ValueError(f"accuracy: predictions {pred.shape} vs targets {targets.shape}")
    return float((pred == targets).mean())


def confusion_matrix(scores: Any, targets: Any, n_classes: int = N_TENSES) -> np.ndarray:
    """(C, C) counts; row = true tense, column = predicted tense.

    ``scores`` is (N, C) logits/probabilities or already (N,) predicted classes.
    """
    scores, targets = _as_array(scores), _as_array(targets)
    pred = scores if scores.ndim == 1 else predict(scores)
    cm = np.zeros((n_classes, n_classes), dtype=np.int64)
    np.add.at(cm, (targets, pred), 1)
    return cm
