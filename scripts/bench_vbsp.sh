#!/usr/bin/env bash
# Time the vbsp stage on the three largest corpus VMFs (best of N runs, 1 and all threads),
# and print where the time goes for each.
# Usage: scripts/bench_vbsp.sh [CORPUS] [RUNS]
set -eu
CORPUS=${1:-${SRCMAP_CORPUS:-../shared/corpus}}
RUNS=${2:-3}
cargo build --release -q -p srcmap-vbsp --examples
RUNNER=${CARGO_TARGET_DIR:-target}/release/examples/vbsp_compile
OUT=$(mktemp -d)
MAPS=$(find "$CORPUS/vmf" -name '*.vmf' -printf '%s %p\n' | sort -rn | head -3 | cut -d' ' -f2)
for map in $MAPS; do
  for threads in 1 0; do
    best=
    for _ in $(seq "$RUNS"); do
      s=$(date +%s.%N)
      RAYON_NUM_THREADS=$threads "$RUNNER" "$map" "$OUT/x.bsp" >/dev/null 2>&1 || true
      t=$(echo "$(date +%s.%N) - $s" | bc)
      if [ -z "$best" ] || [ "$(echo "$t < $best" | bc)" = 1 ]; then best=$t; fi
    done
    label=$([ "$threads" = 0 ] && echo all || echo 1)
    printf '%-60s threads=%-3s best of %s: %.3f s\n' "$(basename "$map")" "$label" "$RUNS" "$best"
  done
  "$RUNNER" --times "$map" "$OUT/x.bsp" 2>&1 | grep -v 'check:' | sed 's/^/    /'
done
rm -rf "$OUT"
