"""Cross-checks srcmap's static prop layouts against srctools on every corpus BSP both read.

Usage: python scripts/bsp_crosscheck_srctools.py DUMP_PROPS_BINARY FILE...
(DUMP_PROPS_BINARY: `cargo build --release -p srcmap-bsp --example dump_props`.)
Compares model, origin, angles (mod 360), solidity and skin of every prop; exits 1 on a mismatch.
"""
import subprocess
import sys

from srctools.bsp import BSP


def norm(a):
    return f"{float(a) % 360.0:.2f}".replace("360.00", "0.00")


def main():
    dump, files = sys.argv[1], sys.argv[2:]
    bad = checked = 0
    for path in files:
        try:
            props = BSP(path).props
        except Exception as e:  # srctools refuses some files (console, foreign engines)
            print(f"skip  {path}: srctools: {type(e).__name__}")
            continue
        ours = subprocess.run([dump, path], capture_output=True, text=True, check=True).stdout.splitlines()
        mine = []
        for line in ours:
            model, origin, angles, solid, skin, _layout = line.split("\t")
            mine.append((model, origin, " ".join(norm(a) for a in angles.split()), solid, skin))
        theirs = [
            (
                p.model,
                f"{p.origin.x:.2f} {p.origin.y:.2f} {p.origin.z:.2f}",
                " ".join(norm(a) for a in (p.angles.pitch, p.angles.yaw, p.angles.roll)),
                str(int(p.solidity)),
                str(p.skin),
            )
            for p in props
        ]
        checked += 1
        layout = ours[0].split("\t")[-1] if ours else "-"
        if mine != theirs:
            bad += 1
            diff = next((a, b) for a, b in zip(mine + [None] * len(theirs), theirs + [None] * len(mine)) if a != b)
            print(f"DIFF  {path} ({layout}): ours {diff[0]} srctools {diff[1]}")
        else:
            print(f"ok    {path}: {len(theirs)} props ({layout})")
    print(f"{checked} files compared, {bad} mismatching")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
