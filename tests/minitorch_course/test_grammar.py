"""The grammatical grid: 300 English forms and their Spanish translations are data a learner
reads, so typos must not survive.

The expected forms here are written independently of ``data/grid.csv`` (typed from a grammar,
never read from the file or derived with ``grammar``'s own rules): the irregular verbs' principal
parts, the regular verbs' -s and -ed forms, the Spanish conjugations of the verbs that are
irregular in Spanish. Structural facts (the future is "will" + infinitive; Spanish futures are
stem + é/ás/á; tú ends in -s or -ste) check the rest. Then the label, the data set, the metrics.
"""

from __future__ import annotations

import csv
import unicodedata

import numpy as np
import pytest

from minitorch_course import grammar as g

GRID = g.load_grid()
CURRICULUM_REGULAR = ("work", "play", "walk", "talk", "listen", "watch", "study", "finish",
                      "start", "look", "want", "like")
CURRICULUM_IRREGULAR = ("be", "have", "do", "go", "come", "see", "eat", "write")
FIRST, SECOND, THIRD = "I", "you", "he/she/it"

# English: (present I, you, he/she/it), (past I, you, he/she/it), participle; typed from a grammar
IRREGULAR_EN = {
    "be": (("am", "are", "is"), ("was", "were", "was"), "been"),
    "have": (("have", "have", "has"), ("had", "had", "had"), "had"),
    "do": (("do", "do", "does"), ("did", "did", "did"), "done"),
    "go": (("go", "go", "goes"), ("went", "went", "went"), "gone"),
    "come": (("come", "come", "comes"), ("came", "came", "came"), "come"),
    "see": (("see", "see", "sees"), ("saw", "saw", "saw"), "seen"),
    "eat": (("eat", "eat", "eats"), ("ate", "ate", "ate"), "eaten"),
    "write": (("write", "write", "writes"), ("wrote", "wrote", "wrote"), "written"),
}
# the regular verbs' 3rd singular and past, typed out (the spelling rules are checked on them)
REGULAR_EN = {
    "work": ("works", "worked"), "play": ("plays", "played"), "walk": ("walks", "walked"),
    "talk": ("talks", "talked"), "listen": ("listens", "listened"),
    "watch": ("watches", "watched"), "study": ("studies", "studied"),
    "finish": ("finishes", "finished"), "start": ("starts", "started"),
    "look": ("looks", "looked"), "want": ("wants", "wanted"), "like": ("likes", "liked"),
}
# Spanish: infinitive, present (yo, tú, él), preterite (yo, tú, él), participle, future stem
SPANISH = {
    "work": "trabajar", "play": "jugar", "walk": "caminar", "talk": "hablar",
    "listen": "escuchar", "watch": "observar", "study": "estudiar", "finish": "terminar",
    "start": "empezar", "look": "mirar", "want": "querer", "like": "gustar", "be": "ser",
    "have": "tener", "do": "hacer", "go": "ir", "come": "venir", "see": "ver", "eat": "comer",
    "write": "escribir",
}
SPANISH_IRREGULAR = {  # verbs outside the plain -ar model (or whose person is a pronoun)
    "jugar": (("juego", "juegas", "juega"), ("jugué", "jugaste", "jugó"), "jugado", "jugar"),
    "empezar": (("empiezo", "empiezas", "empieza"), ("empecé", "empezaste", "empezó"),
                "empezado", "empezar"),
    "querer": (("quiero", "quieres", "quiere"), ("quise", "quisiste", "quiso"), "querido", "querr"),
    "gustar": (("me gusta", "te gusta", "le gusta"), ("me gustó", "te gustó", "le gustó"),
               "gustado", None),
    "ser": (("soy", "eres", "es"), ("fui", "fuiste", "fue"), "sido", "ser"),
    "tener": (("tengo", "tienes", "tiene"), ("tuve", "tuviste", "tuvo"), "tenido", "tendr"),
    "hacer": (("hago", "haces", "hace"), ("hice", "hiciste", "hizo"), "hecho", "har"),
    "ir": (("voy", "vas", "va"), ("fui", "fuiste", "fue"), "ido", "ir"),
    "venir": (("vengo", "vienes", "viene"), ("vine", "viniste", "vino"), "venido", "vendr"),
    "ver": (("veo", "ves", "ve"), ("vi", "viste", "vio"), "visto", "ver"),
    "comer": (("como", "comes", "come"), ("comí", "comiste", "comió"), "comido", "comer"),
    "escribir": (("escribo", "escribes", "escribe"), ("escribí", "escribiste", "escribió"),
                 "escrito", "escribir"),
}


def en(verb: str, tense: str) -> tuple[str, ...]:
    return tuple(GRID.form(verb, p, tense) for p in g.PERSONS)


def es(verb: str, tense: str) -> tuple[str, ...]:
    return tuple(GRID.translation(verb, p, tense) for p in g.PERSONS)


# ---------------------------------------------------------------------------- the file


def test_csv_has_300_rows_each_cell_once_in_nfc_utf8():
    text = g.DATA_PATH.read_bytes().decode("utf-8")
    assert unicodedata.normalize("NFC", text) == text
    with open(g.DATA_PATH, encoding="utf-8", newline="") as f:
        reader = csv.DictReader(f)
        rows = list(reader)
    assert tuple(reader.fieldnames) == g.COLUMNS
    assert len(rows) == 300
    assert len({(r["verb"], r["person"], r["tense"]) for r in rows}) == 300
    assert {r["person"] for r in rows} == set(g.PERSONS)
    assert {r["tense"] for r in rows} == set(g.TENSES)
    for r in rows:
        for column in ("english", "spanish"):
            words = r[column].split(" ")
            assert all(w.isalpha() and w == w.lower() for w in words), (column, r)


def test_the_curriculum_verbs_in_order_with_their_regular_flag():
    assert GRID.shape == GRID.english.shape == GRID.spanish.shape == (20, 3, 5)
    assert GRID.verbs == g.VERBS == CURRICULUM_REGULAR + CURRICULUM_IRREGULAR
    assert GRID.regular == (True,) * 12 + (False,) * 8
    assert GRID.persons == (FIRST, SECOND, THIRD) and len(g.TENSES) == 5
    assert g.N_FEATURES == 23


def test_loader_names_a_missing_cell(tmp_path):
    rows = g.read_rows()
    path = tmp_path / "grid.csv"
    with open(path, "w", encoding="utf-8", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=g.COLUMNS)
        writer.writeheader()
        writer.writerows(r for r in rows if not (r["verb"] == "eat" and r["tense"] == "future"))
    with pytest.raises(ValueError, match=r"3 incomplete cells, e.g. 'eat'.*'future'"):
        g.load_grid(path)


def test_unknown_names_say_what_the_grid_has():
    with pytest.raises(KeyError, match="unknown person 'she'.*he/she/it"):
        GRID.form("go", "she", "present")


# ---------------------------------------------------------------------------- English


@pytest.mark.parametrize("verb", CURRICULUM_IRREGULAR)
def test_irregular_verbs_against_an_independent_list(verb):
    present, past, participle = IRREGULAR_EN[verb]
    assert en(verb, "present") == present
    assert en(verb, "past simple") == past
    assert en(verb, "past participle") == (participle,) * 3


@pytest.mark.parametrize("verb", CURRICULUM_REGULAR)
def test_regular_verbs_against_an_independent_list(verb):
    third, past = REGULAR_EN[verb]
    assert en(verb, "present") == (verb, verb, third)
    assert en(verb, "past simple") == en(verb, "past participle") == (past,) * 3


@pytest.mark.parametrize("verb", g.VERBS)
def test_infinitive_and_future_are_the_same_for_every_verb(verb):
    assert en(verb, "infinitive") == (verb,) * 3
    assert en(verb, "future") == (f"will {verb}",) * 3


def test_regular_spelling_rules_on_the_grid_and_beyond():
    # the grid's cases the rules must cover, typed out
    assert (g.third_singular("study"), g.regular_past("study")) == ("studies", "studied")
    assert (g.third_singular("watch"), g.third_singular("finish")) == ("watches", "finishes")
    assert (g.regular_past("like"), g.regular_past("play")) == ("liked", "played")
    assert (g.third_singular("play"), g.third_singular("go")) == ("plays", "goes")
    # verbs not in the grid: the rules were not written for these
    for verb, third, past in [("try", "tries", "tried"), ("stay", "stays", "stayed"),
                              ("fix", "fixes", "fixed"), ("buzz", "buzzes", "buzzed"),
                              ("miss", "misses", "missed"), ("love", "loves", "loved"),
                              ("enjoy", "enjoys", "enjoyed"), ("carry", "carries", "carried")]:
        assert (g.third_singular(verb), g.regular_past(verb)) == (third, past), verb


def test_regular_forms_is_the_grid_for_every_regular_verb():
    for v, verb in enumerate(GRID.verbs):
        same = (GRID.english[v] == g.regular_forms(verb)).all()
        assert same == GRID.regular[v], verb


# ---------------------------------------------------------------------------- Spanish


def test_each_verb_has_its_own_spanish_verb():
    assert es("work", "infinitive") == ("trabajar",) * 3
    assert {v: GRID.translation(v, FIRST, "infinitive") for v in GRID.verbs} == SPANISH
    assert len(set(SPANISH.values())) == 20


@pytest.mark.parametrize("verb", g.VERBS)
def test_spanish_conjugation(verb):
    infinitive = SPANISH[verb]
    if infinitive in SPANISH_IRREGULAR:
        present, preterite, participle, future_stem = SPANISH_IRREGULAR[infinitive]
    else:  # the regular -ar model
        assert infinitive.endswith("ar"), infinitive
        stem = infinitive[:-2]
        present = (stem + "o", stem + "as", stem + "a")
        preterite = (stem + "é", stem + "aste", stem + "ó")
        participle, future_stem = stem + "ado", infinitive
    assert es(verb, "infinitive") == (infinitive,) * 3
    assert es(verb, "present") == present
    assert es(verb, "past simple") == preterite
    assert es(verb, "past participle") == (participle,) * 3
    if verb == "like":  # what is liked is the subject: always the 3rd person, gustará
        assert es(verb, "future") == ("me gustará", "te gustará", "le gustará")
    else:
        assert es(verb, "future") == tuple(future_stem + end for end in ("é", "ás", "á"))


def test_spanish_person_agreement():
    """Whatever the verb: tú's finite forms end in -s (preterite -ste), never yo's or él's; a
    person-less column (infinitive, participle) is the same in the three rows; the persons'
    finite forms are three different words. gustar carries the person in its pronoun."""
    for verb in GRID.verbs:
        for tense in ("present", "past simple", "future"):
            if verb == "like":  # me gusta, te gusta, le gusta: the person is the pronoun
                assert [f.split(" ")[0] for f in es(verb, tense)] == ["me", "te", "le"]
                continue
            yo, tu, el = es(verb, tense)
            ending = "ste" if tense == "past simple" else "s"
            assert tu.endswith(ending), (verb, tense, tu)
            if verb != "be" or tense != "present":  # ser, él: "es"
                assert not yo.endswith("s") and not el.endswith("s"), (verb, tense)
            forms = es(verb, tense)
            assert len(set(forms)) == 3, (verb, tense, forms)
        for tense in ("infinitive", "past participle"):
            assert len(set(es(verb, tense))) == 1


# ---------------------------------------------------------------------------- the label


def test_label_is_the_first_tense_that_breaks_the_regular_rules():
    """Written from the verb lists, not from the rules: a regular verb never breaks them (4);
    "be" breaks at once (am/are/is: 1); "have" breaks in the 3rd singular present (has: 1) and
    otherwise in the past (had: 2), like every other irregular verb of the grid."""
    table = g.label_table()
    assert table.shape == (20, 3)
    for v, verb in enumerate(GRID.verbs):
        for p, person in enumerate(GRID.persons):
            if verb in CURRICULUM_REGULAR:
                want = 4
            elif verb == "be" or (verb, person) == ("have", THIRD):
                want = 1
            else:
                want = 2
            assert table[v, p] == want, (verb, person)


def test_the_two_hand_checked_cells():
    """benchmarks/mlp-grid.md's two cells: have/he -> has (regular: *haves*) -> 1;
    write/I -> write, write, wrote (regular: *writed*) -> 2."""
    table = g.label_table()
    assert GRID.form("have", THIRD, "present") == "has" and g.third_singular("have") == "haves"
    assert table[g.VERBS.index("have"), 2] == 1
    assert GRID.form("write", FIRST, "past simple") == "wrote" and g.regular_past("write") == "writed"
    assert table[g.VERBS.index("write"), 0] == 2


def test_label_follows_the_data():
    """A grid where "work" were irregular in the past would change work's label: the rule reads
    the forms, not the regular flag."""
    english = GRID.english.copy()
    english[g.VERBS.index("work"), :, 2] = "wrought"
    changed = g.Grid(english=english, spanish=GRID.spanish, verbs=GRID.verbs,
                     persons=GRID.persons, tenses=GRID.tenses, regular=GRID.regular)
    assert list(g.label_table(changed)[0]) == [2, 2, 2]


# ---------------------------------------------------------------------------- examples


def test_make_dataset_is_seeded_and_documented():
    train, val = g.make_dataset()
    again, _ = g.make_dataset()
    assert len(train) == 250 and len(val) == 50
    np.testing.assert_array_equal(train.target, again.target)
    np.testing.assert_array_equal(train.clean, g.label_table()[train.verb, train.person])
    # changing the validation size never changes the training set
    np.testing.assert_array_equal(g.make_dataset(n_val=300)[0].target, train.target)
    # noise: flipped labels always differ from the clean one; rate near LABEL_NOISE
    big, _ = g.make_dataset(n_train=20000, seed=1)
    assert abs(big.flipped.mean() - g.LABEL_NOISE) < 0.01
    assert train.X.shape == (250, 23)


def test_draw_examples_from_chosen_cells():
    ex = g.draw_examples(500, np.random.default_rng(0), noise=0.0, cells=np.array([5, 59]))
    assert set(zip(ex.verb.tolist(), ex.person.tolist())) == {(1, 2), (19, 2)}
    assert (ex.target == ex.clean).all()


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


@pytest.mark.parametrize(("lang", "past"), [("es", "pasado simple"), ("en", "past simple")])
def test_tense_names_in_the_learners_language(monkeypatch, lang, past):
    monkeypatch.setenv("MINITORCH_LANG", lang)
    names = g.tense_names()
    assert len(names) == 5 and names[2] == past
