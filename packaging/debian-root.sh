# Sourced by the scripts that try a package on a clean system (packaging/test-install.sh,
# tests/wheel/bare_system.sh): a throwaway Debian 12 root unpacked from the minbase tarball, with the
# host's /proc, /dev and /dev/pts, apt's sources and the resolver, deleted when the script exits.
#
#   enter_debian_root NAME TARBALL [HOST_DIR:ROOT_DIR ...]
#
# sets $jail to the root's folder; each HOST_DIR is bound at ROOT_DIR inside it (split at the
# last colon). NAME starts the messages. The root is deleted only once nothing is mounted in it:
# deleting through a bind of /dev would delete the host's devices.

enter_debian_root() {
  local tarball=$2 bind
  _debian_root_name=$1
  jail=$(mktemp -d "/tmp/torchir-${1// /-}.XXXXXX")
  _debian_root_mounts=("$jail/proc" "$jail/dev" "$jail/dev/pts")
  for bind in "${@:3}"; do _debian_root_mounts+=("$jail${bind##*:}"); done
  trap _leave_debian_root EXIT
  tar -C "$jail" -xf "$tarball"
  mount -t proc proc "$jail/proc"
  mount --bind /dev "$jail/dev"
  mount --bind /dev/pts "$jail/dev/pts"
  for bind in "${@:3}"; do
    mkdir -p "$jail${bind##*:}"
    mount --bind "${bind%:*}" "$jail${bind##*:}"
  done
  cp /etc/resolv.conf "$jail/etc/resolv.conf"
  cp /etc/apt/sources.list "$jail/etc/apt/sources.list" 2>/dev/null || true
  [ -d /etc/apt/sources.list.d ] && cp -r /etc/apt/sources.list.d/. "$jail/etc/apt/sources.list.d/"
  mkdir -p "$jail/check"
}

_leave_debian_root() {
  local i m
  for ((i = ${#_debian_root_mounts[@]} - 1; i >= 0; i--)); do umount "${_debian_root_mounts[i]}" 2>/dev/null || true; done
  for m in "${_debian_root_mounts[@]}"; do
    if mountpoint -q "$m"; then echo "$_debian_root_name: $m still mounted; $jail left in place" >&2; return; fi
  done
  rm -rf --one-file-system "$jail"
}
