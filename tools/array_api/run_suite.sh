#!/usr/bin/env bash
# Runs the official array-api-tests suite (data-apis/array-api-tests, with the spec checked
# out at its array-api/ submodule path) against a namespace module; fetches nothing.
#
#   tools/array_api/run_suite.sh SUITE_DIR [MODULE] [MAX_EXAMPLES] [extra pytest args...]
#
# SUITE_DIR: a work tree of array-api-tests whose array-api/ holds the spec; MODULE defaults
# to arraygrad.array_api (array_api_compat.numpy for the comparison); MAX_EXAMPLES to 20.
# PYTHON (default: this checkout's .venv/bin/python) needs pytest, pytest-xdist, hypothesis,
# ndindex, pytest-json-report and arraygrad installed. WORKERS (default 2) is pytest-xdist's
# -n. VERSION (default 2024.12, the release arraygrad.array_api implements) is the standard's
# version the suite tests, for every module alike (a module's own __array_api_version__
# would otherwise choose, and array_api_compat.numpy says 2025.12). TESTS (default
# array_api_tests/) narrows the run to some files or tests. The last line printed is pytest's
# summary (passed/failed/skipped counts).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
suite="${1:?usage: run_suite.sh SUITE_DIR [MODULE] [MAX_EXAMPLES] [pytest args...]}"
module="${2:-arraygrad.array_api}"
examples="${3:-20}"
shift $(( $# < 3 ? $# : 3 ))
python="${PYTHON:-$here/.venv/bin/python}"
if [ ! -d "$suite/array_api_tests" ] || [ ! -d "$suite/array-api/src" ]; then
    echo "run_suite.sh: $suite is not an array-api-tests tree with its array-api/ spec" >&2
    exit 2
fi
cd "$suite"
export ARRAY_API_TESTS_MODULE="$module" ARRAY_API_TESTS_VERSION="${VERSION:-2024.12}"
export PYTHONDONTWRITEBYTECODE=1
# shellcheck disable=SC2086  # TESTS may name several paths
exec "$python" -m pytest ${TESTS:-array_api_tests/} -p no:cacheprovider -q -n "${WORKERS:-2}" \
    --max-examples="$examples" --derandomize --disable-deadline -o addopts= \
    --tb=no -rN "$@"
