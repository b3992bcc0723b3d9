#!/usr/bin/env bash
# Installs what the build and the tests need: Debian packages and the pinned Python environment.
# Idempotent and quick when everything is already there.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

APT_PACKAGES=(g++ cmake ninja-build ccache pkg-config qt6-base-dev qt6-base-dev-tools libqt6svg6-dev
  libgl-dev libgraphviz-dev graphviz nlohmann-json3-dev libcli11-dev libsimdjson-dev libminizip-dev libdeflate-dev libxxhash-dev libflatbuffers-dev flatbuffers-compiler xvfb xauth librsvg2-bin python3-venv
  clang libclang-rt-14-dev
  fonts-dejavu-core)

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "deps: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The Python environment lives outside the clone so every clone and CI run reuses it.
VENV=${TORCHIR_VENV:-$HOME/.cache/torchir/venv}
stamp="$VENV/.requirements.sha"
want=$(sha256sum "$here/requirements.txt" | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  echo "deps: preparing Python environment in $VENV"
  PY=${PYTHON:-python3}
  [ -x "$VENV/bin/python" ] || "$PY" -m venv "$VENV"
  "$VENV/bin/pip" install -q --upgrade pip
  "$VENV/bin/pip" install -q -r "$here/requirements.txt"
  echo "$want" > "$stamp"
fi
# ExecuTorch, for writing .pte, ETRecord and ETDump fixtures with its own runtime. Its requirements
# pull in backends the project does not use (coremltools, scikit-learn), so it is installed without
# them, beside what its export, lowering, runtime and Inspector do need.
et_stamp="$VENV/.requirements-executorch.sha"
et_want=$(sha256sum "$here/requirements-executorch.txt" | cut -d' ' -f1)
if [ ! -f "$et_stamp" ] || [ "$(cat "$et_stamp")" != "$et_want" ]; then
  echo "deps: adding ExecuTorch to $VENV"
  "$VENV/bin/pip" install -q --no-deps $(grep -E '^executorch' "$here/requirements-executorch.txt")
  "$VENV/bin/pip" install -q $(grep -vE '^(#|executorch|$)' "$here/requirements-executorch.txt")
  echo "$et_want" > "$et_stamp"
fi
echo "$VENV"
