#!/usr/bin/env bash
# Builds the Debian package from the project's build folder (set up as scripts/test.sh sets it up)
# and prints its path. Usage: packaging/build-deb.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
if ! command -v patchelf >/dev/null || ! command -v dpkg-shlibdeps >/dev/null; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends patchelf dpkg-dev >/dev/null
fi
build=$("$root/scripts/configure.sh" | sed -n 1p)
cmake --build "$build" >&2
rm -f "$build"/torchir-studio_*.deb
(cd "$build" && cpack -G DEB >&2)
ls "$build"/torchir-studio_*.deb
