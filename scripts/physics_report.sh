#!/usr/bin/env bash
# Physics collision (physcollide) of every corpus pair, our vbsp output against Valve's BSP, by
# the independent judge (../shared/judge/compare_phys.py, needs numpy: PYTHON names an
# interpreter that has it). Compiles with the material table harvested from the corpus BSPs.
# Usage: scripts/physics_report.sh [SRCMAP_BIN] [OUTDIR]   Env: SRCMAP_CORPUS, SRCMAP_JUDGE, PYTHON.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$(realpath "${1:-$root/target/release/srcmap}"); out=${2:-/tmp/physics_report}
python=${PYTHON:-python3}
source "$root/scripts/corpus_pairs.sh"
corpus_pairs | while IFS=$'\t' read -r vmf valve; do
  name=$(basename "$(dirname "$vmf")")/$(basename "$vmf" .vmf)
  mkdir -p "$out/$(basename "$(dirname "$valve")")"
  ours="$out/$(basename "$(dirname "$valve")")/$(basename "$valve")"
  if ! "$bin" vbsp "$corpus/$vmf" -o "$ours" -q --allowleak --materials "$out/materials.json" >/dev/null 2>&1; then
    echo "$name: compile failed"; continue
  fi
  echo "$name: $("$python" "$judge/compare_phys.py" "$ours" "$corpus/$valve" 2>&1 | tail -1)"
done
