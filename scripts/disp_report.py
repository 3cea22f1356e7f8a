#!/usr/bin/env python3
"""Displacements of every corpus pair whose Valve BSP has some: our compile beside Valve's.

usage: scripts/disp_report.py [--corpus DIR] [--bin SRCMAP] [--out DIR] [--no-light] [MAP_SUBSTRING ...]

For each pair (a VMF and Valve's BSP of it, from the corpus manifest), runs `srcmap compile`
(vbsp, vvis, vrad; `--no-light` runs `srcmap vbsp` only) with the material table harvested from
every corpus BSP (`srcmap materials extract`, as the corpus tests do: no game content here), then:
- the displacement judge (/work/shared/judge/compare_disp.py): dispinfo count, vertices within
  0.1 unit, triangle tags, neighbours, allowed vertices, lightmap lump sizes;
- lighting: per-face mean luminance (flat lightmap, styles summed, as the vrad judge
  compare_rad.py) on faces matched by position (the same vertex set, rounded to 0.1 unit),
  Pearson r over all matched lit faces and over the displacement faces alone.
Prints one table row per map, and the times of each stage.
"""
import argparse, json, os, statistics, struct, subprocess, sys, time

JUDGE = os.environ.get('SRCMAP_JUDGE', '/work/shared/judge')
sys.path.insert(0, JUDGE)
from bsplumps import lump  # the judge's own lump reader
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rad_report import faces_of  # per-face luxel luminances, styles summed


def pairs(corpus):
    out = []
    for line in open(os.path.join(corpus, 'MANIFEST.tsv')):
        cols = line.rstrip('\n').split('\t')
        if len(cols) < 10 or cols[1] != 'bsp' or 'dispinfos=' not in cols[4]:
            continue
        n = int(cols[4].split('dispinfos=')[1].split()[0])
        if n == 0 or 'pair: vmf/' not in cols[9]:
            continue
        vmf = cols[9].split('pair: ')[1].split()[0].rstrip(';')
        out.append((os.path.join(corpus, vmf), os.path.join(corpus, cols[0]), n))
    return out


def face_keys(d):
    """Per face index: (frozenset of its vertices rounded to 0.1, dispinfo index)."""
    faces = lump(d, 7) or lump(d, 58)
    verts, edges, surf = lump(d, 3), lump(d, 12), lump(d, 13)
    out = {}
    for i in range(len(faces) // 56):
        first, num, _, di = struct.unpack_from('<ihhh', faces, 56 * i + 4)
        pts = []
        for k in range(first, first + num):
            se = struct.unpack_from('<i', surf, 4 * k)[0]
            a, b = struct.unpack_from('<HH', edges, 4 * abs(se))
            p = struct.unpack_from('<3f', verts, 12 * (a if se >= 0 else b))
            pts.append(tuple(round(c * 10) for c in p))
        out[i] = (frozenset(pts), di)
    return out


def face_means(d):
    """Per face: mean luminance of its flat lightmap summed over its styles (compare_rad.py's measure)."""
    return {i: sum(vals) / len(vals) for i, (_, _, vals) in faces_of(d, all_styles=True).items() if vals}


def light_r(ours, valve):
    ok, vk = face_keys(ours), face_keys(valve)
    om, vm = face_means(ours), face_means(valve)
    by_key = {}
    for i, (k, di) in ok.items():
        by_key.setdefault(k, i)
    res = {}
    for which in ('all', 'disp'):
        xs, ys = [], []
        for i, (k, di) in vk.items():
            if which == 'disp' and di < 0:
                continue
            j = by_key.get(k)
            if j is None or i not in vm or j not in om or vm[i] <= 1e-3:
                continue
            xs.append(om[j])
            ys.append(vm[i])
        if len(xs) >= 3 and statistics.pstdev(xs) > 0 and statistics.pstdev(ys) > 0:
            res[which] = (len(xs), round(statistics.correlation(xs, ys), 4),
                          round(statistics.median(x / y for x, y in zip(xs, ys)), 4))
        else:
            res[which] = (len(xs), None, None)
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--corpus', default=os.environ.get('SRCMAP_CORPUS', '/work/shared/corpus'))
    ap.add_argument('--bin', default='target/release/srcmap')
    ap.add_argument('--out', default='/tmp/disp_report')
    ap.add_argument('--no-light', action='store_true')
    ap.add_argument('only', nargs='*')
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    table = os.path.join(a.out, 'materials.json')
    bsps = [os.path.join(d, f) for d, _, fs in os.walk(os.path.join(a.corpus, 'bsp')) for f in fs if f.endswith('.bsp')]
    bsps = [p for p in bsps if open(p, 'rb').read(4) == b'VBSP']  # Source BSPs only (no Quake, no console)
    subprocess.run([a.bin, 'materials', 'extract', '-o', table] + sorted(bsps), capture_output=True)
    print('| map | disps (ours/Valve) | vertices ≤0.1u | tags | neighbours | allowed | lm lumps | light r all (faces) | light r disp (faces, median ratio) | compile s |')
    print('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |')
    for vmf, valve, n in pairs(a.corpus):
        name = os.path.relpath(vmf, os.path.join(a.corpus, 'vmf'))
        if a.only and not any(s in name for s in a.only):
            continue
        out = os.path.join(a.out, name.replace('/', '+').replace('.vmf', '.bsp'))
        # Some pairs leaked in Valve's compile too (c1_cave): keep the BSP as Valve's VBSP does.
        cmd = [a.bin, 'vbsp' if a.no_light else 'compile', vmf, '-o', out, '-q', '--allowleak']
        if os.path.exists(table):
            cmd += ['--materials', table]
        t0 = time.time()
        run = subprocess.run(cmd, capture_output=True, text=True)
        secs = time.time() - t0
        if run.returncode != 0 or not os.path.exists(out):
            err = (run.stderr.strip().splitlines() or ['?'])[-1]
            print(f'| {name} | compile failed: {err[:80]} | | | | | | | | {secs:.1f} |')
            continue
        judged = subprocess.run([sys.executable, os.path.join(JUDGE, 'compare_disp.py'), out, valve],
                                capture_output=True, text=True)
        if judged.returncode != 0:
            err = (judged.stderr.strip().splitlines() or ['?'])[-1]
            print(f'| {name} | the judge cannot read it: {err[:80]} | | | | | | | | {secs:.1f} |')
            continue
        j = json.loads(judged.stdout)
        m = max(j['matched'], 1)
        lm = 'equal' if j['lm_alpha_len'][0] == j['lm_alpha_len'][1] and j['lm_samplepos_len'][0] == j['lm_samplepos_len'][1] \
            else f"alpha {j['lm_alpha_len']} pos {j['lm_samplepos_len']}"
        light_all = light_disp = '-'
        if not a.no_light:
            r = light_r(open(out, 'rb').read(), open(valve, 'rb').read())
            light_all = f"{r['all'][1]} ({r['all'][0]})"
            light_disp = f"{r['disp'][1]} ({r['disp'][0]}, {r['disp'][2]})"
        print(f"| {name} | {j['disps'][0]}/{j['disps'][1]} | {j['positions_ok']}/{j['disps'][1]} (worst {j['worst_dist']}) "
              f"| {j['tags_agree']} | {j['neighbours_ok']}/{m} | {j['allowed_ok']}/{m} | {lm} | {light_all} | {light_disp} | {secs:.1f} |",
              flush=True)


if __name__ == '__main__':
    main()
