#!/usr/bin/env bash
# Times `srcmap info` against the Python srctools package (VMF.parse(Keyvalues.parse(...))) on the
# corpus's largest VMFs, in one run, and prints the ratio.
#   scripts/bench_vmf.sh [N_FILES]       (SRCMAP_CORPUS defaults to ../shared/corpus)
set -euo pipefail
cd "$(dirname "$0")/.."
CORPUS="${SRCMAP_CORPUS:-$(cd .. && pwd)/shared/corpus}"
N="${1:-5}"
VENV="${BENCH_VENV:-$(pwd)/bench-venv}"
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
"$VENV/bin/python" -c "import srctools" 2>/dev/null || "$VENV/bin/pip" install -q srctools
cargo build --release -q -p srcmap-cli
FILES=$(ls -S "$CORPUS"/vmf/*/*.vmf | head -n "$N")
"$VENV/bin/python" - "$(pwd)/target/release/srcmap" $FILES <<'PY'
import subprocess, sys, time, os
from srctools.keyvalues import Keyvalues
from srctools.vmf import VMF

srcmap, files = sys.argv[1], sys.argv[2:]
def best(f, n):
    times = []
    for _ in range(n):
        t = time.perf_counter(); f(); times.append(time.perf_counter() - t)
    return min(times)

print(f"{'file':34} {'MB':>6} {'srcmap info (s)':>16} {'srctools (s)':>13} {'ratio':>7} {'srcmap MB/s':>12}")
tot_a = tot_b = 0.0
for path in files:
    size = os.path.getsize(path) / 1e6
    a = best(lambda: subprocess.run([srcmap, "info", "--json", path], check=True, stdout=subprocess.DEVNULL), 5)
    def py():
        with open(path, encoding="utf8") as fh:
            VMF.parse(Keyvalues.parse(fh, path))
    b = best(py, 2)
    tot_a += a; tot_b += b
    print(f"{os.path.basename(path):34} {size:6.2f} {a:16.4f} {b:13.3f} {b/a:6.1f}x {size/a:12.1f}")
print(f"{'total':34} {'':6} {tot_a:16.4f} {tot_b:13.3f} {tot_b/tot_a:6.1f}x")
PY
