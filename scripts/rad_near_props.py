#!/usr/bin/env python3
"""Is a relit map's excess light near static props? Splits faces by distance to the nearest
shadow-casting static prop and prints the median per-face ratio (ours / Valve's, mean luxel
luminance of style 0, faces both lit) for faces near one and faces far from all.

usage: scripts/rad_near_props.py OURS.bsp VALVE.bsp [--near 256] [--far 768]

VRAD traces static props (their collision models) as occluders; we have no model files, so
the excess their shadows would remove shows up near them.
"""
import argparse, math, os, statistics, struct, sys

sys.path.insert(0, os.environ.get('SRCMAP_JUDGE', '/work/shared/judge'))
from bsplumps import lump  # the judge's own lump reader

NO_SHADOW = 0x10  # STATIC_PROP_NO_SHADOW

def lum(r, g, b, e):
    return (0.2126 * r + 0.7152 * g + 0.0722 * b) * 2.0 ** e

def face_means(d):
    faces, light = lump(d, 7), lump(d, 8)
    out = {}
    for i in range(len(faces) // 56):
        f = struct.unpack_from('<HBBihhhh4BifiiiiiHHI', faces, 56 * i)
        styles, ofs, n = f[8:12], f[12], (f[16] + 1) * (f[17] + 1)
        if ofs < 0 or styles[0] == 255 or ofs + 4 * n > len(light):
            continue
        out[i] = sum(lum(*c) for c in struct.iter_unpack('<BBBb', light[ofs:ofs + 4 * n])) / n
    return out

def face_centres(d):
    faces, verts, edges, surfedges = lump(d, 7), lump(d, 3), lump(d, 12), lump(d, 13)
    out = {}
    for i in range(len(faces) // 56):
        first, count = struct.unpack_from('<ih', faces, 56 * i + 4)
        pts = []
        for k in range(count):
            e = struct.unpack_from('<i', surfedges, 4 * (first + k))[0]
            v = struct.unpack_from('<HH', edges, 4 * abs(e))[0 if e >= 0 else 1]
            pts.append(struct.unpack_from('<3f', verts, 12 * v))
        if pts:
            out[i] = [sum(p[j] for p in pts) / len(pts) for j in range(3)]
    return out

def shadow_props(d):
    """Origins of the static props that cast shadows (sprp v4-v11: flags at byte 31)."""
    g = lump(d, 35)
    out = []
    for k in range(struct.unpack_from('<i', g, 0)[0]):
        gid, _, _, ofs, length = struct.unpack_from('<4sHHii', g, 4 + 16 * k)
        if gid != b'prps':
            continue
        q = d[ofs:ofs + length]
        o = 4 + 128 * struct.unpack_from('<i', q, 0)[0]
        o += 4 + 2 * struct.unpack_from('<i', q, o)[0]
        count = struct.unpack_from('<i', q, o)[0]
        o += 4
        size = (len(q) - o) // max(count, 1)
        for i in range(count):
            if not q[o + size * i + 31] & NO_SHADOW:
                out.append(struct.unpack_from('<3f', q, o + size * i))
    return out

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('ours')
    ap.add_argument('valve')
    ap.add_argument('--near', type=float, default=256)
    ap.add_argument('--far', type=float, default=768)
    args = ap.parse_args()
    ours, valve = open(args.ours, 'rb').read(), open(args.valve, 'rb').read()
    a, b, centres, props = face_means(ours), face_means(valve), face_centres(valve), shadow_props(valve)
    near, far = [], []
    for k, v in b.items():
        if v <= 1e-3 or a.get(k, 0) <= 1e-3 or k not in centres:
            continue
        d = min((math.dist(centres[k], p) for p in props), default=math.inf)
        if d < args.near:
            near.append(a[k] / v)
        elif d > args.far:
            far.append(a[k] / v)
    median = lambda x: round(statistics.median(x), 4) if x else None
    print(dict(props=len(props), near=len(near), near_median=median(near), far=len(far), far_median=median(far)))

if __name__ == '__main__':
    main()
