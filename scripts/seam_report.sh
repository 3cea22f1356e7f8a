#!/usr/bin/env bash
# Seams and blotches, as a player sees them (issue 35): every corpus pair compiled by srcmap
# (vbsp, vvis, vrad with the material table harvested from the corpus BSPs), then our BSP and
# Valve's drawn with lightmaps only from each spawn point of Valve's map, compared by SSIM
# (../shared/judge/compare_renders.py: 1.0 = the same picture; edge_ratio > 1 = edges Valve's lacks);
# the same compiled BSP is also judged per face (Pearson r and median brightness ratio over faces lit
# in both, as ../shared/judge/compare_rad.py, faces paired by place: scripts/seam_faces.py), the
# compile's warning about props without models beside it (all its output in OUTDIR/NAME.log).
# `bars:` says whether a row meets the issues' bars (issue 35: SSIM >= 0.9 per spawn point; issue 44: r >= 0.9 and median in 0.8-1.25 per map).
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
# The outputs are read whole before grep: `grep -q` leaving a pipe early made the writer's SIGPIPE
# the pipeline's status under pipefail, and the verdict change from run to run.
valve_lit() {
  local info note
  info=$("$bin" info "$1" 2>/dev/null); note=$(draw "$1" "${2:-info_player_start}" "$out/probe.png")
  ! grep -q 'lighting: LDR none; HDR none' <<<"$info" && ! grep -q 'lightmaps are black' <<<"$note"
}

# One "faces" row for our BSP ($1) against Valve's ($2): r and median ratio over faces paired by
# place (scripts/seam_faces.py: our vbsp may order faces unlike Valve's), and the judge's own
# figures (compare_rad.py, faces paired by index), which count only where `same` is 1.
judge_faces() {
  python3 "$root/scripts/seam_faces.py" "$1" "$2" | python3 -c '
import sys, json
j, judge = json.loads(sys.stdin.readline()), json.loads(sys.argv[2])
if "error" in j:
    print("\t".join([sys.argv[1], "faces", "-", "-", "-", "-", "not judged: " + j["error"]])); sys.exit()
r, m = j["r"], j["median_ratio"]
ok = r >= 0.9 and 0.8 <= m <= 1.25
verdict = "bars: " + ("ok" if ok else "FAIL") if j["matched"] >= 3 else "too few faces lit in both to judge"
view = "faces(%d/%d, same %s)" % (j["matched"], j["lit"], j["same"])
note = "; ".join(filter(None, ["judge by index: r %s median %s" % (judge["r"], judge["median_ratio"]), sys.argv[3]]))
print("\t".join([sys.argv[1], view, "-", "-", str(r), str(m), verdict, note]))' \
    "$3" "$(python3 "$judge/compare_rad.py" "$1" "$2" 2>/dev/null || echo '{"r": "failed", "median_ratio": "-"}')" "$4"
}

# One row per spawn point: SSIM and edge ratio of the two lightmap-only renders.
judge_render() {
  python3 "$judge/compare_renders.py" "$1" "$2" | python3 -c '
import sys, json
j = json.loads(sys.stdin.read())
if not j.get("windows"):
    print("\t".join(sys.argv[1:] + ["both pictures dark"])); sys.exit()
verdict = "bars: " + ("ok" if j["ssim"] >= 0.9 else "FAIL")
print("\t".join(sys.argv[1:] + [str(j["ssim"]), str(j["edge_ratio"]), "-", "-", verdict]))' "$3" "$4"
}

printf 'map\tview\tssim\tedge_ratio\tr\tmedian\tbars\tnote\n' > "$out/report.tsv"
corpus_pairs | while IFS=$'\t' read -r vmf valve; do
  case "$vmf" in *"$filter"*) ;; *) continue ;; esac
  name=$(basename "$(dirname "$valve")")_$(basename "$valve" .bsp)
  ours="$out/$name.bsp"
  if ! valve_lit "$corpus/$valve" "$(spawn_points "$corpus/$valve" | head -1)"; then
    printf '%s\t-\tValve'"'"'s BSP is not lit\n' "$name" >> "$out/report.tsv"; continue
  fi
  # Where the corpus holds the models of the map's repository, the compile reads them (static-prop
  # shadows), as Valve's tools read them from the game.
  models="$corpus/model/$(basename "$(dirname "$valve")")"; game=()
  [ -d "$models/models" ] && game=(--game "$models")
  if ! "$bin" compile "$corpus/$vmf" -o "$ours" --allowleak --both --materials "$out/materials.json" "${game[@]}" \
      > "$out/$name.log" 2>&1; then
    printf '%s\t-\tcompile failed\n' "$name" >> "$out/report.tsv"; continue
  fi
  judge_faces "$ours" "$corpus/$valve" "$name" "$(grep -m1 -o 'static props cast no shadow.*' "$out/$name.log")" \
    >> "$out/report.tsv"
  spawn_points "$corpus/$valve" | while read -r spawn; do
    tag=${spawn//#/_}
    if ! draw "$ours" "$spawn" "$out/$name.$tag.ours.png" >/dev/null ||
      ! draw "$corpus/$valve" "$spawn" "$out/$name.$tag.valve.png" >/dev/null; then
      printf '%s\t%s\trender failed\n' "$name" "$spawn" >> "$out/report.tsv"; continue
    fi
    judge_render "$out/$name.$tag.ours.png" "$out/$name.$tag.valve.png" "$name" "$spawn" >> "$out/report.tsv"
  done
  grep "^$name" "$out/report.tsv"
done
