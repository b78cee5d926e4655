# The two commands of the README: `make demo` and `make test` (and `make test-gpu` on a
# machine with a CUDA GPU).
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

CUPY_EXTRA ?= cupy
GPU_STAMP := $(VENV)/.installed-$(CUPY_EXTRA)

.PHONY: demo demo-ddp test test-backends test-gpu bench bench-programs soak clean

$(PY):
	$(PYTHON) -m venv $(VENV)

$(STAMP): $(PY) pyproject.toml tests/plugins/dummy_plugin/pyproject.toml plugins/special/pyproject.toml
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[numpy,test,demo,mpi]"
	$(PY) -m pip install --quiet -e tests/plugins/dummy_plugin
	$(PY) -m pip install --quiet -e "plugins/special[numpy]"
	touch $(STAMP)

demo: $(STAMP)
	$(PY) examples/demo.py

# The same network trained data-parallel on 2 MPI processes (arraygrad.distributed).
demo-ddp: $(STAMP)
	$(PY) -m arraygrad.distributed.run --nproc-per-node 2 examples/ddp_digits.py

# The whole suite, then again with every fast path off (ARRAYGRAD_REFERENCE=1: the general
# recorder and the rules' recorded backwards), which must give the same answers; the second
# pass leaves out what the switch cannot change (typing, docs and example installs, demos, the
# census of names, ONNX export, which turns every fast path off while it records) and the
# other backends' conformance runs (REFERENCE_DESELECT).
# Both passes spread over every core (pytest-xdist; PYTEST_WORKERS=0 runs in one process);
# worksteal keeps the long ported-program tests from leaving a worker idle at the end.
# The whole conformance runs of the strict, JAX and Dask backends are left to the first pass:
# the switch turns off the core's fast paths, which the NumPy backend's run covers in both
# passes (each run is a process of its own, 50 to 100 s of CI's two cores).
# So are the MPI tests (tests/distributed, tests/reliability: rank processes, launchers and
# collectives, about 50 s of CI's two cores): their ops run both ways in the op tests, and CI's
# 15 minutes cannot hold them twice.
REFERENCE_DESELECT := --ignore=tests/distributed --ignore=tests/reliability \
	--deselect "tests/conformance/test_conformance.py::test_backend_passes_the_suite[strict]" \
	--deselect "tests/conformance/test_conformance.py::test_immutable_and_lazy_backends_pass_a_sample_of_the_suite"
PYTEST_WORKERS ?= auto
PYTEST_PARALLEL := -n $(PYTEST_WORKERS) --dist worksteal

test: $(STAMP)
	$(PY) -m pytest -q $(PYTEST_PARALLEL) tests
	ARRAYGRAD_REFERENCE=1 $(PY) -m pytest -q $(PYTEST_PARALLEL) tests --ignore=tests/test_typing.py \
		--ignore=tests/docs --ignore=tests/examples --ignore=tests/census --ignore=tests/onnx \
		$(REFERENCE_DESELECT)

# CuPy (CUPY_EXTRA=cupy-cuda12 for CUDA 12), then the conformance suite on the cupy
# backend (--strict: no usable GPU is an error, not a skip) and the tests marked `cuda`
# (the real-GPU halves of the device tests, which skip without a GPU under `make test`).
$(GPU_STAMP): $(STAMP)
	$(PY) -m pip install --quiet -e ".[$(CUPY_EXTRA)]"
	touch $(GPU_STAMP)

test-gpu: $(GPU_STAMP)
	$(VENV)/bin/arraygrad-conformance cupy --strict -q -p no:cacheprovider
	$(PY) -m pytest -q -m cuda tests

# The JAX (immutable arrays) and Dask (lazy arrays) backends in full: the whole conformance
# suite on each, and the demo's network trained on each to NumPy's accuracy (tests marked
# ``backends``; `make test` runs the suite's reduced form, one check per op).
test-backends: $(STAMP)
	$(PY) -m pytest -q $(PYTEST_PARALLEL) -m backends tests/conformance tests/immutable

soak: $(STAMP)
	$(PY) -m pytest -q -s -m soak tests/reliability

bench: $(STAMP)
	$(PY) benchmarks/bench.py

# every program of examples/ported timed on arraygrad and PyTorch (one thread, a process each)
bench-programs: $(STAMP)
	$(PY) benchmarks/programs.py

clean:
	rm -rf $(VENV) build *.egg-info
