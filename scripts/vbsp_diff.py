"""Where a BSP compiled by srcmap differs from Valve's: entity classes, brush contents, face area
per material, and solid/empty disagreement by region. Needs srctools.
Usage: vbsp_diff.py OURS.bsp VALVE.bsp"""
import sys, collections, random
from srctools.bsp import BSP
from srctools.math import Vec

def load(p):
    b = BSP(p)
    area = collections.Counter()
    for f in b.faces:
        area[(f.texinfo.mat if f.texinfo else '').lower()] += f.area
    ents = collections.Counter(e['classname'].lower() for e in b.ents.entities)
    conts = collections.Counter(br.contents.value for br in b.brushes)
    return b, area, ents, conts

(ob, oa, oe, oc), (vb, va, ve, vc) = load(sys.argv[1]), load(sys.argv[2])
print('entities only ours:', dict(oe - ve), 'only valve:', dict(ve - oe))
print('brush contents ours-valve:', {hex(k): oc[k] - vc[k] for k in set(oc) | set(vc) if oc[k] != vc[k]})
tot = sum(va.values()) or 1
rows = sorted(set(oa) | set(va), key=lambda m: -abs(oa[m] - va[m]))
for m in rows[:12]:
    if abs(oa[m] - va[m]) > 0.001 * tot:
        print(f'  {m:40s} ours {oa[m]:12.0f} valve {va[m]:12.0f} diff {(oa[m]-va[m])/tot:+.4f}')
vt, ot = vb.vis_tree(), ob.vis_tree()
rng = random.Random(1); bad = []
for _ in range(20000):
    p = Vec(rng.uniform(vt.mins.x, vt.maxes.x), rng.uniform(vt.mins.y, vt.maxes.y), rng.uniform(vt.mins.z, vt.maxes.z))
    a, b = vt.test_point(p), ot.test_point(p)
    sa = a is None or bool(a.contents.value & 1); sb = b is None or bool(b.contents.value & 1)
    if sa != sb:
        bad.append((p, sa, sb))
print('disagree', len(bad), 'of 20000')
for p, sa, sb in bad[:8]:
    print('  ', p, 'valve solid' if sa else 'valve empty', 'ours solid' if sb else 'ours empty')
