#!/usr/bin/env bash
# Progress a person can follow (issue 36): `srcmap compile --preset final --json` on the N largest
# corpus VMFs, every stderr line timestamped as it arrives (stderr is a pipe, so the heartbeat
# prints status lines rather than redrawing a bar). Per map it prints the compile's wall time, the
# largest silence on stderr (from the start, between lines, and to the exit) and the line it
# ended on, and each stage's `STAGE: done in T` against the `--json` report's `seconds` for it.
# The bars: silence <= 2 s, stage times within 1 % (or the rounding of the printed figure, half its
# last digit, when that is more: `0.42 s` stands for 0.415..0.425).
# Usage: scripts/silence_check.sh [BIN] [OUTDIR] [N]   (BIN default target/release/srcmap, N 3)
# Env: SRCMAP_CORPUS (default ../shared/corpus); SILENCE_FLAGS adds flags (e.g. "--threads 8").
# Exit status 1 when a bar is missed.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$(realpath "${1:-$root/target/release/srcmap}"); out=${2:-/tmp/srcmap-silence}; n=${3:-3}
source "$root/scripts/corpus_pairs.sh" 2>/dev/null
maps=$(awk -F'\t' '$2=="vmf" {print $3 "\t" $1}' "$corpus/MANIFEST.tsv" | sort -n | tail -n "$n" | cut -f2)
status=0
for vmf in $maps; do
  name=$(basename "$vmf" .vmf)
  python3 - "$bin" "$corpus/$vmf" "$out/$name.bsp" "$out/materials.json" ${SILENCE_FLAGS:-} <<'PY' || status=1
import json, re, subprocess, sys, threading, time

bin, vmf, bsp, materials, *extra = sys.argv[1:]
cmd = [bin, 'compile', vmf, '-o', bsp, '--materials', materials, '--preset', 'final', '--json', '--allowleak', *extra]
start = time.monotonic()
proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
stdout = []
reader = threading.Thread(target=lambda: stdout.append(proc.stdout.read()))
reader.start()
lines = []  # (seconds since start, text)
for raw in iter(proc.stderr.readline, b''):
    lines.append((time.monotonic() - start, raw.decode('utf-8', 'replace').rstrip('\n')))
proc.wait()
reader.join()
end = time.monotonic() - start

stamps = [0.0] + [t for t, _ in lines] + [end]
gaps = [(stamps[i + 1] - stamps[i], i) for i in range(len(stamps) - 1)]
gap, at = max(gaps)
after = lines[at - 1][1] if at > 0 else '(start)'
name = vmf.rsplit('/', 1)[-1]
ok = proc.returncode == 0 and gap <= 2.0
print(f"{name}: exit {proc.returncode}, {end:.1f} s, {len(lines)} stderr lines, "
      f"largest silence {gap:.2f} s after: {after[:90]!r}")

def seconds(text):
    """`1 min 36 s`, `12.3 s`, `2 h 05 min` -> (seconds, half the last printed digit)."""
    if m := re.fullmatch(r'(\d+) h (\d+) min', text):
        return int(m[1]) * 3600 + int(m[2]) * 60, 30.0
    if m := re.fullmatch(r'(\d+) min (\d+) s', text):
        return int(m[1]) * 60 + int(m[2]), 0.5
    value = text.removesuffix(' s')
    decimals = len(value.split('.')[1]) if '.' in value else 0
    return float(value), 0.5 * 10 ** -decimals

try:
    reports = json.loads(stdout[0])
except ValueError:
    reports = []
    ok = False
    print('  no JSON report on stdout')
for report in reports if isinstance(reports, list) else []:
    stage = report['stage']
    done = [t for _, t in lines if t.startswith(f'{stage}: done in ')]
    if not done:
        ok = False
        print(f'  {stage}: no "done in" line')
        continue
    text, rounding = seconds(done[0].split('done in ', 1)[1].split(' (')[0])
    json_s = report['seconds']
    diff = abs(text - json_s)
    within = diff <= max(0.01 * json_s, rounding + 1e-9)
    ok &= within
    pct = 100 * diff / json_s if json_s else 0.0
    print(f"  {stage}: printed {done[0].split('done in ', 1)[1]!r} = {text:g} s, json {json_s:.3f} s, "
          f"{pct:.2f} % apart {'ok' if within else 'MISSED'}")
total = [t for _, t in lines if ' s total' in t]
print(f"  total line: {total[-1] if total else 'MISSING'}")
sys.exit(0 if ok and total else 1)
PY
done
exit $status
