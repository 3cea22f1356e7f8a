#!/usr/bin/env python3
"""Per-face light of a full compile against Valve's BSP of the same map, faces matched by place.

usage: scripts/seam_faces.py OURS.bsp VALVE.bsp   → one JSON line

The judge (judge/compare_rad.py) pairs faces by index, which holds for a BSP relit in place but
not for our own compile of the VMF: vbsp may emit the same faces in another order, or split a
surface elsewhere. Here a face is known by its plane (outward normal and distance) and the
centre of its vertices, rounded to a unit: faces whose key is unique in both BSPs are paired;
another face of Valve's is paired with the one face of ours on its plane that holds its centre. Brightness per face is the judge's:
the mean luminance of the flat lightmap summed over light styles (LDR, or HDR without LDR).
Prints `same` (the fraction of Valve's lit faces whose index already holds the same face in
ours: 1.0 means the judge's pairing is right), `matched` (faces paired by place), and Pearson
`r` and `median_ratio` (ours / Valve's) over the paired faces lit in Valve's.
"""
import json, os, statistics, struct, sys
from collections import Counter

sys.path.insert(0, os.environ.get('SRCMAP_JUDGE', '/work/shared/judge'))
from lumpz import lump  # the judge's own lump reader, LZMA-compressed lumps included

FACE = '<HBBihhhh4BifiiiiiHHI'


def luminance(light, base, n):
    pixels = struct.iter_unpack('<BBBb', light[base:base + 4 * n])
    return sum((0.2126 * r + 0.7152 * g + 0.0722 * b) * 2.0 ** e for r, g, b, e in pixels) / n


def face_light(f, light, texinfo):
    """The judge's per-face brightness, or None where the face has no usable lightmap."""
    ti, styles, ofs, n = f[5], f[8:12], f[12], (f[16] + 1) * (f[17] + 1)
    if ofs < 0 or styles[0] == 255 or ti < 0 or 72 * (ti + 1) > len(texinfo):
        return None
    maps = 4 if struct.unpack_from('<i', texinfo, 72 * ti + 64)[0] & 0x800 else 1
    bases = [ofs + 4 * n * k * maps for k, s in enumerate(styles) if s != 255]
    if any(b + 4 * n > len(light) for b in bases):
        return None
    return sum(luminance(light, b, n) for b in bases)


def polygon(f, verts, edges, surf):
    out = []
    for k in range(f[4]):
        se = struct.unpack_from('<i', surf, 4 * (f[3] + k))[0]
        out.append(struct.unpack_from('<fff', verts, 12 * struct.unpack_from('<HH', edges, 4 * abs(se))[se < 0]))
    return out


def plane_of(f, planes):
    """Outward normal and distance, rounded."""
    nx, ny, nz, dist = struct.unpack_from('<ffff', planes, 20 * f[0])
    sign = -1 if f[1] else 1
    return (round(sign * nx, 2), round(sign * ny, 2), round(sign * nz, 2), round(sign * dist))


class Face:
    def __init__(self, f, light, texinfo, planes, *geometry):
        self.plane, self.points = plane_of(f, planes), polygon(f, *geometry)
        self.centre = tuple(sum(p[j] for p in self.points) / max(len(self.points), 1) for j in range(3))
        self.key = self.plane + tuple(round(c) for c in self.centre)
        self.light = face_light(f, light, texinfo)

    def holds(self, q):
        """Whether q (on this face's plane) lies inside the convex polygon, edges included,
        whichever way it is wound."""
        n, pts = self.plane[:3], self.points
        sides = set()
        for a, b in zip(pts, pts[1:] + pts[:1]):
            e, w = [b[j] - a[j] for j in range(3)], [q[j] - a[j] for j in range(3)]
            cross = (e[1] * w[2] - e[2] * w[1], e[2] * w[0] - e[0] * w[2], e[0] * w[1] - e[1] * w[0])
            side = sum(cross[j] * n[j] for j in range(3))
            if abs(side) > 0.5:
                sides.add(side > 0)
        return len(pts) >= 3 and len(sides) < 2


def faces_of(path):
    d = open(path, 'rb').read()
    faces, light, texinfo = lump(d, 7), lump(d, 8), lump(d, 6)
    if not light:
        faces, light = lump(d, 58) or faces, lump(d, 53)
    if len(faces) % 56:
        raise ValueError('%s: a face lump of %d bytes is not 56-byte records' % (path, len(faces)))
    geometry = lump(d, 1), lump(d, 3), lump(d, 12), lump(d, 13)
    return [Face(struct.unpack_from(FACE, faces, 56 * i), light, texinfo, *geometry) for i in range(len(faces) // 56)]


def partner(face, ours_at, ours_on):
    """Our face at the same place (a unique key in both), else the one on its plane holding its centre."""
    if face.key in ours_at:
        return ours_at[face.key]
    holding = [o for o in ours_on.get(face.plane, []) if o.holds(face.centre)]
    return holding[0] if len(holding) == 1 else None


def main():
    try:
        ours, valve = faces_of(sys.argv[1]), faces_of(sys.argv[2])
    except (struct.error, IndexError, ValueError) as e:
        # e.g. a v25 BSP (Momentum) whose face records are not the 56-byte dface_t
        print(json.dumps(dict(error='faces unreadable: %s' % e)))
        return
    lit = [i for i, f in enumerate(valve) if f.light is not None and f.light > 1e-3]
    same = sum(i < len(ours) and ours[i].key == valve[i].key for i in lit) / max(len(lit), 1)
    unique = lambda fs: {k for k, n in Counter(f.key for f in fs).items() if n == 1}
    keys = unique(ours) & unique(valve)
    ours_at, ours_on = {o.key: o for o in ours if o.key in keys}, {}
    for o in ours:
        ours_on.setdefault(o.plane, []).append(o)
    paired = ((partner(valve[i], ours_at, ours_on), valve[i].light) for i in lit)
    pairs = [(o.light, v) for o, v in paired if o is not None and o.light is not None]
    out = dict(lit=len(lit), same=round(same, 4), matched=len(pairs), r=0.0, median_ratio=0.0)
    if len(pairs) >= 3:
        xa, xb = [a for a, _ in pairs], [b for _, b in pairs]
        out['r'] = round(statistics.correlation(xa, xb), 4) if statistics.pstdev(xa) > 0 else 0.0
        out['median_ratio'] = round(statistics.median(a / b for a, b in pairs), 4)
    print(json.dumps(out))

main()
