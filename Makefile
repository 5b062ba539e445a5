# Fase 08 workbook. The two commands a newcomer needs: `make lab` and `make test`.
SHELL := /bin/bash
.DEFAULT_GOAL := help

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
PORT ?= 8888
OP ?=
# Deterministic outputs: nbval compares the notebooks' committed outputs, so sets and hashes
# must iterate in a fixed order, and plots render headless (docs/INSTRUCTOR.md, Authoring).
export PYTHONHASHSEED := 0
export MPLBACKEND := Agg

.PHONY: help lab test lint check stubs notebooks render mutants bench venv clean

help:  ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/' | expand -t 12

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[course,test,bench]'
	touch $@

venv: $(STAMP)  ## create .venv and install everything (torch==2.13.0 CPU)

lab: $(STAMP)  ## start JupyterLab on notebooks/ (your src/minitorch/tensor.py)
	$(BIN)/python -m minitorch_course.lab --port $(PORT)

test: $(STAMP)  ## lint, then every suite against the reference implementation
	$(BIN)/ruff check src solutions tests benchmarks
	$(BIN)/python -m minitorch_course.stubgen --check
	$(BIN)/python -m minitorch_course.course generate --check
	MINITORCH_IMPL=reference $(BIN)/python -m pytest -p no:cacheprovider

lint: $(STAMP)  ## ruff over src/, solutions/, tests/
	$(BIN)/ruff check src solutions tests benchmarks

check: $(STAMP)  ## your progress: every course check against YOUR tensor.py (OP=add for one op)
	MINITORCH_IMPL=learner $(BIN)/python -m minitorch_course.check $(if $(OP),--op $(OP))

stubs: $(STAMP)  ## regenerate src/minitorch/tensor.py from solutions/ (never overwrites your edits)
	$(BIN)/python -m minitorch_course.stubgen $(if $(FORCE),--force)

notebooks: $(STAMP)  ## regenerate the student notebooks/ with nbgrader (never overwrites your edits)
	$(BIN)/python -m minitorch_course.course generate $(if $(FORCE),--force)

render: $(STAMP)  ## re-execute the instructor notebooks against the reference (NB=05 for one)
	PYTHONPATH=$(CURDIR)/src $(BIN)/python -m minitorch_course.course render $(NB)

mutants: $(STAMP)  ## the catalog of planted mistakes: caught and diagnosed?
	MINITORCH_IMPL=reference $(BIN)/python -m minitorch_course.mutants

bench: $(STAMP)  ## speed and memory against raw NumPy, PyTorch and MyGrad
	MINITORCH_IMPL=reference $(BIN)/python benchmarks/bench.py

.PHONY: class-bench
class-bench: $(STAMP)  ## grade a class of 40 generated submissions with `course autograde` (~25 min)
	$(BIN)/python benchmarks/class_run.py $(if $(LEARNERS),--learners $(LEARNERS))

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
