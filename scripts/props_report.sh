#!/usr/bin/env bash
# Static props of every corpus pair that places prop_static, our vbsp against Valve's BSP, by
# the independent judge (../shared/judge/compare_props.py). Compiles with the material table
# harvested from the corpus BSPs, and with the pair's repository folder under corpus/model as
# the game directory when it holds models (its .mdl files are the judge's model list).
# Usage: scripts/props_report.sh [SRCMAP_BIN] [OUTDIR]   Env: SRCMAP_CORPUS, SRCMAP_JUDGE.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$(realpath "${1:-$root/target/release/srcmap}"); out=${2:-/tmp/props_report}
source "$root/scripts/corpus_pairs.sh"
corpus_pairs | while IFS=$'\t' read -r vmf valve; do
  grep -qi '"prop_static"' "$corpus/$vmf" || continue
  repo=$(basename "$(dirname "$vmf")")
  name=$repo/$(basename "$vmf" .vmf)
  mkdir -p "$out/$repo"
  ours="$out/$repo/$(basename "$valve")"
  list="$out/$repo/models.txt"; : > "$list"
  game=()
  if [ -d "$corpus/model/$repo" ]; then
    game=(--game "$corpus/model/$repo")
    (cd "$corpus/model/$repo" && find . -iname '*.mdl' | sed 's|^\./||') > "$list"
  fi
  if ! "$bin" vbsp "$corpus/$vmf" -o "$ours" -q --allowleak "${game[@]}" --materials "$out/materials.json" >/dev/null 2>&1; then
    echo "$name: compile failed"; continue
  fi
  echo "$name: $(python3 "$judge/compare_props.py" "$ours" "$corpus/$valve" "$list" 2>&1 | tail -1)"
done
