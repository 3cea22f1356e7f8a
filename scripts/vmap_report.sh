#!/usr/bin/env bash
# VMF <-> VMAP conversion judged on the corpus (issue 41), one table per judged figure:
# 1. every corpus VMF -> VMAP (keyvalues2), read by the independent ../shared/judge/check_vmap.py
#    against the VMF: meshes closed, per-material area error, entity classes, placement and key
#    values; the conversion time both ways (VMF -> VMAP, and that VMAP back -> VMF).
# 2. the entity mapping: kristiker+source1import's de_dust3.vmf converted with --game-classes cs2
#    against the de_dust3.vmap that tool made, entity by entity (matched by node id):
#    classname, origin, angles (0.01) and key values agreeing.
# 3. every corpus VMAP -> VMF: mesh faces that became one brush side whole, brushes, open meshes,
#    meshes left out, the per-material area kept (max relative error, cut faces left out), and
#    whether `srcmap vbsp --allowleak` compiles the result.
# 4. with ROUNDTRIP=1, every VMF/BSP pair (PAIRS selects): the VMF and its VMF -> VMAP -> VMF
#    round trip both compiled by our vbsp and judged against Valve's BSP (compare_vbsp.py,
#    compare_disp.py, compare_features.py).
# 5. with CULL=1, every corpus VMF -> VMAP with --cull: faces kept, faces and brushes culled
#    (a leaking map is refused).
# Usage: scripts/vmap_report.sh [SRCMAP_BIN] [OUTDIR]   Env: SRCMAP_CORPUS, SRCMAP_JUDGE, FILES (a
# grep pattern selecting corpus files), ROUNDTRIP, PAIRS, CULL, SOLID_SAMPLES (default 5000).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$(realpath "${1:-$root/target/release/srcmap}"); out=${2:-/tmp/vmap_report}
corpus=$(realpath "${SRCMAP_CORPUS:-$root/../shared/corpus}")
judge=${SRCMAP_JUDGE:-$(dirname "$corpus")/judge}
mkdir -p "$out"
now() { date +%s.%N; }
secs() { python3 -c "print('%.3f' % ($2 - $1))"; }

echo "== VMF -> VMAP (check_vmap.py against the VMF)"
printf '%-60s %7s %6s %9s %5s %9s %6s %7s %7s\n' file closed skip area_err ents placed kv to_vmap to_vmf
for vmf in "$corpus"/vmf/*/*.vmf; do
  rel=${vmf#"$corpus"/}; echo "$rel" | grep -qE "${FILES:-.}" || continue
  base=$out/$(echo "$rel" | tr '/+' '__'); rm -f "$base.vmap" "$base.back.vmf"
  t0=$(now); "$bin" convert "$vmf" "$base.vmap" --encoding keyvalues2 --json > "$base.conv.json" 2>"$base.err"; t1=$(now)
  if [ ! -s "$base.vmap" ]; then printf '%-60s  failed: %s\n' "$rel" "$(head -c 120 "$base.err")"; continue; fi
  "$bin" convert "$base.vmap" "$base.back.vmf" --json > "$base.back.json" 2>>"$base.err"; t2=$(now)
  python3 "$judge/check_vmap.py" "$base.vmap" "$vmf" > "$base.check.json" 2>/dev/null
  python3 - "$rel" "$base.check.json" "$base.conv.json" "$(secs "$t0" "$t1")" "$(secs "$t1" "$t2")" <<'PY'
import json, sys
rel, check, conv, t1, t2 = sys.argv[1:]
try: j = json.load(open(check))
except Exception: j = {}
try: c = json.load(open(conv))['report']
except Exception: c = {}
print('%-60s %7s %6s %9s %5s %9s %6s %7s %7s' % (
    rel[:60], '%s/%s' % (j.get('meshes_closed', '-'), j.get('meshes', '-')), len(c.get('warnings', [])),
    j.get('area_rel_err_max', '-'), 'yes' if j.get('entities_equal') else 'NO',
    '%s/%s' % (j.get('entities_placed', '-'), j.get('vmf_entities', '-')), j.get('keyvalues_equal', '-'), t1, t2))
PY
done

echo; echo "== entity mapping: de_dust3.vmf -> VMAP against kristiker+source1import's de_dust3.vmap"
dust=$corpus/vmf/kristiker+source1import/de_dust3.vmf
if [ -f "$dust" ]; then
  rm -f "$out/de_dust3.vmap"
  "$bin" convert "$dust" "$out/de_dust3.vmap" --encoding keyvalues2 --game-classes cs2 2>/dev/null
  python3 - "$judge" "$out/de_dust3.vmap" "$corpus/vmap/kristiker+source1import/de_dust3.vmap" <<'PY'
import json, sys
sys.path.insert(0, sys.argv[1]); sys.setrecursionlimit(20000)
import check_vmap as cv
def entities(path):
    out = {}
    for el in cv.load_vmap(path)['elements']:
        if el.cls == 'CMapEntity':
            p = el.get('entity_properties')
            kv = {k: v[1] for k, v in p.attrs.items() if k not in ('id', 'name')} if p else {}
            out[el.get('nodeID')] = (kv, el.get('origin', (0, 0, 0)), el.get('angles', (0, 0, 0)))
    return out
ours, theirs = entities(sys.argv[2]), entities(sys.argv[3])
agree = {'classname': 0, 'origin': 0, 'angles': 0, 'keyvalues': 0, 'all': 0}
for nid, (kv, o, a) in theirs.items():
    if nid not in ours: continue
    okv, oo, oa = ours[nid]
    same = dict(classname=okv.get('classname') == kv.get('classname'),
                origin=max(abs(x - y) for x, y in zip(o, oo)) <= 0.01,
                angles=max(abs((x - y + 180) % 360 - 180) for x, y in zip(a, oa)) <= 0.01,
                keyvalues=okv == kv)
    for k, v in same.items(): agree[k] += v
    agree['all'] += all(same.values())
n = len(theirs)
print('  entities: theirs %d, ours %d, matched by node id %d' % (n, len(ours), sum(1 for k in theirs if k in ours)))
print('  ' + '  '.join('%s %d/%d (%.1f%%)' % (k, v, n, 100.0 * v / max(n, 1)) for k, v in agree.items()))
PY
fi

echo; echo "== VMAP -> VMF (faces kept whole as one brush side, area per material, vbsp compiles)"
printf '%-55s %7s %16s %7s %5s %5s %9s %8s %7s\n' file meshes faces_unsplit brushes open left area_err compiles seconds
for vmap in "$corpus"/vmap/*/*; do
  rel=${vmap#"$corpus"/}; echo "$rel" | grep -qE "${FILES:-.}" || continue
  base=$out/$(echo "$rel" | tr '/+' '__'); rm -f "$base.vmf" "$base.bsp"
  t0=$(now); "$bin" convert "$vmap" "$base.vmf" --json > "$base.json" 2>"$base.err"; t1=$(now)
  if [ ! -s "$base.vmf" ]; then printf '%-55s  failed: %s\n' "$rel" "$(head -c 120 "$base.err")"; continue; fi
  compiled=no; "$bin" vbsp "$base.vmf" -o "$base.bsp" -q --allowleak >/dev/null 2>&1 && compiled=yes
  python3 - "$rel" "$base.json" "$compiled" "$(secs "$t0" "$t1")" <<'PY'
import json, sys
rel, path, compiled, t = sys.argv[1:]
r = json.load(open(path))['report']
m = r['meshes']; faces = sum(x['faces'] for x in m); whole = sum(x['faces_unsplit'] for x in m)
va, fa = r['area_vmap'], r['area_vmf']
err = max([abs(fa.get(k, 0.0) - v) / v for k, v in va.items() if v > 0] or [0.0])
left = sum(1 for w in r['warnings'] if 'CMapMesh' in w['place'])
print('%-55s %7d %16s %7d %5d %5d %9.4f %8s %7s' % (
    rel[:55], len(m), '%d/%d (%.1f%%)' % (whole, faces, 100.0 * whole / max(faces, 1)),
    sum(x['brushes'] for x in m), sum(1 for x in m if x['open']), left, err, compiled, t))
PY
done

if [ "${CULL:-0}" = 1 ]; then
  echo; echo "== VMF -> VMAP --cull (faces no playable space sees, by our vbsp's flood; leaking maps refused)"
  printf '%-60s %7s %8s %8s %7s\n' file faces culled brushes seconds
  for vmf in "$corpus"/vmf/*/*.vmf; do
    rel=${vmf#"$corpus"/}; echo "$rel" | grep -qE "${FILES:-.}" || continue
    base=$out/cull_$(echo "$rel" | tr '/+' '__'); rm -f "$base.vmap"
    t0=$(now); "$bin" convert "$vmf" "$base.vmap" --cull --json > "$base.json" 2>"$base.err"; t1=$(now)
    if [ ! -s "$base.vmap" ]; then printf '%-60s  refused: %s\n' "$rel" "$(head -c 100 "$base.err" | tr '\n' ' ')"; continue; fi
    python3 - "$rel" "$base.json" "$(secs "$t0" "$t1")" <<'PY'
import json, sys
rel, path, t = sys.argv[1:]
r = json.load(open(path))['report']
print('%-60s %7d %8d %8d %7s' % (rel[:60], r['faces'], r['culled_faces'], r['culled_brushes'], t))
PY
  done
fi

[ "${ROUNDTRIP:-0}" = 1 ] || exit 0
echo; echo "== round trip VMF -> VMAP -> VMF, compiled by our vbsp, judged against Valve's BSP"
samples=${SOLID_SAMPLES:-5000}
awk -F'\t' '$2=="vmf" && $10 ~ /pair: bsp\// {match($10, /pair: bsp\/[^ ;|]*\.bsp/); print $1 "\t" substr($10, RSTART+6, RLENGTH-6)}' \
  "$corpus/MANIFEST.tsv" | grep -E "${PAIRS:-.}" | while IFS=$'\t' read -r vmf valve; do
  base=$out/rt_$(basename "$vmf" .vmf); rm -f "$base".*
  "$bin" convert "$corpus/$vmf" "$base.vmap" 2>/dev/null && "$bin" convert "$base.vmap" "$base.rt.vmf" 2>/dev/null
  for kind in orig rt; do
    src=$corpus/$vmf; [ $kind = rt ] && src=$base.rt.vmf
    "$bin" vbsp "$src" -o "$base.$kind.bsp" -q --allowleak >/dev/null 2>&1
    v=$(python3 "$judge/compare_vbsp.py" "$base.$kind.bsp" "$corpus/$valve" "$samples" 2>/dev/null | tail -1)
    d=$(python3 "$judge/compare_disp.py" "$base.$kind.bsp" "$corpus/$valve" 2>/dev/null | tail -1)
    f=$(python3 "$judge/compare_features.py" "$base.$kind.bsp" "$corpus/$valve" 2>/dev/null | tail -1)
    python3 - "$vmf" "$kind" "${v:-null}" "${d:-null}" "${f:-null}" <<'PY'
import json, sys
vmf, kind = sys.argv[1:3]
def j(s):
    try: return json.loads(s) or {}
    except Exception: return {}
v, d, f = (j(s) for s in sys.argv[3:6])
print('%-55s %-4s brushes=%s sides=%s ents=%s area=%s solid=%s disp_tags=%s featfail=%s' % (
    vmf[4:59], kind, v.get('brushes', '-'), v.get('sides', '-'), v.get('ents_equal', '-'), v.get('area_err', '-'),
    v.get('solid_agree', '-'), d.get('tags_agree', '-'), len(f.get('fails', [])) if f else '-'))
PY
  done
done
