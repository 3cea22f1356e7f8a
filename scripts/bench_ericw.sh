#!/usr/bin/env bash
# Side by side with ericw-tools (a speed anchor, run as an outside program; GPL, never linked):
# each corpus VMF of the MANIFEST pairs compiled by both in one run, every stage timed, and the
# figures normalised by work: vis seconds per portal, light microseconds per luxel/sample.
#
#   ERICW_DIR=/work/ericw/build scripts/bench_ericw.sh [VMF...]
#
# ERICW_DIR: an ericw-tools build (qbsp, vis, light, in bin/ or in their own build folders);
# without it the script prints why and exits 0. THREADS (default 2): both tools' threads.
# REPEAT (default 1): each stage runs this many times and the least time counts (this shared
# machine's load moves single timings by a third).
# VMF...: corpus-relative paths (default: every VMF of the MANIFEST's VMF/BSP pairs).
#
# Stages: ericw `qbsp -q2bsp`, `vis`, `light -bounce 0` and `light` (one bounce with Q2
# output) on `../shared/tools/vmf2map.py`'s conversion; srcmap `vbsp`, `vvis`,
# `vrad --bounce 0` and `vrad --bounce 1`. Trees differ (ericw's is coarser), so vis is also
# run on the SAME portals: ericw's PRT through our flow (`crates/vvis/examples/prt_vis.rs`),
# ericw's PVS decoded from its BSP, and the two PVS compared pair for pair. ericw's samples are
# its lightmap bytes / 3 (RGB, one style); ours are vrad's luxels. Ratios are ericw / srcmap
# (above 1: srcmap faster on equal work). Timings are wall clock of whole processes. A last
# table divides bounce-0 light by rays: ours counted by vrad, ericw's sun and sky-dome rays
# estimated from its BSP (`scripts/ericw_rays.py`): VRAD's sky sampling casts about twice as
# many rays per luxel as ericw's dome does per sample.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ -z ${ERICW_DIR:-} ]]; then
  echo "bench_ericw: ERICW_DIR is not set (an ericw-tools build; see ../shared/notes/ericw.md); skipped"
  exit 0
fi
tool() {
  for p in "$ERICW_DIR/bin/$1" "$ERICW_DIR/$1/$1" "$ERICW_DIR/$1"; do
    [[ -x $p && ! -d $p ]] && { echo "$p"; return; }
  done
  echo "bench_ericw: no $1 under $ERICW_DIR" >&2
  exit 1
}
QBSP=$(tool qbsp) VIS=$(tool vis) LIGHT=$(tool light)
THREADS=${THREADS:-2}
REPEAT=${REPEAT:-1}
export SRCMAP_CORPUS=${SRCMAP_CORPUS:-$PWD/../shared/corpus}
VMF2MAP=${VMF2MAP:-$(dirname "$SRCMAP_CORPUS")/tools/vmf2map.py}
export SRCMAP_JUDGE=${SRCMAP_JUDGE:-$(dirname "$SRCMAP_CORPUS")/judge}
cargo build --release -q -p srcmap-cli
cargo build --release -q -p srcmap-vvis --example prt_vis
root=$PWD
bin=${CARGO_TARGET_DIR:-target}/release/srcmap
prt_vis=${CARGO_TARGET_DIR:-target}/release/examples/prt_vis
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# shellcheck source=scripts/corpus_pairs.sh
source scripts/corpus_pairs.sh
if [[ $# -gt 0 ]]; then maps=("$@"); else mapfile -t maps < <(corpus_pairs | cut -f1); fi

# Seconds a command takes, the least of REPEAT runs (its last run's output to $out/log);
# "fail" when it fails. Every stage timed here rewrites its own outputs, so runs repeat alike.
timed() {
  local s best=
  for ((run = 0; run < REPEAT; run++)); do
    s=$(date +%s.%N)
    "$@" >"$out/log" 2>"$out/err" || { echo fail; return; }
    s=$(echo "$(date +%s.%N) - $s" | bc)
    if [[ -z $best ]] || (( $(echo "$s < $best" | bc) )); then best=$s; fi
  done
  printf "%.2f\n" "$best"
}
json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(int(d['counts'].get(sys.argv[2], 0)))" "$@"; }

# The PVS in a Quake 2 BSP's visibility lump (3) against prt_vis's rows: pairs in each, and
# pairs only one of them has (each cluster counted as seeing itself).
compare_pvs() {
  python3 - "$1" "$2" <<'PY'
import struct, sys
d = open(sys.argv[1], 'rb').read()
off, ln = struct.unpack_from('<ii', d, 8 + 3 * 8)
vis = d[off:off + ln]
n = struct.unpack_from('<i', vis, 0)[0] if ln >= 4 else 0
rows = []
for c in range(n):
    o, row = struct.unpack_from('<i', vis, 4 + c * 8)[0], bytearray()
    while len(row) < (n + 7) // 8:
        if vis[o]:
            row.append(vis[o]); o += 1
        else:
            row.extend(bytes(vis[o + 1])); o += 2
    rows.append({j for j in range(n) if row[j >> 3] >> (j & 7) & 1} | {c})
ours = [set(map(int, l.split())) for l in open(sys.argv[2])]
print(sum(map(len, rows)), sum(map(len, ours)),
      sum(len(o - r) for o, r in zip(ours, rows)), sum(len(r - o) for o, r in zip(ours, rows)))
PY
}
# A positive number? (Failed stages read "fail", figures that cannot be had "-".)
positive() { [[ $1 =~ ^[0-9]*\.?[0-9]+$ ]] && [[ $(echo "$1 > 0" | bc) == 1 ]]; }
ratio() { if positive "$1" && positive "$2"; then printf '%.2f' "$(echo "$1 / $2" | bc -l)"; else echo -; fi; }
per() { if positive "$1" && positive "$2"; then printf '%.3f' "$(echo "$1 * $3 / $2" | bc -l)"; else echo -; fi; }

vis_rows=() light_rows=() ray_rows=()
for vmf in "${maps[@]}"; do
  name=$(basename "$vmf" .vmf)
  d=$out/$name
  mkdir -p "$d/ericw" "$d/ours"
  python3 "$VMF2MAP" "$corpus/$vmf" "$d/ericw/$name.map" >/dev/null 2>&1 || { echo "$name: vmf2map failed" >&2; continue; }
  # ericw-tools.
  e_bsp=$(timed "$QBSP" -q2bsp -threads "$THREADS" "$d/ericw/$name.map")
  if [[ $e_bsp == fail || ! -f $d/ericw/$name.prt ]]; then echo "$name: ericw qbsp failed or leaked" >&2; continue; fi
  cp "$d/ericw/$name.prt" "$d/ericw/portals.prt"
  read -r e_clusters e_portals < <(sed -n '2p;3p' "$d/ericw/portals.prt" | tr '\n' ' ')  || true
  # -nostate: vis would otherwise resume from the state file its last run left.
  e_vis=$(timed "$VIS" -nostate -threads "$THREADS" "$d/ericw/$name.bsp")
  cp "$d/ericw/$name.bsp" "$d/ericw/b0.bsp"
  cp "$d/ericw/$name.bsp" "$d/ericw/b1.bsp"
  e_light0=$(timed "$LIGHT" -threads "$THREADS" -bounce 0 "$d/ericw/b0.bsp")
  e_samples=$(tr '\r' '\n' <"$out/log" | sed -n 's/.*lightmap size (total): \([0-9]*\).*/\1/p' | tail -1)
  e_samples=$(( ${e_samples:-0} / 3 ))
  # Sun and sky-dome rays its bounce-0 run cast (estimated from the BSP it lit).
  read -r _ e_rays < <(python3 "$root/scripts/ericw_rays.py" "$d/ericw/b0.bsp") || e_rays=0
  e_light1=$(timed "$LIGHT" -threads "$THREADS" "$d/ericw/b1.bsp")
  # srcmap.
  o_bsp=$(timed "$bin" vbsp -q --threads "$THREADS" --materials "$out/materials.json" "$corpus/$vmf" -o "$d/ours/$name.bsp")
  if [[ $o_bsp == fail || ! -f $d/ours/$name.prt ]]; then echo "$name: srcmap vbsp failed or leaked" >&2; continue; fi
  o_vis=$(timed "$bin" vvis --threads "$THREADS" --json "$d/ours/$name.bsp")
  cp "$out/log" "$d/ours/vis.json"
  o_clusters=$(json "$d/ours/vis.json" clusters) o_portals=$(json "$d/ours/vis.json" portals)
  o_light0=$(timed "$bin" vrad --threads "$THREADS" --bounce 0 --json -q "$d/ours/$name.bsp" -o "$d/ours/b0.bsp")
  cp "$out/log" "$d/ours/rad.json"
  o_luxels=$(json "$d/ours/rad.json" luxels) o_rays=$(json "$d/ours/rad.json" rays)
  o_light1=$(timed "$bin" vrad --threads "$THREADS" --bounce 1 -q "$d/ours/$name.bsp" -o "$d/ours/b1.bsp")
  # Both vis tools on ericw's portals.
  same=$(timed "$prt_vis" --threads "$THREADS" --rows "$d/rows.txt" "$d/ericw/portals.prt")
  read -r e_pairs o_pairs only_ours only_ericw < <(compare_pvs "$d/ericw/$name.bsp" "$d/rows.txt") || true
  vis_rows+=("$(printf '%-28s %5s %6s %7s %8s | %5s %6s %7s %8s | %6s | %7s %7s %6s | %8s %8s %6s %6s' \
    "$name" "$e_clusters" "$e_portals" "$e_vis" "$(per "$e_vis" "$e_portals" 1000)" \
    "$o_clusters" "$o_portals" "$o_vis" "$(per "$o_vis" "$o_portals" 1000)" \
    "$(ratio "$(per "$e_vis" "$e_portals" 1000)" "$(per "$o_vis" "$o_portals" 1000)")" \
    "$e_vis" "$same" "$(ratio "$e_vis" "$same")" "$e_pairs" "$o_pairs" "$only_ericw" "$only_ours")")
  for b in 0 1; do
    el=e_light$b ol=o_light$b
    light_rows+=("$(printf '%-28s %6s | %8s %7s %8s | %8s %7s %8s | %6s' "$name" "$b" \
      "$e_samples" "${!el}" "$(per "${!el}" "$e_samples" 1000000)" \
      "$o_luxels" "${!ol}" "$(per "${!ol}" "$o_luxels" 1000000)" \
      "$(ratio "$(per "${!el}" "$e_samples" 1000000)" "$(per "${!ol}" "$o_luxels" 1000000)")")")
  done
  ray_rows+=("$(printf '%-28s | %10s %7s %8s | %10s %7s %8s | %6s' "$name" \
    "$e_rays" "$(per "$e_rays" "$e_samples" 1)" "$(per "$e_light0" "$e_rays" 1000000000)" \
    "$o_rays" "$(per "$o_rays" "$o_luxels" 1)" "$(per "$o_light0" "$o_rays" 1000000000)" \
    "$(ratio "$(per "$e_light0" "$e_rays" 1000000000)" "$(per "$o_light0" "$o_rays" 1000000000)")")")
  echo "$name: qbsp ${e_bsp}s, vbsp ${o_bsp}s" >&2
done

echo "vis, $THREADS threads (seconds; ms/portal = seconds per 1000 portals; ratio = ericw / srcmap)"
printf '%-28s %5s %6s %7s %8s | %5s %6s %7s %8s | %6s | %7s %7s %6s | %8s %8s %6s %6s\n' \
  map e_clus e_port e_vis ms/port o_clus o_port o_vis ms/port ratio \
  "same:e" "same:o" ratio e_pairs o_pairs e_only o_only
printf '%s\n' "${vis_rows[@]}"
echo
echo "light, $THREADS threads (us/lux = microseconds per ericw sample / srcmap luxel; ratio = ericw / srcmap)"
printf '%-28s %6s | %8s %7s %8s | %8s %7s %8s | %6s\n' map bounce e_samp e_s us/samp o_luxel o_s us/lux ratio
printf '%s\n' "${light_rows[@]}"
echo
echo "light per ray, bounce 0 ($THREADS threads; ericw's rays are its sun and sky-dome rays, estimated by"
echo "scripts/ericw_rays.py; ours are every ray vrad cast; ns/ray = wall nanoseconds per ray; ratio = ericw / srcmap)"
printf '%-28s | %10s %7s %8s | %10s %7s %8s | %6s\n' map e_rays e_r/samp e_ns/ray o_rays o_r/lux o_ns/ray ratio
printf '%s\n' "${ray_rows[@]}"
