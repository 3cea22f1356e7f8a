#!/usr/bin/env bash
# Issue 44's residual table: every corpus VMF/BSP pair compiled once with `srcmap vbsp`, then
# judged by the independent vbsp, features, props (detail props too where the corpus holds the
# pair's detail.vbsp) and physics judges (../shared/judge). One line per pair per judge:
#   PAIR<TAB>JUDGE<TAB>JSON
# Compiles with the material table harvested from the corpus BSPs, with the pair's repository
# folder under corpus/model as the game directory when it holds models, and with the pair's
# repository's detail.vbsp under corpus/detailvbsp when there is one.
# Usage: scripts/vbsp_residuals.sh [SRCMAP_BIN] [OUTDIR] [POINTS]
# Env: SRCMAP_CORPUS, SRCMAP_JUDGE, PYTHON (with srctools and numpy), ONLY (a pair-name substring).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$(realpath "${1:-$root/target/release/srcmap}"); out=${2:-/tmp/vbsp_residuals}; points=${3:-20000}
python=${PYTHON:-python3}
source "$root/scripts/corpus_pairs.sh"

# The judge's model list (empty when the corpus has no models for the pair) and the game flags.
compile_pair() { # VMF OURS REPO LIST
  local game=() detail=()
  : > "$4"
  if [ -d "$corpus/model/$3" ]; then
    game=(--game "$corpus/model/$3")
    (cd "$corpus/model/$3" && find . -iname '*.mdl' | sed 's|^\./||') > "$4"
  fi
  [ -f "$corpus/detailvbsp/$3/detail.vbsp" ] && detail=(--detail-file "$corpus/detailvbsp/$3/detail.vbsp")
  "$bin" vbsp "$corpus/$1" -o "$2" -q --allowleak "${game[@]}" "${detail[@]}" --materials "$out/materials.json" \
    > "$2.log" 2>&1
}

judge_line() { # PAIR JUDGE ARGS...
  local name=$1 which=$2; shift 2
  printf '%s\t%s\t%s\n' "$name" "$which" "$("$python" "$judge/compare_$which.py" "$@" 2>&1 | tail -1)"
}

corpus_pairs | while IFS=$'\t' read -r vmf valve; do
  repo=$(basename "$(dirname "$vmf")"); name=$repo/$(basename "$vmf" .vmf)
  case "$name" in *"${ONLY:-}"*) ;; *) continue ;; esac
  # One folder per pair: the file's stem names the map (`maps/<map>/…`).
  dir="$out/$(basename "$(dirname "$valve")")"; mkdir -p "$dir"
  ours="$dir/$(basename "$valve")"; list="$dir/models.txt"
  if ! compile_pair "$vmf" "$ours" "$repo" "$list"; then
    printf '%s\tcompile\tfailed: %s\n' "$name" "$(tail -1 "$ours.log")"; continue
  fi
  judge_line "$name" vbsp "$ours" "$corpus/$valve" "$points"
  judge_line "$name" features "$ours" "$corpus/$valve"
  if grep -qi '"prop_static"\|detailmaterial\|%detailtype' "$corpus/$vmf"; then
    judge_line "$name" props "$ours" "$corpus/$valve" "$list" "$([ -f "$corpus/detailvbsp/$repo/detail.vbsp" ] && echo 1 || echo 0)"
  fi
  judge_line "$name" phys "$ours" "$corpus/$valve" "$points"
done
