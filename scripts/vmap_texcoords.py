"""Texture coordinates of a converted VMAP (keyvalues2, argv[1]) against its source VMF (argv[2]), issue 41:
every corner's stored `texcoord:0` times the texture size (argv[3], default 512: what `srcmap convert` assumes
without --game) against the VMF side's uaxis/vaxis formula, (p . axis / scale + shift), at the corner's world
position read back from the VMAP (node origin/angles/scales applied to the stored vertex).

Independent of srcmap: the VMAP is read by ../shared/judge/check_vmap.py's reader (SRCMAP_JUDGE or beside the
corpus), the VMF by its VMF parser. A mesh is matched to its VMF solid by node id = solid id, a face to the side
whose plane holds all its corners (normal within 0.001, corners within 0.01 unit). Displacement meshes are skipped
(their texture is projected from the flat grid, not the displaced corners) and counted. One JSON line: corners
checked, the largest error in texels and the corners over 0.001 texel, the same modulo the texture size
(`_wrapped`: a whole texture repeat apart is the same texel, as a renderer sees it and as Hammer shifts a face's
coordinates), the corners over 0.001 texel by more than twice the rounding of an f32 of their stored value (the
faces more than 2^15 texels wide cannot be held closer in f32), faces with no matching side, meshes skipped.
"""
import json, math, os, re, sys  # noqa: E401

JUDGE = os.environ.get('SRCMAP_JUDGE') or os.path.join(
    os.path.dirname(os.path.realpath(os.environ.get('SRCMAP_CORPUS', '../shared/corpus'))), 'judge')
sys.path.insert(0, JUDGE)
import check_vmap as cv  # noqa: E402

AXIS = re.compile(r'\[\s*(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s*\]\s*(\S+)')


def axis(text):
    x, y, z, shift, scale = (float(v) for v in AXIS.match(text.strip()).groups())
    return (x, y, z), shift, (scale or 1.0)


def vmf_sides(path):
    """Solid id -> [[(plane, uaxis, vaxis, has_dispinfo)] per solid of that id] (ids repeat in merged maps)."""
    root, solids, out = cv.parse_vmf(path), [], {}
    for b in root[2]:
        if b[0] in ('world', 'entity', 'hidden'):
            cv.vmf_solids(b, False, solids)
    for sol in solids:
        sides = []
        for sd in (x for x in sol[2] if x[0] == 'side'):
            kv = {k.lower(): v for k, v in sd[1]}
            try:
                sides.append((cv.side_plane(kv['plane']), axis(kv['uaxis']), axis(kv['vaxis']),
                              any(x[0] == 'dispinfo' for x in sd[2])))
            except (KeyError, ValueError, AttributeError):
                continue
        out.setdefault(int(dict(sol[1]).get('id', '0')), []).append(sides)
    return out


def meshes(doc):
    root = next(el for el in doc['tops'] if isinstance(el.get('world'), cv.Element))
    stack = [root.get('world')]
    while stack:
        el = stack.pop()
        if el.cls == 'CMapMesh' and isinstance(el.get('meshData'), cv.Element):
            yield el
        stack.extend(c for c in el.get('children', []) or [] if isinstance(c, cv.Element))


def faces(el):
    """(world corners, texcoords) per face of a mesh node."""
    pm, xf = el.get('meshData'), cv.node_xf(el)
    g = lambda n: list(pm.get(n, []) or [])
    EV, EN, EVD, FE, VD = (g(n) for n in ('edgeVertexIndices', 'edgeNextIndices', 'edgeVertexDataIndices',
                                          'faceEdgeIndices', 'vertexDataIndices'))
    pos, _ = cv.stream(pm.get('vertexData'), 'position')
    tc, _ = cv.stream(pm.get('faceVertexData'), 'texcoord')
    for h0 in FE:
        loop, h = [], h0
        while True:
            loop.append(h)
            h = EN[h]
            if h == h0 or len(loop) > len(EV):
                break
        yield [cv.apply(xf, pos[VD[EV[x]]]) for x in loop], [tc[EVD[x]] for x in loop]


def side_of(corners, sides):
    n = cv.newell(corners)
    ln = math.sqrt(cv.dot(n, n)) or 1.0
    n = tuple(x / ln for x in n)
    for plane, u, v, _ in sides:
        if plane and cv.dot(plane[0], n) > 0.999 and all(abs(cv.dot(plane[0], p) - plane[1]) < 0.01 for p in corners):
            return u, v
    return None


def f32_half_ulp(x):
    """The largest rounding error of an f32 of magnitude |x| (stored texture coordinates are f32)."""
    return 0.0 if x == 0 else 2.0 ** (math.floor(math.log2(abs(x))) - 24)


def main(vmap, vmf, size=512.0):
    by_solid = vmf_sides(vmf)
    r = dict(corners=0, max_err=0.0, over_0_001=0, max_err_wrapped=0.0, over_0_001_wrapped=0,
             over_0_001_beyond_f32=0, faces=0, faces_unmatched=0, meshes_disp_skipped=0, meshes_unmatched=0)
    for el in meshes(cv.load_vmap(vmap)):
        mesh = list(faces(el))
        # The solid of the node's id whose sides hold the most faces.
        sides = max(by_solid.get(el.get('nodeID'), []), default=None,
                    key=lambda sides: sum(side_of(corners, sides) is not None for corners, _ in mesh))
        if sides is None:
            r['meshes_unmatched'] += 1
            continue
        if any(s[3] for s in sides):
            r['meshes_disp_skipped'] += 1
            continue
        for corners, tcs in mesh:
            r['faces'] += 1
            uv = side_of(corners, sides)
            if uv is None:
                r['faces_unmatched'] += 1
                continue
            for p, t in zip(corners, tcs):
                errs = [abs(stored * size - (cv.dot(p, ax) / scale + shift)) for (ax, shift, scale), stored in zip(uv, t)]
                wrapped = [min(e % size, size - e % size) for e in errs]
                r['max_err'] = max([r['max_err']] + errs)
                r['max_err_wrapped'] = max([r['max_err_wrapped']] + wrapped)
                r['over_0_001'] += max(errs) > 0.001
                r['over_0_001_wrapped'] += max(wrapped) > 0.001
                r['over_0_001_beyond_f32'] += any(w > max(0.001, 2 * f32_half_ulp(x) * size) for w, x in zip(wrapped, t))
                r['corners'] += 1
    print(json.dumps(r))


if __name__ == '__main__':
    sys.setrecursionlimit(20000)
    main(sys.argv[1], sys.argv[2], *(float(x) for x in sys.argv[3:4]))
