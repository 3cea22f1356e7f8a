#!/usr/bin/env python3
"""Per-face luxel grids of two BSPs with the same faces (srcmap's relight of a Valve BSP against Valve's), to see
where they part: placement shifts, edge luxels, seams between faces vbsp split.
usage: luxel_faces.py OURS.bsp VALVE.bsp [FACE ...]
  without FACE: the 15 faces (of >= 4 luxels Valve lit visibly) whose luxels are furthest from Valve's
  (mean |log2 ours/valve|), one line each; with FACE: both grids of each face (luminance, 0-255 scale, style-summed),
  ours above Valve's, row 0 first, then their ratio.
Reads the judges' bsplumps.py from SRCMAP_JUDGE (default ../shared/judge beside the repository)."""
import math
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.environ.get('SRCMAP_JUDGE', os.path.join(HERE, '..', '..', 'shared', 'judge')))
sys.path.insert(0, '/work/shared/judge')
from bsplumps import lump  # noqa: E402


def faces_of(path):
    """{face: (width, height, [luminance per luxel], plane, texinfo, mins)}."""
    d = open(path, 'rb').read()
    faces, light, texinfo = lump(d, 7), lump(d, 8), lump(d, 6)
    if not light:
        faces, light = lump(d, 58) or faces, lump(d, 53)
    out = {}
    for i in range(len(faces) // 56):
        f = struct.unpack_from('<HBBihhhh4BifiiiiiHHI', faces, 56 * i)
        plane, ti, styles, ofs, mins, size = f[0], f[5], f[8:12], f[12], f[14:16], f[16:18]
        if ofs < 0 or styles[0] == 255 or ti < 0:
            continue
        bumped = struct.unpack_from('<i', texinfo, 72 * ti + 64)[0] & 0x800
        w, h = size[0] + 1, size[1] + 1
        n = w * h
        lum = [0.0] * n
        for k, style in enumerate(styles):
            if style == 255:
                break
            base = ofs + 4 * n * k * (4 if bumped else 1)
            for j in range(n):
                if base + 4 * j + 4 > len(light):
                    break
                r, g, b, e = struct.unpack_from('<BBBb', light, base + 4 * j)
                lum[j] += (0.2126 * r + 0.7152 * g + 0.0722 * b) * 2.0 ** e
        out[i] = (w, h, lum, plane, ti, mins)
    return out


def err(u, v):
    return abs(math.log2(max(u, 1e-3) / v))


def worst(a, b, count=15):
    rows = []
    for k, (w, h, lb, plane, ti, mins) in b.items():
        if k not in a or a[k][:2] != (w, h):
            continue
        pairs = [(u, v) for u, v in zip(a[k][2], lb) if v >= 4.0]
        if len(pairs) >= 4:
            e = sum(err(u, v) for u, v in pairs) / len(pairs)
            ratio = sum(u for u, _ in pairs) / sum(v for _, v in pairs)
            rows.append((e, k, w, h, ratio, plane, ti))
    rows.sort(reverse=True)
    for e, k, w, h, ratio, plane, ti in rows[:count]:
        print(f'face {k:5d} {w:3d}x{h:<3d} plane {plane:5d} texinfo {ti:4d} mean|log2| {e:.2f} ours/valve {ratio:.2f}')


def grid(w, h, lum):
    for y in range(h):
        print(' '.join(f'{lum[y * w + x]:6.1f}' for x in range(w)))


def show(a, b, k):
    w, h, lb, plane, ti, mins = b[k]
    la = a[k][2]
    print(f'== face {k} {w}x{h} plane {plane} texinfo {ti} mins {mins}')
    print('-- ours'); grid(w, h, la)
    print('-- valve'); grid(w, h, lb)
    print('-- ours/valve')
    grid(w, h, [u / v if v > 0.5 else 0.0 for u, v in zip(la, lb)])


def main():
    a, b = faces_of(sys.argv[1]), faces_of(sys.argv[2])
    if len(sys.argv) == 3:
        worst(a, b)
    for k in sys.argv[3:]:
        show(a, b, int(k))


if __name__ == '__main__':
    main()
