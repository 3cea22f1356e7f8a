#!/bin/bash
# Runs two srcmap binaries' vvis over the same BSP + PRT pairs and compares the visibility
# lumps byte for byte (the PVS/PAS a change to the flow must keep).
#
#   compare_pvs.sh OLD_SRCMAP NEW_SRCMAP DIR [THREADS...]
#
# DIR holds NAME.novis.bsp and NAME.prt for each map (e.g. `srcmap vbsp -q X.vmf -o
# DIR/X.bsp`, then the BSP renamed to X.novis.bsp); each binary gets its own copies. A map
# whose vis takes the old binary over VIS_TIMEOUT seconds (default 120) is skipped and named.
# Prints one line per map and thread count, and exits 1 if any lump differs.
set -u
old=$1 new=$2 dir=$3
shift 3
threads=("${@:-2}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
vis_lump() { # the visibility lump (index 4) of a BSP, as bytes on stdout
  python3 -c '
import struct, sys
data = open(sys.argv[1], "rb").read()
ofs, size = struct.unpack_from("<ii", data, 8 + 4 * 16)
sys.stdout.buffer.write(data[ofs:ofs + size])' "$1"
}
for bsp in "$dir"/*.novis.bsp; do
  name=$(basename "$bsp" .novis.bsp)
  for t in "${threads[@]}"; do
    for side in old new; do
      cp "$bsp" "$work/$side.bsp" && cp "$dir/$name.prt" "$work/$side.prt"
    done
    if ! timeout "${VIS_TIMEOUT:-120}" "$old" vvis -q --threads "$t" "$work/old.bsp" >/dev/null 2>&1; then
      echo "skipped $name threads=$t (old vis failed or over ${VIS_TIMEOUT:-120} s)"
      continue
    fi
    "$new" vvis -q --threads "$t" "$work/new.bsp" >/dev/null 2>&1 || { echo "FAILED $name threads=$t"; status=1; continue; }
    if cmp -s <(vis_lump "$work/old.bsp") <(vis_lump "$work/new.bsp"); then
      echo "same $name threads=$t $(vis_lump "$work/old.bsp" | wc -c) bytes"
    else
      echo "DIFFERENT $name threads=$t"
      status=1
    fi
  done
done
exit $status
