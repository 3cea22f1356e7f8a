#!/usr/bin/env bash
# The navigation-mesh bars of issue 40, measured with the independent judge
# (../shared/judge/compare_nav.py): each corpus map whose real NAV is of the same build is
# generated with `srcmap nav generate` and compared with the game's own mesh: walkable coverage
# (recall, precision, IoU on a 10-unit grid within step height), reachability agreement on 400
# random pairs, area and ladder counts; with props also prop-masked. Then the judge's own reader
# on our file (version, sub-version, unread bytes) and the generation time. Then the analysis
# (`--analyze`): hiding spots, encounter paths, visible-area entries and approach areas against
# the game's file (as `srcmap nav info` counts them), and the time with analysis.
# Usage: SRCMAP_CORPUS=../shared/corpus scripts/nav_report.sh   (needs target/release/srcmap)
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

field() { python3 -c "import json,sys; d=json.loads(sys.argv[1]); print(d.get(sys.argv[2], '-'))" "$1" "$2"; }

printf '%-22s %6s %6s %6s %6s %7s %8s %8s %9s %6s %6s\n' map recall prec iou masked reach areas ref ladders ver secs
for pair in "${pairs[@]}"; do
  read -r rel props <<<"$pair"
  name=$(basename "$rel")
  bsp="$corpus/bsp/$rel.bsp" real="$corpus/nav/$rel.nav" ours="$work/$name.nav"
  start=$(date +%s.%N)
  "$srcmap" nav generate -q "$bsp" -o "$ours"
  secs=$(python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.2f}')" "$start" "$(date +%s.%N)")
  score=$(python3 "$judge" "$real" "$ours")
  masked=-
  if [ "$props" = yes ]; then
    masked=$(field "$(python3 "$judge" "$real" "$ours" "--mask-props=$bsp")" iou)
  fi
  own=$(python3 "$judge" "$ours")
  printf '%-22s %6s %6s %6s %6s %7s %8s %8s %4s/%-4s %6s %6s\n' "$name" \
    "$(field "$score" recall)" "$(field "$score" precision)" "$(field "$score" iou)" "$masked" \
    "$(field "$score" reach_agree)" "$(field "$score" cand_regions)" "$(field "$score" ref_regions)" \
    "$(field "$score" cand_ladders)" "$(field "$score" ref_ladders)" \
    "$(field "$own" version)/$(field "$own" sub)" "$secs"
  [ "$(field "$own" unread_bytes)" = 0 ] || echo "  $name: the judge's reader left $(field "$own" unread_bytes) bytes unread"
done

info() { "$srcmap" nav info --json "$1"; }
echo
printf '%-22s %13s %15s %15s %11s %6s\n' map hiding encounters visible approaches secs
for pair in "${pairs[@]}"; do
  read -r rel _ <<<"$pair"
  name=$(basename "$rel")
  bsp="$corpus/bsp/$rel.bsp" real="$corpus/nav/$rel.nav" ours="$work/$name.analysed.nav"
  start=$(date +%s.%N)
  "$srcmap" nav generate -q --analyze "$bsp" -o "$ours"
  secs=$(python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.2f}')" "$start" "$(date +%s.%N)")
  a=$(info "$ours") b=$(info "$real")
  printf '%-22s %6s/%-6s %7s/%-7s %7s/%-7s %5s/%-5s %6s\n' "$name" \
    "$(field "$a" hiding_spots)" "$(field "$b" hiding_spots)" \
    "$(field "$a" encounter_paths)" "$(field "$b" encounter_paths)" \
    "$(field "$a" visible_area_entries)" "$(field "$b" visible_area_entries)" \
    "$(field "$a" approaches)" "$(field "$b" approaches)" "$secs"
done
