#!/usr/bin/env python3
"""Relight every corpus BSP that Valve lit and compare with Valve's own lighting.

usage: scripts/rad_report.py [--corpus DIR] [--bin RELIGHT] [--out DIR] [--modes fast,normal,final] [--png]

RELIGHT is `target/release/examples/relight` (cargo build --release -p srcmap-vrad --example relight).
For each map: Valve's LDR lighting lump is zeroed in a copy (the judge's setup), the copy is
relit, and the judge (/work/shared/judge/compare_rad.py, or the same computation inline) gives
Pearson r of per-face mean luminance and the median ratio; we add the luxel-by-luxel relative
error inside faces of equal size, the ambient-cube correlation, time (wall and CPU) and rays/s.
With --png, writes OUT/NAME.png: Valve's lightmap atlas (left) beside ours (right).
"""
import argparse, csv, json, os, resource, statistics, struct, subprocess, sys, zlib

JUDGE = os.environ.get('SRCMAP_JUDGE', '/work/shared/judge')
sys.path.insert(0, JUDGE)
from bsplumps import blank, lump  # the judge's own lump reader (standard and L4D2 order)

def lum(r, g, b, e):
    return (0.2126 * r + 0.7152 * g + 0.0722 * b) * 2.0 ** e

def faces_of(d, all_styles=False):
    """Per face (width, height, luxel luminances) of style slot 0, or summed over all styles
    (so maps lit only by switchable lights, styles 32+, can be compared too)."""
    faces, light, texinfo = lump(d, 7), lump(d, 8), lump(d, 6)
    out = {}
    for i in range(len(faces) // 56):
        f = struct.unpack_from('<HBBihhhh4BifiiiiiHHI', faces, 56 * i)
        ti, styles, ofs, w, h = f[5], f[8:12], f[12], f[16] + 1, f[17] + 1
        if ofs < 0 or styles[0] == 255 or ti < 0:
            continue
        bump = 4 if struct.unpack_from('<i', texinfo, 72 * ti + 64)[0] & 0x800 else 1
        nstyles = sum(1 for s in styles if s != 255) if all_styles else 1
        if ofs + 4 * w * h * bump * nstyles > len(light):
            continue
        vals = [0.0] * (w * h)
        for st in range(nstyles):
            base = ofs + 4 * w * h * bump * st
            for k in range(w * h):
                vals[k] += lum(*struct.unpack_from('<BBBb', light, base + 4 * k))
        out[i] = (w, h, vals)
    return out

def ambient_of(d):
    """Per leaf, the mean luminance of its ambient cubes (v20+ lumps 52/56), None without samples."""
    index, cubes = lump(d, 52), lump(d, 56)
    out = []
    for i in range(len(index) // 4):
        n, first = struct.unpack_from('<HH', index, 4 * i)
        vals = [sum(lum(*struct.unpack_from('<BBBb', cubes, 28 * (first + k) + 4 * s)) for s in range(6)) / 6
                for k in range(n) if 28 * (first + k + 1) <= len(cubes)]
        out.append(sum(vals) / len(vals) if vals else None)
    return out

def pearson(a, b):
    if len(a) < 3 or statistics.pstdev(a) == 0 or statistics.pstdev(b) == 0:
        return 0.0
    return statistics.correlation(a, b)

def compare(ours, valve, all_styles=False):
    a, b = faces_of(ours, all_styles), faces_of(valve, all_styles)
    keys = [k for k in b if k in a and sum(b[k][2]) / len(b[k][2]) > 1e-3]
    ma = [sum(a[k][2]) / len(a[k][2]) for k in keys]
    mb = [sum(b[k][2]) / len(b[k][2]) for k in keys]
    err_num = err_den = 0.0
    worst = []
    for k in keys:
        if a[k][:2] != b[k][:2]:
            continue
        e = sum(abs(x - y) for x, y in zip(a[k][2], b[k][2]))
        s = sum(b[k][2])
        err_num += e
        err_den += s
        worst.append((e / max(s, 1e-9), k))
    worst.sort(reverse=True)
    va, vb = ambient_of(ours), ambient_of(valve)
    both = [(x, y) for x, y in zip(va, vb) if x is not None and y is not None] if len(va) == len(vb) else []
    amb_r = pearson([x for x, _ in both], [y for _, y in both]) if len(both) >= 3 else None
    return dict(faces=len(keys), r=round(pearson(ma, mb), 4),
                median_ratio=round(statistics.median(x / y for x, y in zip(ma, mb)), 4) if keys else 0,
                luxel_rel_err=round(err_num / err_den, 4) if err_den else None,
                worst_faces=[k for _, k in worst[:5]], ambient_r=None if amb_r is None else round(amb_r, 4),
                ambient_leaves=len(both))

def png(path, w, h, rgb):
    raw = b''.join(b'\0' + bytes(rgb[y * w * 3:(y + 1) * w * 3]) for y in range(h))
    def chunk(t, data):
        c = struct.pack('>I', len(data)) + t + data
        return c + struct.pack('>I', zlib.crc32(t + data) & 0xffffffff)
    open(path, 'wb').write(b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 2, 0, 0, 0))
                           + chunk(b'IDAT', zlib.compress(raw, 6)) + chunk(b'IEND', b''))

def atlas(faces, order, width=1024):
    """Shelf-pack face lightmaps (luminance, gamma 2.2) in `order`; returns (w, h, pixels dict)."""
    x = y = shelf = 0
    place = {}
    for k in order:
        if k not in faces:
            continue
        w, h, _ = faces[k]
        if x + w > width:
            x, y, shelf = 0, y + shelf + 1, 0
        place[k] = (x, y)
        x += w + 1
        shelf = max(shelf, h)
    return place, y + shelf + 1

def render(path, ours, valve, width=512):
    a, b = faces_of(ours), faces_of(valve)
    order = sorted(b, key=lambda k: -b[k][0] * b[k][1])
    place, height = atlas(b, order, width)
    W = 2 * width + 8
    rgb = bytearray(W * height * 3)
    # One exposure for both halves: Valve's 95th-percentile luxel maps to white.
    every = sorted(v for k in place for v in b[k][2])
    white = max(every[int(0.95 * (len(every) - 1))] if every else 1.0, 1e-3)
    for side, faces in ((0, b), (1, a)):
        for k, (x0, y0) in place.items():
            if k not in faces or faces[k][:2] != b[k][:2]:
                continue
            w, h, vals = faces[k]
            for t in range(h):
                for s in range(w):
                    v = min(255, int(255 * min(vals[t * w + s] / white, 1.0) ** (1 / 2.2)))
                    p = ((y0 + t) * W + side * (width + 8) + x0 + s) * 3
                    rgb[p:p + 3] = bytes((v, v, v))
    png(path, W, height, rgb)

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--corpus', default=os.environ.get('SRCMAP_CORPUS', '/work/shared/corpus'))
    ap.add_argument('--bin', default='target/vrad/release/examples/relight')
    ap.add_argument('--out', default='/tmp/rad_report')
    ap.add_argument('--modes', default='fast,normal')
    ap.add_argument('--png', action='store_true')
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    rows = list(csv.DictReader(open(os.path.join(args.corpus, 'MANIFEST.tsv')), delimiter='\t'))
    results = []
    for row in rows:
        if row['kind'] != 'bsp' or not row['format_detail'].startswith('VBSP'):
            continue
        path = os.path.join(args.corpus, row['local_file'])
        d = open(path, 'rb').read()
        try:
            has_ldr = bool(lump(d, 8))
        except (AssertionError, ValueError):
            continue
        if not has_ldr:
            continue  # Valve did not write LDR lighting: nothing to compare with
        name = row['local_file'].split('/', 1)[1].replace('/', '_')
        src = os.path.join(args.out, name + '.blank.bsp')
        open(src, 'wb').write(blank(d, 8))
        res = dict(map=row['local_file'])
        for mode in args.modes.split(','):
            out = os.path.join(args.out, f'{name}.{mode}.bsp')
            cmd = [args.bin, src, out] + ([f'-{mode}'] if mode != 'normal' else [])
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            p = subprocess.run(cmd, capture_output=True, text=True)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            # CPU seconds (user + system): steadier than wall time on a shared machine.
            cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
            if p.returncode != 0:
                res[mode] = dict(error=p.stderr.strip()[-300:])
                continue
            run = json.loads(p.stdout.strip().splitlines()[-1])
            lit = open(out, 'rb').read()
            res[mode] = dict(seconds=run['seconds'], cpu_seconds=round(cpu, 2), luxels=run['luxels'], rays=run['rays'],
                             mrays_per_s=run['mrays_per_s'], **compare(lit, d))
            every = compare(lit, d, all_styles=True)
            res[mode]['all_styles'] = dict(faces=every['faces'], r=every['r'], median_ratio=every['median_ratio'])
            if args.png and mode == args.modes.split(',')[-1]:
                render(os.path.join(args.out, name + '.png'), open(out, 'rb').read(), d)
        results.append(res)
        print(json.dumps(res), flush=True)
    json.dump(results, open(os.path.join(args.out, 'report.json'), 'w'), indent=1)

if __name__ == '__main__':
    main()
