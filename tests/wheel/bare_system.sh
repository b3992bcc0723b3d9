#!/usr/bin/env bash
# The wheel on a system with nothing of ours: a clean Debian 12 root (debootstrap minbase, the one
# packaging/test-install.sh makes) given only Python and the libraries a manylinux_2_35 wheel may
# expect of the base system (X11, GL, glib, expat, zlib; wheel/system-libraries.txt's X11 and GL
# libraries) and fonts. No Qt, no Graphviz. There: pip installs the wheel and the pinned torch
# from WHEELHOUSE without an index; `torchir --version`, `torchir run` of the demo program, and
# torchir-studio on the demo under the X server DISPLAY names (its socket is lent to the root),
# saving OUT/bare_studio.png. Needs root. Exit 77 where the root tarball is not there.
# Usage: bare_system.sh WHEEL WHEELHOUSE OUT
set -euo pipefail
wheel=$1 wheelhouse=$2 out=$3
base=${TORCHIR_CACHE:-$HOME/.cache/torchir}/debian12-minbase.tar
[ "$(id -u)" -eq 0 ] || { echo "bare system: not checked: needs root (chroot)"; exit 77; }
[ -f "$base" ] || { echo "bare system: not checked: no $base (packaging/test-install.sh makes it)"; exit 77; }
# The root, with torch and its CUDA libraries installed, takes up to 6.2 GiB in /tmp at its peak.
free_gib=$(( $(df --output=avail -k /tmp | tail -n 1) / 1048576 ))
[ "$free_gib" -ge 7 ] || { echo "bare system: not checked: $free_gib GiB free in /tmp, the root needs 7"; exit 77; }

. "$(dirname "$0")/../../packaging/debian-root.sh"
enter_debian_root "bare system" "$base" "$wheelhouse:/wheelhouse" /tmp/.X11-unix:/tmp/.X11-unix
cp "$wheel" "$jail/check/"

chroot "$jail" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 DISPLAY="$DISPLAY" \
  /bin/bash -euo pipefail -c '
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends python3-venv libx11-6 libxext6 libxrender1 libsm6 libice6 \
  libgl1 libglib2.0-0 libexpat1 zlib1g libx11-xcb1 libegl1 libopengl0 fonts-dejavu-core fontconfig-config >/dev/null
apt-get clean
if dpkg -l | grep -E "^ii +(libqt6|qt6-|libgvc|libcgraph|graphviz)"; then
  echo "bare system: the root has Qt or Graphviz" >&2; exit 1
fi
echo "bare system: $(dpkg -l | grep -c "^ii") Debian packages, none of Qt or Graphviz"
python3 -m venv /env
/env/bin/pip install -q --no-cache-dir --no-index --find-links /wheelhouse /check/*.whl
cd /tmp
/env/bin/torchir --version
demo=$(ls /env/lib/python3*/site-packages/torchir_studio/share/torchir-studio/demo/demo.pt2)
/env/bin/torchir run "$demo" | head -n 1
/env/bin/torchir-studio "$demo" --screenshot /tmp/bare_studio.png 2>/tmp/studio.log || { cat /tmp/studio.log >&2; exit 1; }
'
cp "$jail/tmp/bare_studio.png" "$out/bare_studio.png"
echo "bare system: torchir-studio showed the demo program ($out/bare_studio.png)"
