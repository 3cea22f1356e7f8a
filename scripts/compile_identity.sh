#!/usr/bin/env bash
# Behaviour check for refactors: compiles every corpus VMF and every map under testdata/ and
# examples/ (vbsp, vvis and vrad, leaks allowed) with two srcmap binaries, runs vvis and vrad alone
# on a set of Valve BSPs (plain, LZMA-packed, big-endian console), and compares every output:
# BSP, PRT and LIN files byte for byte, logs with their timings masked.
# Usage: scripts/compile_identity.sh BEFORE_BIN AFTER_BIN [OUTDIR]
# Env: SRCMAP_CORPUS (default ../shared/corpus); KEEP_BEFORE=1 reuses OUTDIR/before from an
# earlier run of the same BEFORE_BIN (it is made once, then each candidate is compared with it).
# Exit status 1 when anything differs.
set -u
before=$(realpath "$1"); after=$(realpath "$2"); out=${3:-/tmp/srcmap-identity}
root=$(cd "$(dirname "$0")/.." && pwd)
corpus=$(realpath "${SRCMAP_CORPUS:-$root/../shared/corpus}")
valve_bsps="SmolPuppyCat+portalcollab/ptex_test snake-biscuits+bsp_tool/tf2_mp_lobby
  bouletmarc+css_maps_content/test_speakers blerenderr+Room-With-a-Box/background01
  laurirasanen+mapsrc/dotf_test lanofdoom+counterstrikesource-maps/cs_crackhouse
  iassis+tf2-fastdl/mvm_smog_b3a snake-biscuits+bsp_tool/shack.360
  lanofdoom+counterstrikesource-maps/gg_aim_shotty"

run() { # BIN DIR
  local bin=$1 dir=$2; mkdir -p "$dir"
  for map in "$corpus"/vmf/*/*.vmf "$root"/testdata/maps/*.vmf "$root"/examples/*.vmf; do
    local name; name=$(echo "${map#"$corpus"/vmf/}" | sed "s|^$root/||; s|/|+|g; s|\.vmf$||")
    (cd "$root" && "$bin" compile "$map" -o "$dir/$name.bsp" --allowleak) >"$dir/$name.log" 2>&1
    echo "exit $?" >>"$dir/$name.log"
  done
  for b in $valve_bsps; do
    local name; name=$(echo "$b" | tr / +)
    for stage in vvis vrad; do
      cp "$corpus/bsp/$b.bsp" "$dir/$name.$stage.bsp"
      local extra=(); [ $stage = vvis ] && extra=(--no-prt)
      "$bin" $stage "$dir/$name.$stage.bsp" "${extra[@]}" >"$dir/$name.$stage.log" 2>&1
      echo "exit $?" >>"$dir/$name.$stage.log"
    done
  done
}

# The output folder and the seconds differ between runs; nothing else may.
mask() { sed -E "s#$out/(before|after)#OUT#g; s/([0-9]+ min )?[0-9]+(\.[0-9]+)? s\b/T s/g; s/[0-9]+ s left/T s left/g; s/[0-9.]+ Mrays\/s/R Mrays\/s/g" "$1"; }

if [ "${KEEP_BEFORE:-0}" = 1 ] && [ -d "$out/before" ]; then
  rm -rf "$out/after"; run "$after" "$out/after"
else
  rm -rf "$out/before" "$out/after"; run "$before" "$out/before" & run "$after" "$out/after"; wait
fi
source "$root/scripts/identity_compare.sh"
compare_outputs "$out"
