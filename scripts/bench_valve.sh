#!/usr/bin/env bash
# Side by side with Valve's own compilers (issue 38): each map compiled by Valve's vbsp, vvis and
# vrad (the Mapbase build of the Source SDK 2013 tools, 32-bit Windows, under Wine) and by srcmap,
# on identical inputs, runs interleaved (Valve, srcmap, Valve, ...), the least CPU time of REPEAT
# runs kept. A benchmark, not a test. Setup: ../shared/notes/valve-tools.md.
#
#   VALVE_BIN=/path/to/bin scripts/bench_valve.sh [VMF...]
#
# VALVE_BIN: the folder holding vbsp.exe, vvis.exe, vrad.exe and their DLLs; without it (or
# without Wine) the script says why and exits 0. WINE (default wine), WINEPREFIX (default
# ~/.srcmap-valve-wine, created with wineboot on first use). THREADS (default 2): both tools'
# threads. REPEAT (default 3). OUT: keep the work folder there (default: a temporary one).
# SERIAL_VIS=1: one more vis row, Valve's vvis -threads 1 against srcmap's --threads 1 --lockstep 1
# (the same order of walks), whose visibility lumps should match byte for byte.
# VMF...: corpus-relative paths (default: every VMF of the MANIFEST's VMF/BSP pairs and the three
# largest corpus VMFs).
#
# Inputs are made identical this way: both vbsp compile the same VMF (Valve's with stub VMTs
# written from srcmap's harvested material table by ../shared/tools/valve/gen_vmts.py, so both
# see the same compile flags); both vvis get copies of srcmap's BSP and PRT; both vrad get copies
# of Valve's vis'd BSP with its static-prop lump rewritten to v6 (../shared/tools/valve/sprp_v6.py;
# Mapbase's vrad refuses v10 without the game). Neither has the game's textures, lights.rad or
# models, so both light with the BSP's own reflectivity and no prop shadows.
#
# Columns per stage: CPU seconds (user+sys; Wine's CPU is the Windows process's, wineserver not
# counted) and wall seconds for Valve and srcmap, the CPU ratio Valve / srcmap, and the judges'
# agreement: vvis the PVS (../shared/judge/compare_vis.py), vrad the per-face (compare_rad.py: r,
# median ratio) and per-luxel (compare_luxels.py: luxel_r, rough ratio, p90 error) figures.
set -euo pipefail
cd "$(dirname "$0")/.."
WINE=${WINE:-wine}
if [[ -z ${VALVE_BIN:-} ]]; then
  echo "bench_valve: VALVE_BIN is not set (Valve's compilers; see ../shared/notes/valve-tools.md); skipped"
  exit 0
fi
if ! command -v "$WINE" >/dev/null; then
  echo "bench_valve: $WINE not found (Debian's wine, wine32; see ../shared/notes/valve-tools.md); skipped"
  exit 0
fi
for exe in vbsp.exe vvis.exe vrad.exe; do
  [[ -f $VALVE_BIN/$exe ]] || { echo "bench_valve: no $exe in $VALVE_BIN" >&2; exit 1; }
done
export WINEPREFIX=${WINEPREFIX:-$HOME/.srcmap-valve-wine} WINEARCH=win32 WINEDEBUG=-all DISPLAY=
[[ -d $WINEPREFIX ]] || wineboot -i >/dev/null 2>&1
THREADS=${THREADS:-2}
REPEAT=${REPEAT:-3}
root=$PWD
cargo build --release -q -p srcmap-cli
bin=$root/${CARGO_TARGET_DIR:-target}/release/srcmap
if [[ -n ${OUT:-} ]]; then out=$OUT; mkdir -p "$out"; else out=$(mktemp -d); trap 'rm -rf "$out"' EXIT; fi
# shellcheck source=scripts/corpus_pairs.sh
source scripts/corpus_pairs.sh
tools=$(dirname "$corpus")/tools/valve
if [[ $# -gt 0 ]]; then
  maps=("$@")
else
  mapfile -t maps < <({ corpus_pairs | cut -f1; (cd "$corpus" && ls -S vmf/*/*.vmf | head -3); } | awk '!seen[$0]++')
fi

# The game folder Valve's tools are given: gameinfo.txt, the surface properties vbsp's physics
# pass needs, and stub VMTs for every material of the table srcmap compiles with.
make_game() { # DIR
  mkdir -p "$1/scripts" "$1/bin"
  printf '"GameInfo"\n{\n\tgame "srcmap bench"\n\ttype singleplayer_only\n\tFileSystem\n\t{\n\t\tSteamAppId 243730\n\t\tSearchPaths\n\t\t{\n\t\t\tgame+mod+mod_write+default_write_path |gameinfo_path|.\n\t\t\tgamebin |gameinfo_path|bin\n\t\t}\n\t}\n}\n' >"$1/gameinfo.txt"
  printf '"surfaceproperties_manifest"\n{\n\t"file" "scripts/surfaceproperties.txt"\n}\n' >"$1/scripts/surfaceproperties_manifest.txt"
  {
    printf '"default"\n{\n\t"density" "2000"\n\t"elasticity" "0.25"\n\t"friction" "0.8"\n\t"dampening" "0.0"\n\t"gamematerial" "C"\n}\n'
    for base in solidmetal metal concrete wood dirt glass; do
      printf '"%s"\n{\n\t"base" "default"\n}\n' "$base"
    done
  } >"$1/scripts/surfaceproperties.txt"
  python3 "$tools/gen_vmts.py" "$out/materials.json" "$1" >/dev/null
}

# A path as Wine's Windows programs see it (Z: is /).
winpath() { echo "Z:${1//\//\\}"; }

# Runs a command in a folder, timed: prints "CPU WALL" (seconds), or "fail fail".
timed_in() { # DIR CMD...
  local dir=$1; shift
  if (cd "$dir" && /usr/bin/time -f '%U %S %e' -o "$out/time" "$@" >"$out/log" 2>&1); then
    awk '{printf "%.2f %.2f\n", $1 + $2, $3}' "$out/time"
  else
    echo fail fail
  fi
}

# The better of two "CPU WALL" pairs by CPU (empty or "fail" loses).
least() { # A B
  awk -v a="$1" -v b="$2" 'BEGIN { split(a, x, " "); split(b, y, " ");
    if (x[1] == "" || x[1] == "fail") print b; else if (y[1] == "fail" || x[1] + 0 <= y[1] + 0) print a; else print b }'
}

# One stage, REPEAT interleaved rounds: each side's PREPARE rebuilds its inputs (the tools rewrite
# their BSP in place), then its command runs; prints "VALVE_CPU VALVE_WALL OURS_CPU OURS_WALL".
race() { # VALVE_DIR VALVE_CMD OURS_DIR OURS_CMD INPUTS...   (commands as strings, run by bash -c)
  local v="" o="" round vd=$1 vc=$2 od=$3 oc=$4
  shift 4
  for ((round = 0; round < REPEAT; round++)); do
    [[ $# -gt 0 ]] && cp "$@" "$vd/"
    v=$(least "$v" "$(timed_in "$vd" bash -c "$vc")")
    # Wine's own processes (wineserver, winedevice.exe) outlive the tool by seconds and are not
    # counted in its CPU time; srcmap's run waits for them to leave the machine.
    command -v wineserver >/dev/null && wineserver -w
    [[ $# -gt 0 ]] && cp "$@" "$od/"
    o=$(least "$o" "$(timed_in "$od" bash -c "$oc")")
  done
  echo "$v $o"
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf "%.1f", a / b; else print "-" }'; }
judge() { python3 "$judge/$1" "${@:2}" 2>/dev/null | tail -1; }
field() { python3 -c 'import json,sys; d=json.loads(sys.argv[1]); print(" ".join(str(d.get(k, "-")) for k in sys.argv[2:]))' "$@" 2>/dev/null || echo -; }

game=$out/game
make_game "$game"
G=$(winpath "$game")
rows=()
# One table row, kept for the table at the end and printed at once on stderr (a long run that
# is stopped still shows what it measured).
row() { # MAP STAGE "VCPU VWALL OCPU OWALL" AGREEMENT
  local t; read -r -a t <<<"$3"
  rows+=("$(printf '%-32s %-5s | %7s %7s | %7s %7s | %6s | %s' "$1" "$2" "${t[0]}" "${t[1]}" "${t[2]}" "${t[3]}" "$(ratio "${t[0]}" "${t[2]}")" "$4")")
  echo "${rows[-1]}" >&2
}

bench_map() { # VMF (corpus-relative)
  local vmf=$1 name d
  name=$(basename "$vmf" .vmf)
  d=$out/$name
  rm -rf "$d"; mkdir -p "$d"/{vbsp_v,vbsp_o,vis_v,vis_o,rad_v,rad_o}
  cp "$corpus/$vmf" "$d/vbsp_v/$name.vmf"
  local t
  t=$(race "$d/vbsp_v" "$WINE '$VALVE_BIN/vbsp.exe' -threads $THREADS -game '$G' $name" \
    "$d/vbsp_o" "'$bin' vbsp -q --threads $THREADS --materials '$out/materials.json' '$corpus/$vmf' -o $name.bsp")
  row "$name" vbsp "$t" "$(brush_counts "$d/vbsp_o/$name.bsp" "$d/vbsp_v/$name.bsp")"
  [[ -f $d/vbsp_o/$name.prt ]] || { echo "$name: srcmap's vbsp leaked or failed; vis and light skipped" >&2; return; }
  t=$(race "$d/vis_v" "$WINE '$VALVE_BIN/vvis.exe' -threads $THREADS -game '$G' $name" \
    "$d/vis_o" "'$bin' vvis -q --threads $THREADS $name.bsp" "$d/vbsp_o/$name.bsp" "$d/vbsp_o/$name.prt")
  row "$name" vvis "$t" "PVS $(field "$(judge compare_vis.py "$d/vis_o/$name.bsp" "$d/vis_v/$name.bsp")" agree), lump $(same_lump 4 "$d/vis_o/$name.bsp" "$d/vis_v/$name.bsp")"
  [[ ${SERIAL_VIS:-0} == 1 ]] && serial_vis "$d"
  mkdir -p "$d/lit_input"
  cp "$d/vis_v/$name.bsp" "$d/lit_input/"
  python3 "$tools/sprp_v6.py" "$d/lit_input/$name.bsp" >/dev/null 2>&1 || true
  t=$(race "$d/rad_v" "$WINE '$VALVE_BIN/vrad.exe' -threads $THREADS -ldr -game '$G' $name" \
    "$d/rad_o" "'$bin' vrad -q --threads $THREADS --ldr $name.bsp" "$d/lit_input/$name.bsp")
  row "$name" vrad "$t" "$(light_agreement "$d/rad_o/$name.bsp" "$d/rad_v/$name.bsp")"
}

# Both vvis at one thread, ours walking in Valve's one-thread order (--lockstep 1).
serial_vis() { # DIR
  local d=$1 t
  mkdir -p "$d"/{vis1_v,vis1_o}
  t=$(race "$d/vis1_v" "$WINE '$VALVE_BIN/vvis.exe' -threads 1 -game '$G' $name" \
    "$d/vis1_o" "'$bin' vvis -q --threads 1 --lockstep 1 $name.bsp" "$d/vbsp_o/$name.bsp" "$d/vbsp_o/$name.prt")
  row "$name" vvis1 "$t" "PVS $(field "$(judge compare_vis.py "$d/vis1_o/$name.bsp" "$d/vis1_v/$name.bsp")" agree), lump $(same_lump 4 "$d/vis1_o/$name.bsp" "$d/vis1_v/$name.bsp")"
}

# Whether lump N of two BSPs is the same, byte for byte: "same" or "differs".
same_lump() { # N A B
  python3 - "$@" <<'PY' 2>/dev/null || echo -
import struct, sys
def lump(path, i):
    d = open(path, 'rb').read()
    off, size = struct.unpack_from('<ii', d, 8 + 16 * i)
    return d[off:off + size]
n = int(sys.argv[1])
print('same' if lump(sys.argv[2], n) == lump(sys.argv[3], n) else 'differs')
PY
}

# vbsp's agreement: the judge's brush and leaf counts, ours/Valve's.
brush_counts() { # OURS VALVE
  [[ -f $2 ]] || { echo "Valve's vbsp wrote no BSP"; return; }
  local j; j=$(judge compare_vbsp.py "$1" "$2")
  echo "brushes/leafs/clusters $(field "$j" brushes leafs clusters | tr -d ' ')"
}

light_agreement() { # OURS VALVE
  [[ -f $2 ]] || { echo "Valve's vrad wrote no BSP"; return; }
  echo "face r/median $(field "$(judge compare_rad.py "$1" "$2")" r median_ratio | tr ' ' /)" \
    "luxel r/rough/p90 $(field "$(judge compare_luxels.py "$1" "$2")" luxel_r rough_ratio p90_err | tr ' ' /)"
}

for vmf in "${maps[@]}"; do bench_map "$vmf"; done
echo "Valve's compilers (Mapbase SDK 2013 build, Wine) vs srcmap, $THREADS threads, least CPU of $REPEAT interleaved runs"
echo "(seconds; ratio = Valve CPU / srcmap CPU: above 1, srcmap is faster)"
printf '%-32s %-5s | %7s %7s | %7s %7s | %6s | %s\n' map stage v_cpu v_wall o_cpu o_wall ratio agreement
printf '%s\n' "${rows[@]}"
