#!/usr/bin/env bash
# Issue 43's scaling figures for sharded vis or lighting, simulated on one machine: CPU seconds
# of one single-threaded `srcmap vvis` (or `vrad`) against N single-threaded shards run side by
# side plus the merge (total shard CPU / unsharded, largest shard / mean, merge share of the
# total), and the merged BSP compared byte for byte with the unsharded one.
#
# Usage: scripts/shard_scaling.sh [vvis|vrad] SRCMAP MAP.bsp N [--no-prt | other stage flags]
#        (the stage defaults to vvis; vrad shards run `--pass direct`)
set -euo pipefail
stage=vvis pass=()
case "$1" in vvis) shift ;; vrad) stage=vrad pass=(--pass direct); shift ;; esac
srcmap=$(realpath "$1"); map=$(realpath "$2"); n=$3; shift 3
work=$(mktemp -d /tmp/srcmap-scaling.XXXXXX)
trap 'rm -rf "$work"' EXIT
cpu() { awk '{print $1 + $2}' "$1"; }
/usr/bin/time -o "$work/whole.time" -f "%U %S %e" \
  "$srcmap" "$stage" "$map" -o "$work/whole.bsp" --threads 1 --quiet "$@"
for i in $(seq 0 $((n - 1))); do
  /usr/bin/time -o "$work/shard.$i.time" -f "%U %S %e" \
    "$srcmap" "$stage" "$map" --shard "$i/$n" "${pass[@]}" -o "$work/part.$i" --threads 1 --quiet "$@" &
done
wait
parts=$(for i in $(seq 0 $((n - 1))); do echo "$work/part.$i"; done)
/usr/bin/time -o "$work/merge.time" -f "%U %S %e" \
  "$srcmap" "$stage" merge "$map" $parts -o "$work/merged.bsp" --threads 1 --quiet "$@"
cmp "$work/whole.bsp" "$work/merged.bsp" && same=identical || same=DIFFERENT
whole=$(cpu "$work/whole.time")
shards=$(for i in $(seq 0 $((n - 1))); do cpu "$work/shard.$i.time"; done)
merge=$(cpu "$work/merge.time")
echo "$shards" | awk -v whole="$whole" -v merge="$merge" -v n="$n" -v same="$same" -v map="$(basename "$map")" -v stage="$stage" '
  { sum += $1; if ($1 > max) max = $1 }
  END {
    total = sum + merge
    printf "%s %s N=%d: unsharded %.2f s CPU; shards %.2f s (max %.2f, mean %.2f); merge %.2f s\n", stage, map, n, whole, sum, max, sum / n, merge
    printf "  total/unsharded %.3f, largest/mean %.2f, merge share %.1f%%, merged BSP %s\n", total / whole, max / (sum / n), 100 * merge / total, same
  }'
