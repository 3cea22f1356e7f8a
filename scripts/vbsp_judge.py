"""The shared judge (../shared/judge/compare_vbsp.py) with one change: a sample point in no leaf counts as solid instead of crashing. Prints one JSON line."""
import sys, json, random, collections
from srctools.bsp import BSP, BSP_LUMPS

import re

def fold(name):
    """Valve's patched material names (cubemaps: maps/MAP/name_X_Y_Z, blends: _wvt_patch) back
    to the VMF's name."""
    n = name.lower().replace('\\', '/')
    if n.startswith('maps/') and n.count('/') >= 2:
        n = n.split('/', 2)[2]
        n = re.sub(r'_wvt_patch$', '', n)
        n = re.sub(r'_-?\d+_-?\d+_-?\d+$', '', n)
    return n

def load(path):
    b = BSP(path)
    faces_area = collections.Counter()
    for f in b.faces:
        faces_area[(f.texinfo.mat if f.texinfo else '').lower()] += f.area
    ents = collections.Counter(e['classname'].lower() for e in b.ents.entities)
    ents['worldspawn'] += 1
    return dict(bsp=b, area=faces_area, ents=ents,
                models=len(b.lumps[BSP_LUMPS.MODELS].data) // 48,
                brushes=len(b.brushes), sides=sum(len(x.sides) for x in b.brushes),
                leafs=sum(1 for _ in b.vis_tree().iter_leafs()),
                clusters=len({l.cluster_id for l in b.vis_tree().iter_leafs() if l.cluster_id >= 0}))

def solid(tree, p):
    # A point in no leaf (outside every node box; Valve's own trees have such holes) is
    # outside the map: solid.
    leaf = tree.test_point(p)
    if leaf is None:
        return True
    return bool(leaf.contents.value & 1)

def _unused(tree, p):
    return bool(tree.test_point(p).contents.value & 1)

ours, valve = load(sys.argv[1]), load(sys.argv[2])
n = int(sys.argv[3]) if len(sys.argv) > 3 else 20000
vt, ot = valve['bsp'].vis_tree(), ours['bsp'].vis_tree()
from srctools.math import Vec
rng = random.Random(1)
lo, hi = vt.mins, vt.maxes
agree = 0
for _ in range(n):
    p = Vec(rng.uniform(lo.x, hi.x), rng.uniform(lo.y, hi.y), rng.uniform(lo.z, hi.z))
    agree += solid(vt, p) == solid(ot, p)
mats = set(valve['area']) | set(ours['area'])
tot = sum(valve['area'].values()) or 1
area_err = sum(abs(ours['area'][m] - valve['area'][m]) for m in mats) / tot
fo, fv = collections.Counter(), collections.Counter()
for m, a in ours['area'].items():
    fo[fold(m)] += a
for m, a in valve['area'].items():
    fv[fold(m)] += a
folded_err = sum(abs(fo[m] - fv[m]) for m in set(fo) | set(fv)) / tot
print(json.dumps(dict(
    models=[ours['models'], valve['models']], ents=[sum(ours['ents'].values()), sum(valve['ents'].values())],
    ents_equal=ours['ents'] == valve['ents'], brushes=[ours['brushes'], valve['brushes']],
    sides=[ours['sides'], valve['sides']], leafs=[ours['leafs'], valve['leafs']],
    clusters=[ours['clusters'], valve['clusters']], area_err=round(area_err, 4),
    solid_agree=round(agree / n, 5), area_err_folded=round(folded_err, 4))))
