#!/usr/bin/env bash
# Builds everything and runs every test. Installs what it needs on a fresh machine.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
venv=$("$root/scripts/deps.sh" | tail -n 1)
fixtures=$("$root/scripts/fixtures.sh" "$venv" | tail -n 1)
build=${TORCHIR_BUILD:-$root/build}
cmake -S "$root" -B "$build" -G Ninja -DTORCHIR_PYTHON="$venv/bin/python" -DTORCHIR_FIXTURES_DIR="$fixtures" >/dev/null
cmake --build "$build"
cd "$build"
ctest --output-on-failure --timeout 600 "$@"
