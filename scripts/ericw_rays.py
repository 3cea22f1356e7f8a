#!/usr/bin/env python3
"""Sun and sky-dome rays ericw-tools' `light` casts on a Quake 2 BSP it wrote, estimated from
the BSP: for each lit face, its samples (its lightmap bytes / 3 / styles) times the suns its
plane faces. ericw's `LightFace_Sky` skips a face whose plane faces away from a sun (dot below
-LIGHT_ANGLE_EPSILON, 0.01) and otherwise traces one ray per sample and sun; `_sunlight2` is a
dome of suns spread as its `SetupSkyDome` spreads them (`sunsamples`, default 64, gives 65),
`_sunlight3` the same dome below, `_sunlight` one sun. Other rays (dirt, bounce, point
lights) are not counted: compare at bounce 0 on maps lit by the sky alone.

Usage: ericw_rays.py MAP.bsp [SUNSAMPLES]  ->  prints "samples rays"
"""
import math
import re
import struct
import sys

ANGLE_EPSILON = 0.01


def dome(samples, up):
    """Unit vectors towards the dome's suns (SetupSkyDome's directions, negated)."""
    iterations = max(round(math.sqrt((samples - 1) / 4)) + 1, 2)
    elevation_steps = iterations - 1
    angle_steps = elevation_steps * 4
    elevation_step = math.radians(90.0 / (elevation_steps + 1))
    angle_step = math.radians(360.0 / angle_steps)
    z = 1.0 if up else -1.0
    out = []
    elevation = elevation_step * 0.5
    for _ in range(elevation_steps):
        angle = 0.0
        for _ in range(angle_steps):
            out.append((math.cos(angle) * math.cos(elevation), math.sin(angle) * math.cos(elevation),
                        z * math.sin(elevation)))
            angle += angle_step
        elevation += elevation_step
    out.append((0.0, 0.0, z))
    return out


def sun_from_mangle(text):
    """The unit vector towards the sun for `_sunlight_mangle` (yaw pitch roll, or a vector)."""
    v = [float(x) for x in text.split()[:3]]
    if len(v) == 3 and abs(math.sqrt(sum(c * c for c in v)) - 1.0) < 1e-3:
        return tuple(-c for c in v)  # ericw writes the light's travel direction
    yaw, pitch = math.radians(v[0]), math.radians(v[1])
    travel = (math.cos(yaw) * math.cos(pitch), math.sin(yaw) * math.cos(pitch), math.sin(pitch))
    return tuple(-c for c in travel)


def main():
    path = sys.argv[1]
    sunsamples = int(sys.argv[2]) if len(sys.argv) > 2 else 64
    data = open(path, "rb").read()
    ident, version = struct.unpack_from("<4si", data, 0)
    if ident != b"IBSP" or version != 38:
        sys.exit(f"{path}: not a Quake 2 BSP (IBSP 38)")
    lumps = [struct.unpack_from("<ii", data, 8 + 8 * i) for i in range(19)]
    ents = data[lumps[0][0]:lumps[0][0] + lumps[0][1]].decode("latin-1")
    world = dict(re.findall(r'"([^"]*)"\s+"([^"]*)"', ents.split("}")[0]))
    suns = []
    if float(world.get("_sunlight", "0") or 0) > 0:
        suns.append(sun_from_mangle(world.get("_sunlight_mangle", world.get("_sun_mangle", "0 -90 0"))))
    if float(world.get("_sunlight2", "0") or 0) > 0:
        suns += dome(sunsamples, True)
    if float(world.get("_sunlight3", "0") or 0) > 0:
        suns += dome(sunsamples, False)
    plane_ofs, plane_len = lumps[1]
    planes = [struct.unpack_from("<4f", data, plane_ofs + 20 * i)[:3] for i in range(plane_len // 20)]
    face_ofs, face_len = lumps[6]
    light_len = lumps[7][1]
    faces = []
    for i in range(face_len // 20):
        plane, side, _, _, _, s0, s1, s2, s3, light_ofs = struct.unpack_from("<HhihhBBBBi", data, face_ofs + 20 * i)
        if light_ofs < 0:
            continue
        styles = sum(1 for s in (s0, s1, s2, s3) if s != 255) or 1
        normal = planes[plane]
        if side:
            normal = tuple(-c for c in normal)
        faces.append((light_ofs, styles, normal))
    faces.sort()
    samples = rays = 0
    for k, (light_ofs, styles, normal) in enumerate(faces):
        end = faces[k + 1][0] if k + 1 < len(faces) else light_len
        n = (end - light_ofs) // 3 // styles
        samples += n
        rays += n * sum(1 for s in suns if sum(a * b for a, b in zip(s, normal)) >= -ANGLE_EPSILON)
    print(samples, rays)


if __name__ == "__main__":
    main()
