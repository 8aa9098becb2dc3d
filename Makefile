# The two commands a new user runs (see README):
#   make demo   - create .venv, install, play a full game on the simulated table
#   make test   - create .venv, install with test tools, run lint, type checks and the tests
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: demo test venv clean bench

$(BIN)/damas: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(BIN)/damas

venv: $(BIN)/damas

demo: venv
	$(BIN)/damas demo --games 1 --seed 1

test: venv
	-sh tools/ensure_chromium.sh
	$(BIN)/ruff check game vision robot calibration sim app tests bench
	$(BIN)/mypy --strict game
	$(BIN)/python -m pytest -q

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
