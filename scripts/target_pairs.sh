#!/usr/bin/env bash
# Targets against Valve: compiles every corpus VMF/BSP pair for its game (`--target GAME`, the
# game its MANIFEST notes and repository say) and tabulates, for Valve's BSP and ours, the BSP
# version, the lump_t order and the sprp/dprp game lump versions; `same` says whether those agree,
# the lumps both files hold lie in the same order and carry the same lump versions. `srctools`
# says whether srctools (pip install srctools) reads our BSP: entities, tree, faces, brushes,
# static props. Pairs of no game srcmap knows are listed with '-' for ours. Then every target
# compiles examples/box_room.vmf and srctools reads that too (the targets no corpus pair has:
# CS:GO, Portal 2, Left 4 Dead 2, ...).
# Usage: scripts/target_pairs.sh [BIN] [OUTDIR]   (BIN default target/release/srcmap)
# Env: SRCMAP_CORPUS (default ../shared/corpus), SRCMAP_JUDGE (default: judge/ beside the corpus),
#      TARGET_PAIRS_STAGES=compile  runs `srcmap compile --fast` (vbsp, vvis, vrad) instead of vbsp
#      alone, so that the lighting lumps' order and versions are compared too.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$(realpath "${1:-$root/target/release/srcmap}"); out=${2:-/tmp/srcmap-target-pairs}
source "$root/scripts/corpus_pairs.sh" 2>/dev/null
judge=${SRCMAP_JUDGE:-$(dirname "$corpus")/judge}
stages=${TARGET_PAIRS_STAGES:-vbsp}

game_of() { # VMF path under the corpus -> target name, or '-'
  case "$1" in
    */SmolPuppyCat+portalcollab/*|*/tbjmaps+dishonourable-discharge-ez2/*) echo mapbase ;;
    */blerenderr+Room-With-a-Box/*|*/dhaynespls+Half-Life-3/*|*/kane8kki+whohl2mod/*|*/scoutie-travels+*) echo hl2 ;;
    */fakuivan+tf2_mapping_ghost/*|*/laurirasanen+mapsrc/*|*/pySourceSDK+ValveBSP/*|*/snake-biscuits+bsp_tool/tf2_*) echo tf ;;
    */ricochet-game+ricochet-sourcemod/*) echo source2006 ;;
    */snake-biscuits+bsp_tool/momentum_*) echo strata ;;
    */TeamSpen210+srctools/rot_main.vmf) echo desolation ;;
    *) echo - ;;
  esac
}

compile_for() { # VMF OUT TARGET -> OUT written, or a non-zero status
  if [ "$stages" = compile ]; then
    "$bin" compile "$1" -o "$2" --target "$3" --allowleak --fast -q >"$2.log" 2>&1
  else
    "$bin" vbsp "$1" -o "$2" --target "$3" --allowleak -q >"$2.log" 2>&1
  fi
}

compare() { # VALVE_BSP|- OURS|- NAME GAME: one table row
  python3 - "$@" "$judge" <<'PY'
import struct, sys
sys.path.insert(0, sys.argv[5])
from bsplumps import lumps

def facts(path):
    if path == '-':
        return None
    d = open(path, 'rb').read()
    version, table = lumps(d)
    l4d2 = version == 21 and not (1036 <= struct.unpack_from('<i', d, 8)[0] < len(d))
    raw = [struct.unpack_from('<iiii', d, 8 + 16 * i) for i in range(64)]
    versions = {i: (r[0] if l4d2 else r[2]) for i, r in enumerate(raw) if table[i][1] > 0}
    ofs, _, _ = table[35]
    gl = {}
    for k in range(struct.unpack_from('<i', d, ofs)[0]):
        i, _, ver, _, _ = struct.unpack_from('<iHHii', d, ofs + 4 + 16 * k)
        gl[i.to_bytes(4, 'big').decode('latin1')] = ver
    order = [i for o, n, i in sorted((o, n, i) for i, (o, n, _) in enumerate(table) if n > 0)]
    return dict(v=version, l4d2=l4d2, sprp=gl.get('sprp'), dprp=gl.get('dprp'), order=order, versions=versions)

def text(f):
    return '-' if f is None else f"v{f['v']}{' L4D2-order' if f['l4d2'] else ''} sprp v{f['sprp']} dprp v{f['dprp']}"

def srctools_reads(path):
    if path == '-':
        return '-'
    try:
        import warnings
        warnings.simplefilter('ignore')
        from srctools.bsp import BSP
        b = BSP(path)
        counts = [len(list(b.ents.entities)), len(b.nodes), len(b.faces), len(b.brushes), len(b.props)]
        return 'ok ' + '/'.join(map(str, counts))
    except ImportError:
        return 'no srctools'
    except Exception as e:
        return f'ERR {type(e).__name__}: {e}'[:100]

def same(valve, ours):
    if not (valve and ours):
        return '-'
    both = [l for l in valve['order'] if l in ours['order']]
    wrong = [k for k in ('v', 'l4d2', 'sprp', 'dprp') if valve[k] != ours[k]]
    if both != [l for l in ours['order'] if l in valve['order']]:
        wrong.append('order')
    wrong += [f"lump {l} v{ours['versions'][l]}!=v{valve['versions'][l]}" for l in both
              if valve['versions'][l] != ours['versions'][l]]
    return 'yes' if not wrong else 'NO (' + ', '.join(wrong) + ')'

valve, ours = facts(sys.argv[1]), facts(sys.argv[2])
print(f"{sys.argv[3]}\t{sys.argv[4]}\t{text(valve)}\t{text(ours)}\t{same(valve, ours)}\t{srctools_reads(sys.argv[2])}")
PY
}

mkdir -p "$out"
printf 'map\tgame\tvalve\tours\tsame\tsrctools (ours: entities/nodes/faces/brushes/props)\n'
corpus_pairs | while IFS=$'\t' read -r vmf bsp; do
  game=$(game_of "$vmf"); name=$(basename "$vmf" .vmf)
  ours=-
  if [ "$game" != - ]; then
    ours="$out/$(dirname "$vmf" | tr / +)+$name.bsp"
    compile_for "$corpus/$vmf" "$ours" "$game" || ours=-
  fi
  compare "$corpus/$bsp" "$ours" "$name" "$game"
done

# Every target on the box room (the names from the error an unknown target gets).
targets=$("$bin" vbsp "$root/examples/box_room.vmf" --target '?' 2>&1 | sed -n 's/.*known: //p' | tr -d ',')
for t in $targets; do
  ours="$out/box_room-$t.bsp"
  compile_for "$root/examples/box_room.vmf" "$ours" "$t" || ours=-
  compare - "$ours" box_room "$t"
done
