#!/usr/bin/env bash
# Physics collision (physcollide) of every corpus pair, our vbsp output against Valve's BSP, by
# the independent judge (../shared/judge/compare_phys.py, needs numpy: PYTHON names an
# interpreter that has it). Compiles with the material table harvested from the corpus BSPs.
# Usage: scripts/physics_report.sh [SRCMAP_BIN] [OUTDIR]   Env: SRCMAP_CORPUS, SRCMAP_JUDGE, PYTHON.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$(realpath "${1:-$root/target/release/srcmap}"); out=${2:-/tmp/physics_report}
corpus=$(realpath "${SRCMAP_CORPUS:-$root/../shared/corpus}")
judge=${SRCMAP_JUDGE:-$(realpath "$root/../shared/judge")}
python=${PYTHON:-python3}
mkdir -p "$out"
bsps=(); for f in "$corpus"/bsp/*/*.bsp; do [ "$(head -c4 "$f" | tr -d '\0')" = VBSP ] && bsps+=("$f"); done
"$bin" materials extract -o "$out/materials.json" "${bsps[@]}" >/dev/null 2>&1
awk -F'\t' '$2=="vmf" && $10 ~ /pair: bsp\// {match($10, /pair: bsp\/[^ ;|]*\.bsp/); print $1 "\t" substr($10, RSTART+6, RLENGTH-6)}' \
  "$corpus/MANIFEST.tsv" | while IFS=$'\t' read -r vmf valve; do
  name=$(basename "$(dirname "$vmf")")/$(basename "$vmf" .vmf)
  mkdir -p "$out/$(basename "$(dirname "$valve")")"
  ours="$out/$(basename "$(dirname "$valve")")/$(basename "$valve")"
  if ! "$bin" vbsp "$corpus/$vmf" -o "$ours" -q --allowleak --materials "$out/materials.json" >/dev/null 2>&1; then
    echo "$name: compile failed"; continue
  fi
  echo "$name: $("$python" "$judge/compare_phys.py" "$ours" "$corpus/$valve" 2>&1 | tail -1)"
done
