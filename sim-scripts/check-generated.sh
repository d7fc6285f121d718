#!/usr/bin/env bash
# The one check of everything generated: runs `make generate` (layout views,
# protocol constants, GTKWave files, firmware images, test-program images)
# and fails, naming the files, if that changed the tree. It compares file
# contents before and after, so it works on a clean clone and on a working
# tree with uncommitted edits, as long as they are consistent (generated
# files regenerated). On failure the tree holds the regenerated files: look
# at them (git diff), then commit them.
#
#   sim-scripts/check-generated.sh        (make check-generated; make test)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/check-generated.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# snapshot FILE: "sha256  path" of every file of the tree (tracked or not,
# ignored ones excepted: build outputs), sorted.
snapshot() {
  if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git ls-files -z --cached --others --exclude-standard
  else
    find . \( -path ./.git -o -path ./build -o -path ./obj_dir \) -prune -o -type f -print0 | sed -z 's|^\./||'
  fi | sort -zu | while IFS= read -r -d '' f; do
    [ -f "$f" ] && printf '%s\0' "$f"
  done | xargs -0 -r sha256sum | sort -k2 >"$1"
}

snapshot "$tmp/before"
if ! make --no-print-directory generate >"$tmp/log" 2>&1; then
  cat "$tmp/log" >&2
  echo "check-generated: make generate failed" >&2
  exit 1
fi
snapshot "$tmp/after"

# changed, new and removed files
join -j 2 -a 1 -a 2 -e MISSING -o 0,1.1,2.1 "$tmp/before" "$tmp/after" |
  awk '$2 != $3 { how = ($2 == "MISSING") ? "new" : ($3 == "MISSING") ? "removed" : "changed"; print how, $1 }' >"$tmp/stale"
if [ -s "$tmp/stale" ]; then
  while read -r how f; do
    echo "check-generated: $f: $how by make generate (stale generated file, or a source edited without regenerating)" >&2
  done <"$tmp/stale"
  echo "check-generated: FAILED: $(wc -l <"$tmp/stale") file(s) were out of date; the tree now holds the regenerated versions: review (git diff) and commit them" >&2
  exit 1
fi
echo "check-generated: everything generated is up to date ($(wc -l <"$tmp/after") files compared)"
