#!/usr/bin/env bash
# Seams and blotches, as a player sees them (issue 35): every corpus pair compiled by srcmap
# (vbsp, vvis, vrad with the material table harvested from the corpus BSPs), then our BSP and
# Valve's drawn with lightmaps only from each spawn point of Valve's map, compared by SSIM
# (../shared/judge/compare_renders.py: 1.0 = the same picture; edge_ratio > 1 = edges Valve's lacks).
# Usage: scripts/seam_report.sh [SRCMAP_BIN] [OUTDIR] [MAP_FILTER]   → OUTDIR/report.tsv
# Env: SRCMAP_CORPUS, SRCMAP_JUDGE; SEAM_SIZE (picture width, default 320; height 3/4 of it).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$(realpath "${1:-$root/target/release/srcmap}"); out=${2:-/tmp/seam_report}; filter=${3:-}
width=${SEAM_SIZE:-320}; height=$((width * 3 / 4))
source "$root/scripts/corpus_pairs.sh"
spawn_classes='info_player_start|info_player_teamspawn|info_player_terrorist|info_player_counterterrorist|info_player_deathmatch|info_player_combine|info_player_rebel'

# "CLASS#N" for each spawn point of a BSP, in entity-lump order per class.
spawn_points() {
  python3 - "$1" "$judge" "$spawn_classes" <<'PY'
import sys, re
sys.path.insert(0, sys.argv[2])
from bsplumps import lump
text = lump(open(sys.argv[1], 'rb').read(), 0).decode('latin-1')
seen = {}
for cls in re.findall(r'"classname"\s+"([^"]*)"', text):
    if re.fullmatch(sys.argv[3], cls):
        seen[cls] = seen.get(cls, 0) + 1
        print('%s#%d' % (cls, seen[cls]))
PY
}

draw() { "$bin" render "$1" --shading lightmap --from "$2" --width "$width" --height "$height" -o "$3" 2>&1 >/dev/null; }

# Valve's BSP has light to compare with: a lighting lump, and not all black (the renderer's note).
valve_lit() {
  ! "$bin" info "$1" 2>/dev/null | grep -q 'lighting: LDR none; HDR none' &&
    ! draw "$1" "${2:-info_player_start}" "$out/probe.png" | grep -q 'lightmaps are black'
}

printf 'map\tspawn\tssim\tedge_ratio\n' > "$out/report.tsv"
corpus_pairs | while IFS=$'\t' read -r vmf valve; do
  case "$vmf" in *"$filter"*) ;; *) continue ;; esac
  name=$(basename "$(dirname "$valve")")_$(basename "$valve" .bsp)
  ours="$out/$name.bsp"
  if ! valve_lit "$corpus/$valve" "$(spawn_points "$corpus/$valve" | head -1)"; then
    printf '%s\t-\tValve'"'"'s BSP is not lit\n' "$name" >> "$out/report.tsv"; continue
  fi
  if ! "$bin" compile "$corpus/$vmf" -o "$ours" -q --allowleak --both --materials "$out/materials.json" \
      > "$out/$name.log" 2>&1; then
    printf '%s\t-\tcompile failed\n' "$name" >> "$out/report.tsv"; continue
  fi
  spawn_points "$corpus/$valve" | while read -r spawn; do
    tag=${spawn//#/_}
    if ! draw "$ours" "$spawn" "$out/$name.$tag.ours.png" >/dev/null ||
      ! draw "$corpus/$valve" "$spawn" "$out/$name.$tag.valve.png" >/dev/null; then
      printf '%s\t%s\trender failed\n' "$name" "$spawn" >> "$out/report.tsv"; continue
    fi
    python3 "$judge/compare_renders.py" "$out/$name.$tag.ours.png" "$out/$name.$tag.valve.png" |
      python3 -c 'import sys, json; j = json.loads(sys.stdin.read()); print("\t".join(sys.argv[1:] + ([str(j.get("ssim")), str(j.get("edge_ratio"))] if j.get("windows") else ["both pictures dark"])))' \
        "$name" "$spawn" >> "$out/report.tsv"
  done
  grep "^$name" "$out/report.tsv"
done
