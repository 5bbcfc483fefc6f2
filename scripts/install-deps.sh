#!/usr/bin/env bash
# Installs what autotune needs and is missing, from Debian's packages:
# mariadb-server (the server run as a sandbox; the system service is never
# used), sysbench, and chromium (headless, for the report rendering test);
# then go-tpc (--workload tpcc), pinned, with `go install` into Go's bin
# directory ($GOBIN, else $(go env GOPATH)/bin), where autotune finds it.
# Go (>= 1.26, with gcc for cgo) must already be present.
set -euo pipefail

need=()
if ! command -v mariadbd >/dev/null 2>&1 && [ ! -x /usr/sbin/mariadbd ] \
   && ! command -v mysqld >/dev/null 2>&1 && [ ! -x /usr/sbin/mysqld ]; then
  need+=(mariadb-server)
fi
command -v sysbench >/dev/null 2>&1 || need+=(sysbench)
command -v gcc >/dev/null 2>&1 || need+=(gcc)
# The fault-injection tests build a small loop-mounted ext4 disk.
command -v mkfs.ext4 >/dev/null 2>&1 || need+=(e2fsprogs)
command -v fallocate >/dev/null 2>&1 || need+=(util-linux)
# Headless Chromium renders `autotune report` pages in the tests.
if ! command -v chromium >/dev/null 2>&1 && ! command -v chromium-browser >/dev/null 2>&1; then
  need+=(chromium)
fi
# Optional: what the runtime-environment knobs use (allocator via LD_PRELOAD,
# NUMA policy). Without them those knobs are reported unsupported.
ldconfig -p 2>/dev/null | grep -q libtcmalloc_minimal.so.4 || need+=(libtcmalloc-minimal4)
ldconfig -p 2>/dev/null | grep -q libjemalloc.so.2 || need+=(libjemalloc2)
command -v numactl >/dev/null 2>&1 || need+=(numactl)

if [ ${#need[@]} -gt 0 ]; then
  echo "installing: ${need[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  # The package may try to start the system service; autotune never uses it.
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi

if ! command -v go >/dev/null 2>&1; then
  if [ -x /usr/local/go/bin/go ]; then
    echo "Go is at /usr/local/go/bin: add it to PATH" >&2
  else
    echo "Go >= 1.26 is needed: https://go.dev/dl/" >&2
  fi
  exit 1
fi

# TPC-C driver (runner/tpcc): go-tpc at the version autotune is tested
# with (runner/tpcc.ProgramVersion). Installed again when the one found is
# another version.
GOTPC_VERSION=v1.0.12
gobin="$(go env GOBIN)"
[ -n "$gobin" ] || gobin="$(go env GOPATH | cut -d: -f1)/bin"
gotpc="$(command -v go-tpc || true)"
[ -n "$gotpc" ] || gotpc="$gobin/go-tpc"
if ! go version -m "$gotpc" 2>/dev/null | grep -Eq "^[[:space:]]+mod[[:space:]]+github.com/pingcap/go-tpc[[:space:]]+$GOTPC_VERSION([[:space:]]|$)"; then
  echo "installing: go-tpc $GOTPC_VERSION into $gobin"
  GOBIN="$gobin" go install "github.com/pingcap/go-tpc/cmd/go-tpc@$GOTPC_VERSION"
fi
