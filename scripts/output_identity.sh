#!/usr/bin/env bash
# Behaviour check for refactors, the reading commands' half (scripts/compile_identity.sh is the
# compiler's): runs `info` (text and --json), `check` and `export` on every corpus BSP, and `info`
# on every other corpus file (VMF, NAV, DMX, VMAP, models), with two srcmap binaries, and compares
# stdout, stderr, exit status and the exported GLB byte for byte.
# Usage: scripts/output_identity.sh BEFORE_BIN AFTER_BIN [OUTDIR]
# Env: SRCMAP_CORPUS (default ../shared/corpus). Exit status 1 when anything differs.
set -u
before=$(realpath "$1"); after=$(realpath "$2"); out=${3:-/tmp/srcmap-output-identity}
root=$(cd "$(dirname "$0")/.." && pwd)
corpus=$(realpath "${SRCMAP_CORPUS:-$root/../shared/corpus}")

# One command's stdout, stderr and status in DIR/NAME.{out,err}; the output path is masked.
record() { # BIN DIR NAME ARGS...
  local bin=$1 dir=$2 name=$3; shift 3
  "$bin" "$@" >"$dir/$name.out" 2>"$dir/$name.err"
  echo "exit $?" >>"$dir/$name.err"
  sed -i "s#$dir#OUT#g" "$dir/$name.out" "$dir/$name.err"
}

run() { # BIN DIR
  local bin=$1 dir=$2; mkdir -p "$dir"
  for f in "$corpus"/bsp/*/*.bsp; do
    local name; name=$(echo "${f#"$corpus"/}" | tr / +)
    record "$bin" "$dir" "$name.info" info "$f"
    record "$bin" "$dir" "$name.info-json" info "$f" --json
    record "$bin" "$dir" "$name.check" check "$f"
    record "$bin" "$dir" "$name.export" export "$f" -o "$dir/$name.glb"
  done
  find "$corpus"/{vmf,nav,dmx,vmap,model} -type f | sort | while read -r f; do
    local name; name=$(echo "${f#"$corpus"/}" | tr / +)
    record "$bin" "$dir" "$name.info" info "$f"
    record "$bin" "$dir" "$name.info-json" info "$f" --json
  done
}

rm -rf "$out"
run "$before" "$out/before" & run "$after" "$out/after"; wait
source "$root/scripts/identity_compare.sh"
compare_outputs "$out"
