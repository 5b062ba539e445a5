"""Where things are in this repository, and the fences that mark what a learner writes.

The one owner of the repository's paths and of nbgrader's fence markers on the maintainers' and
instructor's side: stubgen, mutation_score, site, lab, selftest, minitorch_grading.course and
the tests read them here. What ships to learners cannot import this package, so it finds the
repository by itself (``minitorch.REFERENCE_FILE``, ``minitorch_course.runner.ROOT``);
``tests/minitorch_authoring/test_repository.py`` checks that they agree with this module.
"""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src"  # the packages: minitorch, minitorch_course, minitorch_grading, ...
SOLUTIONS = ROOT / "solutions"  # everything that reveals the reference (README: hidden)
REFERENCE = SOLUTIONS / "tensor.py"  # the reference implementation, fenced
STUB = SRC / "minitorch" / "tensor.py"  # the learner's file, generated from REFERENCE
MLP_REFERENCE = SOLUTIONS / "mlp.py"  # the reference MLP (lab 05), fenced
MLP_STUB = SRC / "minitorch" / "mlp.py"  # the learner's MLP file, generated from MLP_REFERENCE
LEARNER_TESTS = ROOT / "my_tests"  # the learner's own tests, skeletons from MODEL_TESTS
MODEL_TESTS = SOLUTIONS / "learner_tests" / "model"  # the model learner tests, fenced
SOURCE_NOTEBOOKS = SOLUTIONS / "notebooks"  # instructor notebooks (nbgrader's source)
STUDENT_NOTEBOOKS = ROOT / "notebooks"  # generated from SOURCE_NOTEBOOKS
# The English labs (minitorch_authoring.nb_i18n): one catalog per notebook, and what it generates
NOTEBOOK_CATALOGS = SOURCE_NOTEBOOKS / "i18n"  # i18n/en/NN-*.po: English by cell id
SOURCE_NOTEBOOKS_EN = SOURCE_NOTEBOOKS / "en"  # English instructor notebooks, generated
STUDENT_NOTEBOOKS_EN = STUDENT_NOTEBOOKS / "en"  # English student notebooks, generated
THEORY = ROOT / "theory"
BUILD = ROOT / "build"  # git-ignored output: the site, caches, scratch course folders

# nbgrader's fences, in solutions/tensor.py and the instructor notebooks: (begin, end)
SOLUTION = ("### BEGIN SOLUTION", "### END SOLUTION")  # what the learner writes
HIDDEN_TESTS = ("### BEGIN HIDDEN TESTS", "### END HIDDEN TESTS")  # stripped in the release

