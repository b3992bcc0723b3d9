#!/usr/bin/env bash
# Installs what is missing, writes (or finds) the fixture zoo and configures the build folder.
# Prints the build folder, then the fixture folder. Shared by run.sh and test.sh.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
venv=$("$root/scripts/deps.sh" | tail -n 1)
fixtures=$("$root/scripts/fixtures.sh" "$venv" | tail -n 1)
# The ~20k-node program that GUI tests and benchmarks open, written once (about 3 minutes).
bench=${TORCHIR_CACHE:-$HOME/.cache/torchir}/bench
cmake -DPYTHON="$venv/bin/python" -DDIR="$bench" -P "$root/bench/ensure_bench_program.cmake" >&2
build=${TORCHIR_BUILD:-$root/build}
cmake -S "$root" -B "$build" -G Ninja -DTORCHIR_PYTHON="$venv/bin/python" -DTORCHIR_FIXTURES_DIR="$fixtures" \
  -DTORCHIR_BENCH_DIR="$bench" >/dev/null
echo "$build"
echo "$fixtures"
