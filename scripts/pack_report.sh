#!/usr/bin/env bash
# The packing bars of issue 42, measured with the independent judges (../shared/judge):
# - mvm_kelly_rc1b and mvm_smog_b3a: judge_pack.py strips each map's custom files into a content
#   folder (with the other map's as decoys); `srcmap pack` packs the stripped map; the judge scores
#   it (recall, decoys packed, byte mismatches, lumps changed). Kelly twice: without and with a
#   population file (written here: two waves whose robots use the map's custom HUD icons); smog
#   with --rename-nav.
# - srctools' PackList (pack_srctools.py) on the same inputs, when srctools is installed.
# - a game VPK (written here) holding some of kelly's custom files: none of them may be packed.
# - vmf/kane8kki+whohl2mod/test_chapter1.vmf compiled with --pack and the chair model as content.
# - the time to pack the largest corpus map.
# Usage: SRCMAP_CORPUS=../shared/corpus scripts/pack_report.sh   (needs target/release/srcmap)
set -euo pipefail
cd "$(dirname "$0")/.."
corpus="${SRCMAP_CORPUS:?set SRCMAP_CORPUS to the corpus folder}"
judge="${JUDGE:-$(cd "$corpus/.." && pwd)/judge}"
srcmap="${SRCMAP:-$(pwd)/target/release/srcmap}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fast="$corpus/bsp/iassis+tf2-fastdl"

# A population file for kelly: the icons are the ones its pakfile ships for its missions.
pop="$work/mvm_kelly_rc1b_adv_packtest.pop"
cat >"$pop" <<'EOF'
#base robot_standard.pop
WaveSchedule
{
	StartingCurrency 400
	Wave
	{
		WaveSpawn { TotalCount 4 TFBot { Class Heavyweapons ClassIcon heavy_grapple Skill Hard } }
		WaveSpawn { TotalCount 1 TFBot { Class Soldier ClassIcon soldier_bison Attributes MiniBoss } }
	}
}
EOF

# true and false files of srctools' list (HIT lines) against truth.txt
srctools_counts() {
  local w=$1 bsp=$2
  if ! python3 -c 'import srctools' 2>/dev/null; then
    echo "srctools: not installed"
    return
  fi
  python3 "$judge/pack_srctools.py" "$bsp" "$w/content" 2>/dev/null | sed -n 's/^HIT //p' | sort >"$w/srctools.txt"
  echo "srctools: true $(comm -12 "$w/srctools.txt" "$w/truth.txt" | wc -l) false $(comm -23 "$w/srctools.txt" "$w/truth.txt" | wc -l)"
}

# case NAME MAP DECOY [srcmap pack flags...]
run_case() {
  local name=$1 map=$2 decoy=$3
  shift 3
  local w="$work/$name" setup=()
  mkdir -p "$w"
  if [ "$name" = kelly_pop ]; then setup=(--pop "$pop"); fi
  python3 "$judge/judge_pack.py" "$fast/$map.bsp" "$w" --decoys "$fast/$decoy.bsp" "${setup[@]}" >/dev/null
  # The map under its own name, so that the files named after it are found.
  cp "$w/stripped.bsp" "$w/$map.bsp"
  local t0 t1
  t0=$(date +%s.%N)
  "$srcmap" pack "$w/$map.bsp" --content "$w/content" -o "$w/packed.bsp" -q "$@"
  t1=$(date +%s.%N)
  echo "== $name ($(echo "$t1 - $t0" | bc) s)"
  python3 "$judge/judge_pack.py" --score "$w/packed.bsp" "$w" | python3 -c '
import json, sys
s = json.load(sys.stdin)
keys = ("truth_packed", "truth", "recall", "precision", "decoys_packed", "byte_mismatches", "other_packed",
        "generated_kept", "generated_expected", "lumps_changed", "missed")
print("judge: " + ", ".join("%s=%s" % (k, s[k]) for k in keys))'
  "$srcmap" pack "$w/$map.bsp" --content "$w/content" --json --dry-run "$@" | python3 -c '
import json, sys
print("srcmap: packed %d" % len(json.load(sys.stdin)["files"]))'
  srctools_counts "$w" "$w/$map.bsp"
}

run_case kelly mvm_kelly_rc1b mvm_smog_b3a
run_case kelly_pop mvm_kelly_rc1b mvm_smog_b3a
run_case smog mvm_smog_b3a mvm_kelly_rc1b --rename-nav

# A game whose VPK holds three of kelly's custom files: they must not be packed.
echo "== game VPK"
game="$work/game"
mkdir -p "$game"
printf 'GameInfo { game Test FileSystem { SearchPaths { game |gameinfo_path|pak01.vpk } } }\n' >"$game/gameinfo.txt"
in_vpk="materials/models/props_invader/saucer.vtf models/props_invader/saucer.phy particles/kelly_fx.pcf"
python3 - "$game/pak01_dir.vpk" "$work/kelly/content" $in_vpk <<'EOF'
import os, struct, sys, zlib
out, root, names = sys.argv[1], sys.argv[2], sys.argv[3:]
tree, data = bytearray(), bytearray()
by_ext = {}
for n in names:
    d, f = n.rsplit('/', 1)
    stem, ext = f.split('.', 1)
    by_ext.setdefault(ext, {}).setdefault(d, []).append((stem, open(os.path.join(root, n), 'rb').read()))
for ext, dirs in by_ext.items():
    tree += ext.encode() + b'\0'
    for d, files in dirs.items():
        tree += d.encode() + b'\0'
        for stem, b in files:
            tree += stem.encode() + b'\0' + struct.pack('<IHHIIH', zlib.crc32(b), 0, 0x7fff, len(data), len(b), 0xffff)
            data += b
        tree += b'\0'
    tree += b'\0'
tree += b'\0'
open(out, 'wb').write(struct.pack('<III', 0x55aa1234, 1, len(tree)) + tree + data)
EOF
"$srcmap" pack "$work/kelly/mvm_kelly_rc1b.bsp" --game "$game" --content "$work/kelly/content" -o "$work/kelly/game.bsp" -q
"$srcmap" pack "$work/kelly/mvm_kelly_rc1b.bsp" --game "$game" --content "$work/kelly/content" --json --dry-run | python3 -c '
import json, sys
r = json.load(sys.stdin)
print("srcmap: packed %d, from the game %s" % (len(r["files"]), r["from_game"]))'
listed=$("$srcmap" pak list "$work/kelly/game.bsp" | awk '{print $NF}')
for n in $in_vpk; do
  if echo "$listed" | grep -qx "$n"; then echo "PACKED (wrong): $n"; else echo "not packed (in the game's VPK): $n"; fi
done

echo "== compile --pack test_chapter1"
cp "$corpus/vmf/kane8kki+whohl2mod/test_chapter1.vmf" "$work/"
"$srcmap" compile "$work/test_chapter1.vmf" --fast --pack --content "$corpus/model/kane8kki+whohl2mod" -q
"$srcmap" pak list "$work/test_chapter1.bsp" | awk '{print $NF}' | grep '^models/' || echo "no model packed"

echo "== speed"
largest=$(ls -S "$corpus"/bsp/*/*.bsp | head -1)
cp "$largest" "$work/largest.bsp"
t0=$(date +%s.%N)
"$srcmap" pack "$work/largest.bsp" --content "$work/kelly/content" -o "$work/largest_packed.bsp" -q
t1=$(date +%s.%N)
echo "$(basename "$largest") ($(stat -c %s "$largest") bytes): $(echo "$t1 - $t0" | bc) s"
