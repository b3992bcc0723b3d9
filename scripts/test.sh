#!/usr/bin/env bash
# Builds everything and runs every test. Installs what it needs on a fresh machine.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$("$root/scripts/configure.sh" | sed -n 1p)
cmake --build "$build"
cd "$build"
ctest --output-on-failure --timeout 600 "$@"
