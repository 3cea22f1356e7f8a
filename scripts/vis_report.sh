#!/usr/bin/env bash
# Judges srcmap's vvis against Valve's on every corpus BSP with visibility.
#
#   scripts/vis_report.sh [CORPUS] [--judge-only] [--reference] [--sight N]
#
# --judge-only: only step 1 below (each map vis'ed once: the full-vis time of every map).
# VIS_TIMEOUT (seconds, default 900) bounds each full-vis run; a map that needs longer is
# reported as timed out (open maps such as jump_byte_a3 take far longer than the rest).
# Full vis runs under vvis's default flow budget (6000 walk states per one-way portal, which
# only aim_ag_texture_city reaches on the corpus); VIS_FLOW_STATES=N passes --flow-states N
# (0: no bound, the exact PVS).
#
# 1. The judge's setup: for each map, a copy with the visibility lump (4) zeroed in place, then
#    `srcmap vvis` on it (portals rebuilt from the BSP tree, all cores), then the independent
#    judge /work/shared/judge/compare_vis.py against Valve's original: agreement and ratio.
# 2. Our own detail (crates/vvis/examples/vis_report.rs): every differing cluster pair, the
#    sampled line-of-sight check, and with --reference the time of Valve's flow reimplemented
#    (same run, same threads, results checked identical).
# Maps whose lump Valve built with `vvis -fast` are recognised and judged against our -fast.
set -euo pipefail
cd "$(dirname "$0")/.."
CORPUS=${SRCMAP_CORPUS:-/work/shared/corpus}
if [[ $# -gt 0 && $1 != --* ]]; then CORPUS=$1; shift; fi
JUDGE_ONLY=0
if [[ ${1:-} == --judge-only ]]; then JUDGE_ONLY=1; shift; fi
JUDGE=${SRCMAP_JUDGE:-/work/shared/judge}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target}
# Two builds: with --example, cargo would build only the example, not the srcmap binary.
cargo build --release -q -p srcmap-cli
cargo build --release -q -p srcmap-vvis --example vis_report
BIN=$CARGO_TARGET_DIR/release
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

printf '%-58s %8s %9s %9s %s\n' map seconds agree ratio mode
for bsp in "$CORPUS"/bsp/*/*.bsp; do
  name=${bsp#"$CORPUS"/bsp/}
  # Only Source BSPs that carry visibility (leaked and foreign files are skipped).
  python3 - "$JUDGE" "$bsp" "$TMP/blank.bsp" <<'PY' || continue
import sys
sys.path.insert(0, sys.argv[1])
from bsplumps import blank, lump, decode_vis
d = open(sys.argv[2], 'rb').read()
try:
    if d[:4] != b'VBSP' or not decode_vis(lump(d, 4)):
        sys.exit(1)
except Exception:
    sys.exit(1)
open(sys.argv[3], 'wb').write(blank(d, 4))
PY
  start=$(date +%s.%N)
  mode=full
  status=0
  timeout "${VIS_TIMEOUT:-900}" "$BIN"/srcmap vvis --quiet --no-prt ${VIS_FLOW_STATES:+--flow-states "$VIS_FLOW_STATES"} \
    "$TMP/blank.bsp" -o "$TMP/ours.bsp" || status=$?
  if [[ $status == 124 ]]; then
    printf '%-58s %8s  timed out after %s s\n' "$name" - "${VIS_TIMEOUT:-900}"
    continue
  elif [[ $status != 0 ]]; then
    printf '%-58s %8s  srcmap vvis failed (exit %s)\n' "$name" - "$status"
    continue
  fi
  secs=$(echo "$(date +%s.%N) - $start" | bc)
  judged=$(python3 "$JUDGE"/compare_vis.py "$TMP/ours.bsp" "$bsp")
  agree=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["agree"])' "$judged")
  if python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) < 0.99 else 1)' "$agree"; then
    "$BIN"/srcmap vvis --quiet --no-prt --fast "$TMP/blank.bsp" -o "$TMP/ours_fast.bsp"
    fast=$(python3 "$JUDGE"/compare_vis.py "$TMP/ours_fast.bsp" "$bsp")
    if python3 -c 'import json,sys; sys.exit(0 if json.loads(sys.argv[1])["agree"] > json.loads(sys.argv[2])["agree"] else 1)' "$fast" "$judged"; then
      judged=$fast; mode="fast (Valve's lump was built with -fast)"
    fi
  fi
  python3 -c 'import json,sys; j=json.loads(sys.argv[2]); print("%-58s %8.2f %9.5f %9.4f %s" % (sys.argv[1], float(sys.argv[3]), j["agree"], j["ratio"], sys.argv[4]))' \
    "$name" "$judged" "$secs" "$mode"
done
[[ $JUDGE_ONLY == 1 ]] && exit 0

echo
echo "srcmap's own vbsp (PRT) then srcmap vvis, on the corpus VMFs with Valve's BSP beside them:"
grep -P '^bsp/.*\tpair: ' "$CORPUS"/MANIFEST.tsv | while IFS=$'\t' read -r bsp rest; do
  vmf=$(sed -n 's/.*pair: \(vmf\/[^ ;|]*\.vmf\).*/\1/p' <<<"$rest")
  [[ -n $vmf && -f $CORPUS/$vmf ]] || continue
  n=$(basename "$vmf" .vmf)
  cp "$CORPUS/$vmf" "$TMP/$n.vmf"
  if ! timeout 600 "$BIN"/srcmap vbsp -q "$TMP/$n.vmf" >/dev/null 2>&1 || [[ ! -f $TMP/$n.prt ]]; then
    echo "$n: vbsp gave no BSP with a portal file (leak or error)"; continue
  fi
  timeout 900 "$BIN"/srcmap vvis -q "$TMP/$n.bsp" || { echo "$n: vvis failed"; continue; }
  "$BIN"/examples/vis_report --pair "$TMP/$n.bsp" "$CORPUS/$bsp"
done

echo
echo "Per-pair detail, line of sight (violations/clear segments) and reference timing:"
for bsp in "$CORPUS"/bsp/*/*.bsp; do
  timeout "${VIS_TIMEOUT:-900}" "$BIN"/examples/vis_report --show 50 "$@" "$bsp" | tail -n +2 ||
    echo "${bsp#"$CORPUS"/bsp/}: timed out or failed"
done
