#!/usr/bin/env bash
# Side-by-side BSP read benchmark, in one run, on every Source BSP of the corpus:
#   srcmap  (Bsp::parse: open + full typed parse of every lump, from bytes in memory)
#   vbsp    (the Rust `vbsp` crate 0.9.1, Bsp::read, same bytes)
#   srctools (Python, BSP(path) then every parsed lump touched)
# plus file read time vs srcmap's open (header + directory).
# Usage: SRCMAP_CORPUS=../shared/corpus scripts/bench_bsp.sh   (BENCH_VENV to pick the venv)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
CORPUS="${SRCMAP_CORPUS:-$ROOT/../shared/corpus}"
VENV="${BENCH_VENV:-$ROOT/bench-venv}"
OUT="${BENCH_OUT:-$(mktemp -d)}"

if [ ! -x "$VENV/bin/python" ]; then
    python3 -m venv "$VENV"
fi
"$VENV/bin/python" -c "import srctools" 2>/dev/null || "$VENV/bin/pip" install -q srctools

export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target/bench-vbsp-peer}"
cargo build -q --release --manifest-path "$ROOT/scripts/bench-vbsp-peer/Cargo.toml"
HARNESS="$CARGO_TARGET_DIR/release/bench-vbsp-peer"

# Source BSPs only (VBSP/PSBV magic).
mapfile -t FILES < <(find "$CORPUS/bsp" -name '*.bsp' -print0 | xargs -0 python3 -c '
import sys
for p in sorted(sys.argv[1:]):
    with open(p, "rb") as f:
        if f.read(4) in (b"VBSP", b"PSBV"):
            print(p)')

"$HARNESS" "${FILES[@]}" > "$OUT/rust.tsv"
"$VENV/bin/python" "$ROOT/scripts/bench_bsp.py" "${FILES[@]}" > "$OUT/srctools.tsv"

python3 - "$OUT/rust.tsv" "$OUT/srctools.tsv" "$CORPUS/bsp/" <<'PY'
import csv, sys, math
rust = {r["file"]: r for r in csv.DictReader(open(sys.argv[1]), delimiter="\t")}
py = {r["file"]: r for r in csv.DictReader(open(sys.argv[2]), delimiter="\t")}
prefix = sys.argv[3]
def num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return math.nan
def fmt(v, unit=1000.0, digits=2):
    return "-" if math.isnan(v) else f"{v / unit:.{digits}f}"
def ratio(a, b):
    return "-" if math.isnan(a) or math.isnan(b) or b == 0 else f"{a / b:.1f}x"
print(f"{'file':<58} {'MB':>6} {'read ms':>8} {'open us':>8} {'srcmap ms':>9} {'subset ms':>9} {'vbsp ms':>8} {'srctools ms':>11} {'vs vbsp':>8} {'subset vs vbsp':>14} {'vs srctools':>11}")
tot = dict(s=0.0, v=0.0, sv=0.0, p=0.0, sp=0.0, sub=0.0)
ratios_v, ratios_p, ratios_sub, open_frac = [], [], [], []
for f, r in rust.items():
    s, v, o, rd = num(r["srcmap_parse_us"]), num(r["vbsp_parse_us"]), num(r["srcmap_open_us"]), num(r["read_us"])
    sub = num(r["srcmap_vbsp_set_us"])
    p = num(py.get(f, {}).get("srctools_us"))
    name = f.replace(prefix, "")
    print(f"{name:<58} {int(r['bytes'])/1e6:>6.2f} {fmt(rd):>8} {fmt(o, 1, 1):>8} {fmt(s):>9} {fmt(sub):>9} {fmt(v):>8} {fmt(p):>11} {ratio(v, s):>8} {ratio(v, sub):>14} {ratio(p, s):>11}")
    if not math.isnan(v):
        tot["sv"] += s; tot["v"] += v; tot["sub"] += sub; ratios_v.append(v / s); ratios_sub.append(v / sub)
    if not math.isnan(p):
        tot["sp"] += s; tot["p"] += p; ratios_p.append(p / s)
    if not math.isnan(rd) and rd > 0:
        open_frac.append(o / rd)
    if math.isnan(v) and r.get("vbsp_error"):
        print(f"{'':<58} vbsp: {r['vbsp_error'][:90]}")
    err = py.get(f, {}).get("srctools_error")
    if err:
        print(f"{'':<58} srctools: {err[:90]}")
geo = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs)) if xs else math.nan
print()
print(f"vbsp: {len(ratios_v)} files both parse; total time ratio {ratio(tot['v'], tot['sv'])}, geometric mean {geo(ratios_v):.1f}x, min {min(ratios_v, default=math.nan):.1f}x")
print(f"vbsp vs srcmap parsing only the lumps vbsp parses: total time ratio {ratio(tot['v'], tot['sub'])}, geometric mean {geo(ratios_sub):.1f}x, min {min(ratios_sub, default=math.nan):.1f}x")
print(f"srctools: {len(ratios_p)} files both parse; total time ratio {ratio(tot['p'], tot['sp'])}, geometric mean {geo(ratios_p):.1f}x, min {min(ratios_p, default=math.nan):.1f}x")
print(f"open (header + directory) / file read time: median {sorted(open_frac)[len(open_frac)//2]*100:.2f}%, max {max(open_frac)*100:.2f}%")
PY
echo "raw TSV: $OUT"
