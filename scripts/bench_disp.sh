#!/usr/bin/env bash
# Times vbsp and vrad on the corpus maps with the most displacements, with two srcmap binaries
# side by side (each binary's vrad lights its own vbsp output). Best of N runs (default 3).
# Usage: scripts/bench_disp.sh BEFORE_BIN AFTER_BIN [N]
# Env: SRCMAP_CORPUS (default ../shared/corpus).
set -eu
before=$(realpath "$1"); after=$(realpath "$2"); n=${3:-3}
root=$(cd "$(dirname "$0")/.." && pwd)
corpus=$(realpath "${SRCMAP_CORPUS:-$root/../shared/corpus}")
maps="dhaynespls+Half-Life-3/c1_cave hdtf-owf+hdtfmapsrc/a3c8p1_forest_day noodlecollie+l4d2maps/c3m2_swamp_d"
out=$(mktemp -d)
best() { # CMD... -> best wall seconds of $n runs
  local b=""
  for _ in $(seq "$n"); do
    local s e; s=$(date +%s.%N); "$@" >/dev/null 2>&1 || true; e=$(date +%s.%N)
    b=$(python3 -c "import sys; t=$e-$s; b='$b'; print(t if not b else min(t, float(b)))")
  done
  printf '%.3f' "$b"
}
printf '| map | displacements | vbsp before s | vbsp after s | ratio | vrad before s | vrad after s | ratio |\n| --- | --- | --- | --- | --- | --- | --- | --- |\n'
for m in $maps; do
  vmf="$corpus/vmf/$m.vmf"; name=$(basename "$m")
  disps=$(grep -c '^\s*dispinfo\s*$' "$vmf")
  row="| $name | $disps"
  for which in before after; do bin=${!which}; eval "vb_$which=\$(best \"$bin\" vbsp \"$vmf\" -o \"$out/$which.$name.bsp\" -q --allowleak)"; done
  for which in before after; do
    bin=${!which}
    eval "vr_$which=\$(best sh -c 'cp \"$out/$which.$name.bsp\" \"$out/$which.$name.lit.bsp\" && \"$bin\" vrad \"$out/$which.$name.lit.bsp\" -q')"
  done
  ratio() { python3 -c "print(f'{$2/$1:.2f}x' if $1 > 0 else '-')"; }
  echo "$row | $vb_before | $vb_after | $(ratio $vb_before $vb_after) | $vr_before | $vr_after | $(ratio $vr_before $vr_after) |"
done
rm -rf "$out"
