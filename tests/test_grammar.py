"""The grammatical grid: the 300 forms are data a learner reads, so typos must not survive.

Structural facts (every future is stem + é/ás/á, ...) catch slips in regular patterns; the
irregular forms are spot-checked one by one. Then the label rule, the generator and the metrics.
"""

from __future__ import annotations

import csv
import itertools
import unicodedata

import numpy as np
import pytest

from minitorch_course import grammar as g

GRID = g.load_grid()
IRREGULAR_FUTURE_STEMS = {
    "tener": "tendr", "hacer": "har", "decir": "dir", "poder": "podr", "querer": "querr",
    "venir": "vendr", "saber": "sabr", "salir": "saldr",
}
FUT, COND = ("é", "ás", "á"), ("ía", "ías", "ía")


def forms(verb: str, tense: str) -> tuple[str, ...]:
    return tuple(GRID.form(verb, p, tense) for p in g.PERSONS)


# ---------------------------------------------------------------------------- the file


def test_csv_has_300_rows_each_cell_once_in_nfc_utf8():
    raw = g.DATA_PATH.read_bytes()
    text = raw.decode("utf-8")
    assert unicodedata.normalize("NFC", text) == text
    with open(g.DATA_PATH, encoding="utf-8", newline="") as f:
        reader = csv.DictReader(f)
        rows = list(reader)
    assert reader.fieldnames == ["verb", "group", "regular", "person", "tense", "form"]
    assert len(rows) == 300
    keys = [(r["verb"], r["person"], r["tense"]) for r in rows]
    assert len(set(keys)) == 300
    assert {r["person"] for r in rows} == set(g.PERSONS)
    assert {r["tense"] for r in rows} == set(g.TENSES)
    assert {r["regular"] for r in rows} == {"yes", "no"}
    for r in rows:
        assert r["form"] == r["form"].strip().lower() and r["form"].isalpha(), r


def test_grid_shape_and_verbs():
    assert GRID.forms.shape == (20, 3, 5) == GRID.shape
    assert len(g.VERBS) == len(set(g.VERBS)) == 20
    assert g.N_FEATURES == 23
    for verb, group in zip(GRID.verbs, GRID.groups):
        assert verb.endswith(group[1:]), (verb, group)
    counts = {grp: GRID.groups.count(grp) for grp in g.GROUPS}
    assert all(n >= 5 for n in counts.values()), counts
    assert 5 <= sum(GRID.regular) <= 15


def test_each_verb_has_consistent_group_and_regular_flag():
    rows = g.read_rows()
    for verb in g.VERBS:
        assert len({(r["group"], r["regular"]) for r in rows if r["verb"] == verb}) == 1


# ---------------------------------------------------------------------------- structure


@pytest.mark.parametrize("verb", g.VERBS)
def test_future_and_conditional_are_stem_plus_ending(verb):
    stem = IRREGULAR_FUTURE_STEMS.get(verb, verb)
    assert forms(verb, "futuro simple") == tuple(stem + e for e in FUT)
    assert forms(verb, "condicional simple") == tuple(stem + e for e in COND)


@pytest.mark.parametrize("verb", g.VERBS)
def test_imperfect(verb):
    expected = {"ser": ("era", "eras", "era"), "ir": ("iba", "ibas", "iba"),
                "ver": ("veía", "veías", "veía")}
    stem = verb[:-2]
    if verb in expected:
        want = expected[verb]
    elif verb.endswith("ar"):
        want = (stem + "aba", stem + "abas", stem + "aba")
    else:
        want = (stem + "ía", stem + "ías", stem + "ía")
    assert forms(verb, "pretérito imperfecto") == want


@pytest.mark.parametrize("verb", [v for v, r in zip(GRID.verbs, GRID.regular) if r])
def test_regular_present_and_preterite(verb):
    stem = verb[:-2]
    if verb.endswith("ar"):
        present, preterite = ("o", "as", "a"), ("é", "aste", "ó")
    elif verb.endswith("er"):
        present, preterite = ("o", "es", "e"), ("í", "iste", "ió")
    else:
        present, preterite = ("o", "es", "e"), ("í", "iste", "ió")
    assert forms(verb, "presente") == tuple(stem + e for e in present)
    assert forms(verb, "pretérito indefinido") == tuple(stem + e for e in preterite)


def test_verbs_marked_irregular_break_the_regular_pattern_somewhere():
    for verb, regular in zip(GRID.verbs, GRID.regular):
        if regular:
            continue
        stem = verb[:-2]
        ar = verb.endswith("ar")
        regular_forms = (
            tuple(stem + e for e in (("o", "as", "a") if ar else ("o", "es", "e")))
            + tuple(stem + e for e in (("é", "aste", "ó") if ar else ("í", "iste", "ió")))
            + tuple(verb + e for e in FUT)
        )
        actual = forms(verb, "presente") + forms(verb, "pretérito indefinido") + forms(
            verb, "futuro simple"
        )
        assert actual != regular_forms, verb


SPOT_CHECKS = {
    ("tener", "presente"): ("tengo", "tienes", "tiene"),
    ("tener", "pretérito indefinido"): ("tuve", "tuviste", "tuvo"),
    ("hacer", "presente"): ("hago", "haces", "hace"),
    ("hacer", "pretérito indefinido"): ("hice", "hiciste", "hizo"),
    ("ir", "presente"): ("voy", "vas", "va"),
    ("ir", "pretérito indefinido"): ("fui", "fuiste", "fue"),
    ("ser", "presente"): ("soy", "eres", "es"),
    ("ser", "pretérito indefinido"): ("fui", "fuiste", "fue"),
    ("decir", "presente"): ("digo", "dices", "dice"),
    ("decir", "pretérito indefinido"): ("dije", "dijiste", "dijo"),
    ("poder", "presente"): ("puedo", "puedes", "puede"),
    ("poder", "pretérito indefinido"): ("pude", "pudiste", "pudo"),
    ("querer", "presente"): ("quiero", "quieres", "quiere"),
    ("querer", "pretérito indefinido"): ("quise", "quisiste", "quiso"),
    ("venir", "presente"): ("vengo", "vienes", "viene"),
    ("venir", "pretérito indefinido"): ("vine", "viniste", "vino"),
    ("saber", "presente"): ("sé", "sabes", "sabe"),
    ("saber", "pretérito indefinido"): ("supe", "supiste", "supo"),
    ("salir", "presente"): ("salgo", "sales", "sale"),
    ("salir", "pretérito indefinido"): ("salí", "saliste", "salió"),
    ("estar", "presente"): ("estoy", "estás", "está"),
    ("estar", "pretérito indefinido"): ("estuve", "estuviste", "estuvo"),
    ("dar", "presente"): ("doy", "das", "da"),
    ("dar", "pretérito indefinido"): ("di", "diste", "dio"),
    ("ver", "presente"): ("veo", "ves", "ve"),
    ("ver", "pretérito indefinido"): ("vi", "viste", "vio"),
    ("comer", "pretérito indefinido"): ("comí", "comiste", "comió"),
    ("vivir", "pretérito indefinido"): ("viví", "viviste", "vivió"),
    ("hablar", "pretérito indefinido"): ("hablé", "hablaste", "habló"),
    ("hablar", "futuro simple"): ("hablaré", "hablarás", "hablará"),
    ("hablar", "condicional simple"): ("hablaría", "hablarías", "hablaría"),
}


@pytest.mark.parametrize(("verb", "tense"), SPOT_CHECKS)
def test_spot_check(verb, tense):
    assert forms(verb, tense) == SPOT_CHECKS[verb, tense]


def test_grid_form_lookup_matches_array_order():
    i, j, k = g.VERBS.index("tener"), g.PERSONS.index("tú"), g.TENSES.index("condicional simple")
    assert GRID.forms[i, j, k] == GRID.form("tener", "tú", "condicional simple") == "tendrías"


# ---------------------------------------------------------------------------- the label rule


def test_letter_sum_and_code():
    assert g.letter_sum("comí") == 3 + 15 + 13 + 9 == 40
    assert g.form_code("comí") == 40 % 7 == 5
    assert g.letter_sum("está") == g.letter_sum("esta")
    with pytest.raises(ValueError):
        g.letter_sum("dos palabras")


def test_label_table_is_argmax_of_codes_over_the_tense_axis():
    codes = g.code_grid()
    table = g.label_table()
    assert codes.shape == (20, 3, 5) and table.shape == (20, 3)
    assert set(np.unique(table)) == {0, 1, 2, 3, 4}
    # worked example: hablar, yo -> hablo 38, hablé 28, hablaba 27, hablaré 47, hablaría 52
    assert list(codes[0, 0]) == [3, 0, 6, 5, 3] and table[0, 0] == 2  # pretérito imperfecto
    for v, p in itertools.product(range(20), range(3)):
        best = max(codes[v, p])
        assert table[v, p] == list(codes[v, p]).index(best)  # first maximum wins ties


def test_label_rule_is_not_additive():
    """A 'swap rectangle' y[v,p] = y[w,q] = a, y[v,q] = y[w,p] = b (a != b) cannot be fitted by
    any model whose score is f(verb) + h(person): adding the four margins gives 0 > 0."""
    y = g.label_table()
    rectangles = [
        (v, w, p, q)
        for v, w in itertools.combinations(range(20), 2)
        for p, q in itertools.combinations(range(3), 2)
        if y[v, p] == y[w, q] and y[v, q] == y[w, p] and y[v, p] != y[v, q]
    ]
    assert len(rectangles) >= 5


# ---------------------------------------------------------------------------- examples


def test_make_dataset_is_seeded_and_documented():
    train, val = g.make_dataset()
    again, _ = g.make_dataset()
    assert len(train) == 600 and len(val) == 300
    np.testing.assert_array_equal(train.target, again.target)
    np.testing.assert_array_equal(train.clean, g.label_table()[train.verb, train.person])
    # changing the validation size never changes the training set
    np.testing.assert_array_equal(g.make_dataset(n_val=50)[0].target, train.target)
    # noise: flipped labels always differ from the clean one; rate near LABEL_NOISE
    big, _ = g.make_dataset(n_train=20000, seed=1)
    assert abs(big.flipped.mean() - g.LABEL_NOISE) < 0.01
    assert train.X.shape == (600, 23)


def test_one_hot_and_encode():
    np.testing.assert_array_equal(g.one_hot([2, 0], 3), [[0, 0, 1], [1, 0, 0]])
    X = g.encode([19, 0], [1, 2])
    assert X.shape == (2, 23) and X.dtype == np.float64
    assert X[0, 19] == X[0, 21] == X[1, 0] == X[1, 22] == 1 and X.sum() == 4
    with pytest.raises(ValueError):
        g.one_hot([3], 3)
    with pytest.raises(ValueError):
        g.one_hot([0.5], 3)


def test_accuracy_and_confusion_matrix():
    scores = np.array([[0.1, 0.9, 0, 0, 0], [0.8, 0.1, 0, 0, 0.1], [0, 0, 0, 0, 1.0]])
    targets = np.array([1, 2, 4])
    assert g.accuracy(scores, targets) == pytest.approx(2 / 3)
    cm = g.confusion_matrix(scores, targets)
    assert cm.shape == (5, 5) and cm.sum() == 3
    assert cm[1, 1] == 1 and cm[2, 0] == 1 and cm[4, 4] == 1
    np.testing.assert_array_equal(g.confusion_matrix(np.array([1, 0, 4]), targets), cm)


def test_accuracy_accepts_a_minitorch_tensor():
    import minitorch as mt

    logits = mt.Tensor(np.eye(5), requires_grad=True)
    assert g.accuracy(logits, np.arange(5)) == 1.0
