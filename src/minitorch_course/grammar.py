"""The grammatical grid (20 English verbs x 3 persons x 5 tenses) and the task built on it.

``data/grid.csv`` holds the 300 cells: for each verb, person and tense, the English form and its
Spanish translation. :func:`load_grid` turns it into a :class:`Grid`, whose ``english`` and
``spanish`` arrays have the curriculum's shape ``(20, 3, 5)`` (verb, person, tense).

What a cell holds (the convention, decided once here):

- **persons** ``I``, ``you``, ``he/she/it``; **tenses**, labelled 0-4: infinitive, present,
  past simple, past participle, future with "will" (the present's 3rd-singular form, *works*,
  is the curriculum's "present 3rd singular").
- **English**: the verb form without its subject pronoun: ``work``, ``works``, ``worked``,
  ``will work``; "be": ``am / are / is``, ``was / were / was``, ``been``. The infinitive and the
  participle do not change with the person (the same ``work`` and ``worked`` in all three rows).
- **Spanish**: the translation of that form, which carries the person in its ending, as Spanish
  does without a pronoun: ``trabajo / trabajas / trabaja``, ``trabajé / trabajaste / trabajó``,
  ``trabajaré / trabajarás / trabajará``; the infinitive and the participle are person-less
  (``trabajar``, ``trabajado``). "like" is ``gustar``, whose person is its pronoun:
  ``me gusta / te gusta / le gusta``. One meaning per verb, each Spanish verb used once: be =
  ser, play = jugar, watch = observar (look = mirar, see = ver).

The task (chapter close, ``05-mlp-grammar``, and the next chapter): input = one-hot(verb) ⊕
one-hot(person), 23 features; target = :func:`label_table`, **the first tense in which this verb,
said by this person, breaks the regular English rules** (:func:`regular_forms`); a verb that
never breaks them for that person gets 4, the future, the tense where "will" + infinitive makes
every verb regular. ``benchmarks/mlp-grid.md`` says what this label costs: it is additive in verb
and person, so a linear model fits it as well as the MLP, and only 3 of the 5 tenses occur.
"""

from __future__ import annotations

import csv
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

DATA_PATH = Path(__file__).with_name("data") / "grid.csv"
COLUMNS = ("verb", "regular", "person", "tense", "english", "spanish")


def N_(msgid: str) -> str:  # noqa: N802 (gettext's name): marks a table string for `make messages`
    return msgid


PERSONS: tuple[str, ...] = ("I", "you", "he/she/it")
TENSES: tuple[str, ...] = ("infinitive", "present", "past simple", "past participle", "future")
# what a learner reads (translated where shown: tense_names())
TENSE_NAMES: tuple[str, ...] = (
    N_("infinitive"), N_("present"), N_("past simple"), N_("past participle"),
    N_("future (will)"),
)
LABEL_NOISE = 0.05


@dataclass(frozen=True)
class Grid:
    """The 300 cells as ``(verb, person, tense)`` arrays plus the labels of each axis."""

    english: np.ndarray  # (20, 3, 5) of str
    spanish: np.ndarray  # (20, 3, 5) of str
    verbs: tuple[str, ...]  # (20,)
    persons: tuple[str, ...]  # (3,)
    tenses: tuple[str, ...]  # (5,)
    regular: tuple[bool, ...]  # (20,) the curriculum's regular / irregular split, one per verb

    @property
    def shape(self) -> tuple[int, ...]:
        return self.english.shape

    def _index(self, verb: str, person: str, tense: str) -> tuple[int, int, int]:
        for name, value, axis in (("verb", verb, self.verbs), ("person", person, self.persons),
                                  ("tense", tense, self.tenses)):
            if value not in axis:
                raise KeyError(f"unknown {name} {value!r}; the grid has {', '.join(axis)}")
        return self.verbs.index(verb), self.persons.index(person), self.tenses.index(tense)

    def form(self, verb: str, person: str, tense: str) -> str:
        """The English form, by names: ``grid.form("study", "he/she/it", "present") == "studies"``."""
        return str(self.english[self._index(verb, person, tense)])

    def translation(self, verb: str, person: str, tense: str) -> str:
        """The Spanish translation: ``grid.translation("go", "I", "past simple") == "fui"``."""
        return str(self.spanish[self._index(verb, person, tense)])


def read_rows(path: Path | str = DATA_PATH) -> list[dict[str, str]]:
    """The CSV rows as dicts (columns ``COLUMNS``), NFC strings."""
    with open(path, encoding="utf-8", newline="") as f:
        return [
            {k: unicodedata.normalize("NFC", v) for k, v in row.items()} for row in csv.DictReader(f)
        ]


def load_grid(path: Path | str = DATA_PATH) -> Grid:
    """Read the CSV into a :class:`Grid`; verbs keep the file's order. Checks completeness."""
    rows = read_rows(path)
    verbs = tuple(dict.fromkeys(r["verb"] for r in rows))
    shape = (len(verbs), len(PERSONS), len(TENSES))
    english = np.full(shape, "", dtype=object)
    spanish = np.full(shape, "", dtype=object)
    regular: dict[str, bool] = {}
    for r in rows:
        for column, axis in (("person", PERSONS), ("tense", TENSES)):
            if r[column] not in axis:
                raise ValueError(f"{path}: unknown {column} {r[column]!r} (expected one of {axis})")
        i, j, k = verbs.index(r["verb"]), PERSONS.index(r["person"]), TENSES.index(r["tense"])
        if english[i, j, k]:
            raise ValueError(f"duplicate row for {r['verb']!r}, {r['person']!r}, {r['tense']!r}")
        english[i, j, k], spanish[i, j, k] = r["english"], r["spanish"]
        regular[r["verb"]] = r["regular"] == "yes"
    missing = np.argwhere((english == "") | (spanish == ""))
    if len(missing):
        i, j, k = missing[0]
        raise ValueError(
            f"{len(missing)} incomplete cells, e.g. {verbs[i]!r}, {PERSONS[j]!r}, {TENSES[k]!r}"
        )
    return Grid(english=english, spanish=spanish, verbs=verbs, persons=PERSONS, tenses=TENSES,
                regular=tuple(regular[v] for v in verbs))


VERBS: tuple[str, ...] = load_grid().verbs
N_VERBS, N_PERSONS, N_TENSES = len(VERBS), len(PERSONS), len(TENSES)
N_FEATURES = N_VERBS + N_PERSONS  # 23


def tense_names() -> tuple[str, ...]:
    """The five tenses' names in the learner's language (Spanish by default)."""
    from minitorch_course.i18n import _

    return tuple(str(_(name)) for name in TENSE_NAMES)


# ---------------------------------------------------------------------------- the label


def third_singular(verb: str) -> str:
    """The regular present 3rd singular: +s; +es after s, sh, ch, x, z, o; consonant+y -> ies."""
    if verb.endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb + "es"
    if verb.endswith("y") and verb[-2:-1] not in ("a", "e", "i", "o", "u"):
        return verb[:-1] + "ies"
    return verb + "s"


def regular_past(verb: str) -> str:
    """The regular past (simple and participle): +ed; +d after e; consonant+y -> ied.

    (English also doubles a final consonant after a stressed short vowel, stop -> stopped; none
    of the grid's verbs needs that rule.)"""
    if verb.endswith("e"):
        return verb + "d"
    if verb.endswith("y") and verb[-2:-1] not in ("a", "e", "i", "o", "u"):
        return verb[:-1] + "ied"
    return verb + "ed"


def regular_forms(verb: str) -> np.ndarray:
    """What the regular rules make of ``verb``: (3, 5) strs, persons x tenses, like a grid slice."""
    past = regular_past(verb)
    return np.array(
        [[verb, present, past, past, f"will {verb}"] for present in (verb, verb, third_singular(verb))],
        dtype=object,
    )


def label_table(grid: Grid | None = None) -> np.ndarray:
    """The label of each cell (verb, person): (20, 3) ints in 0..4.

    The first tense whose English form differs from :func:`regular_forms`; 4 (the future) when
    none does. ``have``: ``I`` -> 2 (*had*), ``he/she/it`` -> 1 (*has*); ``work`` -> 4.
    """
    grid = load_grid() if grid is None else grid
    regular = np.stack([regular_forms(v) for v in grid.verbs])  # (20, 3, 5)
    breaks = grid.english != regular  # (20, 3, 5) bool
    return np.where(breaks.any(axis=-1), breaks.argmax(axis=-1), N_TENSES - 1)


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
    n: int, rng: np.random.Generator, noise: float = LABEL_NOISE, table: np.ndarray | None = None,
    cells: np.ndarray | None = None,
) -> Examples:
    """Draw ``n`` cells uniformly from ``cells`` (flat indices ``3 * verb + person``; default all
    60); with probability ``noise`` a label is replaced by one of the four OTHER tenses,
    uniformly (so ``noise`` is exactly the expected flip rate)."""
    table = label_table() if table is None else table
    cells = np.arange(N_VERBS * N_PERSONS) if cells is None else np.asarray(cells)
    verb, person = np.divmod(cells[rng.integers(0, len(cells), size=n)], N_PERSONS)
    clean = table[verb, person]
    flip = rng.random(n) < noise
    shift = rng.integers(1, N_TENSES, size=n)  # 1..4: never lands back on the clean label
    target = np.where(flip, (clean + shift) % N_TENSES, clean)
    return Examples(verb=verb, person=person, target=target, clean=clean)


def make_dataset(
    n_train: int = 250, n_val: int = 50, noise: float = LABEL_NOISE, seed: int = 0
) -> tuple[Examples, Examples]:
    """The seeded train and validation splits (the next chapter's 250 / 50).

    Train and validation draw from independent streams of ``np.random.SeedSequence(seed)``, so
    changing ``n_val`` never changes the training set. Both splits have label noise. There are
    only 60 distinct inputs, so the validation split does NOT measure generalisation to unseen
    (verb, person) pairs: it measures whether the model recovered the label of the cells from
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
