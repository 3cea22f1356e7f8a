#!/usr/bin/env bash
# Compile every VMF/BSP pair of the corpus with `srcmap vbsp` and compare each with Valve's
# BSP using the independent judge (../shared/judge/compare_vbsp.py, needs srctools).
# Usage: scripts/compare_vbsp_corpus.sh [CORPUS] [OUTDIR] [POINTS]
# Env: RUNNER (default target/release/examples/vbsp_compile: cargo build --release -p srcmap-vbsp --examples),
#      PYTHON (with srctools).
set -u
CORPUS=${1:-${SRCMAP_CORPUS:-../shared/corpus}}
OUT=${2:-/tmp/srcmap-vbsp-compare}
N=${3:-100000}
RUNNER=${RUNNER:-target/release/examples/vbsp_compile}
PY=${PYTHON:-python3}
JUDGE=${JUDGE:-$(dirname "$0")/vbsp_judge.py}
mkdir -p "$OUT"
grep -o 'pair[^;|]*: bsp/[^ ;|]*\.bsp' "$CORPUS/MANIFEST.tsv" >/dev/null || exit 1
while IFS=$'\t' read -r path _ _ _ _ _ _ _ _ notes; do
  case "$path" in vmf/*) ;; *) continue ;; esac
  valve=$(printf '%s' "$notes" | grep -o 'pair[^:]*: bsp/[^ ;|]*\.bsp' | head -1 | sed 's/.*: //')
  [ -n "$valve" ] || continue
  name=$(echo "$path" | sed 's|^vmf/||; s|/|+|g; s|\.vmf$||')
  start=$(date +%s.%N)
  line=$("$RUNNER" --allowleak "$CORPUS/$path" "$OUT/$name.bsp" 2>/dev/null | tail -1)
  secs=$(echo "$(date +%s.%N) - $start" | bc)
  leak=$(printf '%s' "$line" | grep -o 'leak=[a-z]*' | sed 's/leak=//')
  res=$("$PY" "$JUDGE" "$OUT/$name.bsp" "$CORPUS/$valve" "$N" 2>&1 | tail -1)
  printf '%s\tleak=%s\t%.2fs\t%s\n' "$name" "$leak" "$secs" "$res"
done < "$CORPUS/MANIFEST.tsv"
