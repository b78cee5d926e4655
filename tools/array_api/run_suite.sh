#!/usr/bin/env bash
# Runs the official array-api-tests suite (data-apis/array-api-tests, with the spec checked
# out at its array-api/ submodule path) against a namespace module; fetches nothing.
#
#   tools/array_api/run_suite.sh SUITE_DIR [MODULE] [MAX_EXAMPLES] [extra pytest args...]
#
# SUITE_DIR: a work tree of array-api-tests whose array-api/ holds the spec; MODULE defaults
# to arraygrad.array_api (array_api_compat.numpy for the comparison); MAX_EXAMPLES to 20.
# PYTHON (default: this checkout's .venv/bin/python) needs pytest, pytest-xdist, hypothesis,
# ndindex and arraygrad installed. WORKERS (default 2) is pytest-xdist's -n. The last line
# printed is pytest's summary (passed/failed/skipped counts).
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
export ARRAY_API_TESTS_MODULE="$module" PYTHONDONTWRITEBYTECODE=1
exec "$python" -m pytest array_api_tests/ -p no:cacheprovider -q -n "${WORKERS:-2}" \
    --max-examples="$examples" --derandomize --disable-deadline -o addopts= \
    --tb=no -rN "$@"
