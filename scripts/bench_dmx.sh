#!/usr/bin/env bash
# srcmap's DMX reader side by side with srctools' (PyPI) on the same corpus files, in one run,
# plus srcmap's NAV reader on the largest NAV files. Prints a table with ratios.
#
#   SRCMAP_CORPUS=../shared/corpus scripts/bench_dmx.sh            # REPS=10 by default
#
# The venv (srctools) is created on first use under $BENCH_VENV (default /tmp/srcmap-bench-venv).
set -euo pipefail
cd "$(dirname "$0")/.."
CORPUS=${SRCMAP_CORPUS:-../shared/corpus}
VENV=${BENCH_VENV:-/tmp/srcmap-bench-venv}
REPS=${REPS:-10}
[ -d "$CORPUS/dmx" ] || { echo "corpus not found at $CORPUS (set SRCMAP_CORPUS)" >&2; exit 1; }

if [ ! -x "$VENV/bin/python" ]; then
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install -q srctools
fi

cargo build -q --release -p srcmap-dmx --example dmx_time
cargo build -q --release -p srcmap-nav --example nav_time
BIN=${CARGO_TARGET_DIR:-target}/release/examples

DMX_FILES=(
    "$CORPUS/dmx/TeamSpen210+srctools/tf_movies_text.dmx"
    "$CORPUS/dmx/TeamSpen210+srctools/tf_movies.dmx"
    "$CORPUS/dmx/kristiker+source1import/look_poses.dmx"
    "$CORPUS/dmx/kristiker+Datamodel.NET/binary4.dmx"
    "$CORPUS/dmx/kristiker+Datamodel.NET/taunt05_b5.dmx"
    "$CORPUS/dmx/SmolPuppyCat+portalcollab/fire_02.pcf"
    "$CORPUS/vmap/kristiker+source1import/de_dust3.vmap"
    "$CORPUS/vmap/Facepunch+facepunch.flatgrass/flatgrass_bak.vmap"
    "$CORPUS/vmap/bmddota+barebones/barebones.vmap"
)
NAV_FILES=(
    "$CORPUS/nav/lolleko+guesswho/gm_1950s_town.nav"
    "$CORPUS/nav/icewind1991+sourcenav/pl_badwater.nav"
    "$CORPUS/nav/bouletmarc+css_maps_content/cs_assault.nav"
    "$CORPUS/nav/bouletmarc+css_maps_content/de_nuke.nav"
)

OURS=$(mktemp) THEIRS=$(mktemp)
trap 'rm -f "$OURS" "$THEIRS"' EXIT
"$BIN/dmx_time" "$REPS" "${DMX_FILES[@]}" > "$OURS"
"$VENV/bin/python" - "$REPS" "${DMX_FILES[@]}" > "$THEIRS" <<'PY'
import sys, time, warnings
warnings.simplefilter("ignore")
from srctools.dmx import Element
reps = int(sys.argv[1])
for path in sys.argv[2:]:
    times = []
    try:
        for _ in range(reps):
            with open(path, "rb") as f:
                t = time.perf_counter()
                Element.parse(f)
                times.append((time.perf_counter() - t) * 1e3)
        times.sort()
        print(f"{path}\t{times[0]:.3f}\t{times[len(times) // 2]:.3f}")
    except Exception as e:  # srctools does not read binary 7/9
        print(f"{path}\t-\t-\t{type(e).__name__}: {str(e)[:60]}")
PY

python3 - "$OURS" "$THEIRS" "$REPS" <<'PY'
import sys
ours = {l.split("\t")[0]: l.rstrip("\n").split("\t") for l in open(sys.argv[1])}
theirs = {l.split("\t")[0]: l.rstrip("\n").split("\t") for l in open(sys.argv[2])}
print(f"DMX read, best of {sys.argv[3]} runs (ms); ratio = srctools / srcmap")
print(f"{'file':<34} {'encoding':<14} {'KiB':>7} {'srcmap':>9} {'srctools':>9} {'ratio':>7}")
for path, o in ours.items():
    head = open(path, "rb").read(80).split(b"\n")[0].decode("latin-1")
    enc = " ".join(head.split()[3:5]) if "encoding" in head else "?"
    t = theirs.get(path, [path, "-", "-"])
    ratio = f"{float(t[1]) / float(o[2]):.0f}x" if t[1] != "-" else "n/a"
    name = path.split("/")[-1]
    print(f"{name:<34} {enc:<14} {int(o[1]) / 1024:>7.0f} {float(o[2]):>9.2f} {t[1]:>9} {ratio:>7}" + (f"   ({t[3]})" if len(t) > 3 else ""))
PY
echo
echo "NAV read, best of $REPS runs (ms)"
"$BIN/nav_time" "$REPS" "${NAV_FILES[@]}" | awk -F'\t' '{ n = split($1, p, "/"); printf "%-34s %7.0f KiB %9.2f ms  %6.0f MB/s\n", p[n], $2 / 1024, $3, $2 / 1e3 / $3 }'
