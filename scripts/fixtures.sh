#!/usr/bin/env bash
# Writes the fixture zoo with the pinned torch and pytorch-ir, once per version of the script and
# the requirements; later runs reuse it. Prints the folder.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
venv=${1:?usage: fixtures.sh VENV}
key=$(cat "$here/../tests/fixtures/make_fixtures.py" "$here/../tests/fixtures/make_old_layouts.py" \
  "$here/requirements.txt" | sha256sum | cut -c1-16)
dir=${TORCHIR_CACHE:-$HOME/.cache/torchir}/fixtures/$key
if [ ! -f "$dir/manifest.json" ]; then
  echo "fixtures: writing the zoo to $dir" >&2
  tmp=$(mktemp -d "${dir%/*}/.tmp.XXXXXX" 2>/dev/null || { mkdir -p "${dir%/*}"; mktemp -d "${dir%/*}/.tmp.XXXXXX"; })
  # one thread: the fixtures' reference outputs then match a single-threaded run bit for bit
  OMP_NUM_THREADS=1 "$venv/bin/python" "$here/../tests/fixtures/make_fixtures.py" "$tmp" >&2
  # the older .pt2 layouts, repackaged from the zoo (the pinned torch no longer writes them)
  OMP_NUM_THREADS=1 "$venv/bin/python" "$here/../tests/fixtures/make_old_layouts.py" "$tmp" >&2
  rm -rf "$dir"
  mv "$tmp" "$dir"
fi
echo "$dir"
