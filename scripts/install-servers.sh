#!/usr/bin/env bash
# Builds and caches the root file systems of the servers autotune tests
# beside the host's MariaDB 10.11, from Debian's own packages, without
# touching the host's packages:
#
#   mariadb-11.8   Debian 13 (trixie): mariadb-server-core, mariadb-client-core
#   mysql-9.7      Debian unstable (sid): mysql-server-core, mysql-client-core
#
# Each is a directory CACHE/NAME (CACHE: $AUTOTUNE_SERVER_CACHE, default
# /var/cache/autotune/servers) that `autotune --mysqld CACHE/NAME` runs
# (docs/servers.md). A root file system is built into NAME.build and
# renamed when complete, so an interrupted run leaves nothing half-built
# under NAME; a complete one is kept (idempotent). CACHE/NAME/autotune-packages
# records the package versions installed.
#
# Usage: install-servers.sh [NAME...]   (default: every server above)
#        install-servers.sh --path NAME (prints the directory, builds nothing)
# Needs root (mmdebstrap --mode=root) and Debian's package registry.
set -euo pipefail

cache="${AUTOTUNE_SERVER_CACHE:-/var/cache/autotune/servers}"
mirror="${AUTOTUNE_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
# The allocators go into every root: the allocator knob preloads the
# library of the root the server runs from.
extra="libjemalloc2,libtcmalloc-minimal4"

spec() { # NAME -> "SUITE PACKAGES VERSION-PREFIX BINARY"
  case "$1" in
    mariadb-11.8) echo "trixie mariadb-server-core,mariadb-client-core 1:11.8. mariadbd" ;;
    mysql-9.7) echo "sid mysql-server-core,mysql-client-core 9.7. mysqld" ;;
    *) return 1 ;;
  esac
}
all=(mariadb-11.8 mysql-9.7)

if [ "${1:-}" = "--path" ]; then
  spec "${2:-}" >/dev/null || { echo "install-servers.sh: unknown server '${2:-}' (want one of: ${all[*]})" >&2; exit 2; }
  echo "$cache/$2"
  exit 0
fi

names=("$@")
[ ${#names[@]} -gt 0 ] || names=("${all[@]}")
for n in "${names[@]}"; do
  spec "$n" >/dev/null || { echo "install-servers.sh: unknown server '$n' (want one of: ${all[*]})" >&2; exit 2; }
done

if [ "$(id -u)" -ne 0 ]; then
  echo "install-servers.sh: building root file systems needs root (mmdebstrap --mode=root); run it with sudo" >&2
  exit 1
fi
if ! command -v mmdebstrap >/dev/null 2>&1; then
  echo "installing: mmdebstrap"
  env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mmdebstrap >/dev/null
fi
mkdir -p "$cache"

# fixup ROOT: what an essential-variant root lacks that the servers' tools
# need: /etc/hosts (mariadb-install-db resolves the host name and
# localhost, and gives up without them).
fixup() {
  if [ ! -s "$1/etc/hosts" ]; then
    if [ -s /etc/hosts ]; then cp /etc/hosts "$1/etc/hosts"; else printf '127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n' >"$1/etc/hosts"; fi
    grep -q localhost "$1/etc/hosts" || printf '127.0.0.1\tlocalhost\n' >>"$1/etc/hosts"
  fi
}

for n in "${names[@]}"; do
  read -r suite pkgs want bin <<<"$(spec "$n")"
  root="$cache/$n"
  if [ -f "$root/autotune-packages" ] && [ -x "$root/usr/sbin/$bin" ]; then
    fixup "$root"
    echo "$n: $(grep -E '^(mariadb|mysql)-server-core' "$root/autotune-packages" | tr '\t' ' ') (cached in $root)"
    continue
  fi
  build="$cache/$n.build"
  rm -rf "$build" "$build.log"
  echo "$n: installing $pkgs from Debian $suite into $root"
  # The unstable suite's Release file on some mirrors is past its
  # Valid-Until date; the packages themselves are still signed.
  if ! mmdebstrap --variant=essential --mode=root \
      --aptopt='Acquire::Check-Valid-Until "false"' \
      --include="$pkgs,$extra" "$suite" "$build" "$mirror" >"$build.log" 2>&1; then
    echo "$n: mmdebstrap failed (full log: $build.log); its errors:" >&2
    grep -E '^(E:|W:)|Unable to locate|has no installation candidate|Could not resolve|Failed to fetch|Temporary failure' "$build.log" | head -20 >&2 || tail -20 "$build.log" >&2
    if grep -qE 'Unable to locate package|has no installation candidate' "$build.log"; then
      echo "$n: Debian $suite no longer has one of $pkgs: look up its successor (https://packages.debian.org/$suite/) and update scripts/install-servers.sh" >&2
    elif grep -qE 'Could not resolve|Failed to fetch|Temporary failure|Connection' "$build.log"; then
      echo "$n: the package registry $mirror could not be reached" >&2
    fi
    rm -rf "$build"
    exit 1
  fi
  dpkg-query --admindir="$build/var/lib/dpkg" -W -f='${Package}\t${Version}\n' >"$build/autotune-packages"
  got="$(awk -F'\t' '$1 ~ /^(mariadb|mysql)-server-core$/ {print $2}' "$build/autotune-packages")"
  case "$got" in
    "$want"*) ;;
    *)
      echo "$n: Debian $suite now has server version '$got', not $want*: update scripts/install-servers.sh (and the tests' expectations) for the new version" >&2
      rm -rf "$build"
      exit 1 ;;
  esac
  [ -x "$build/usr/sbin/$bin" ] || { echo "$n: $build/usr/sbin/$bin is missing after the install" >&2; rm -rf "$build"; exit 1; }
  fixup "$build"
  rm -f "$build.log"
  rm -rf "$root"
  mv "$build" "$root"
  echo "$n: $(grep -E '^(mariadb|mysql)-server-core' "$root/autotune-packages" | tr '\t' ' ') installed in $root ($(du -sh "$root" | cut -f1))"
done
