#!/usr/bin/env python3
"""Reruns issue 37's hostile-input probe: rebuilds each defect's inputs from generated data (the
example room compiled by the binary under test, patched here byte by byte), runs the release
binary on each under a 2 GB address-space limit (ulimit -v) and a 60 s timeout, and prints one
row per case: defect, case, exit code, seconds, peak memory, verdict.

ok   = a clear refusal (exit 1/2 with a message, input untouched, nothing half written) or a
       correct result; FAIL = a panic, an abort, a blow-up (over 2 GB or 60 s), a wrong success,
       a partial file or an overwritten input; skip = the case needs what is not here (the
       corpus' prop model: set SRCMAP_CORPUS; it is read at run time, never copied).

    scripts/probe_hostile.py [--bin target/release/srcmap] [--work DIR] [--only 1,4,12]
Exit status 1 when any case FAILs. GLBs are validated with the Khronos validator when
GLTF_VALIDATOR_DIR names a folder with node_modules/gltf-validator (see ../shared/judge).
"""

import argparse
import hashlib
import json
import math
import os
import random
import resource
import shutil
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
import warnings
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LIMIT_AS = 2 << 30
TIMEOUT = 60.0
ROWS = []
# Python's zipfile warns on the duplicate names defect 12 writes on purpose.
warnings.filterwarnings("ignore", "Duplicate name")

# Lump indices (BSP v20).
ENTITIES, PLANES, TEXDATA, VERTEXES, NODES, FACES, MODELS = 0, 1, 2, 3, 5, 7, 14
DISP_VERTS, PAKFILE = 33, 40


# ---------------------------------------------------------------- running


class Run:
    def __init__(self, rc, secs, peak_mb, out, err):
        self.rc, self.secs, self.peak_mb, self.out, self.err = rc, secs, peak_mb, out, err

    def crashed(self):
        """A panic, an abort, a signal or a blow-up."""
        return (
            self.rc is None
            or self.rc < 0
            or self.rc in (101, 134, 137, 139)
            or "panicked" in self.err
            or "memory allocation" in self.err
            or self.secs >= TIMEOUT
        )


def limits(fsize=None):
    def apply():
        resource.setrlimit(resource.RLIMIT_AS, (LIMIT_AS, LIMIT_AS))
        if fsize is not None:
            # A write past the limit fails with EFBIG instead of killing: a disk that fills.
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))

    return apply


def run(args, cwd, fsize=None, timeout=TIMEOUT, stdin=None):
    """Runs the binary with `args`, returning exit code, seconds, peak RSS (MB) and output."""
    out_path, err_path = cwd / ".probe.out", cwd / ".probe.err"
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        start = time.monotonic()
        p = subprocess.Popen(
            [str(BIN)] + [str(a) for a in args],
            cwd=cwd,
            stdout=out,
            stderr=err,
            stdin=stdin or subprocess.DEVNULL,
            preexec_fn=limits(fsize),
        )
        rc, peak = wait_with_usage(p.pid, start, timeout)
        secs = time.monotonic() - start
    text = lambda p: p.read_bytes()[:1 << 20].decode("utf-8", "replace")
    result = Run(rc, secs, peak, text(out_path), text(err_path))
    result.err_bytes = err_path.stat().st_size
    out_path.unlink()
    err_path.unlink()
    return result


def wait_with_usage(pid, start, timeout):
    while True:
        got, status, usage = os.wait4(pid, os.WNOHANG)
        if got:
            return os.waitstatus_to_exitcode(status), usage.ru_maxrss / 1024
        if time.monotonic() - start > timeout:
            os.kill(pid, signal.SIGKILL)
            _, status, usage = os.wait4(pid, 0)
            return None, usage.ru_maxrss / 1024
        time.sleep(0.02)


def row(defect, case, r, ok, note=""):
    verdict = "ok" if ok and not r.crashed() else "FAIL"
    if r.crashed() and not note:
        note = last_line(r.err)
    ROWS.append((defect, case, r.rc, r.secs, r.peak_mb, verdict, note))


def skip(defect, case, why):
    ROWS.append((defect, case, None, 0.0, 0.0, "skip", why))


def last_line(text):
    lines = [l for l in text.strip().splitlines() if l.strip()]
    return lines[-1][:110] if lines else ""


def refused(r):
    """A clear refusal: exit 1 or 2 with a message on stderr."""
    return r.rc in (1, 2) and r.err.strip() != ""


def sha(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest() if Path(path).exists() else None


def leftovers(folder):
    return [p.name for p in Path(folder).iterdir() if p.name.endswith(".tmp")]


# ---------------------------------------------------------------- BSP bytes


class BspBytes:
    """A v20 BSP's header and bytes; a patched lump is appended at the end, uncompressed."""

    def __init__(self, data):
        self.data = bytearray(data)
        assert self.data[:4] == b"VBSP", "not a VBSP"

    def entry(self, i):
        return struct.unpack_from("<iiii", self.data, 8 + 16 * i)

    def lump(self, i):
        ofs, length, _, _ = self.entry(i)
        return bytes(self.data[ofs:ofs + length])

    def set_lump(self, i, payload):
        _, _, version, _ = self.entry(i)
        while len(self.data) % 4:
            self.data.append(0)
        ofs = len(self.data)
        self.data += payload
        struct.pack_into("<iiii", self.data, 8 + 16 * i, ofs, len(payload), version, 0)

    def patch(self, i, at, fmt, *values):
        b = bytearray(self.lump(i))
        struct.pack_into(fmt, b, at, *values)
        self.set_lump(i, bytes(b))

    def save(self, path):
        Path(path).write_bytes(self.data)
        return Path(path)


def entity_text(n, classname="info_target", extra=""):
    one = '{\n"classname" "%s"\n"origin" "0 0 64"\n%s}\n' % (classname, extra)
    return one * n


def with_entities(base, text):
    b = BspBytes(base.read_bytes())
    b.set_lump(ENTITIES, b.lump(ENTITIES).rstrip(b"\0") + text.encode() + b"\0")
    return b


def zip_of(entries):
    import io

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as z:
        for name, data in entries:
            z.writestr(zipfile.ZipInfo(name), data)
    return buf.getvalue()


def deep_kv(depth, root='"LightmappedGeneric"'):
    return (root + "\n" + '{ "a"\n' * depth + "{ }" + "}\n" * depth).encode()


# ---------------------------------------------------------------- fixtures


def example_vmf():
    return (ROOT / "examples/box_room.vmf").read_text()


def vmf_with_entities(body):
    return example_vmf() + body


def point_entities(n, classname, extra="", first_id=100000):
    return "".join(
        'entity\n{\n\t"id" "%d"\n\t"classname" "%s"\n\t"origin" "%d %d 64"\n%s}\n'
        % (first_id + i, classname, (i % 100) - 50, (i // 100) % 100 - 50, extra)
        for i in range(n)
    )


def game_dir(path, search_paths='game |gameinfo_path|.', gameinfo=None):
    path.mkdir(parents=True, exist_ok=True)
    text = gameinfo or (
        '"GameInfo" { "game" "probe" "FileSystem" { "SteamAppId" "440" "SearchPaths" { %s } } }' % search_paths
    )
    (path / "gameinfo.txt").write_bytes(text if isinstance(text, bytes) else text.encode())
    return path


def dev_vmt(game, body):
    d = game / "materials/dev"
    d.mkdir(parents=True, exist_ok=True)
    (d / "dev_measuregeneric01b.vmt").write_bytes(body if isinstance(body, bytes) else body.encode())


def chair_dir():
    corpus = os.environ.get("SRCMAP_CORPUS")
    if not corpus:
        return None
    d = Path(corpus) / "model/kane8kki+whohl2mod/models/bluechaire"
    return d if d.exists() else None


def chair_game(game, x):
    """A game folder with the corpus chair (read now, written into the probe's scratch folder),
    its first vertex's x set to `x` (None: untouched)."""
    src = chair_dir()
    dst = game_dir(game) / "models/bluechaire"
    dst.mkdir(parents=True, exist_ok=True)
    for f in src.iterdir():
        data = bytearray(f.read_bytes())
        if f.suffix == ".vvd" and x is not None:
            start = struct.unpack_from("<i", data, 56)[0] + 16
            struct.pack_into("<f", data, start, x)
        (dst / f.name).write_bytes(data)
    return game


CHAIR = (
    'entity\n{\n\t"id" "90000"\n\t"classname" "prop_static"\n\t"origin" "0 0 0"\n'
    '\t"model" "models/bluechaire/bluewoodnchair.mdl"\n}\n'
)


def validate_glb(path):
    """The Khronos validator's error count, or None when it is not installed."""
    tools = os.environ.get("GLTF_VALIDATOR_DIR")
    if not tools or not (Path(tools) / "node_modules/gltf-validator").exists() or not path.exists():
        return None
    judge = Path(os.environ.get("SRCMAP_JUDGE", judge_dir())) / "validate_gltf.js"
    p = subprocess.run(["node", str(judge), tools, str(path)], capture_output=True, text=True)
    try:
        return json.loads(p.stdout.strip().splitlines()[-1])["errors"]
    except (ValueError, IndexError, KeyError):
        return -1


def judge_dir():
    """The judges beside the corpus (as scripts/target_pairs.sh), else ../shared/judge."""
    corpus = os.environ.get("SRCMAP_CORPUS")
    if corpus and (Path(corpus).parent / "judge").exists():
        return Path(corpus).parent / "judge"
    return ROOT.parent / "shared/judge"


def glb_sound(path):
    """A GLB with no NaN in its JSON (null bounds) and, where the validator runs, 0 errors."""
    if not path.exists():
        return False
    data = path.read_bytes()
    n = struct.unpack_from("<I", data, 12)[0]
    js = data[20:20 + n]
    if b"null" in js or b"NaN" in js:
        return False
    return validate_glb(path) in (None, 0)


# ---------------------------------------------------------------- the defects


def d1_deep_keyvalues(w):
    base = w / "base.bsp"
    b = BspBytes(base.read_bytes())
    b.set_lump(PAKFILE, zip_of([("materials/dev/dev_measuregeneric01b.vmt", deep_kv(40000))]))
    deep = b.save(w / "deep_pak.bsp")
    for args in (["export", deep, "-o", "deep.glb"], ["render", deep, "-o", "deep.png", "--width", "64", "--height", "48"]):
        r = run(args, w)
        row(1, f"VMT 40000 deep in pakfile: {args[0]}", r, r.rc in (0, 1))
    r = run(["check", deep], w)
    row(1, "VMT 40000 deep in pakfile: check", r, r.rc == 1, last_line(r.out + r.err))
    r = view_once(w, deep, "/map.glb")
    row(1, "VMT 40000 deep in pakfile: view", r, r.rc in (0, 1))
    vmf = w / "room.vmf"
    g = game_dir(w / "deep_gameinfo", gameinfo=deep_kv(40000, '"GameInfo"'))
    r = run(["compile", vmf, "-o", "g1.bsp", "--game", g, "--fast", "-q"], w)
    row(1, "gameinfo.txt 40000 deep: compile -game", r, refused(r))
    g = game_dir(w / "deep_vmt")
    dev_vmt(g, deep_kv(40000))
    r = run(["compile", vmf, "-o", "g2.bsp", "--game", g, "--fast", "-q"], w)
    row(1, "VMT 40000 deep in -game: compile", r, r.rc in (0, 1))
    r = run(["vrad", "base.bsp", "-o", "g3.bsp", "--game", g, "--fast", "-q"], w)
    row(1, "VMT 40000 deep in -game: vrad", r, r.rc in (0, 1))
    (w / "deep_detail.vbsp").write_bytes(deep_kv(40000, '"detail"'))
    r = run(["vbsp", vmf, "-o", "g4.bsp", "--detail-file", "deep_detail.vbsp", "-q"], w)
    row(1, "detail file 40000 deep: vbsp", r, r.rc in (0, 1))
    (w / "deep.vmf").write_bytes(deep_kv(40000, "world"))
    r = run(["vbsp", "deep.vmf", "-q"], w)
    row(1, "VMF 40000 deep: vbsp", r, refused(r))


def d2_render_sizes(w):
    for wh in (("65536", "65537"), ("100000", "100000"), ("0", "768")):
        out = w / f"size_{wh[0]}.png"
        r = run(["render", "base.bsp", "-o", out, "--width", wh[0], "--height", wh[1]], w)
        row(2, f"render --width {wh[0]} --height {wh[1]}", r, refused(r) and not out.exists())


def d3_limits(w):
    crowded = with_entities(w / "base.bsp", entity_text(1_000_000)).save(w / "ents1e6.bsp")
    for args in (["export", crowded, "-o", "e.glb"], ["render", crowded, "-o", "e.png"], ["vrad", crowded, "-o", "e_lit.bsp", "--fast"], ["check", crowded]):
        r = run(args, w)
        row(3, f"BSP 10^6 entities: {args[0]}", r, r.rc == 1 and r.peak_mb < 2048)
    r = view_once(w, crowded, "/scene.json")
    row(3, "BSP 10^6 entities: view", r, r.rc == 1)
    lights = with_entities(w / "base.bsp", entity_text(100_000, "light", '"_light" "255 255 255 200"\n'))
    r = run(["vrad", lights.save(w / "lights1e5.bsp"), "-o", "l_lit.bsp", "--fast"], w)
    row(3, "BSP 10^5 lights: vrad --fast", r, r.rc == 1 or (r.rc == 0 and r.secs < TIMEOUT))
    for n, cls, label in (
        (1_000_000, "info_target", "VMF 10^6 entities: compile"),
        (5000, "env_cubemap", "VMF 5000 cubemaps: vbsp"),
        (1500, "env_cubemap", "VMF 1500 cubemaps (entity count legal): vbsp"),
        (10000, "info_overlay", "VMF 10000 overlays: vbsp"),
        (3000, "info_overlay", "VMF 3000 overlays (entity count legal): vbsp"),
    ):
        extra = '\t"material" "DEV/DEV_MEASUREGENERIC01B"\n\t"sides" "3"\n\t"BasisOrigin" "0 0 -64"\n\t"BasisU" "1 0 0"\n\t"BasisV" "0 1 0"\n\t"BasisNormal" "0 0 1"\n\t"uv0" "-8 -8 0"\n\t"uv1" "-8 8 0"\n\t"uv2" "8 8 0"\n\t"uv3" "8 -8 0"\n\t"StartU" "0"\n\t"EndU" "1"\n\t"StartV" "0"\n\t"EndV" "1"\n' if cls == "info_overlay" else ""
        vmf = w / f"lim_{cls}_{n}.vmf"
        vmf.write_text(vmf_with_entities(point_entities(n, cls, extra)))
        out = vmf.with_suffix(".bsp")
        cmd = "compile" if n == 1_000_000 else "vbsp"
        r = run([cmd, vmf, "-o", out, "-q"] + (["--fast"] if cmd == "compile" else []), w)
        wrote_refused = out.exists() and run(["check", out], w).rc != 0
        row(3, label, r, (refused(r) and not out.exists()) or (r.rc == 0 and not wrote_refused))


def view_start(w, bsp, extra=(), address_space=None):
    """Starts `srcmap view` on `bsp`; returns (process, port or None, start time)."""
    err = open(w / ".view.err", "w+b")
    out = open(w / ".view.out", "w+b")

    def limit():
        limits()()
        if address_space:
            resource.setrlimit(resource.RLIMIT_AS, (address_space, address_space))

    p = subprocess.Popen(
        [str(BIN), "view", str(bsp), "--port", "0", "--no-open", *extra],
        cwd=w, stdout=out, stderr=err, stdin=subprocess.DEVNULL, preexec_fn=limit,
    )
    start = time.monotonic()
    while time.monotonic() - start < TIMEOUT:
        if p.poll() is not None:
            return p, None, start
        text = (w / ".view.out").read_text(errors="replace") + (w / ".view.err").read_text(errors="replace")
        for word in text.split():
            if word.startswith("http://127.0.0.1:"):
                return p, int(word.rsplit(":", 1)[1].split("/")[0]), start
        time.sleep(0.1)
    return p, None, start


def view_stop(w, p, start):
    peak = peak_mb(p.pid)
    if p.poll() is None:
        p.terminate()
        try:
            p.wait(5)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
    rc = p.returncode
    secs = time.monotonic() - start
    err = (w / ".view.err").read_text(errors="replace")
    r = Run(0 if rc == -signal.SIGTERM else rc, secs, peak, "", err)
    r.err_bytes = len(err)
    return r


def peak_mb(pid):
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def http(port, path, host="localhost", timeout=10.0):
    """Status code and body length of one GET, None when no answer came in time."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
            s.sendall(f"GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode())
            data = b""
            while True:
                chunk = s.recv(1 << 16)
                if not chunk:
                    break
                data += chunk
        head = data.split(b"\r\n", 1)[0].split()
        return int(head[1]), len(data)
    except (OSError, IndexError, ValueError):
        return None, 0


def view_once(w, bsp, path):
    """`view` on `bsp`: refused at start (its exit code), or one GET of `path` answered."""
    p, port, start = view_start(w, bsp)
    if port is not None:
        status, _ = http(port, path, timeout=TIMEOUT)
        r = view_stop(w, p, start)
        r.rc = 0 if status == 200 else 99
        return r
    p.wait()
    return view_stop(w, p, start)


def slow_connections(port, n):
    """n connections that send the first line of a request and then nothing (slowloris)."""
    slow = []
    for _ in range(n):
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            s.sendall(b"GET / HTTP/1.1\r\n")
            slow.append(s)
        except OSError:
            pass
    return slow


def d4_viewer(w):
    p, port, start = view_start(w, w / "base.bsp")
    if port is None:
        r = view_stop(w, p, start)
        row(4, "viewer starts", r, False, last_line(r.err))
        return
    slow = slow_connections(port, 200)
    stop = threading.Event()

    def drip():
        while not stop.is_set():
            for s in slow:
                try:
                    s.sendall(b"X-a: b\r\n")
                except OSError:
                    pass
            stop.wait(2)

    t = threading.Thread(target=drip, daemon=True)
    t.start()
    answers = []
    for wait in (1, 15):
        time.sleep(wait)
        t0 = time.monotonic()
        status, _ = http(port, "/scene.json", timeout=20)
        answers.append((status, time.monotonic() - t0))
    stop.set()
    r = view_stop_keep(w, p, start)
    ok = all(s == 200 and secs < 15 for s, secs in answers)
    row(4, "200 slowloris connections, then GET /scene.json", r, ok, " ".join(f"{s} in {t:.1f}s" for s, t in answers))
    for s in slow:
        s.close()
    idle = []
    for _ in range(1000):
        try:
            idle.append(socket.create_connection(("127.0.0.1", port), timeout=5))
        except OSError:
            break
    time.sleep(1)
    t0 = time.monotonic()
    status, _ = http(port, "/map.glb", timeout=20)
    r = view_stop_keep(w, p, start)
    row(4, f"{len(idle)} idle connections, then GET /map.glb", r, status == 200, f"{status} in {time.monotonic() - t0:.1f}s")
    for s in idle:
        s.close()
    time.sleep(1)
    for host in ("evil.example", "evil.example:80", "localhost.evil.example"):
        status, _ = http(port, "/map.glb", host=host)
        r = view_stop_keep(w, p, start)
        row(4, f"Host: {host}", r, status in (421, 403), f"{status}")
    status, _ = http(port, "/map.glb", host=f"127.0.0.1:{port}")
    r = view_stop(w, p, start)
    row(4, "Host: 127.0.0.1:PORT (own address) still served", r, status == 200, f"{status}")
    d4_thread_exhaustion(w)


def d4_thread_exhaustion(w):
    """The viewer with room for only a few threads (a tight address space: each thread's stack
    must fit), 200 slow connections: it must stay up and answer."""
    p, port, start = view_start(w, w / "base.bsp")
    if port is None:
        return
    idle_vm = vm_size_mb(p.pid)
    view_stop(w, p, start)
    room = int((idle_vm + 48) * (1 << 20))
    p, port, start = view_start(w, w / "base.bsp", address_space=room)
    if port is None:
        r = view_stop(w, p, start)
        row(4, f"thread exhaustion (ulimit -v {room >> 20} MB): starts", r, refused(r), last_line(r.err))
        return
    slow = slow_connections(port, 200)
    time.sleep(1)
    answers = [http(port, "/scene.json", timeout=5)[0] for _ in range(5)]
    for s in slow:
        s.close()
    time.sleep(2)
    after = http(port, "/scene.json", timeout=10)[0]
    r = view_stop_keep(w, p, start)
    alive = p.poll() is None
    view_stop(w, p, start)
    ok = alive and after == 200 and all(a == 200 for a in answers)
    row(4, f"thread exhaustion (ulimit -v {room >> 20} MB) + 200 slow connections", r, ok, f"during: {answers}, after: {after}, alive: {alive}")


def vm_size_mb(pid):
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmSize:"):
            return int(line.split()[1]) / 1024
    return 0.0


def view_stop_keep(w, p, start):
    """The running viewer's state as a row's numbers (still running: exit code shown as -)."""
    alive = p.poll() is None
    err = (w / ".view.err").read_text(errors="replace")
    r = Run(0 if alive else p.returncode, time.monotonic() - start, peak_mb(p.pid), "", err if not alive else "")
    return r


def d5_overwrite(w):
    a = w / "ow.bsp"
    shutil.copy(w / "base.bsp", a)
    (w / "ow.vmf").write_text(example_vmf())
    link = w / "ow_link.bsp"
    if link.exists() or link.is_symlink():
        link.unlink()
    link.symlink_to("ow.bsp")
    run(["convert", "ow.vmf", "ow.vmap"], w)
    cases = (
        (["export", "ow.bsp", "-o", "ow.bsp"], "ow.bsp", None),
        (["render", "ow.bsp", "-o", "ow.bsp"], "ow.bsp", None),
        (["render", "ow.vmf", "-o", "ow.vmf"], "ow.vmf", None),
        (["export", "ow.bsp", "-o", "ow_link.bsp"], "ow.bsp", None),
        (["convert", "ow.vmap", "ow_new.vmf"], "ow.vmap", "ow_new.vmf"),
        (["convert", "ow.bsp", "ow_new2.vmf"], "ow.bsp", "ow_new2.vmf"),
    )
    for args, inp, new in cases:
        before = sha(w / inp)
        r = run(args, w)
        untouched = sha(w / inp) == before
        no_copy = new is None or not (w / new).exists() or sha(w / new) != before
        row(5, " ".join(args), r, (refused(r) or decompiled(r, w, inp, new)) and untouched and no_copy)


def decompiled(r, w, inp, new):
    """A BSP (decompile) or a VMAP (issue 41's conversion) converted to a VMF: a success whose
    output is a VMF with a world (a copy of the input's bytes fails `no_copy`)."""
    if r.rc != 0 or not inp.endswith((".bsp", ".vmap")) or new is None or not (w / new).exists():
        return False
    text = (w / new).read_text(errors="replace")
    return text.lstrip().startswith(("versioninfo", "world")) and "\nworld" in "\n" + text


def d6_non_finite(w):
    base = w / "base.bsp"
    b = BspBytes(base.read_bytes())
    b.patch(VERTEXES, 0, "<f", math.nan)
    r = run(["export", b.save(w / "nanvert.bsp"), "-o", "nanvert.glb"], w)
    row(6, "BSP vertex NaN: export", r, refused(r) or glb_sound(w / "nanvert.glb"))
    b = with_entities(base, '{\n"classname" "info_target"\n"origin" "0 0 0"\n"angles" "nan 0 0"\n}\n')
    r = run(["export", b.save(w / "nanangles.bsp"), "-o", "nanangles.glb"], w)
    row(6, "entity angles NaN: export", r, refused(r) or glb_sound(w / "nanangles.glb"))
    terrain = w / "terrain.bsp"
    run(["vbsp", ROOT / "examples/terrain.vmf", "-o", terrain, "-q"], w)
    if terrain.exists():
        b = BspBytes(terrain.read_bytes())
        b.patch(DISP_VERTS, 12, "<f", math.inf)
        r = run(["export", b.save(w / "nandisp.bsp"), "-o", "nandisp.glb"], w)
        row(6, "displacement vertex inf: export", r, refused(r) or glb_sound(w / "nandisp.glb"))
    if chair_dir():
        (w / "chair.vmf").write_text(vmf_with_entities(CHAIR))
        good = chair_game(w / "chair_good", None)
        run(["vbsp", "chair.vmf", "-o", "chair.bsp", "--game", good, "-q"], w)
        for x, label in ((math.nan, "NaN"), (1e37, "1e37")):
            g = chair_game(w / f"chair_{label}", x)
            glb = w / f"chair_{label}.glb"
            r = run(["export", "chair.bsp", "-o", glb, "--game", g], w)
            named = "bluewoodnchair" in r.err
            row(6, f"prop model vertex {label}: export", r, (refused(r) or (r.rc == 0 and glb_sound(glb))) and named, last_line(r.err))
    else:
        skip(6, "prop model vertex NaN: export", "SRCMAP_CORPUS unset (the corpus chair)")
    vmf = example_vmf()
    disp = disp_vmf("nan")
    (w / "nandisp.vmf").write_text(disp)
    r = run(["compile", "nandisp.vmf", "-o", "nandisp_c.bsp", "--fast", "-q"], w)
    # Refused, or the side left out with a warning naming it and a BSP that passes check.
    left_out = r.rc == 0 and "not a finite number" in r.err and run(["check", "nandisp_c.bsp"], w).rc == 0
    row(6, "VMF displacement distance nan: compile", r, (refused(r) and not (w / "nandisp_c.bsp").exists()) or left_out, last_line(r.err)[:80])
    for value in ("-100", "1e30"):
        g = game_dir(w / f"refl_{value}")
        dev_vmt(g, '"LightmappedGeneric" { "$basetexture" "dev/x" "$reflectivity" "[%s %s %s]" }' % ((value,) * 3))
        out = w / f"refl_{value}.bsp"
        (w / "room.vmf").write_text(vmf)
        r = run(["vbsp", "room.vmf", "-o", out, "--game", g, "-q"], w)
        refl = texdata_reflectivity(out)
        row(6, f"$reflectivity {value}: vbsp", r, refused(r) or (r.rc == 0 and all(0 <= x <= 1.0000001 for x in refl)), f"TEXDATA reflectivity {sorted(set(refl))[:3]}")


def disp_vmf(value):
    text = (ROOT / "examples/terrain.vmf").read_text()
    i = text.index('"row0"', text.index("distances"))
    end = text.index("\n", i)
    n = len(text[i:end].split('"')[3].split())
    return text[:i] + '"row0" "%s"' % " ".join([value] * n) + text[end:]


def texdata_reflectivity(path):
    if not Path(path).exists():
        return []
    lump = BspBytes(Path(path).read_bytes()).lump(TEXDATA)
    return [x for i in range(0, len(lump), 32) for x in struct.unpack_from("<fff", lump, i)]


def d7_check_gaps(w):
    base = w / "base.bsp"
    cases = (
        ("cyclic node tree", NODES, 4, "<i", 0),
        ("face lightmap size 2^31-1", FACES, 36, "<i", 2**31 - 1),
        ("model bounds NaN", MODELS, 8, "<f", math.nan),
        ("vertex at 1e37", VERTEXES, 0, "<f", 1e37),
    )
    for label, lump, at, fmt, value in cases:
        b = BspBytes(base.read_bytes())
        b.patch(lump, at, fmt, value)
        path = b.save(w / f"gap_{lump}.bsp")
        r = run(["check", path], w)
        row(7, f"{label}: check", r, r.rc == 1, last_line(r.out))
        r = run(["export", path, "-o", f"gap_{lump}.glb"], w)
        row(7, f"{label}: export", r, refused(r) or glb_sound(w / f"gap_{lump}.glb"))


def d8_silent_skips(w):
    g = game_dir(w / "skips", 'game |gameinfo_path|. game missing_folder game |gameinfo_path|broken.vpk')
    (g / "broken_dir.vpk").write_bytes(b"\x34\x12\xaa\x55garbage")
    (g / "broken.vpk").write_bytes(b"not a vpk")
    r = run(["vbsp", "room.vmf", "-o", "skips.bsp", "--game", g], w)
    row(8, "-game: missing search path + broken VPK", r, "missing_folder" in r.err and "broken" in r.err)
    (w / "nan.rad").write_text("dev/dev_measuregeneric01b nan nan nan 100\n")
    r = run(["vrad", "base.bsp", "-o", "rad_nan.bsp", "--fast", "--lights", "nan.rad"], w)
    row(8, "lights.rad line of nan", r, r.rc in (0, 1) and "nan.rad" in r.err, last_line(r.err))


def d9_cost(w):
    if chair_dir():
        g = chair_game(w / "chair_far", 1e37)
        (w / "chair.vmf").write_text(vmf_with_entities(CHAIR))
        good = chair_game(w / "chair_good", None)
        run(["vbsp", "chair.vmf", "-o", "chair.bsp", "--game", good, "-q"], w)
        r = run(["vrad", "chair.bsp", "-o", "chair_lit.bsp", "--fast", "--StaticPropPolys", "--game", g], w)
        row(9, "prop vertex 1e37: vrad --StaticPropPolys", r, r.rc in (0, 1) and r.secs < 20 and "bluewoodnchair" in r.err, f"{r.secs:.1f}s")
    else:
        skip(9, "prop vertex 1e37: vrad --StaticPropPolys", "SRCMAP_CORPUS unset (the corpus chair)")
    groups = "".join('"Group%d" { "alpha" "1" "t" { "sprite" "0 0 64 64 512" "spritesize" "0.5 0 16 16" "amount" "1" } }\n' % i for i in range(100_000))
    (w / "groups.vbsp").write_text('"detail" { "grass" { "density" "1000" %s } }\n' % groups)
    r = run(["vbsp", "room.vmf", "-o", "groups.bsp", "--detail-file", "groups.vbsp", "-q"], w)
    row(9, "detail.vbsp 10^5 groups: vbsp", r, r.rc in (0, 1) and r.secs < 10, f"{r.secs:.1f}s")


def d10_messages(w):
    shutil.copy(w / "base.bsp", w / "lin.bsp")
    (w / "lin.lin").write_bytes(b"0 0 0\n" + b"1" * 100_000_000 + b"\n")
    p, port, start = view_start(w, w / "lin.bsp")
    size = None
    if port is not None:
        status, size = http(port, "/scene.json", timeout=TIMEOUT)
    r = view_stop(w, p, start)
    row(10, ".lin with a 100 MB line: view (stderr, scene.json)", r, r.err_bytes < 4096 and (size or 0) < 10_000_000, f"stderr {r.err_bytes} B, scene.json {size} B")
    (w / "bad_table.json").write_text('{"version": 1, "materials": {"x": {"contents": "zzz"' + "y" * 10000)
    r = run(["vbsp", "room.vmf", "-o", "table.bsp", "--materials", "bad_table.json", "-q"], w)
    row(10, "bad material table: names the table", r, refused(r) and "bad_table.json" in r.err and len(r.err) < 4096, last_line(r.err)[:80])
    g = game_dir(w / "detailcap")
    dev_vmt(g, '"LightmappedGeneric" { "$basetexture" "dev/x" "%detailtype" "grass" }')
    (w / "dense.vbsp").write_text('"detail" { "grass" { "density" "1e30" "Group1" { "alpha" "1" "t" { "sprite" "0 0 64 64 512" "spritesize" "0.5 0 16 16" "amount" "1" } } } }\n')
    r = run(["vbsp", "room.vmf", "-o", "dense.bsp", "--game", g, "--detail-file", "dense.vbsp"], w)
    big = any(len(tok.strip(",.;:()")) >= 16 and tok.strip(",.;:()").isdigit() for tok in r.err.split())
    row(10, "detail density 1e30: the cap's message", r, r.rc in (0, 1) and not big, last_line(r.err)[:80])


def d11_lump_replace(w):
    bsp = w / "lr.bsp"
    shutil.copy(w / "base.bsp", bsp)
    run(["lump", "extract", bsp, "PLANES", "planes.lmp"], w)
    lmp = (w / "planes.lmp").read_bytes()
    head, data = lmp[:20], lmp[20:]
    ofs, lid, ver, length, rev = struct.unpack("<iiiii", head)
    bad_size = struct.pack("<iiiii", ofs, lid, ver, 21, rev) + data[:21]
    nan_plane = bytearray(data)
    struct.pack_into("<f", nan_plane, 12, math.nan)
    short = struct.pack("<iiiii", ofs, lid, ver, length - 20, rev) + data
    for label, content in (
        ("PLANES of 21 bytes", bad_size),
        ("a NaN plane", head + bytes(nan_plane)),
        (".lmp length shorter than its data", short),
    ):
        (w / "x.lmp").write_bytes(content)
        before = sha(bsp)
        r = run(["lump", "replace", bsp, "x.lmp"], w)
        row(11, f"lump replace: {label}", r, refused(r) and sha(bsp) == before)


def d12_data_safety(w):
    pak_kills(w)
    concurrent_edits(w)
    full_disk_extract(w)
    duplicate_names(w)
    killed_compiles(w)


def pak_kills(w):
    d = w / "kills"
    d.mkdir(exist_ok=True)
    shutil.copy(w / "base.bsp", d / "k.bsp")
    (d / "big.bin").write_bytes(os.urandom(128 << 20))
    shutil.copy(w / "base.bsp", d / "timing.bsp")
    whole = run(["pak", "add", "timing.bsp", "big.bin", "--base", "."], d).secs
    (d / "timing.bsp").unlink()
    left = 0
    for i in range(10):
        p = subprocess.Popen([str(BIN), "pak", "add", "k.bsp", "big.bin", "--base", "."], cwd=d, stderr=subprocess.DEVNULL, preexec_fn=limits())
        time.sleep(whole * random.uniform(0.3, 0.95))
        p.kill()
        p.wait()
        left = max(left, len(leftovers(d)))
    (d / "small.txt").write_text("small")
    r = run(["pak", "add", "k.bsp", "small.txt", "--base", "."], d)
    stale = leftovers(d)
    check = run(["check", "k.bsp"], d)
    row(12, "10 x kill -9 during pak add (128 MB), then a pak add", r, r.rc == 0 and not stale and check.rc == 0, f"temporaries after kills: up to {left}, after the next add: {len(stale)}")
    (d / "big.bin").unlink()


def concurrent_edits(w):
    d = w / "concurrent"
    d.mkdir(exist_ok=True)
    run(["lump", "extract", w / "base.bsp", "PLANES", d / "planes.lmp"], w)
    (d / "added.txt").write_text("added")
    lost = 0
    both_ok = 0
    last = None
    for _ in range(5):
        shutil.copy(w / "base.bsp", d / "c.bsp")
        # A lump replace that changes the file: the entities lump with one more entity.
        ents = BspBytes((w / "base.bsp").read_bytes()).lump(ENTITIES).rstrip(b"\0") + b'{\n"classname" "info_target"\n"targetname" "probe_mark"\n}\n\0'
        (d / "ents.lmp").write_bytes(struct.pack("<iiiii", 20, ENTITIES, 0, len(ents), 0) + ents)
        a = subprocess.Popen([str(BIN), "pak", "add", "c.bsp", "added.txt", "--base", "."], cwd=d, stderr=subprocess.PIPE, preexec_fn=limits())
        b = subprocess.Popen([str(BIN), "lump", "replace", "c.bsp", "ents.lmp"], cwd=d, stderr=subprocess.PIPE, preexec_fn=limits())
        ra, rb = a.wait(60), b.wait(60)
        last = (ra, rb)
        data = (d / "c.bsp").read_bytes()
        if ra == 0 and rb == 0:
            both_ok += 1
            if b"probe_mark" not in data or b"added.txt" not in data:
                lost += 1
    r = Run(0, 0.0, 0.0, "", "")
    row(12, "pak add || lump replace on one BSP, 5 trials", r, lost == 0, f"both exit 0: {both_ok}, a change lost: {lost}, last exits {last}")


def full_disk_extract(w):
    d = w / "fulldisk"
    if d.exists():
        shutil.rmtree(d)
    d.mkdir()
    entries = [(f"materials/probe/{i:02}.vmt", b"x" * 1000) for i in range(10)]
    entries.insert(5, ("materials/probe/big.vtf", b"y" * (2 << 20)))
    b = BspBytes((w / "base.bsp").read_bytes())
    b.set_lump(PAKFILE, zip_of(entries))
    b.save(w / "fulldisk.bsp")
    r = run(["pak", "extract", w / "fulldisk.bsp", d / "out"], w, fsize=1 << 20)
    written = [p for p in d.rglob("*")]
    row(12, "pak extract, the disk full at the 6th entry", r, refused(r) and not written and "big.vtf" in r.err, f"left behind: {len(written)} paths; {last_line(r.err)[:70]}")


def duplicate_names(w):
    d = w / "dups"
    if d.exists():
        shutil.rmtree(d)
    b = BspBytes((w / "base.bsp").read_bytes())
    b.set_lump(PAKFILE, zip_of([("materials/a.vmt", b"first"), ("materials/a.vmt", b"second")]))
    b.save(w / "dups.bsp")
    r = run(["pak", "extract", w / "dups.bsp", d], w)
    got = (d / "materials/a.vmt").read_bytes() if (d / "materials/a.vmt").exists() else None
    row(12, "pak extract: a duplicate name", r, r.rc == 0 and "more than once" in r.err and got == b"first")


def killed_compiles(w):
    d = w / "killed"
    d.mkdir(exist_ok=True)
    (d / "m.vmf").write_text(example_vmf())
    run(["compile", "m.vmf", "--fast", "-q"], d)
    t0 = time.monotonic()
    run(["compile", "m.vmf", "--fast", "-q"], d)
    whole = time.monotonic() - t0
    bad = 0
    prt, bsp = d / "m.prt", d / "m.bsp"
    ino = lambda p: p.stat().st_ino if p.exists() else None
    for i in range(6):
        # Each output is put in place by a rename: a new inode says it was written.
        before = (ino(prt), ino(bsp))
        p = subprocess.Popen([str(BIN), "compile", "m.vmf", "--fast", "-q"], cwd=d, stderr=subprocess.DEVNULL, preexec_fn=limits())
        time.sleep(whole * (i + 1) / 7)
        p.kill()
        p.wait()
        if ino(prt) != before[0] and ino(bsp) == before[1]:
            bad += 1
    r = run(["compile", "m.vmf", "--fast", "-q"], d)
    stale = leftovers(d)
    row(12, "6 x kill -9 during compile: a new .prt, the old .bsp", r, bad == 0 and not stale, f"new .prt beside the old .bsp: {bad}, temporaries left after the next compile: {len(stale)}")


def d13_overflow(w):
    phy = struct.pack("<iiii", 16, 0, 1, 0x12345678) + struct.pack("<i", -8) + b"\0" * 64
    (w / "neg.phy").write_bytes(phy)
    r = run(["info", "neg.phy"], w)
    row(13, ".phy with a negative solid size: info", r, r.rc in (0, 1))
    vmf = example_vmf()
    i = vmf.index('"plane"')
    end = vmf.index("\n", i)
    vmf = vmf[:i] + '"plane" "(9.2e18 -9.2e18 9.2e18) (9.2e18 9.2e18 9.2e18) (-9.2e18 9.2e18 9.2e18)"' + vmf[end:]
    (w / "huge_plane.vmf").write_text(vmf)
    r = run(["vbsp", "huge_plane.vmf", "-q"], w)
    row(13, "VMF plane at 9.2e18: vbsp", r, r.rc in (0, 1))


def d14_epipe(w):
    b = BspBytes((w / "base.bsp").read_bytes())
    b.set_lump(PAKFILE, zip_of([(f"materials/p/{i:05}.vmt", b"x") for i in range(20000)]))
    b.save(w / "many.bsp")
    if (w / "many").exists():
        shutil.rmtree(w / "many")
    r = run(["pak", "extract", "many.bsp", "many"], w)
    n = len(list((w / "many/materials/p").iterdir())) if (w / "many/materials/p").exists() else 0
    row(12, "pak extract: 20000 entries into one folder", r, r.rc == 0 and n == 20000 and r.secs < 30, f"{n} files, {r.secs:.1f}s")
    for args in (["pak", "list", "many.bsp"], ["info", "many.bsp"]):
        start = time.monotonic()
        p = subprocess.Popen([str(BIN)] + args, cwd=w, stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=limits())
        p.stdout.readline()
        p.stdout.close()
        err = p.stderr.read().decode(errors="replace")
        rc = p.wait(60)
        r = Run(rc, time.monotonic() - start, 0.0, "", err)
        row(14, " ".join(args) + " | head -1", r, rc == 0 and not err.strip(), last_line(err))


DEFECTS = {
    1: d1_deep_keyvalues, 2: d2_render_sizes, 3: d3_limits, 4: d4_viewer, 5: d5_overwrite,
    6: d6_non_finite, 7: d7_check_gaps, 8: d8_silent_skips, 9: d9_cost, 10: d10_messages,
    11: d11_lump_replace, 12: d12_data_safety, 13: d13_overflow, 14: d14_epipe,
}


def main():
    global BIN
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=str(ROOT / "target/release/srcmap"))
    ap.add_argument("--work", default="/tmp/srcmap-probe-hostile")
    ap.add_argument("--only", default="")
    args = ap.parse_args()
    BIN = Path(args.bin).resolve()
    w = Path(args.work)
    w.mkdir(parents=True, exist_ok=True)
    (w / "room.vmf").write_text(example_vmf())
    r = run(["compile", "room.vmf", "-o", "base.bsp", "--fast", "-q"], w)
    if r.rc != 0:
        sys.exit(f"cannot compile the example room: {r.err}")
    only = {int(x) for x in args.only.split(",") if x}
    for n, probe in DEFECTS.items():
        if not only or n in only:
            printed = len(ROWS)
            probe(w)
            print_rows(ROWS[printed:], header=(n == min(only or DEFECTS)))
    fails = sum(1 for x in ROWS if x[5] == "FAIL")
    print(f"\n{len(ROWS)} cases, {fails} FAIL, {sum(1 for x in ROWS if x[5] == 'skip')} skipped")
    sys.exit(1 if fails else 0)


def print_rows(rows, header):
    if header:
        print(f"{'defect':>6} | {'case':<58} | {'exit':>4} | {'secs':>6} | {'peak MB':>7} | verdict | note")
    for d, case, rc, secs, peak, verdict, note in rows:
        rc = "-" if rc is None else rc
        print(f"{d:>6} | {case[:58]:<58} | {rc:>4} | {secs:6.2f} | {peak:7.0f} | {verdict:<7} | {note}", flush=True)


if __name__ == "__main__":
    main()
