# The two commands of the README: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test bench soak clean

$(PY):
	$(PYTHON) -m venv $(VENV)

$(STAMP): $(PY) pyproject.toml tests/plugins/dummy_plugin/pyproject.toml plugins/special/pyproject.toml
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[numpy,test,demo]"
	$(PY) -m pip install --quiet -e tests/plugins/dummy_plugin
	$(PY) -m pip install --quiet -e "plugins/special[numpy]"
	touch $(STAMP)

demo: $(STAMP)
	$(PY) examples/demo.py

test: $(STAMP)
	$(PY) -m pytest -q tests

soak: $(STAMP)
	$(PY) -m pytest -q -s -m soak tests/reliability

bench: $(STAMP)
	$(PY) benchmarks/bench.py

clean:
	rm -rf $(VENV) build *.egg-info
