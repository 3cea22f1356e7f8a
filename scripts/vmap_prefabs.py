"""Instances judged two ways on a VMF -> VMAP conversion (issue 41): argv[1] the VMAP (keyvalues2, its prefab maps
written beside it), argv[2] the source VMF, optional argv[3] the BSP Valve compiled from that VMF.

check_vmap.py counts CMapEntity nodes only, so a func_instance written as a CMapPrefab (the node Hammer writes for
one: every corpus VMAP with a prefab has it with empty `children`, its contents in the target map) is an entity
missing. This reads both sides independently of srcmap (check_vmap.py's readers) and prints one JSON line:
- `as_instances`: the prefab read as the instance: func_instances, CMapPrefab nodes, those matched one-to-one by
  origin (0.01 unit), rotation (matrices within 1e-4) and target (the file name, .vmf -> .vmap), and whether the
  entity class counts are equal when a prefab counts as a func_instance;
- `within`: the entities inside the instances, each map expanded (VMF: func_instance `file` beside the map or its
  instance, nested ones relative to their instance's folder; VMAP: `targetMapPath` beside the VMAP, or with a
  leading `maps/` taken off), placed by the composed transforms (origin + R(angles) local): counts, instance or
  prefab files not found, entities matched by class, world origin and rotation;
- with the BSP, `valve`: the expanded VMAP's entities (func_instance_parms left out, as vbsp removes them) matched
  by class, origin (0.01 unit) and rotation (1e-4) against the entity lump Valve's vbsp wrote (worldspawn left out).
"""
import json, math, os, sys
from collections import Counter

JUDGE = os.environ.get('SRCMAP_JUDGE') or os.path.join(
    os.path.dirname(os.path.realpath(os.environ.get('SRCMAP_CORPUS', '../shared/corpus'))), 'judge')
sys.path.insert(0, JUDGE)
import check_vmap as cv  # noqa: E402

IDENTITY = ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0))
MAX_DEPTH = 16


def mat_mul(a, b):
    return tuple(tuple(sum(a[i][k] * b[k][j] for k in range(3)) for j in range(3)) for i in range(3))


def place(frame, origin, angles):
    """A child's world frame (origin, rotation) from its parent's frame and its own origin and angles."""
    o, r = frame
    w = cv.mat_vec(r, origin)
    return (o[0] + w[0], o[1] + w[1], o[2] + w[2]), mat_mul(r, cv.angle_matrix(angles))


def vec(text, default=(0.0, 0.0, 0.0)):
    try:
        v = tuple(float(x) for x in (text or '').split())
    except ValueError:
        return default
    return v if len(v) == 3 else default


# ---------------------------------------------------------------- VMF side
def vmf_entities(path):
    """[(keyvalues)] of a VMF's entities (also those in hidden blocks)."""
    out = []
    for b in cv.parse_vmf(path)[2]:
        blocks = [b] if b[0] == 'entity' else [x for x in b[2] if x[0] == 'entity'] if b[0] == 'hidden' else []
        out.extend({k.lower(): v for k, v in e[1]} for e in blocks)
    return out


def vmf_expanded(path, frame, base, depth, acc, missing):
    for kv in vmf_entities(path):
        at = place(frame, vec(kv.get('origin')), vec(kv.get('angles')))
        if kv.get('classname', '').lower() != 'func_instance':
            acc.append((kv.get('classname', '?'), at))
            continue
        rel = kv.get('file', '').replace('\\', '/')
        sub = os.path.join(base, rel)
        if depth >= MAX_DEPTH or not os.path.isfile(sub):
            missing.add(rel)
            continue
        vmf_expanded(sub, at, os.path.dirname(sub), depth + 1, acc, missing)


# ---------------------------------------------------------------- VMAP side
def vmap_nodes(path):
    doc = cv.load_vmap(path)
    root = next(el for el in doc['tops'] if isinstance(el.get('world'), cv.Element))
    stack = list(root.get('world').get('children', []) or [])
    while stack:
        el = stack.pop(0)
        if isinstance(el, cv.Element):
            yield el
            stack.extend(el.get('children', []) or [])


def classname(el):
    props = el.get('entity_properties')
    return props.get('classname', '?') if isinstance(props, cv.Element) else '?'


def prefab_file(folder, target):
    target = target.replace('\\', '/')
    tries = [target] + ([target[5:]] if target.lower().startswith('maps/') else [])
    return next((os.path.join(folder, t) for t in tries if os.path.isfile(os.path.join(folder, t))), None)


def vmap_expanded(path, frame, folder, depth, acc, missing):
    for el in vmap_nodes(path):
        at = place(frame, el.get('origin', (0.0, 0.0, 0.0)), el.get('angles', (0.0, 0.0, 0.0)))
        if el.cls == 'CMapEntity':
            acc.append((classname(el), at))
        elif el.cls == 'CMapPrefab':
            sub = prefab_file(folder, el.get('targetMapPath', ''))
            if depth >= MAX_DEPTH or sub is None:
                missing.add(el.get('targetMapPath', ''))
                continue
            vmap_expanded(sub, at, folder, depth + 1, acc, missing)


# ---------------------------------------------------------------- matching
def same_place(a, b):
    (oa, ra), (ob, rb) = a, b
    near = max(abs(x - y) for x, y in zip(oa, ob)) <= 0.01
    return near and max(abs(ra[i][j] - rb[i][j]) for i in range(3) for j in range(3)) <= 1e-4


def matched(ours, theirs):
    """One-to-one matches of (class, frame) lists, by class then place (greedy, bucketed by rounded origin)."""
    buckets = {}
    for i, (c, at) in enumerate(theirs):
        buckets.setdefault((c.lower(), tuple(round(x) for x in at[0])), []).append(i)
    used, n = set(), 0
    for c, at in ours:
        key = tuple(round(x) for x in at[0])
        near = [(c.lower(), tuple(k + d for k, d in zip(key, off)))
                for off in ((0, 0, 0),) + tuple((a, b, e) for a in (-1, 0, 1) for b in (-1, 0, 1) for e in (-1, 0, 1))]
        hit = next((i for k in near for i in buckets.get(k, []) if i not in used and same_place(at, theirs[i][1])),
                   None)
        if hit is not None:
            used.add(hit)
            n += 1
    return n


def stem(path):
    name = os.path.basename(path.replace('\\', '/')).lower()
    return name.rsplit('.', 1)[0] if '.' in name else name


def as_instances(vmap, vmf):
    origin = ((0.0, 0.0, 0.0), IDENTITY)
    insts = [kv for kv in vmf_entities(vmf) if kv.get('classname', '').lower() == 'func_instance']
    nodes = list(vmap_nodes(vmap))
    prefabs = [el for el in nodes if el.cls == 'CMapPrefab']
    theirs = [(stem(kv.get('file', '')), place(origin, vec(kv.get('origin')), vec(kv.get('angles')))) for kv in insts]
    ours = [(stem(el.get('targetMapPath', '')), place(origin, el.get('origin', (0, 0, 0)), el.get('angles', (0, 0, 0))))
            for el in prefabs]
    vmf_classes = Counter(kv.get('classname', '?') for kv in vmf_entities(vmf))
    vmap_classes = Counter(classname(el) for el in nodes if el.cls == 'CMapEntity')
    vmap_classes['func_instance'] += len(prefabs)
    return dict(func_instances=len(insts), prefabs=len(prefabs), placed=matched(ours, theirs),
                classes_equal=+vmf_classes == +vmap_classes)


def bsp_entities(path):
    from srctools.bsp import BSP
    out = []
    for e in BSP(path).ents.entities:
        if e['classname'].lower() != 'worldspawn':
            out.append((e['classname'], (vec(e['origin']), cv.angle_matrix(vec(e['angles'])))))
    return out


def main(vmap, vmf, bsp=None):
    frame = ((0.0, 0.0, 0.0), IDENTITY)
    r = dict(as_instances=as_instances(vmap, vmf))
    theirs, ours, miss_vmf, miss_vmap = [], [], set(), set()
    vmf_expanded(vmf, frame, os.path.dirname(vmf), 0, theirs, miss_vmf)
    vmap_expanded(vmap, frame, os.path.dirname(vmap), 0, ours, miss_vmap)
    r['within'] = dict(vmf=len(theirs), vmap=len(ours), instance_files_missing=len(miss_vmf),
                       prefab_files_missing=len(miss_vmap), matched=matched(ours, theirs),
                       classes_equal=Counter(c for c, _ in ours) == Counter(c for c, _ in theirs))
    if bsp:
        kept = [(c, at) for c, at in ours if c.lower() != 'func_instance_parms']
        valve = bsp_entities(bsp)
        r['valve'] = dict(bsp=len(valve), vmap=len(kept), matched=matched(kept, valve))
    print(json.dumps(r))


if __name__ == '__main__':
    sys.setrecursionlimit(20000)
    main(*sys.argv[1:4])
