#!/usr/bin/env bash
# Targets against Valve: compiles every corpus VMF/BSP pair with `srcmap vbsp --target GAME` (the
# game its MANIFEST notes and repository say) and tabulates, for Valve's BSP and ours, the BSP
# version, the lump_t order, the sprp/dprp game lump versions and whether the lumps both files
# hold lie in the same order. Pairs of games srcmap cannot write (Strata v25, Desolation v42)
# are listed with '-' for ours.
# Usage: scripts/target_pairs.sh [BIN] [OUTDIR]   (BIN default target/release/srcmap)
# Env: SRCMAP_CORPUS (default ../shared/corpus), SRCMAP_JUDGE (default: judge/ beside the corpus).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$(realpath "${1:-$root/target/release/srcmap}"); out=${2:-/tmp/srcmap-target-pairs}
source "$root/scripts/corpus_pairs.sh" 2>/dev/null
judge=${SRCMAP_JUDGE:-$(dirname "$corpus")/judge}

game_of() { # VMF path under the corpus -> target name, or '-'
  case "$1" in
    */SmolPuppyCat+portalcollab/*|*/tbjmaps+dishonourable-discharge-ez2/*) echo mapbase ;;
    */blerenderr+Room-With-a-Box/*|*/dhaynespls+Half-Life-3/*|*/kane8kki+whohl2mod/*|*/scoutie-travels+*) echo hl2 ;;
    */fakuivan+tf2_mapping_ghost/*|*/laurirasanen+mapsrc/*|*/pySourceSDK+ValveBSP/*|*/snake-biscuits+bsp_tool/tf2_*) echo tf ;;
    */ricochet-game+ricochet-sourcemod/*) echo source2006 ;;
    *) echo - ;;
  esac
}

printf 'map\tgame\tvalve\tours\tsame\n'
corpus_pairs | while IFS=$'\t' read -r vmf bsp; do
  game=$(game_of "$vmf"); name=$(basename "$vmf" .vmf)
  ours=-
  if [ "$game" != - ]; then
    ours="$out/$(dirname "$vmf" | tr / +)+$name.bsp"
    "$bin" vbsp "$corpus/$vmf" -o "$ours" --target "$game" --allowleak -q >"$ours.log" 2>&1 || ours=-
  fi
  python3 - "$corpus/$bsp" "$ours" "$name" "$game" "$judge" <<'PY'
import struct, sys
sys.path.insert(0, sys.argv[5])
from bsplumps import lumps

def facts(path):
    if path == '-':
        return None
    d = open(path, 'rb').read()
    version, table = lumps(d)
    l4d2 = version == 21 and not (1036 <= struct.unpack_from('<i', d, 8)[0] < len(d))
    ofs, _, _ = table[35]
    gl = {}
    for k in range(struct.unpack_from('<i', d, ofs)[0]):
        i, _, ver, _, _ = struct.unpack_from('<iHHii', d, ofs + 4 + 16 * k)
        gl[i.to_bytes(4, 'big').decode('latin1')] = ver
    order = [i for o, n, i in sorted((o, n, i) for i, (o, n, _) in enumerate(table) if n > 0)]
    return dict(v=version, l4d2=l4d2, sprp=gl.get('sprp'), dprp=gl.get('dprp'), order=order)

def text(f):
    return '-' if f is None else f"v{f['v']}{' L4D2-order' if f['l4d2'] else ''} sprp v{f['sprp']} dprp v{f['dprp']}"

valve, ours = facts(sys.argv[1]), facts(sys.argv[2])
same = '-'
if ours:
    both = [l for l in valve['order'] if l in ours['order']]
    in_order = both == [l for l in ours['order'] if l in valve['order']]
    keys = ('v', 'l4d2', 'sprp', 'dprp')
    same = 'yes' if in_order and all(valve[k] == ours[k] for k in keys) else 'NO' + ('' if in_order else ' (order)')
print(f"{sys.argv[3]}\t{sys.argv[4]}\t{text(valve)}\t{text(ours)}\t{same}")
PY
done
