#!/usr/bin/env bash
# The navigation-mesh bars of issue 40, measured with the independent judge
# (../shared/judge/compare_nav.py): each corpus map whose real NAV is of the same build is
# generated with `srcmap nav generate` and compared with the game's own mesh: walkable coverage
# (recall, precision, IoU on a 10-unit grid within step height), reachability agreement on 400
# random pairs, area and ladder counts; with props also prop-masked. Then the judge's own reader
# on our file (version, sub-version, unread bytes) and the generation time (wall clock and CPU). Then the analysis
# (`--analyze`): hiding spots, encounter paths, visible-area entries and approach areas against
# the game's file (as `srcmap nav info` counts them), and the time with analysis.
# Under each map: its ladders' ends against the game's (each game ladder paired with the
# nearest of ours, the farther end's distance; the bar is 16 units) and the BSP-size field,
# both read with the judge's own reader.
# Usage: SRCMAP_CORPUS=../shared/corpus scripts/nav_report.sh   (needs target/release/srcmap;
# ANALYZE=0 leaves out the analysis part, which takes minutes on mvm_kelly_rc1b)
set -euo pipefail
cd "$(dirname "$0")/.."
corpus="${SRCMAP_CORPUS:?set SRCMAP_CORPUS to the corpus folder}"
judge="${JUDGE:-$(cd "$corpus/.." && pwd)/judge}/compare_nav.py"
srcmap="${SRCMAP:-$(pwd)/target/release/srcmap}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# map (bsp/<repo>/<name>.bsp with nav/<repo>/<name>.nav), and whether it has solid props
pairs=(
  "lanofdoom+counterstrikesource-maps/aim_ag_texture_city no"
  "lanofdoom+counterstrikesource-maps/cs_crackhouse yes"
  "iassis+tf2-fastdl/mvm_kelly_rc1b yes"
)

# The judge's reader (compare_nav.py up to its command line) on the game's file and ours:
# the ladders' ends paired, and our file's BSP-size field against the BSP's size.
ends_and_size() {
  python3 - "$judge" "$@" <<'PY'
import math, os, struct, sys
judge, real, ours, bsp = sys.argv[1:]
src = open(judge).read()
exec(src[:src.index("if len(sys.argv) == 2:")])
ref, cand = read_nav(real), read_nav(ours)
def apart(a, b):
    return max(math.dist(a['top'], b['top']), math.dist(a['bottom'], b['bottom']))
worst = max((min((apart(r, c) for c in cand['ladders']), default=math.inf) for r in ref['ladders']), default=0.0)
head = open(ours, 'rb').read(16)
size = struct.unpack_from('<I', head, 12 if cand['version'] >= 10 else 8)[0]
verdict = 'ok' if worst <= 16 and size == os.path.getsize(bsp) else 'FAILS'
print(f"ladders {len(cand['ladders'])}/{len(ref['ladders'])}, ends within {worst:.1f} units; "
      f"bsp-size field {size}, BSP {os.path.getsize(bsp)} bytes: {verdict}")
PY
}

# Runs a command; prints its wall-clock and CPU seconds ("7.61/2.54"): on a shared machine the
# CPU seconds tell what two free cores would take.
timed() {
  python3 - "$@" <<'PY'
import resource, subprocess, sys, time
start = time.monotonic()
subprocess.run(sys.argv[1:], check=True)
used = resource.getrusage(resource.RUSAGE_CHILDREN)
print(f"{time.monotonic() - start:.2f}/{used.ru_utime + used.ru_stime:.2f}")
PY
}

# Issue 40's bars for one map from the judge's scores: without props IoU 0.80, recall 0.90,
# precision 0.85, reach 0.97, areas 0.67-1.5x; with props IoU 0.70, masked 0.80, reach 0.95,
# areas 0.5-2x; both: ladders equal in count. Prints "bars: ok" or the bars missed.
bars() {
  python3 - "$@" <<'PY'
import json, sys
score, masked, props = json.loads(sys.argv[1]), sys.argv[2], sys.argv[3] == "yes"
ratio = score["cand_regions"] / max(score["ref_regions"], 1)
need = [("iou", 0.70 if props else 0.80), ("reach_agree", 0.95 if props else 0.97)]
if not props:
    need += [("recall", 0.90), ("precision", 0.85)]
missed = [f"{k} {score[k]} < {v}" for k, v in need if score[k] < v]
if props and float(masked) < 0.80:
    missed.append(f"masked iou {masked} < 0.8")
lo, hi = (0.5, 2.0) if props else (0.67, 1.5)
if not lo <= ratio <= hi:
    missed.append(f"areas {ratio:.2f}x outside {lo}-{hi}")
if score["cand_ladders"] != score["ref_ladders"]:
    missed.append("ladder counts differ")
print("bars: " + ("; ".join(missed) if missed else "ok"))
PY
}

field() { python3 -c "import json,sys; d=json.loads(sys.argv[1]); print(d.get(sys.argv[2], '-'))" "$1" "$2"; }

printf '%-22s %6s %6s %6s %6s %7s %8s %8s %9s %6s %11s\n' map recall prec iou masked reach areas ref ladders ver wall/cpu
for pair in "${pairs[@]}"; do
  read -r rel props <<<"$pair"
  name=$(basename "$rel")
  bsp="$corpus/bsp/$rel.bsp" real="$corpus/nav/$rel.nav" ours="$work/$name.nav"
  secs=$(timed "$srcmap" nav generate -q "$bsp" -o "$ours")
  score=$(python3 "$judge" "$real" "$ours")
  masked=-
  if [ "$props" = yes ]; then
    masked=$(field "$(python3 "$judge" "$real" "$ours" "--mask-props=$bsp")" iou)
  fi
  own=$(python3 "$judge" "$ours")
  printf '%-22s %6s %6s %6s %6s %7s %8s %8s %4s/%-4s %6s %11s\n' "$name" \
    "$(field "$score" recall)" "$(field "$score" precision)" "$(field "$score" iou)" "$masked" \
    "$(field "$score" reach_agree)" "$(field "$score" cand_regions)" "$(field "$score" ref_regions)" \
    "$(field "$score" cand_ladders)" "$(field "$score" ref_ladders)" \
    "$(field "$own" version)/$(field "$own" sub)" "$secs"
  echo "  $(bars "$score" "$masked" "$props"); $(ends_and_size "$real" "$ours" "$bsp")"
  [ "$(field "$own" unread_bytes)" = 0 ] || echo "  $name: the judge's reader left $(field "$own" unread_bytes) bytes unread"
done

[ "${ANALYZE:-1}" = 0 ] && exit 0
info() { "$srcmap" nav info --json "$1"; }
echo
printf '%-22s %13s %15s %15s %11s %13s\n' map hiding encounters visible approaches wall/cpu
for pair in "${pairs[@]}"; do
  read -r rel _ <<<"$pair"
  name=$(basename "$rel")
  bsp="$corpus/bsp/$rel.bsp" real="$corpus/nav/$rel.nav" ours="$work/$name.analysed.nav"
  secs=$(timed "$srcmap" nav generate -q --analyze "$bsp" -o "$ours")
  a=$(info "$ours") b=$(info "$real")
  printf '%-22s %6s/%-6s %7s/%-7s %7s/%-7s %5s/%-5s %13s\n' "$name" \
    "$(field "$a" hiding_spots)" "$(field "$b" hiding_spots)" \
    "$(field "$a" encounter_paths)" "$(field "$b" encounter_paths)" \
    "$(field "$a" visible_area_entries)" "$(field "$b" visible_area_entries)" \
    "$(field "$a" approaches)" "$(field "$b" approaches)" "$secs"
done
