# Fase 08 workbook. The two commands a newcomer needs: `make lab` and `make test`.
SHELL := /bin/bash
.DEFAULT_GOAL := help

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
PORT ?= 8888
OP ?=
# Deterministic outputs for notebooks and Hypothesis (NBGRADER-NOTES: seed everything).
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
	MINITORCH_IMPL=learner $(BIN)/python -m minitorch_course.check_cli $(if $(OP),--op $(OP))

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

clean:  ## remove the virtual environment and caches
	rm -rf $(VENV) .pytest_cache .hypothesis .ruff_cache build src/*.egg-info
