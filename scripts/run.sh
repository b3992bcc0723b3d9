#!/usr/bin/env bash
# Builds torchir-studio and opens it on the bundled demo program (a small residual CNN exported
# by the pinned torch), or on the files given: scripts/run.sh [FILE] [--weights F] ...
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
{ read -r build; read -r fixtures; } < <("$root/scripts/configure.sh")
cmake --build "$build" --target torchir-studio torchir
mkdir -p "$build/demo"
cp -f "$fixtures/demo/demo.pt2" "$build/demo/demo.pt2"
if [ -z "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  echo "run: no display; starting under Xvfb" >&2
  exec xvfb-run -a "$build/app/torchir-studio" "$@"
fi
exec "$build/app/torchir-studio" "$@"
