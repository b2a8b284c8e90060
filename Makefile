# Two entry points (see README): `make book` builds the book, `make test` runs the whole suite.
# Each creates the virtual environment it needs in .venv.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# Where TinyShakespeare lies on our machines (no internet); elsewhere it is downloaded and cached.
MOPE_DATA_DIR ?= $(abspath ../shared/data)
export MOPE_DATA_DIR

.PHONY: venv test book clean-book smoke suite-cpu benchmark

$(BIN)/activate: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	# The CPU build of torch 2.13.0 (a bare `torch` would pull gigabytes of CUDA wheels).
	$(BIN)/pip install --quiet "torch==2.13.0"
	# the package with every extra (pyproject.toml): the evidence, the byte-pair tokenizer, the book, the tests
	$(BIN)/pip install --quiet -e ".[evidence,bpe,book,test]"
	touch $(BIN)/activate

venv: $(BIN)/activate

test: venv
	$(BIN)/python -m pytest -n 2 --dist loadfile tests notebooks --nbval-lax -p no:cacheprovider

book: venv
	$(BIN)/jupyter-book build --all . -W --keep-going

clean-book:
	rm -rf _build

smoke: venv
	$(BIN)/python -m mope suite --preset smoke --seeds 0

suite-cpu: venv
	PYTHON=$(abspath $(BIN)/python) bash scripts/cpu_suite.sh

benchmark: venv
	$(BIN)/python benchmarks/throughput.py
