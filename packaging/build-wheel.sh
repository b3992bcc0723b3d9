#!/usr/bin/env bash
# Builds the Python wheel and prints its path: dist/torchir_studio-<version>-py3-none-<platform>.whl
# (or OUT_DIR/...). scikit-build-core builds the project with the wheel's install rules
# (packaging/wheel) in build-wheel/, beside build/ and with its compiler (CMake's default, c++),
# so ccache serves the compiles build/ made;
# auditwheel then copies in the libraries of Qt, Graphviz and theirs that a system may lack, points
# every RUNPATH at them, and tags the wheel with the oldest manylinux policy its binaries meet.
# libtorch stays out: the environment's own torch serves it. Usage: packaging/build-wheel.sh [OUT_DIR]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
out=$(mkdir -p "${1:-$root/dist}" && cd "${1:-$root/dist}" && pwd)

venv=$("$root/scripts/deps.sh" | tail -n 1)
fixtures=$("$root/scripts/fixtures.sh" "$venv" | tail -n 1)  # the demo program the wheel carries
torch=$(sed -n 's/^torch==//p' "$root/scripts/requirements.txt")
if ! grep -q "\"torch==$torch\"" "$here/wheel/pyproject.toml"; then
  echo "build-wheel: packaging/wheel/pyproject.toml does not depend on torch==$torch (scripts/requirements.txt)" >&2
  exit 1
fi

# The build tools, in a virtual environment of their own beside the project's.
tools=${TORCHIR_CACHE:-$HOME/.cache/torchir}/venv-wheelbuild
stamp="$tools/.requirements.sha"
want=$(sha256sum "$here/wheel/build-requirements.txt" | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  [ -x "$tools/bin/python" ] || python3 -m venv "$tools"
  "$tools/bin/pip" install -q -r "$here/wheel/build-requirements.txt"
  echo "$want" > "$stamp"
fi

raw=$(mktemp -d)
trap 'rm -rf "$raw"' EXIT
"$tools/bin/pip" wheel -q --no-build-isolation --no-deps -w "$raw" "$here/wheel" \
  -C build-dir="$root/build-wheel" \
  -C cmake.define.CMAKE_CXX_COMPILER="$(command -v c++)" \
  -C cmake.define.TORCHIR_PYTHON="$venv/bin/python" \
  -C cmake.define.TORCHIR_FIXTURES_DIR="$fixtures" >&2
rm -f "$out"/torchir_studio-*.whl
# libtorch is the environment's; X11's and GL's libraries are the system's (wheel/system-libraries.txt).
excludes=(--exclude libtorch_cpu.so --exclude libc10.so)
while read -r lib; do excludes+=(--exclude "$lib"); done < <(grep -v '^#' "$here/wheel/system-libraries.txt")
PATH="$tools/bin:$PATH" "$tools/bin/auditwheel" repair "${excludes[@]}" -w "$out" "$raw"/torchir_studio-*.whl >&2
ls "$out"/torchir_studio-*.whl
