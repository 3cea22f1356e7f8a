#!/usr/bin/env bash
# Decompile recompile-equivalence of every corpus VMF/BSP pair. For each pair two rows, both
# compiled by our vbsp and judged against Valve's BSP by the independent judges
# (../shared/judge): `orig`, the pair's own VMF; `decomp`, `srcmap decompile` of Valve's BSP.
# Columns: brushes and sides (ours/Valve's), entity classes equal, area_err, solid_agree,
# displacement tags agreeing, feature and prop judge failures, texture-aligned fraction, and
# for `decomp` the VMF-level figures against the original VMF (vmfstats.py: solids, sides,
# class and per-material side L1), `mat_l1_bsp` (that L1 over what a BSP can hold: see
# bsp_mat_l1) and the decompile time.
# With BSPSOURCE_JAR set (a BSPSource CLI jar, run with `java -jar`), a third row, `bspsrc`: the
# same judges on BSPSource's decompile of Valve's BSP, compiled by our vbsp.
# Usage: scripts/decompile_report.sh [SRCMAP_BIN] [OUTDIR]   Env: SRCMAP_CORPUS, SRCMAP_JUDGE,
# SOLID_SAMPLES (compare_vbsp's points, default 5000), PAIRS (a grep pattern to select pairs),
# BSPSOURCE_JAR.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$(realpath "${1:-$root/target/release/srcmap}"); out=${2:-/tmp/decompile_report}
source "$root/scripts/corpus_pairs.sh"
samples=${SOLID_SAMPLES:-5000}

# Compiles VMF $1 to BSP $2 with vbsp (the judged stage) and the corpus material table.
compile() { "$bin" vbsp "$1" -o "$2" -q --allowleak --materials "$out/materials.json" >/dev/null 2>&1; }

# Runs every BSP judge on $1 against Valve's $2; writes $3.json (one JSON object per judge).
judge_all() {
  {
    echo "{\"vbsp\": $(python3 "$judge/compare_vbsp.py" "$1" "$2" "$samples" 2>/dev/null | tail -1 || echo null),"
    echo "\"disp\": $(python3 "$judge/compare_disp.py" "$1" "$2" 2>/dev/null | tail -1 || echo null),"
    echo "\"feat\": $(python3 "$judge/compare_features.py" "$1" "$2" 2>/dev/null | tail -1 || echo null),"
    echo "\"props\": $(python3 "$judge/compare_props.py" "$1" "$2" 2>/dev/null | tail -1 || echo null),"
    echo "\"align\": $(python3 "$judge/texalign.py" "$1" "$2" 2>/dev/null | tail -1 || echo null)}"
  } > "$3.json"
}

# Per-material side L1 of decompiled VMF $1 against source VMF $2 over what a BSP can hold: the
# source's Hammer-hidden solids and hint/skip-only solids left out (vbsp never compiles them),
# and on both sides the non-displaced sides of displaced solids (vbsp drops those brushes).
bsp_mat_l1() {
  python3 - "$1" "$2" <<'PY'
import collections, re, sys
def sides(path):
    out, stack, cur, hidden_at = [], [], None, None
    lines = open(path, errors='replace').read().split('\n')
    for i, line in enumerate(lines):
        s = line.strip()
        if s == '{':
            stack.append(lines[i - 1].strip()); continue
        if s == '}':
            name = stack.pop()
            if name == 'side' and cur is not None and cur[1] is not None:
                cur[0].append(tuple(cur[1])); cur[1] = None
            if name == 'solid' and cur is not None:
                mats = [m for m, _ in cur[0]]
                tool_only = all(m in ('tools/toolshint', 'tools/toolsskip') for m in mats)
                displaced = any(d for _, d in cur[0])
                if not (cur[2] or tool_only):
                    out += [m for m, d in cur[0] if d or not displaced]
                cur = None
            if hidden_at is not None and len(stack) < hidden_at:
                hidden_at = None
            continue
        if s == 'hidden' and hidden_at is None:
            hidden_at = len(stack) + 1
        if s == 'solid' and stack[-1:] != ['side']:
            cur = [[], None, hidden_at is not None]
        if s == 'side' and cur is not None:
            cur[1] = ['', False]
        m = re.match(r'"material" "(.*)"', s)
        if m and cur is not None and cur[1] is not None and stack[-1] == 'side':
            cur[1][0] = m.group(1).lower()
        if s == 'dispinfo' and cur is not None and cur[1] is not None:
            cur[1][1] = True
    return collections.Counter(out)
a, b = sides(sys.argv[1]), sides(sys.argv[2])
print(round(sum(abs(a[k] - b[k]) for k in set(a) | set(b)) / (sum(b.values()) or 1), 3))
PY
}

row() { # kind json [vmfstats-json] [seconds] [bsp-level mat L1]
  python3 - "$@" <<'PY'
import json, sys
kind, path = sys.argv[1], sys.argv[2]
def load(p):
    try: return json.load(open(p))
    except Exception: return None
j = load(path) or {}
v, d, f, p, a = (j.get(k) or {} for k in ('vbsp', 'disp', 'feat', 'props', 'align'))
cells = [kind,
         '%s/%s' % tuple(v.get('brushes', ['-', '-'])), '%s/%s' % tuple(v.get('sides', ['-', '-'])),
         'ents=%s' % v.get('ents_equal', '-'), 'area=%s' % v.get('area_err', '-'),
         'solid=%s' % v.get('solid_agree', '-'),
         'tags=%s' % (d.get('tags_agree', '-') if d.get('disps', [0, 0])[1] else 'n/a'),
         'featfail=%s' % len(f.get('fails', [])) if f else 'featfail=-',
         'propfail=%s' % len(p.get('fails', [])) if p else 'propfail=-',
         'clusters=%s/%s' % tuple(v.get('clusters', ['-', '-'])),
         'aligned=%s' % a.get('aligned_frac', '-')]
if len(sys.argv) > 3:
    s = load(sys.argv[3]) or {}
    dc, og = s.get('decomp', {}), s.get('orig', {})
    cells += ['vmf solids %s/%s sides %s/%s class_l1=%s mat_l1=%s' % (
        dc.get('solids'), og.get('solids'), dc.get('sides'), og.get('sides'),
        s.get('class_l1'), s.get('mat_side_l1')), 'mat_l1_bsp=%s' % sys.argv[5], '%ss' % sys.argv[4]]
print('  ' + '  '.join(str(c) for c in cells))
PY
}

# Decompiles Valve's BSP $3 with command $2 (given the BSP and the VMF to write), compiles the
# VMF and prints row $1 against Valve's BSP and the pair's VMF $4.
decompiled_row() {
  local kind=$1 decompiler=$2 valve=$3 source=$4 dir="$out/$1/$5" map=$6
  mkdir -p "$dir"
  local dvmf="$dir/$map.vmf" dbsp="$dir/$map.bsp" start secs
  start=$(date +%s.%N)
  if ! $decompiler "$valve" "$dvmf" >/dev/null 2>&1 || [ ! -s "$dvmf" ]; then echo "  $kind: decompile failed"; return; fi
  secs=$(echo "$(date +%s.%N) - $start" | bc | sed 's/^\./0./')
  SRCMAP="$bin" python3 "$judge/vmfstats.py" "$dvmf" "$source" > "$dvmf.stats.json" 2>/dev/null
  local bsp_l1; bsp_l1=$(bsp_mat_l1 "$dvmf" "$source" 2>/dev/null || echo -)
  if compile "$dvmf" "$dbsp"; then judge_all "$dbsp" "$valve" "$dbsp"; row "$kind" "$dbsp.json" "$dvmf.stats.json" "$secs" "$bsp_l1"
  else echo "  $kind: recompile failed"; fi
}
srcmap_decompile() { "$bin" decompile "$1" -o "$2" -q; }
bspsource_decompile() { java -jar "$BSPSOURCE_JAR" "$1" -o "$2"; }

corpus_pairs | grep -E "${PAIRS:-.}" | while IFS=$'\t' read -r vmf valve; do
  repo=$(basename "$(dirname "$valve")"); map=$(basename "$valve" .bsp)
  echo "$repo/$map"
  # One folder per side: the file's stem names the map (`maps/<map>/…` patched materials).
  mkdir -p "$out/orig/$repo"
  orig="$out/orig/$repo/$map.bsp"
  if compile "$corpus/$vmf" "$orig"; then judge_all "$orig" "$corpus/$valve" "$orig"; row orig "$orig.json"
  else echo "  orig: compile failed"; fi
  decompiled_row decomp srcmap_decompile "$corpus/$valve" "$corpus/$vmf" "$repo" "$map"
  if [ -n "${BSPSOURCE_JAR:-}" ]; then
    decompiled_row bspsrc bspsource_decompile "$corpus/$valve" "$corpus/$vmf" "$repo" "$map"
  fi
done
