#!/usr/bin/env bash
# Writes the fixture zoo with the pinned torch and pytorch-ir, once per version of the script and
# the requirements; later runs reuse it. Then the programs written by older torch versions, each
# from a Python environment of its own (outside the clone, made once). Prints the folder.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
venv=${1:?usage: fixtures.sh VENV}
cache=${TORCHIR_CACHE:-$HOME/.cache/torchir}
key=$(cat "$here/../tests/fixtures/make_fixtures.py" "$here/../tests/fixtures/make_old_layouts.py" \
  "$here/requirements.txt" | sha256sum | cut -c1-16)
dir=$cache/fixtures/$key
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

# A Python environment with torch VERSION alone, for writing programs as that version did.
old_torch_venv() {
  local version=$1 env=$cache/venv-torch${1%.*}
  if [ ! -f "$env/.torch-$version" ]; then
    echo "fixtures: preparing torch $version in $env" >&2
    [ -x "$env/bin/python" ] || "${PYTHON:-python3}" -m venv "$env"
    "$env/bin/pip" install -q "torch==$version" numpy >&2
    touch "$env/.torch-$version"
  fi
  echo "$env"
}

script=$here/../tests/fixtures/make_old_torch.py
old_key=$(cat "$script" "$here/requirements.txt" | sha256sum | cut -c1-16)
if [ "$(cat "$dir/old_torch/.key" 2>/dev/null)" != "$old_key" ]; then
  echo "fixtures: writing programs of older torch versions to $dir/old_torch" >&2
  tmp=$(mktemp -d "$dir/.old_torch.XXXXXX")
  for version in 2.7.1 2.8.0; do
    OMP_NUM_THREADS=1 "$(old_torch_venv "$version")/bin/python" "$script" write "$tmp" >&2
  done
  OMP_NUM_THREADS=1 "$venv/bin/python" "$script" reference "$tmp" 2>&1 | grep -v "legacy format" >&2
  echo "$old_key" > "$tmp/.key"
  rm -rf "$dir/old_torch"
  mv "$tmp" "$dir/old_torch"
fi
# A family of programs in $dir/NAME written by one script with the pinned torch, keyed by that
# script and the files it reads: family NAME SCRIPT WHAT [FILE...] (WHAT for the log line; FILEs
# relative to tests/fixtures).
family() {
  local name=$1 script=$here/../tests/fixtures/$2 what=$3 key tmp
  shift 3
  key=$(cat "$script" "$here/requirements.txt" "${@/#/$here/../tests/fixtures/}" | sha256sum | cut -c1-16)
  [ "$(cat "$dir/$name/.key" 2>/dev/null)" = "$key" ] && return
  echo "fixtures: writing $what to $dir/$name" >&2
  tmp=$(mktemp -d "$dir/.$name.XXXXXX")
  # torch's warnings filtered from the log; the script's own failure still fails this
  { OMP_NUM_THREADS=1 "$venv/bin/python" "$script" "$tmp" 2>&1 || touch "$tmp/.failed"; } |
    { grep -v "Warning\|warnings.warn\|register_constant" >&2 || true; }
  [ ! -e "$tmp/.failed" ] || { echo "fixtures: ${script##*/} failed" >&2; exit 1; }
  echo "$key" > "$tmp/.key"
  rm -rf "${dir:?}/$name"
  mv "$tmp" "$dir/$name"
}
# The quantized family (torchao's pt2e flow and quantize_ configs).
family quant make_quant_fixtures.py "quantized programs"
# Quantized programs beside their float exports, with torchao's own numbers for the pair.
family quantpairs make_quant_pairs.py "quantized programs and their float twins"
# The studio's own test programs (a run as long as its inputs say).
family studio make_studio_fixtures.py "the studio's test programs"
# torch's own catalogue of export features (ExportDB), as the pinned torch exports it.
family exportdb make_exportdb.py "torch's ExportDB examples" fixture_io.py
# Programs beyond it: sizes known only at run time, scan, map, autocast, out_dtype, other sizes.
family reach make_reach.py "programs of data-dependent sizes and higher-order ops" fixture_io.py
# Programs shipped with ExecuTorch: .pte, ETRecord, ETDump written by its own export and runtime.
family executorch make_executorch.py "programs shipped with ExecuTorch" fixture_io.py \
  ../../scripts/requirements-executorch.txt
# Programs calling ops defined in Python, with the modules that define them.
family pyops make_python_ops.py "programs with ops defined in Python" pyops/torchir_pyops.py \
  pyops/torchir_pyops_executors.py
# Programs whose ops defined in Python their own modules define (transformers MoE), and a crafted one.
family moe make_moe.py "programs pointing to the modules that define their Python ops" moe/torchir_crafted_probe.py
echo "$dir"
