#!/usr/bin/env bash
# Builds the .deb, checks it with lintian, and installs it into a clean Debian 12 root (debootstrap,
# minbase: no Python, no build tools) where it runs what a user would: torchir --version, info, run
# (outputs equal to eager PyTorch's, bit for bit), and torchir-studio as its desktop entry starts
# it, under Xvfb, on the demo program. Then apt remove, and nothing of the package may be left.
# Needs root (chroot, mount) and Debian's archive. Usage: packaging/test-install.sh [OUT_DIR]
# OUT_DIR (default build/test-install) gets lintian.txt and studio.png, the window in the root.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
out=$(mkdir -p "${1:-$root/build/test-install}" && cd "${1:-$root/build/test-install}" && pwd)
cache=${TORCHIR_CACHE:-$HOME/.cache/torchir}
[ "$(id -u)" -eq 0 ] || { echo "test-install: needs root (debootstrap, chroot)" >&2; exit 77; }

need=()
for tool in debootstrap lintian desktop-file-validate appstreamcli; do
  command -v "$tool" >/dev/null || need+=("$tool")
done
need=("${need[@]/desktop-file-validate/desktop-file-utils}")
need=("${need[@]/appstreamcli/appstream}")
if [ ${#need[@]} -gt 0 ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

deb=$("$here/build-deb.sh" | tail -n 1)
fixtures=$("$root/scripts/configure.sh" | sed -n 2p)
echo "package: $(basename "$deb"), $(du -m "$deb" | cut -f1) MB, installed $(dpkg-deb -f "$deb" Installed-Size | awk '{printf "%d", $1 / 1024}') MB"
echo "depends: $(dpkg-deb -f "$deb" Depends)"

# lintian: no errors; the warnings left are explained in docs/packaging.md.
lintian --info "$deb" > "$out/lintian.txt" 2>&1 || true
grep -E '^[EW]: ' "$out/lintian.txt" | sed 's/^/lintian: /' || echo "lintian: nothing to say"
if grep -q '^E: ' "$out/lintian.txt"; then echo "test-install: lintian reports errors" >&2; exit 1; fi

# The desktop entry, AppStream metadata and man pages as installed: no errors.
unpacked=$(mktemp -d)
dpkg-deb -x "$deb" "$unpacked"
desktop-file-validate "$unpacked/usr/share/applications/torchir-studio.desktop"
appstreamcli validate --no-net "$unpacked/usr/share/metainfo/torchir-studio.metainfo.xml" > "$out/appstream.txt" 2>&1 || true
if grep -q '^E: ' "$out/appstream.txt"; then cat "$out/appstream.txt" >&2; exit 1; fi
for page in "$unpacked"/usr/share/man/man1/*.1.gz; do
  if LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null | grep .; then exit 1; fi
done
rm -rf "$unpacked"

# The clean root: made once by debootstrap (from the archive apt uses), kept as a tarball.
base=$cache/debian12-minbase.tar
if [ ! -f "$base" ]; then
  made=$(mktemp -d)
  debootstrap --variant=minbase bookworm "$made" >/dev/null
  tar -C "$made" -cf "$base.tmp" . && mv "$base.tmp" "$base"
  rm -rf "$made"
fi
. "$here/debian-root.sh"
enter_debian_root test-install "$base"
cp "$deb" "$jail/check/torchir-studio.deb"
programs=(demo mlp cnn_bn attention residual)
for p in "${programs[@]}"; do
  cp "$fixtures/$p/$p.pt2" "$fixtures/$p/$p.outputs.safetensors" "$jail/check/"
done

chroot "$jail" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
  PROGRAMS="${programs[*]}" /bin/bash -euo pipefail -c '
cd /check
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends xvfb xauth >/dev/null
# The dependencies, as apt resolves them for the package; then the package alone goes, so that
# what it leaves behind can be told from what its dependencies brought.
apt-get install -y -qq --no-install-recommends ./torchir-studio.deb >/dev/null
dpkg -r torchir-studio >/dev/null
snapshot() {
  find / -xdev \( -path /proc -o -path /dev -o -path /check -o -path /tmp -o -path /root -o -path /var/log \
    -o -path /var/cache -o -path /var/lib/apt \) -prune -o -print | sort
}
snapshot > /check/before.txt

dpkg -i torchir-studio.deb >/dev/null
if command -v python3 || command -v python; then echo "test-install: the root has Python" >&2; exit 1; fi
torchir --version
torchir info demo.pt2 | head -n 3
for p in $PROGRAMS; do
  torchir run "$p.pt2" --threads 1 --expect "$p.outputs.safetensors"
done
# RUNPATHs: $ORIGIN-relative only, and every library found inside the package or the system.
for f in /usr/bin/torchir /usr/bin/torchir-studio /usr/lib/torchir-studio/*.so*; do
  rpath=$(readelf -d "$f" 2>/dev/null | sed -n "s/.*R\(UN\)\?PATH.*\[\(.*\)\]/\2/p") || true
  case "$rpath" in ""|\$ORIGIN*) ;; *) echo "test-install: $f has RUNPATH $rpath" >&2; exit 1 ;; esac
done
if ldd /usr/lib/torchir-studio/libtorchir_aten.so | grep "not found"; then exit 1; fi

# The desktop entry'"'"'s command line, without a file: the demo program.
command=$(sed -n "s/^Exec=//p" /usr/share/applications/torchir-studio.desktop | sed "s/ %[fFuU]//")
echo "desktop entry: $command"
xvfb-run -a -s "-screen 0 1600x1000x24" $command --screenshot /check/studio.png
test -s /check/studio.png

apt-get remove -y -qq torchir-studio >/dev/null
snapshot > /check/after.txt
if ! diff /check/before.txt /check/after.txt; then echo "test-install: apt remove left the above" >&2; exit 1; fi
echo "apt remove: nothing left behind ($(wc -l < /check/before.txt) paths as before)"
'
cp "$jail/check/studio.png" "$out/studio.png"
echo "test-install: passed; screenshot $out/studio.png, lintian $out/lintian.txt"
