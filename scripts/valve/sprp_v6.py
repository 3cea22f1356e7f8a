#!/usr/bin/env python3
"""Rewrites a BSP's static-prop game lump (`sprp`, any version 4-10) as version 6, in place, for Valve's
SDK 2013 vrad, which refuses older versions as stale and newer ones without the game's own files.
Each prop keeps its first 56 bytes (origin, angles, model, leaves, solid, flags, skin, fade distances,
lighting origin), then the forced fade scale (v5 and later; 1.0 before) and zero DX levels. The new
game lump is appended at the end of the file and lump 35's header entry points at it.
usage: sprp_v6.py MAP.bsp"""
import struct
import sys

SIZES = {4: 56, 5: 60, 6: 64, 7: 68, 8: 68, 9: 72, 10: 76, 11: 80}


def props_v6(data, version):
    """The lump's dictionary and leaf lists unchanged, each prop record rewritten as v6."""
    q = 0
    names = struct.unpack_from('<i', data, q)[0]
    q += 4 + 128 * names
    leaves = struct.unpack_from('<i', data, q)[0]
    q += 4 + 2 * leaves
    count = struct.unpack_from('<i', data, q)[0]
    q += 4
    # Games disagree on some versions' record size (TF2's v10 is 76 bytes, others' 72): trust the lump.
    size = (len(data) - q) // count if count else SIZES[version]
    if size < 56 or len(data) - q != size * count:
        raise SystemExit(f'sprp v{version}: {len(data) - q} bytes for {count} props')
    out = bytearray(data[:q])
    for k in range(count):
        prop = data[q + size * k:q + size * (k + 1)]
        fade_scale = prop[56:60] if version >= 5 else struct.pack('<f', 1.0)
        out += prop[:56] + fade_scale + struct.pack('<HH', 0, 0)
    return bytes(out)


def main(path):
    d = bytearray(open(path, 'rb').read())
    ofs, length, lump_version, code = struct.unpack_from('<iiii', d, 8 + 16 * 35)
    count = struct.unpack_from('<i', d, ofs)[0]
    entries = []
    for i in range(count):
        gid, flags, version, o, n = struct.unpack_from('<iHHii', d, ofs + 4 + 16 * i)
        data = bytes(d[o:o + n])
        if gid.to_bytes(4, 'big') == b'sprp' and version != 6 and version in SIZES:
            data, version = props_v6(data, version), 6
        entries.append((gid, flags, version, data))
    while len(d) % 4:
        d.append(0)
    base = len(d)
    header = bytearray(struct.pack('<i', len(entries)))
    blob = bytearray()
    at = base + 4 + 16 * len(entries)
    for gid, flags, version, data in entries:
        header += struct.pack('<iHHii', gid, flags, version, at + len(blob), len(data))
        blob += data
    d += header + blob
    struct.pack_into('<iiii', d, 8 + 16 * 35, base, len(header) + len(blob), lump_version, code)
    open(path, 'wb').write(d)


if __name__ == '__main__':
    main(sys.argv[1])
