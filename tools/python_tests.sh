#!/usr/bin/env bash
# The Python bindings' tests (issue #26): build the abi3 wheel with maturin, install it into a
# fresh venv (with Triton 3.9.0, whose Gluon objects the interop tests read; CPU only), and run
# pytest over the installed package — from outside the source tree, so that `import linalias`
# is the wheel — then `mypy.stubtest` of the hand-written stubs against the built module.
#
#     tools/python_tests.sh [PYTEST ARGS…]
#
# PYVENV (default .ci/pyvenv) is the venv; it is created when missing and its linalias is
# replaced by the new wheel each run. Exit status: pytest's, but "no tests collected" (5) is a
# failure here, as is a skipped Gluon test (REQUIRE_TRITON=1).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
venv=${PYVENV:-$root/.ci/pyvenv}
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check \
    "maturin>=1.9,<2" pytest mypy numpy triton==3.9.0
fi
# The CLI, whose `plan --json` the Python plans are compared with.
cargo build --quiet --bin linalias
export LINALIAS_BIN=$root/target/debug/linalias
rm -rf target/wheels
"$venv/bin/maturin" build --release --quiet -m python/Cargo.toml -o target/wheels
"$venv/bin/pip" install --quiet --disable-pip-version-check --force-reinstall --no-deps target/wheels/linalias-*.whl
cd "$(mktemp -d)"
set +e
REQUIRE_TRITON=1 "$venv/bin/python" -m pytest -q -p no:cacheprovider "$root/python/tests" "$@"
status=$?
set -e
if [ "$status" -eq 5 ]; then
  echo "python tests: pytest collected no tests" >&2
  exit 1
fi
[ "$status" -eq 0 ] || exit "$status"
"$venv/bin/python" -m mypy.stubtest linalias._linalias
