#!/usr/bin/env bash
# Luxel-level lighting judge over every corpus BSP Valve lit (issue 35's setup): a copy of Valve's BSP with its
# LDR lighting lump blanked is relit by `srcmap vrad -ldr`, then compared with Valve's luxel by luxel
# (judge/compare_luxels.py) and per face (judge/compare_rad.py).
# usage: scripts/luxel_report.sh [SRCMAP_BIN] [OUT_DIR] [MAP_FILTER]   → OUT_DIR/report.tsv
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$(realpath "${1:-$root/target/release/srcmap}")
out=${2:-/tmp/luxel_report}
filter=${3:-}
corpus=$(realpath "${SRCMAP_CORPUS:-$root/../shared/corpus}")
judge=${SRCMAP_JUDGE:-$(realpath "$corpus/../judge")}
mkdir -p "$out"
printf 'map\tluxel_r\trough_ratio\tp90_err\tr\tmedian_ratio\tvrad_s\n' > "$out/report.tsv"
for valve in "$corpus"/bsp/*/*.bsp; do
  case "$valve" in *"$filter"*) ;; *) continue ;; esac
  name=$(basename "$(dirname "$valve")")_$(basename "$valve" .bsp)
  python3 - "$valve" "$out/$name.blank.bsp" "$judge" <<'PY' || continue
import sys
sys.path.insert(0, sys.argv[3])
from bsplumps import blank, lump
d = open(sys.argv[1], 'rb').read()
try:
    if not d.startswith(b'VBSP') or not lump(d, 8):
        sys.exit(1)
except Exception:
    sys.exit(1)
open(sys.argv[2], 'wb').write(blank(d, 8))
PY
  cp "$out/$name.blank.bsp" "$out/$name.bsp"
  # Where the corpus holds the models of the map's repository, vrad reads them (static-prop
  # shadows), as Valve's VRAD read them from the game when it lit the map.
  game=()
  models="$corpus/model/$(basename "$(dirname "$valve")")"
  [ -d "$models/models" ] && game=(--game "$models")
  start=$(date +%s.%N)
  if ! "$bin" vrad "$out/$name.bsp" -ldr "${game[@]}" > "$out/$name.log" 2>&1; then
    printf '%s\tvrad failed\n' "$name" >> "$out/report.tsv"; continue
  fi
  secs=$(echo "$(date +%s.%N) - $start" | bc)
  lux=$(python3 "$judge/compare_luxels.py" "$out/$name.bsp" "$valve")
  rad=$(python3 "$judge/compare_rad.py" "$out/$name.bsp" "$valve")
  python3 - "$name" "$lux" "$rad" "$secs" >> "$out/report.tsv" <<'PY'
import sys, json
l, r = json.loads(sys.argv[2]), json.loads(sys.argv[3])
print('\t'.join(str(x) for x in (sys.argv[1], l.get('luxel_r'), l.get('rough_ratio'), l.get('p90_err'),
                                  r.get('r'), r.get('median_ratio'), round(float(sys.argv[4]), 2))))
PY
  tail -1 "$out/report.tsv"
done
