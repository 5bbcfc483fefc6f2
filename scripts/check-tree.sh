#!/usr/bin/env bash
# Fails (exit 1) when a file tracked by git is an executable binary (it
# starts with an ELF, Mach-O or PE magic number) or is larger than 5 MB,
# naming each such file. Built binaries belong in bin/ (ignored), test
# inputs are text. Run from anywhere inside the repository; CI runs it
# before the tests (.ci/run).
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"

max_bytes=$((5 * 1024 * 1024))
bad=0
n=0

while IFS= read -r -d '' f; do
  # A tracked path deleted in the work tree, a symlink or a submodule has
  # no content of its own to check here.
  [ -f "$f" ] && [ ! -L "$f" ] || continue
  n=$((n + 1))
  size=$(wc -c < "$f")
  if [ "$size" -gt "$max_bytes" ]; then
    echo "check-tree: $f: $size bytes, larger than 5 MB; keep large files out of git" >&2
    bad=1
  fi
  magic=$(od -An -tx1 -N4 -- "$f" | tr -d ' \n')
  kind=
  case "$magic" in
    7f454c46) kind="an ELF executable" ;;
    feedface|feedfacf|cefaedfe|cffaedfe) kind="a Mach-O executable" ;;
    cafebabe) kind="a Mach-O universal binary (or Java class file)" ;;
    4d5a*) kind="a PE (Windows) executable" ;;
  esac
  if [ -n "$kind" ]; then
    echo "check-tree: $f: $kind (magic $magic); build outputs must not be committed" >&2
    bad=1
  fi
done < <(git ls-files -z)

if [ "$bad" -ne 0 ]; then
  exit 1
fi
echo "check-tree: $n tracked files, no executable binary, none over 5 MB"
