#!/usr/bin/env bash
# Issue 43's scaling figures for sharded vis or lighting, simulated on one machine: CPU seconds
# of one single-threaded `srcmap vvis` (or `vrad`) against N single-threaded shards plus the
# merge (total shard CPU / unsharded, largest shard / mean, merge share of the total), and the
# merged BSP compared byte for byte with the unsharded one.
#
# vvis shards run side by side (they exchange results while they run). vrad shards need not,
# and a farm runs each on its own machine: here they run one after another, as the unsharded
# run does, so that no shard's CPU time is inflated by N processes fighting over this
# machine's cores (SCALING_PARALLEL=1 runs them side by side instead). Each process runs
# SCALING_RUNS times (default 1; interleaved: unsharded, shards, merge) and its least CPU time
# counts, which damps the noise of a machine shared with other jobs.
#
# Usage: scripts/shard_scaling.sh [vvis|vrad] SRCMAP MAP.bsp N [--no-prt | other stage flags]
#        (the stage defaults to vvis; vrad shards run `--pass direct`)
set -euo pipefail
stage=vvis pass=() parallel=1
case "$1" in vvis) shift ;; vrad) stage=vrad pass=(--pass direct) parallel=${SCALING_PARALLEL:-0}; shift ;; esac
srcmap=$(realpath "$1"); map=$(realpath "$2"); n=$3; shift 3
runs=${SCALING_RUNS:-1}
work=$(mktemp -d /tmp/srcmap-scaling.XXXXXX)
trap 'rm -rf "$work"' EXIT
cpu() { awk '{print $1 + $2}' "$1"; }
# Times a command into $work/NAME.time.RUN.
timed() { local name=$1 run=$2; shift 2; /usr/bin/time -o "$work/$name.time.$run" -f "%U %S %e" "$@"; }
# The least CPU time of NAME over the runs.
least() { for r in $(seq 1 "$runs"); do cpu "$work/$1.time.$r"; done | sort -g | head -1; }
shard() { timed "shard.$1" "$2" "$srcmap" "$stage" "$map" --shard "$1/$n" "${pass[@]}" -o "$work/part.$1" --threads 1 --quiet "${flags[@]}"; }
flags=("$@")
parts=$(for i in $(seq 0 $((n - 1))); do echo "$work/part.$i"; done)
for r in $(seq 1 "$runs"); do
  timed whole "$r" "$srcmap" "$stage" "$map" -o "$work/whole.bsp" --threads 1 --quiet "$@"
  for i in $(seq 0 $((n - 1))); do
    if [ "$parallel" = 1 ]; then shard "$i" "$r" & else shard "$i" "$r"; fi
  done
  wait
  timed merge "$r" "$srcmap" "$stage" merge "$map" $parts -o "$work/merged.bsp" --threads 1 --quiet "$@"
done
cmp "$work/whole.bsp" "$work/merged.bsp" && same=identical || same=DIFFERENT
whole=$(least whole)
shards=$(for i in $(seq 0 $((n - 1))); do least "shard.$i"; done)
merge=$(least merge)
mode=$([ "$parallel" = 1 ] && echo "side by side" || echo "one after another")
echo "$shards" | awk -v whole="$whole" -v merge="$merge" -v n="$n" -v same="$same" -v map="$(basename "$map")" -v stage="$stage" -v mode="$mode" -v runs="$runs" '
  { sum += $1; if ($1 > max) max = $1 }
  END {
    total = sum + merge
    printf "%s %s N=%d (shards %s, least of %d): unsharded %.2f s CPU; shards %.2f s (max %.2f, mean %.2f); merge %.2f s\n", stage, map, n, mode, runs, whole, sum, max, sum / n, merge
    printf "  total/unsharded %.3f, largest/mean %.2f, merge share %.1f%%, merged BSP %s\n", total / whole, max / (sum / n), 100 * merge / total, same
  }'
