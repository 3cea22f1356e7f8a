#!/usr/bin/env bash
# Luxel-level lighting judge over every corpus BSP Valve lit (issue 35's setup): a copy of Valve's BSP with its
# LDR lighting lump blanked is relit by `srcmap vrad -ldr`, then compared with Valve's luxel by luxel
# (judge/compare_luxels.py) and per face (judge/compare_rad.py).
# usage: scripts/luxel_report.sh [SRCMAP_BIN] [OUT_DIR] [MAP_FILTER]   → OUT_DIR/report.tsv
#
# With VALVE_BIN (Valve's vrad.exe and its DLLs; Wine, ../shared/notes/valve-tools.md) the same blanked BSP is
# also relit by Valve's own vrad -ldr, given the same game folder (the corpus's models, where it has them), and
# three more columns pairs are judged: valve_* (Valve's relight against Valve's original: what Valve's own tool
# reaches from the corpus's inputs) and vs_valve_* (ours against Valve's relight: both tools on one input).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$(realpath "${1:-$root/target/release/srcmap}")
out=${2:-/tmp/luxel_report}
filter=${3:-}
corpus=$(realpath "${SRCMAP_CORPUS:-$root/../shared/corpus}")
judge=${SRCMAP_JUDGE:-$(realpath "$corpus/../judge")}
mkdir -p "$out"
header='map\tluxel_r\trough_ratio\tp90_err\tr\tmedian_ratio\tvrad_s'
[ -n "${VALVE_BIN:-}" ] && header+='\tvalve_luxel_r\tvalve_rough\tvalve_p90\tvs_valve_luxel_r\tvs_valve_rough\tvs_valve_p90'
printf "$header\\n" > "$out/report.tsv"

# Valve's vrad -ldr on an uncompressed copy of BLANK (its static props rewritten to v6, the one version Mapbase's
# vrad reads from any game), with a game folder holding MODELS when given; prints the lit BSP's path.
valve_relight() { # BLANK NAME [MODELS]
  local dir="$out/valve_$2"
  rm -rf "$dir"; mkdir -p "$dir/game"
  printf '"GameInfo"\n{\n\tgame "srcmap luxels"\n\ttype singleplayer_only\n\tFileSystem\n\t{\n\t\tSteamAppId 243730\n\t\tSearchPaths\n\t\t{\n\t\t\tgame+mod |gameinfo_path|.\n\t\t}\n\t}\n}\n' > "$dir/game/gameinfo.txt"
  [ -n "${3:-}" ] && ln -s "$3/models" "$dir/game/models"
  "$bin" convert --decompress "$1" "$dir/$2.bsp" > /dev/null
  python3 "$root/scripts/valve/sprp_v6.py" "$dir/$2.bsp"
  (cd "$dir" && WINEARCH=win32 WINEDEBUG=-all DISPLAY= ${WINE:-wine} "$VALVE_BIN/vrad.exe" -threads 2 -ldr \
    -game "Z:${dir//\//\\}\\game" "$2" > vrad.log 2>&1) && echo "$dir/$2.bsp"
}

# "luxel_r rough_ratio p90_err" of compare_luxels.py OURS VALVE, or "- - -".
luxel_figures() {
  python3 "$judge/compare_luxels.py" "$1" "$2" 2>/dev/null | python3 -c 'import json,sys
try: d = json.loads(sys.stdin.read()); print(d["luxel_r"], d["rough_ratio"], d["p90_err"])
except Exception: print("- - -")'
}
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
  extra=()
  if [ -n "${VALVE_BIN:-}" ]; then
    relit=$(valve_relight "$out/$name.blank.bsp" "$name" "${game[1]:-}")
    if [ -n "$relit" ]; then
      extra=($(luxel_figures "$relit" "$valve") $(luxel_figures "$out/$name.bsp" "$relit"))
    else
      extra=(- - - - - -)
    fi
  fi
  python3 - "$name" "$lux" "$rad" "$secs" "${extra[@]}" >> "$out/report.tsv" <<'PY'
import sys, json
l, r = json.loads(sys.argv[2]), json.loads(sys.argv[3])
print('\t'.join(str(x) for x in (sys.argv[1], l.get('luxel_r'), l.get('rough_ratio'), l.get('p90_err'),
                                  r.get('r'), r.get('median_ratio'), round(float(sys.argv[4]), 2), *sys.argv[5:])))
PY
  tail -1 "$out/report.tsv"
done
