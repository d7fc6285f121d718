#!/usr/bin/env bash
# Takes a screenshot of a waveform in GTKWave without a display.
#
#   sim-scripts/wave-shot.sh [-r FROM:TO] [-t SECONDS] VCD SAVEFILE OUT.png
#
# Opens VCD with the signals of SAVEFILE in GTKWave under Xvfb, zooms to fit
# (or to the window FROM:TO, times such as 1200ns or 3us, or bare numbers in
# the dump's time unit), writes the window to OUT.png and quits. GTKWave is
# killed after SECONDS (default 60): the script never hangs.
#
# Save files name signals by full hierarchical path and bit range, which
# differ between dumps of one design (Verilator adds a TOP scope, a
# co-simulation has another top, parameters change widths). So the save file
# is first adapted to the dump: the scope of the dump that holds most of its
# signals replaces the save file's prefix (its "[*] prefix" comment, else the
# signals' common scope), and bit ranges are taken from the dump.
set -euo pipefail

die() { echo "wave-shot: $*" >&2; exit 1; }
usage() { echo "usage: $0 [-r FROM:TO] [-t SECONDS] VCD SAVEFILE OUT.png" >&2; exit 2; }

range=""
secs=60
while getopts "r:t:" opt; do
  case $opt in
    r) range=$OPTARG ;;
    t) secs=$OPTARG ;;
    *) usage ;;
  esac
done
shift $((OPTIND - 1))
[ $# -eq 3 ] || usage
vcd=$1 save=$2 out=$3

for tool in gtkwave Xvfb timeout; do
  command -v "$tool" >/dev/null 2>&1 || die "$tool not found: run \`make deps\` to install GTKWave and Xvfb"
done
[ -r "$vcd" ] || die "cannot read dump $vcd"
[ -r "$save" ] || die "cannot read save file $save"
case $secs in ''|*[!0-9]*) die "-t wants whole seconds, not '$secs'" ;; esac
out=$(realpath -m "$out")
[ -d "$(dirname "$out")" ] || die "no directory for $out"
here=$(cd "$(dirname "$0")" && pwd)

tmp=$(mktemp -d "${TMPDIR:-/tmp}/wave-shot.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# The declarations of the dump: everything up to $enddefinitions.
sed '/\$enddefinitions/q' "$vcd" >"$tmp/header"
grep -q '\$enddefinitions' "$tmp/header" || die "$vcd: no \$enddefinitions: not a VCD file?"

# Adapt the save file to the dump (see the top of this file). Translate
# filters named under /vianic-gtkwave/ (the directory generated save files
# claim to live in) are taken from the save file's real directory.
savedir=$(cd "$(dirname "$save")" && pwd)
awk -v savedir="$savedir" '
function issig(l) { return l != "" && l !~ /^[\[@*#^-]/ }
function gtkwrange(r,   a) {
  # GTKWave writes a one-bit range [n:n] as [n]
  if (match(r, /^\[[0-9-]+:[0-9-]+\]$/)) {
    split(substr(r, 2, length(r) - 2), a, ":")
    if (a[1] == a[2]) return "[" a[1] "]"
  }
  return r
}
FNR == 1 { pass++ }
pass == 1 {
  if ($0 ~ /^\[\*\] prefix /) { declared = substr($0, 12); hasdecl = 1; next }
  if (issig($0)) { n++; name = $0; sub(/\[[^]]*\]$/, "", name); names[n] = name }
  if (issig($0) || $0 ~ /^-/) rows++
  next
}
pass == 2 && FNR == 1 {
  # the prefix the save file was written for
  if (hasdecl) prefix = declared
  else {
    prefix = names[1]; sub(/[^.]*$/, "", prefix)
    for (k = 2; k <= n; k++)
      while (prefix != "" && substr(names[k], 1, length(prefix)) != prefix) {
        prefix = substr(prefix, 1, length(prefix) - 1); sub(/[^.]*$/, "", prefix)
      }
  }
  for (k = 1; k <= n; k++) {
    leaf[k] = substr(names[k], 1, length(prefix)) == prefix ? substr(names[k], length(prefix) + 1) : names[k]
    last = leaf[k]; sub(/.*\./, "", last)
    byref[last] = byref[last] " " k
  }
}
pass == 2 {
  for (i = 1; i <= NF; i++) {
    t = $i
    if (cmd == "") { if (t ~ /^\$/) { cmd = t; na = 0 } ; continue }
    if (t != "$end") { a[++na] = t; continue }
    if (cmd == "$scope") { depth++; path[depth] = (depth > 1 ? path[depth - 1] "." : "") a[2] }
    else if (cmd == "$upscope") depth--
    else if (cmd == "$var" && na >= 4) {
      ref = a[4]; rng = (na >= 5 && a[na] ~ /^\[/) ? a[na] : ""
      full = (depth > 0 ? path[depth] "." : "") ref
      if (!(full in vrange)) vrange[full] = gtkwrange(rng)
      # every save-file signal this variable could be: count its scope
      m = split(byref[ref], ks, " ")
      for (j = 1; j <= m; j++) {
        k = ks[j]; l = leaf[k]
        if (full == l) s = ""
        else if (length(full) > length(l) && substr(full, length(full) - length(l)) == "." l) s = substr(full, 1, length(full) - length(l))
        else continue
        if (!((s, k) in seen)) { seen[s, k] = 1; count[s]++ }
      }
    }
    cmd = ""
  }
  next
}
pass == 3 && FNR == 1 {
  # Most signals wins; on a tie the prefix of the save file, else the deepest
  # scope (a testbench often has nets named like the ports of its DUT).
  best = ""; bestn = 0
  for (s in count)
    if (count[s] > bestn || (count[s] == bestn && best != prefix && (s == prefix || length(s) > length(best)))) { best = s; bestn = count[s] }
  printf "wave-shot: %d of %d signals of the save file found under \"%s\" (save file prefix \"%s\")\n", bestn, n, best, prefix > "/dev/stderr"
  if (bestn == 0) { bad = 1; exit 1 }
  k = 0
  # a window tall enough for every row (about 20 pixels each), within the screen
  h = 200 + 20 * rows; if (h > 2000) h = 2000; if (h < 600) h = 600
  print "[size] 1600 " h
}
pass == 3 {
  if ($0 ~ /^\[(dumpfile|dumpfile_mtime|dumpfile_size|savefile|treeopen|size)\]/) next
  if ($0 ~ /^\[\*\] prefix /) { print "[*] prefix " best; next }
  if ($0 ~ /^\^[0-9]+ \/vianic-gtkwave\//) { sub(/ \/vianic-gtkwave\//, " " savedir "/"); print; next }
  if (issig($0)) {
    k++; f = best leaf[k]
    if (f in vrange) print f vrange[f]
    else print
    next
  }
  print
}
' "$save" "$tmp/header" "$save" >"$tmp/save.gtkw" || die "none of the signals of $save is in $vcd"

# Time window: convert FROM:TO to the dump's unit.
if [ -n "$range" ]; then
  ts=$(tr '\n' ' ' <"$tmp/header" | sed -n 's/.*\$timescale[[:space:]]*\([0-9]*\)[[:space:]]*\([munpf]\{0,1\}s\)[[:space:]]*\$end.*/\1 \2/p')
  [ -n "$ts" ] || die "$vcd: cannot read its \$timescale"
  conv=$(awk -v r="$range" -v ts="$ts" '
    function fs(u) { return u == "s" ? 1e15 : u == "ms" ? 1e12 : u == "us" ? 1e9 : u == "ns" ? 1e6 : u == "ps" ? 1e3 : u == "fs" ? 1 : -1 }
    function conv(x,   num, unit) {
      if (!match(x, /^[0-9.]+/)) { bad = 1; return 0 }
      num = substr(x, 1, RLENGTH); unit = substr(x, RLENGTH + 1)
      if (unit == "") return num + 0
      if (fs(unit) < 0) { bad = 1; return 0 }
      return num * fs(unit) / unitfs
    }
    BEGIN {
      split(ts, t, " "); unitfs = (t[1] == "" ? 1 : t[1]) * fs(t[2])
      if (split(r, p, ":") != 2) exit 1
      a = conv(p[1]); b = conv(p[2])
      if (bad || b <= a) exit 1
      printf "%.0f %.0f\n", a, b
    }') || die "bad time window '$range': want FROM:TO, such as 0:2us or 1500ns:3us"
  export WAVE_SHOT_FROM=${conv% *} WAVE_SHOT_TO=${conv#* }
fi

rm -f "$out"
export WAVE_SHOT_OUT=$out

# A private X server on a display it picks itself (-displayfd), so that
# several screenshots can run at once.
Xvfb -displayfd 3 -screen 0 1700x2100x24 -nolisten tcp 3>"$tmp/display" 2>"$tmp/xvfb.log" &
xvfb=$!
trap 'kill $xvfb 2>/dev/null; wait $xvfb 2>/dev/null; rm -rf "$tmp"' EXIT
for _ in $(seq 100); do
  [ -s "$tmp/display" ] && break
  kill -0 $xvfb 2>/dev/null || { cat "$tmp/xvfb.log" >&2; die "Xvfb did not start"; }
  sleep 0.1
done
[ -s "$tmp/display" ] || die "Xvfb did not start within 10 s"

set +e
DISPLAY=:$(head -n 1 "$tmp/display") timeout -k 5 "$secs" \
  gtkwave --rcvar 'splash_disable on' --rcvar 'hide_sst on' \
  -S "$here/gtkwave/shot.tcl" -a "$tmp/save.gtkw" "$vcd" >"$tmp/log" 2>&1
rc=$?
set -e
if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
  tail -n 20 "$tmp/log" >&2
  die "GTKWave did not finish within $secs s (killed); try a larger -t or a smaller dump"
fi
if [ ! -s "$out" ]; then
  tail -n 20 "$tmp/log" >&2
  die "GTKWave exited with status $rc and wrote no $out"
fi
grep '^shot.tcl:' "$tmp/log" | sed 's/^shot.tcl/wave-shot/' >&2 || true
echo "wave-shot: $out"
