#!/usr/bin/env bash
# Side-by-side BSP read benchmark, in one run, on every Source BSP of the corpus:
#   srcmap  (BspView::from_file_in: open + full typed parse of every lump, from bytes in memory;
#            also BspView::parse with Vecs, and the owned Bsp::parse)
#   vbsp    (the Rust `vbsp` crate 0.9.1, Bsp::read, same bytes)
#   srctools (Python, BSP(path) then every parsed lump touched)
# plus file read time vs srcmap's open (header + directory).
# Usage: SRCMAP_CORPUS=../shared/corpus scripts/bench_bsp.sh   (BENCH_VENV to pick the venv)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
CORPUS="${SRCMAP_CORPUS:-$ROOT/../shared/corpus}"
VENV="${BENCH_VENV:-$ROOT/bench-venv}"
OUT="${BENCH_OUT:-$(mktemp -d)}"
mkdir -p "$OUT"

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
def fmt(v):
    return "-" if math.isnan(v) else f"{v:.1f}"
def ratio(a, b):
    return "-" if math.isnan(a) or math.isnan(b) or b == 0 else f"{a / b:.1f}x"
geo = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs)) if xs else math.nan
print("Times in microseconds, single thread (no parallelism anywhere). srcmap = BspView::from_file_in:")
print("open + every lump typed (records in place where the bytes allow, the rest decoded into one")
print("arena created and freed in the run); view(Vec) = BspView::parse; owned = Bsp::parse;")
print("subset = BspView::parse_only on the lumps vbsp's Bsp::read parses; +pak = srcmap, then the")
print("pakfile's zip directory read too (vbsp reads it in Bsp::read).")
print(f"{'file':<52} {'MB':>5} {'read':>7} {'open':>5} {'srcmap':>8} {'+pak':>8} {'view(Vec)':>9} {'owned':>8} {'subset':>8} {'vbsp':>8} {'srctools':>10} {'vs vbsp':>7} {'owned/vbsp':>10} {'vs srctools':>11}")
cols = ["srcmap_parse_us", "srcmap_pak_dir_us", "srcmap_view_vec_us", "srcmap_owned_us", "srcmap_vbsp_set_us"]
tot_v = {c: 0.0 for c in cols}
tot_vbsp = 0.0
tot_p, tot_sp, tot_op = 0.0, 0.0, 0.0
ratios = {c: [] for c in cols}
ratios_p, ratios_op, open_frac = [], [], []
for f, r in rust.items():
    s = num(r["srcmap_parse_us"])
    o = num(r["srcmap_owned_us"])
    v, op, rd = num(r["vbsp_parse_us"]), num(r["srcmap_open_us"]), num(r["read_us"])
    p = num(py.get(f, {}).get("srctools_us"))
    name = f.replace(prefix, "")
    print(f"{name[:52]:<52} {int(r['bytes'])/1e6:>5.2f} {fmt(rd):>7} {fmt(op):>5} {fmt(s):>8} {fmt(num(r['srcmap_pak_dir_us'])):>8} {fmt(num(r['srcmap_view_vec_us'])):>9} {fmt(o):>8} {fmt(num(r['srcmap_vbsp_set_us'])):>8} {fmt(v):>8} {fmt(p):>10} {ratio(v, s):>7} {ratio(v, o):>10} {ratio(p, s):>11}")
    if not math.isnan(v):
        tot_vbsp += v
        for c in cols:
            tot_v[c] += num(r[c])
            ratios[c].append(v / num(r[c]))
    if not math.isnan(p):
        tot_sp += s; tot_op += o; tot_p += p; ratios_p.append(p / s); ratios_op.append(p / o)
    if not math.isnan(rd) and rd > 0:
        open_frac.append(op / rd)
    if math.isnan(v) and r.get("vbsp_error"):
        print(f"{'':<52} vbsp: {r['vbsp_error'][:90]}")
    err = py.get(f, {}).get("srctools_error")
    if err:
        print(f"{'':<52} srctools: {err[:90]}")
print()
n = len(ratios["srcmap_parse_us"])
for c, label in [("srcmap_parse_us", "srcmap full typed parse (arena view)"), ("srcmap_pak_dir_us", "srcmap full typed parse + pak directory"), ("srcmap_view_vec_us", "srcmap view with Vecs"), ("srcmap_owned_us", "srcmap owned Bsp::parse"), ("srcmap_vbsp_set_us", "srcmap view, vbsp's lumps only")]:
    xs = ratios[c]
    print(f"vbsp / {label}: {n} files both parse; total {ratio(tot_vbsp, tot_v[c])}, geometric mean {geo(xs):.2f}x, min {min(xs, default=math.nan):.2f}x, files under 2x: {sum(x < 2 for x in xs)}")
print(f"srctools / srcmap full typed parse: {len(ratios_p)} files; total {ratio(tot_p, tot_sp)}, geometric mean {geo(ratios_p):.1f}x, min {min(ratios_p, default=math.nan):.1f}x")
print(f"srctools / srcmap owned Bsp::parse: total {ratio(tot_p, tot_op)}, geometric mean {geo(ratios_op):.1f}x, min {min(ratios_op, default=math.nan):.1f}x")
print(f"open (header + directory) / file read time: median {sorted(open_frac)[len(open_frac)//2]*100:.2f}%, max {max(open_frac)*100:.2f}%")
PY
echo "raw TSV: $OUT"
