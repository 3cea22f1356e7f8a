#!/usr/bin/env python3
"""Per-face luxel roughness of two BSPs with the same faces (srcmap's relight of a Valve BSP against Valve's own),
worst faces first: where the luxel judge's rough_ratio comes from.

usage: scripts/luxel_roughness.py OURS.bsp VALVE.bsp [N]   (N rows, default 20; SRCMAP_JUDGE names the judge folder)

Per face lit in both (flat lightmap, luminance summed over styles, LDR lump or HDR when there is none): size, plane
normal, displacement or not, roughness (mean |difference| of neighbouring luxels over the face mean) of each and
their ratio, and the ratio of the face means. Roughness as the judge (compare_luxels.py) defines it."""
import math
import os
import struct
import sys

sys.path.insert(0, os.environ.get('SRCMAP_JUDGE', os.path.join(os.path.dirname(__file__), '../../shared/judge')))
from bsplumps import lump  # noqa: E402


def faces_of(path):
    """{face: (W, H, luminances, normal, is_disp)} for every lit face of the BSP at `path`."""
    d = open(path, 'rb').read()
    faces, light = lump(d, 7), lump(d, 8)
    if not light:
        faces, light = lump(d, 58) or faces, lump(d, 53)
    texinfo, planes = lump(d, 6), lump(d, 1)
    out = {}
    for i in range(len(faces) // 56):
        f = struct.unpack_from('<HBBihhhh4BifiiiiiHHI', faces, 56 * i)
        lum = luminances(f, texinfo, light)
        if lum is not None:
            normal = struct.unpack_from('<fff', planes, 20 * f[0])
            out[i] = (f[16] + 1, f[17] + 1, lum, normal, f[6] >= 0)
    return out


def luminances(f, texinfo, light):
    """Luminance per luxel of face record `f`, summed over its styles; None when it has no lightmap."""
    ti, styles, lightofs, w, h = f[5], f[8:12], f[12], f[16], f[17]
    if lightofs < 0 or styles[0] == 255 or ti < 0 or 72 * (ti + 1) > len(texinfo):
        return None
    bumped = struct.unpack_from('<i', texinfo, 72 * ti + 64)[0] & 0x800
    n = (w + 1) * (h + 1)
    lum = [0.0] * n
    for k, style in enumerate(styles):
        if style == 255:
            break
        base = lightofs + 4 * n * k * (4 if bumped else 1)
        if base + 4 * n > len(light):
            return None
        for j in range(n):
            r, g, b, e = struct.unpack_from('<BBBb', light, base + 4 * j)
            lum[j] += (0.2126 * r + 0.7152 * g + 0.0722 * b) * (2.0 ** e)
    return lum


def roughness(w, h, lum):
    """Mean |difference| of horizontally and vertically neighbouring luxels over the mean; None when dark."""
    mean = sum(lum) / len(lum)
    if mean <= 1e-3:
        return None
    diffs = [abs(lum[y * w + x + 1] - lum[y * w + x]) for y in range(h) for x in range(w - 1)]
    diffs += [abs(lum[(y + 1) * w + x] - lum[y * w + x]) for y in range(h - 1) for x in range(w)]
    return sum(diffs) / len(diffs) / mean if diffs else None


def rows(ours, valve):
    """(ratio, face, W, H, normal, disp, rough ours, rough Valve's, mean ratio) per face compared."""
    out = []
    for k, (w, h, lv, normal, disp) in valve.items():
        if k not in ours or ours[k][:2] != (w, h) or w * h < 16:
            continue
        lo = ours[k][2]
        ro, rv = roughness(w, h, lo), roughness(w, h, lv)
        if ro is None or not rv:
            continue
        mean = sum(lo) / max(sum(lv), 1e-6)
        out.append((ro / rv, k, w, h, normal, disp, ro, rv, mean))
    return sorted(out, reverse=True)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    table = rows(faces_of(sys.argv[1]), faces_of(sys.argv[2]))
    ratios = sorted(r[0] for r in table)
    if ratios:
        print(f'faces {len(ratios)}  median ratio {ratios[len(ratios) // 2]:.3f}  '
              f'share > 1.2: {sum(r > 1.2 for r in ratios) / len(ratios):.2f}')
    print('ratio\tface\tsize\tnormal\tdisp\trough_ours\trough_valve\tmean_ratio')
    for ratio, k, w, h, n, disp, ro, rv, mean in table[:int(sys.argv[3]) if len(sys.argv) > 3 else 20]:
        normal = ','.join(f'{c:.2f}' for c in n)
        print(f'{ratio:.2f}\t{k}\t{w}x{h}\t{normal}\t{int(disp)}\t{ro:.3f}\t{rv:.3f}\t{mean:.2f}')


if __name__ == '__main__':
    main()
