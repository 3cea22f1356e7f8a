#!/usr/bin/env bash
# Overlays, cubemaps, patched materials, occluders and water of every corpus pair, our vbsp
# output against Valve's BSP, by the independent judge (../shared/judge/compare_features.py).
# Compiles with the material table harvested from the corpus BSPs, as the corpus tests do.
# Usage: scripts/features_report.sh [SRCMAP_BIN] [OUTDIR]   Env: SRCMAP_CORPUS, SRCMAP_JUDGE.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$(realpath "${1:-$root/target/release/srcmap}"); out=${2:-/tmp/features_report}
source "$root/scripts/corpus_pairs.sh"
# Pairs are listed on the VMF rows of the manifest.
corpus_pairs | while IFS=$'\t' read -r vmf valve; do
  name=$(basename "$(dirname "$vmf")")/$(basename "$vmf" .vmf)
  # One folder per pair: the file's stem names the map (`maps/<map>/…`), and two pairs share one.
  mkdir -p "$out/$(basename "$(dirname "$valve")")"
  ours="$out/$(basename "$(dirname "$valve")")/$(basename "$valve")"
  if ! "$bin" vbsp "$corpus/$vmf" -o "$ours" -q --allowleak --materials "$out/materials.json" >/dev/null 2>&1; then
    echo "$name: compile failed"; continue
  fi
  echo "$name: $(python3 "$judge/compare_features.py" "$ours" "$corpus/$valve" 2>&1 | tail -1)"
done
