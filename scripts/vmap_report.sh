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

echo "== VMF -> VMAP (check_vmap.py against the VMF; texture coordinates by scripts/vmap_texcoords.py)"
echo "   closed: all meshes / brush (non-displacement) meshes; area_err: the judge's max over materials, area_nd: over"
echo "   materials not in its disp_materials, area_kept: the same with the sides vbsp drops from displacement brushes"
echo "   taken off the VMF's area (materials over 0.1 % listed below the row); tex_err: largest texel error modulo the"
echo "   texture, bad: corners over 0.001 texel, >f32: of those, off by more than f32 rounding of the stored value (faces"
echo "   over 2^15 texels wide), shifted: corners stored whole textures off (far faces, as Hammer does)"
printf '%-52s %9s %9s %4s %8s %8s %8s %4s %9s %6s %7s %7s %5s %5s %7s %6s %6s\n' file closed brush skip area_err area_nd \
  area_kept ents placed kv corners tex_err bad '>f32' shifted to_vmap to_vmf
for vmf in "$corpus"/vmf/*/*.vmf; do
  rel=${vmf#"$corpus"/}; echo "$rel" | grep -qE "${FILES:-.}" || continue
  base=$out/$(echo "$rel" | tr '/+' '__'); rm -f "$base.vmap" "$base.back.vmf"
  t0=$(now); "$bin" convert "$vmf" "$base.vmap" --encoding keyvalues2 --json > "$base.conv.json" 2>"$base.err"; t1=$(now)
  if [ ! -s "$base.vmap" ]; then printf '%-52s  failed: %s\n' "$rel" "$(head -c 120 "$base.err")"; continue; fi
  "$bin" convert "$base.vmap" "$base.back.vmf" --json > "$base.back.json" 2>>"$base.err"; t2=$(now)
  python3 "$judge/check_vmap.py" "$base.vmap" "$vmf" > "$base.check.json" 2>/dev/null
  SRCMAP_JUDGE=$judge python3 "$root/scripts/vmap_texcoords.py" "$base.vmap" "$vmf" > "$base.tex.json" 2>/dev/null
  python3 - "$judge" "$rel" "$vmf" "$base" "$(secs "$t0" "$t1")" "$(secs "$t1" "$t2")" <<'PY'
import json, math, sys
from collections import defaultdict
judge, rel, vmf, base, t1, t2 = sys.argv[1:]
sys.path.insert(0, judge); sys.setrecursionlimit(20000)
import check_vmap as cv
def load(suffix):
    try: return json.load(open(base + suffix))
    except Exception: return {}
j, c, t = load('.check.json'), load('.conv.json').get('report', {}), load('.tex.json')
# The VMF's displacement solids (their grid meshes are open by nature) and the area of the sides vbsp drops from them.
solids, disp_ids, dropped = [], set(), defaultdict(float)
for b in cv.parse_vmf(vmf)[2]:
    if b[0] in ('world', 'entity', 'hidden'):
        cv.vmf_solids(b, False, solids)
for sol in solids:
    polys = cv.solid_polygons(sol)
    if any(d for _, _, d in polys):
        disp_ids.add(int(dict(sol[1]).get('id', '0')))
        for poly, mat, d in polys:
            if not d and poly not in (None, 'bad'):
                dropped[mat] += cv.poly_area(poly)
brush = [m for m in j.get('mesh_list', []) if m.get('nodeID') not in disp_ids]
disp_mats = set(j.get('vmf', {}).get('disp_materials', {}))
vmf_area, vmap_area = j.get('vmf', {}).get('area', {}), j.get('area', {})
nd = {m: e for m, e in j.get('area_rel_err', {}).items() if m not in disp_mats}
def kept_err(m):
    want = vmf_area.get(m, 0.0) - dropped.get(m, 0.0)
    got = vmap_area.get(m, 0.0)
    return abs(got - want) / want if want > 1e-6 else (0.0 if got < 1e-6 else 1.0)
kept = {m: kept_err(m) for m in nd}
fmt = lambda d: '%.2g' % max(d.values()) if d else '-'
print('%-52s %9s %9s %4s %8s %8s %8s %4s %9s %6s %7s %7s %5s %5s %7s %6s %6s' % (
    rel[4:56], '%s/%s' % (j.get('meshes_closed', '-'), j.get('meshes', '-')),
    '%d/%d' % (sum(1 for m in brush if m.get('closed')), len(brush)), len(c.get('warnings', [])),
    '%.2g' % j['area_rel_err_max'] if 'area_rel_err_max' in j else '-', fmt(nd), fmt(kept),
    'yes' if j.get('entities_equal') else 'NO', '%s/%s' % (j.get('entities_placed', '-'), j.get('vmf_entities', '-')),
    j.get('keyvalues_equal', '-'), t.get('corners', '-'), '%.2g' % t['max_err_wrapped'] if t else '-',
    t.get('over_0_001_wrapped', '-'), t.get('over_0_001_beyond_f32', '-'), t.get('over_0_001', '-'), t1, t2))
for m in sorted(m for m in nd if nd[m] > 0.001):
    print('%-52s   %s: vmap %.1f vmf %.1f (err %.3g), dropped displacement-brush sides %.1f (kept err %.3g)' % (
        '', m, vmap_area.get(m, 0.0), vmf_area.get(m, 0.0), nd[m], dropped.get(m, 0.0), kept[m]))
PY
done

echo; echo "== instances: func_instance -> CMapPrefab read as the instance, and the entities within (scripts/vmap_prefabs.py)"
echo "   placed: prefabs at an instance's place and target; equal: class counts with a prefab counted as func_instance;"
echo "   within: entities inside the instances, expanded both ways, matched/vmap/vmf; missing: instance/prefab files not"
echo "   found; valve: the expanded VMAP's entities matched by class, origin and rotation in the BSP Valve compiled"
printf '%-52s %9s %7s %9s %6s %15s %9s %11s\n' file instances prefabs placed equal within missing valve
pairs=$(awk -F'\t' '$2=="vmf" && $10 ~ /pair: bsp\// {match($10, /pair: bsp\/[^ ;|]*\.bsp/); print $1 "\t" substr($10, RSTART+6, RLENGTH-6)}' "$corpus/MANIFEST.tsv")
instance_row() {  # VMF NAME [VALVE_BSP]: convert into a folder of its own; Valve's BSP is the VMF's pair by default
  local vmf=$1 name=$2 dir=$out/inst_$(echo "$2" | tr '/+' '__') valve=${3:-}
  [ -n "$valve" ] || valve=$(printf '%s\n' "$pairs" | awk -F'\t' -v v="${vmf#"$corpus"/}" '$1==v {print $2}')
  rm -rf "$dir"; mkdir -p "$dir"
  "$bin" convert "$vmf" "$dir/map.vmap" --encoding keyvalues2 >/dev/null 2>&1
  SRCMAP_JUDGE=$judge python3 "$root/scripts/vmap_prefabs.py" "$dir/map.vmap" "$vmf" ${valve:+"$corpus/$valve"} 2>/dev/null |
    python3 -c '
import json, sys
name = sys.argv[1]
try: r = json.load(sys.stdin)
except Exception: print("%-52s  failed" % name); sys.exit()
a, w, v = r["as_instances"], r["within"], r.get("valve")
print("%-52s %9d %7d %9s %6s %15s %9s %11s" % (name[:52], a["func_instances"], a["prefabs"],
    "%d/%d" % (a["placed"], a["func_instances"]), "yes" if a["classes_equal"] else "NO",
    "%d/%d/%d" % (w["matched"], w["vmap"], w["vmf"]), "%d/%d" % (w["instance_files_missing"], w["prefab_files_missing"]),
    "%d/%d" % (v["matched"], v["bsp"]) if v else "-"))' "$name"
}
for vmf in "$corpus"/vmf/*/*.vmf; do
  rel=${vmf#"$corpus"/}; echo "$rel" | grep -qE "${FILES:-.}" || continue
  grep -qi '"classname" "func_instance"' "$vmf" && instance_row "$vmf" "${rel#vmf/}"
done
# rot_main places instances/rot_inst.vmf (srctools' tests/test_vec layout); the corpus keeps the two side by side:
# staged in that layout, the expanded VMAP is judged against the BSP Valve compiled with the instance found.
rot=$corpus/vmf/TeamSpen210+srctools
if [ -f "$rot/rot_inst.vmf" ] && echo "vmf/TeamSpen210+srctools/rot_main.vmf" | grep -qE "${FILES:-.}"; then
  mkdir -p "$out/rot_staged/instances"; cp "$rot/rot_main.vmf" "$out/rot_staged/"; cp "$rot/rot_inst.vmf" "$out/rot_staged/instances/"
  instance_row "$out/rot_staged/rot_main.vmf" "rot_main.vmf, instances/rot_inst.vmf staged" \
    bsp/TeamSpen210+srctools/rot_main.bsp
fi

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
  base=$out/rt_$(echo "${vmf#vmf/}" | tr '/+' '__' | sed 's/\.vmf$//'); rm -f "$base".*
  "$bin" convert "$corpus/$vmf" "$base.vmap" 2>/dev/null && "$bin" convert "$base.vmap" "$base.rt.vmf" 2>/dev/null
  for kind in orig rt; do
    src=$corpus/$vmf; [ $kind = rt ] && src=$base.rt.vmf
    "$bin" vbsp "$src" -o "$base.$kind.bsp" -q --allowleak >/dev/null 2>&1
    python3 "$judge/compare_vbsp.py" "$base.$kind.bsp" "$corpus/$valve" "$samples" 2>/dev/null | tail -1 > "$base.$kind.vbsp.json"
    python3 "$judge/compare_disp.py" "$base.$kind.bsp" "$corpus/$valve" 2>/dev/null | tail -1 > "$base.$kind.disp.json"
    python3 "$judge/compare_features.py" "$base.$kind.bsp" "$corpus/$valve" 2>/dev/null | tail -1 > "$base.$kind.feat.json"
  done
  python3 - "$vmf" "$base" <<'PY'
import json, sys
vmf, base = sys.argv[1:3]
def j(kind, judge):
    try: return json.load(open('%s.%s.%s.json' % (base, kind, judge))) or {}
    except Exception: return {}
for kind in ('orig', 'rt'):
    v, d, f = (j(kind, x) for x in ('vbsp', 'disp', 'feat'))
    print('%-55s %-4s brushes=%s sides=%s ents=%s area=%s solid=%s disp_tags=%s featfail=%s' % (
        vmf[4:59], kind, v.get('brushes', '-'), v.get('sides', '-'), v.get('ents_equal', '-'), v.get('area_err', '-'),
        v.get('solid_agree', '-'), d.get('tags_agree', '-'), len(f.get('fails', [])) if f else '-'))
# Every figure of the three judges that the round trip changed (same value: the bar is met).
changed = ['%s.%s %s -> %s' % (judge, k, a.get(k), b.get(k))
           for judge in ('vbsp', 'disp', 'feat') for a, b in [(j('orig', judge), j('rt', judge))]
           for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]
print('%-55s      %s' % ('', 'every judged figure equal' if not changed else 'CHANGED: ' + '; '.join(changed)))
PY
done
