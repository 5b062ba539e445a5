# Fase 08 workbook. The learner's two commands: `make lab` and `make check` (English route: also
# `make english`, once).
# The rest (`make test`, `make stubs`, `make notebooks`, `make render`, ...) is for maintainers.
SHELL := /bin/bash
.DEFAULT_GOAL := help

PYTHON ?= python3
VENV := .venv
# The Python environment: an active virtual or conda environment (conda's `base` excepted: it is
# active in every shell of a default conda install), else .venv, created here.
ifneq ($(VIRTUAL_ENV),)
ENV_DIR ?= $(VIRTUAL_ENV)
else ifneq ($(CONDA_PREFIX),)
ifneq ($(CONDA_DEFAULT_ENV),base)
ENV_DIR ?= $(CONDA_PREFIX)
endif
endif
ENV_DIR ?= $(CURDIR)/$(VENV)
BIN := $(ENV_DIR)/bin
STAMP := $(ENV_DIR)/.minitorch-fase08-installed
# The instructor's grading tools (pyproject's `grading` extra: Dask, for the class run in
# parallel), installed by the targets that grade a class or test that they do, never by `make lab`.
GRADING_STAMP := $(ENV_DIR)/.minitorch-fase08-grading
PORT ?= 8888
OP ?=
# Deterministic outputs: nbval compares the notebooks' committed outputs, so sets and hashes
# must iterate in a fixed order, and plots render headless (docs/INSTRUCTOR.md, Authoring).
export PYTHONHASHSEED := 0
export MPLBACKEND := Agg
# `make check` ends with a sentence, not make's "Error 1" (check_cli --closing), and exit
# status 0, so that pending work does not read as a crash. For scripts: `make check STRICT=1`
# fails as make does (status 2), or `python -m minitorch_course.check` exits 1 (work pending) or 2.
# This checkout's packages, whatever checkout an active environment's editable install points at.
SRC := PYTHONPATH=$(CURDIR)/src

# The run-time messages' catalogs (minitorch_course.i18n): each .po compiled to its .mo.
CATALOGS := $(wildcard src/minitorch_course/locale/*/LC_MESSAGES/*.po)
COMPILED := $(CATALOGS:.po=.mo)

.PHONY: help lab test quick suites lint check stubs english notebooks render translations mutants heldout fuzz mutation-score bench venv clean messages site system-deps

help:  ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/' | expand -t 12

# What the system needs beyond Python 3.11 and make (README, "Qué necesita el sistema"), as
# command:Debian package. chromium: the site's browser tests (tests/minitorch_authoring/test_site.py); npm: the site's
# MathJax and axe-core (site/package.json); bubblewrap: the grading sandbox; git: `make test` on
# an export of HEAD. Only what is missing is installed, so a second run is quick.
SYSTEM_DEPS := chromium:chromium npm:npm bwrap:bubblewrap git:git

system-deps:  ## maintainers (root, Debian): the system packages the suites need (chromium, npm, bubblewrap)
	@missing=; \
	for pair in $(SYSTEM_DEPS); do \
	    command -v "$${pair%%:*}" >/dev/null 2>&1 || missing="$$missing $${pair#*:}"; \
	done; \
	if [ -z "$$missing" ]; then echo "system-deps: all present ($(foreach p,$(SYSTEM_DEPS),$(lastword $(subst :, ,$(p)))))"; exit 0; fi; \
	if ! command -v apt-get >/dev/null 2>&1; then \
	    echo "system-deps: missing:$$missing; this target installs them with Debian's apt-get, install them with your system's package manager" >&2; exit 1; \
	fi; \
	sudo=; [ "$$(id -u)" = 0 ] || sudo=sudo; \
	echo "system-deps: installing$$missing"; \
	$$sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq$$missing

$(STAMP): pyproject.toml
ifeq ($(ENV_DIR),$(CURDIR)/$(VENV))
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
endif
	$(BIN)/python -m pip install --quiet -e '.[course,test,bench,site]'
	touch $@

# the extra's requirements by name (read from pyproject.toml): not a second editable install
$(GRADING_STAMP): pyproject.toml | $(STAMP)
	$(BIN)/python -m pip install --quiet $$($(BIN)/python -c 'import tomllib; print(*tomllib.load(open("pyproject.toml", "rb"))["project"]["optional-dependencies"]["grading"])')
	touch $@

venv: $(STAMP) $(COMPILED)  ## install everything (torch==2.13.0 included) in .venv, or in the active environment

%.mo: %.po | $(STAMP)
	$(BIN)/pybabel --quiet compile --domain minitorch_course --input-file $< --output-file $@

messages: $(STAMP)  ## maintainers: the message template from the sources, merged into each .po
	$(SRC) $(BIN)/python -m minitorch_authoring.i18n_build extract

lab: $(STAMP) $(COMPILED)  ## learner: JupyterLab on notebooks/ (INSTRUCTOR=1: with nbgrader's formgrader)
	$(SRC) $(BIN)/python -m minitorch_authoring.lab --port $(PORT) $(if $(INSTRUCTOR),--instructor)

check: $(STAMP) $(COMPILED)  ## learner: your progress, every course check on YOUR tensor.py (OP=add: one op)
	@MINITORCH_IMPL=learner $(SRC) $(BIN)/python -m minitorch_course.check --closing \
	    $(if $(OP),--op $(OP)) $(if $(SEED),--seed $(SEED)); \
	status=$$?; \
	[ -z "$(STRICT)" ] || exit $$status

test: $(STAMP) $(COMPILED) $(GRADING_STAMP)  ## maintainers: ruff, stub and notebook checks, every suite on the reference (JOBS=0: one core)
	@$(SRC) $(BIN)/python -m minitorch_authoring.selftest $(MAKE) --no-print-directory suites BIN=$(BIN)

quick: $(STAMP) $(COMPILED) $(GRADING_STAMP)  ## maintainers: the fast tier of make test: no notebooks, nbgrader, class runs, site, catalog sweeps
	@$(SRC) $(BIN)/python -m minitorch_authoring.selftest $(MAKE) --no-print-directory suites BIN=$(BIN) QUICK=1

# pytest on every core (pytest-xdist), a test module whole on one worker; tests/conftest.py hands
# the modules with slow tests out first. JOBS=0: one process.
JOBS ?= auto
# What `make test` runs, here or (when the learner has work in this checkout) in an export of HEAD;
# QUICK=1 (`make quick`) leaves out the tests marked slow. That the student notebooks are what
# nbgrader generates (`course generate --check`) is checked inside pytest, on a worker
# (tests/repo/test_notebooks.py), not serially before it.
suites:
	$(BIN)/ruff check src solutions tests benchmarks site
	$(SRC) $(BIN)/python -m minitorch_authoring.stubgen --check --lang es
	$(SRC) $(BIN)/python -m minitorch_authoring.stubgen --check --lang en
	$(SRC) $(BIN)/python -m minitorch_authoring.nb_i18n build --check
	MINITORCH_IMPL=reference $(SRC) $(BIN)/python -m pytest -p no:cacheprovider \
	    -n $(JOBS) --dist loadfile $(if $(QUICK),-m "not slow")

lint: $(STAMP)  ## maintainers: ruff over src/, solutions/, tests/, benchmarks/, site/
	$(BIN)/ruff check src solutions tests benchmarks site

stubs: $(STAMP)  ## maintainers: the stub tensor.py from solutions/ (keeps edits; FORCE=1 backs up)
	$(SRC) $(BIN)/python -m minitorch_authoring.stubgen $(if $(FORCE),--force)

english: $(STAMP) $(COMPILED)  ## learner: your unedited tensor.py, mlp.py and my_tests/ skeletons in English (FORCE=1 backs up edited ones)
	$(SRC) $(BIN)/python -m minitorch_course.stubfiles en $(if $(FORCE),--force)

notebooks: $(STAMP) $(COMPILED)  ## maintainers: the student notebooks/ via nbgrader (keeps edits; FORCE=1 backs up; EN=1: notebooks/en/)
	$(SRC) $(BIN)/python -m minitorch_grading.course generate $(if $(FORCE),--force) $(if $(EN),--lang en)

render: $(STAMP) $(COMPILED)  ## maintainers: re-run the instructor notebooks on the reference (NB=05: one; EN=1: the English ones)
	$(SRC) $(BIN)/python -m minitorch_grading.course render $(if $(EN),--lang en) $(NB)

translations:  ## maintainers: the notebooks' cells whose English is missing or older than the Spanish
	$(SRC) $(BIN)/python -m minitorch_authoring.nb_i18n status

site: $(STAMP)  ## maintainers: the chapter's website, both languages, strict, into build/site/ (needs npm)
	$(SRC) $(BIN)/python -m minitorch_authoring.site build

mutants: $(STAMP)  ## maintainers: the catalog of planted mistakes: caught and diagnosed?
	MINITORCH_IMPL=reference $(SRC) $(BIN)/python -m minitorch_authoring.mutants

heldout: $(STAMP)  ## maintainers: score the diagnosis on the held-out mistakes (solutions/heldout/)
	cd solutions && MINITORCH_IMPL=reference $(SRC) $(BIN)/python -m heldout.score $(if $(MD),--markdown $(MD))

fuzz: $(STAMP)  ## maintainers: random op programs vs torch, with Hypothesis statistics (N=20000)
	MINITORCH_IMPL=reference FUZZ_PROGRAMS=$(or $(N),20000) $(SRC) $(BIN)/python -m pytest \
	    -p no:cacheprovider tests/minitorch_authoring/test_fuzz.py --hypothesis-show-statistics -rA

mutation-score: $(STAMP)  ## maintainers: Cosmic Ray mutants of the solutions vs the graded checks
	$(BIN)/python -c 'import cosmic_ray' 2>/dev/null || $(BIN)/python -m pip install cosmic-ray==8.7.0
	MINITORCH_IMPL=reference $(SRC) $(BIN)/python -m minitorch_authoring.mutation_score run
	MINITORCH_IMPL=reference $(SRC) $(BIN)/python -m minitorch_authoring.mutation_score report

bench: $(STAMP)  ## maintainers: speed and memory against raw NumPy, PyTorch and MyGrad
	MINITORCH_IMPL=reference $(SRC) $(BIN)/python benchmarks/bench.py

.PHONY: mlp-grid
mlp-grid: $(STAMP)  ## maintainers: linear vs MLP on the grammatical grid's task (writes benchmarks/mlp-grid.md, ~20 s)
	MINITORCH_IMPL=reference $(SRC) $(BIN)/python benchmarks/mlp_grid.py

.PHONY: class-bench
class-bench: $(STAMP) $(GRADING_STAMP)  ## grade a class of 40 generated submissions serially and in parallel (Dask), and the scaling table
	$(SRC) $(BIN)/python benchmarks/class_run.py $(if $(LEARNERS),--learners $(LEARNERS)) \
	    $(if $(WORKERS),--workers $(WORKERS)) $(if $(MODES),--modes $(MODES))

# Grading data (docs/INSTRUCTOR.md): make never deletes it. A course directory put in build/
# with `course build --course-dir` makes `make clean` refuse, naming what it found.
GRADING_DATA := gradebook.db submitted autograded feedback exchange

clean:  ## remove the virtual environment and caches (never grading data)
	@found=$$(find build -maxdepth 4 \( $(foreach n,$(GRADING_DATA),-name $(n) -o) -false \) \
	    -print 2>/dev/null); \
	if [ -n "$$found" ]; then \
	    echo "make clean: refusing to delete build/: it holds grading data:" >&2; \
	    echo "$$found" | sed 's/^/    /' >&2; \
	    echo "move that course directory out of the repository, or delete it by hand" >&2; \
	    exit 1; \
	fi
	rm -rf $(VENV) .pytest_cache .hypothesis .ruff_cache build src/*.egg-info
