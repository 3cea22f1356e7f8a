"""Times srctools' BSP reader per file: `BSP(path)` and then every parsed lump touched.

Prints TSV: file, srctools_us (median), error. Used by scripts/bench_bsp.sh.
"""
import statistics
import sys
import time

from srctools.bsp import BSP, ParsedLump

LAZY = [name for name, value in vars(BSP).items() if isinstance(value, ParsedLump)]


def load(path):
    bsp = BSP(path)
    for name in LAZY:
        getattr(bsp, name)
    return bsp


def main():
    print("file\tsrctools_us\tsrctools_error")
    for path in sys.argv[1:]:
        try:
            load(path)
        except Exception as e:  # a reader that refuses the file: report, keep going
            print(f"{path}\t-\t{type(e).__name__}: {str(e)[:80]}".replace("\n", " "))
            continue
        samples = []
        start = time.perf_counter()
        while len(samples) < 3 or (time.perf_counter() - start < 1.0 and len(samples) < 50):
            t = time.perf_counter()
            load(path)
            samples.append((time.perf_counter() - t) * 1e6)
        print(f"{path}\t{statistics.median(samples):.1f}\t")


if __name__ == "__main__":
    main()
