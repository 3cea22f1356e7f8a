#!/usr/bin/env python3
"""Light styles per face, OURS against VALVE, for BSPs with the same faces (a Valve BSP relit by
`srcmap vrad`, as scripts/luxel_report.sh makes them): the set of styles each lit face carries (the
face lump's styles[4], 255 = unused) compared face by face. A face is lit when either BSP gives it
a lighting offset. One JSON line: lit (faces lit in either), equal (same style set), equal_frac,
switchable (faces Valve gives a style other than 0), switchable_equal, and the first few differences.
usage: compare_face_styles.py OURS.bsp VALVE.bsp [--hdr]   (--hdr: the HDR face lump, 58, not 7)"""
import json
import os
import struct
import sys

JUDGE = os.environ.get('SRCMAP_JUDGE', os.path.join(os.path.dirname(os.path.abspath(__file__)), '../../shared/judge'))
sys.path.insert(0, JUDGE)
from bsplumps import lump  # noqa: E402

FACE_SIZE = 56   # dface_t
STYLES_AT = 16   # byte styles[4], then int lightofs


def face_styles(path, index):
    """Per face: (lit, frozenset of styles)."""
    data = lump(open(path, 'rb').read(), index)
    out = []
    for at in range(0, len(data) - FACE_SIZE + 1, FACE_SIZE):
        styles = data[at + STYLES_AT:at + STYLES_AT + 4]
        lightofs = struct.unpack_from('<i', data, at + STYLES_AT + 4)[0]
        out.append((lightofs >= 0 and styles[0] != 255, frozenset(s for s in styles if s != 255)))
    return out


def main():
    args = [a for a in sys.argv[1:] if not a.startswith('--')]
    if len(args) != 2:
        sys.exit(__doc__)
    index = 58 if '--hdr' in sys.argv else 7
    ours, valve = face_styles(args[0], index), face_styles(args[1], index)
    if len(ours) != len(valve):
        sys.exit(f'the BSPs have different faces ({len(ours)} and {len(valve)}): compare a relit copy')
    lit = equal = switchable = switchable_equal = 0
    diffs = []
    for i, ((o_lit, o), (v_lit, v)) in enumerate(zip(ours, valve)):
        if not (o_lit or v_lit):
            continue
        lit += 1
        same = o == v and o_lit == v_lit
        equal += same
        if v - {0}:
            switchable += 1
            switchable_equal += same
        if not same and len(diffs) < 6:
            diffs.append(dict(face=i, ours=sorted(o) if o_lit else None, valve=sorted(v) if v_lit else None))
    print(json.dumps(dict(lit=lit, equal=equal, equal_frac=round(equal / lit, 4) if lit else None,
                          switchable=switchable, switchable_equal=switchable_equal, diffs=diffs)))


if __name__ == '__main__':
    main()
