//! A ray-rate microbenchmark on real map geometry, to set beside Embree's
//! (`scripts/bench_embree.sh` runs both).
//!
//! `cargo run --release -p srcmap-vrad --example bench_rays -- MAP.bsp OUT [RAYS]` builds
//! VRAD's occluder scene of the map (`srcmap_vrad::scene::occluders`: opaque brush sides,
//! sky faces, displacements; no props), draws RAYS sample points over its lit faces
//! (area-weighted, nudged one unit off the surface) and writes `OUT` (the triangles and
//! three ray sets), then times our tracer on exactly those rays and writes its answers to
//! `OUT.ours`. The sets:
//! * `sun`: occlusion toward the `light_environment` sun, up to just short of the first sky
//!   triangle on the way (VRAD's sun shadow question as an any-hit query; coherent);
//! * `sun-closest`: the same rays to `MAX_TRACE` as closest-hit queries (how VRAD asks it:
//!   is the nearest hit sky?);
//! * `hemi-occl`: occlusion along cosine-weighted hemisphere directions, to a point-light
//!   distance between 64 and 2048 units (incoherent, short);
//! * `closest`: closest hit along cosine-weighted hemisphere directions, to `MAX_TRACE`
//!   (bounce rays).
//!
//! File layout (little-endian): `b"SRCMRAY1"`, triangle count (u32), set count (u32), per
//! set its kind (u32: 0 occlusion, 1 closest) and ray count (u32); the triangles (9 f32
//! each); per set its rays (origin, direction, tnear, tfar: 8 f32 each). `OUT.ours` holds
//! per set the answers: a byte per occlusion ray (1 = occluded), per closest ray its
//! distance (f32, infinity on a miss) and triangle (u32, `u32::MAX` on a miss).
//! CPU time is the thread's own (`/proc/thread-self/schedstat`), least of three runs.

use std::io::Write;
use std::time::Instant;

use glam::Vec3;
use srcmap_bsp::Bsp;
use srcmap_trace::{Hit, MIN_T, ParallelOrigins, ParallelRays, Scene, SceneAlong, Tracer, Traversal};
use srcmap_vrad::displacement::DispSurface;
use srcmap_vrad::faces::{FaceGeom, build_faces};
use srcmap_vrad::lights::{LightKind, Range, parse_lights};
use srcmap_vrad::scene::{MAX_TRACE, SKY, occluders};

/// One ray as written to the file.
#[derive(Clone, Copy)]
struct Ray {
    origin: Vec3,
    dir: Vec3,
    tfar: f32,
}

impl Ray {
    fn new(origin: Vec3, dir: Vec3, tfar: f32) -> Ray {
        Ray { origin, dir, tfar }
    }
}

/// A named set of rays and the query asked of them.
struct RaySet {
    name: &'static str,
    closest: bool,
    rays: Vec<Ray>,
}

impl RaySet {
    fn new(name: &'static str, closest: bool, rays: Vec<Ray>) -> RaySet {
        RaySet { name, closest, rays }
    }
}

/// Our answer to one ray: occluded, or the closest hit's distance and triangle.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Answer {
    Occluded(bool),
    Closest(f32, u32),
}

/// A small deterministic generator (xorshift64).
struct Rng(u64);

impl Rng {
    fn unit(&mut self) -> f32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 40) as f32 / (1u64 << 24) as f32
    }

    /// A cosine-weighted direction about `normal` (unit).
    fn hemisphere(&mut self, normal: Vec3) -> Vec3 {
        let (r, phi) = (self.unit().sqrt(), self.unit() * std::f32::consts::TAU);
        let (u, v) = normal.any_orthonormal_pair();
        let up = (1.0 - r * r).max(0.0).sqrt();
        (u * r * phi.cos() + v * r * phi.sin() + normal * up).normalize()
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let [_, map, out, rest @ ..] = args.as_slice() else {
        return Err("usage: bench_rays MAP.bsp OUT [RAYS]".into());
    };
    let count: usize = rest.first().map_or(Ok(200_000), |n| n.parse())?;
    let bsp = Bsp::parse(&std::fs::read(map)?).map_err(|e| format!("{map}: {e}"))?;
    let faces = build_faces(&bsp);
    let disps: Vec<Option<DispSurface>> = (0..faces.len())
        .map(|i| DispSurface::build(&bsp, i, &faces[i]))
        .collect();
    let scene = occluders(&bsp, &faces, &disps);
    let sets = ray_sets(&bsp, &faces, &disps, &scene, count);
    write_rays(out, &scene, &sets)?;
    println!("map {map} triangles {}", scene.len());
    let answers: Vec<Vec<Answer>> = sets.iter().map(|s| time_set(&scene, s)).collect();
    for traversal in [Traversal::Obvhs, Traversal::Wide] {
        let other = scene.rebuilt(traversal);
        for (set, want) in sets.iter().zip(&answers) {
            time_backend(&other, traversal, set, want);
        }
    }
    for (set, want) in sets.iter().zip(&answers).take(2) {
        time_sweeps(&scene, set, want);
    }
    write_answers(&format!("{out}.ours"), &answers)?;
    Ok(())
}

/// Surface triangles of the lit faces with their outward normals: a displacement's own
/// triangles, else the face polygon's fan.
fn lit_triangles(faces: &[FaceGeom], disps: &[Option<DispSurface>]) -> Vec<([Vec3; 3], Vec3)> {
    let mut out = Vec::new();
    for (face, disp) in faces.iter().zip(disps).filter(|(f, _)| f.lit) {
        let p = &face.points;
        let tris: Vec<[Vec3; 3]> = match disp {
            Some(d) => d.triangles().collect(),
            None => (2..p.len()).map(|i| [p[0], p[i - 1], p[i]]).collect(),
        };
        out.extend(tris.into_iter().map(|t| (t, facing(t, face.normal))));
    }
    out
}

/// A triangle's unit normal, turned to the side `outward` points to.
fn facing(t: [Vec3; 3], outward: Vec3) -> Vec3 {
    let n = (t[1] - t[0]).cross(t[2] - t[0]).normalize_or(outward);
    if n.dot(outward) < 0.0 { -n } else { n }
}

/// `count` points spread over the triangles by area, in face order (so neighbours in the
/// list are neighbours in space, as a face's luxels are), each with its normal.
fn sample_points(tris: &[([Vec3; 3], Vec3)], count: usize, rng: &mut Rng) -> Vec<(Vec3, Vec3)> {
    let areas: Vec<f32> = tris
        .iter()
        .map(|(t, _)| (t[1] - t[0]).cross(t[2] - t[0]).length() * 0.5)
        .collect();
    let total: f32 = areas.iter().sum();
    let mut out = Vec::with_capacity(count);
    for ((t, n), area) in tris.iter().zip(&areas) {
        let want = (area / total * count as f32).round() as usize;
        for _ in 0..want.min(count - out.len()) {
            let (a, b) = (rng.unit(), rng.unit());
            let (a, b) = if a + b > 1.0 { (1.0 - a, 1.0 - b) } else { (a, b) };
            let p = t[0] + (t[1] - t[0]) * a + (t[2] - t[0]) * b;
            out.push((p + *n, *n));
        }
    }
    out
}

/// The direction toward the map's sun (the first `light_environment`), or a fixed slant
/// when it has none.
fn sun_direction(bsp: &Bsp) -> Vec3 {
    let (lights, _) = parse_lights(&bsp.entities, Range::Ldr);
    lights
        .iter()
        .find(|l| l.kind == LightKind::Sun)
        .and_then(|l| l.sun_dirs.first().copied())
        .unwrap_or(Vec3::new(0.3, 0.2, 0.93).normalize())
}

/// How far each ray along `dir` from `origins` may go before it meets sky: one unit short of
/// the nearest sky triangle, or `MAX_TRACE` when it meets none.
fn short_of_sky(scene: &Scene, origins: Vec<[f32; 3]>, dir: Vec3) -> Vec<f32> {
    let sweep = ParallelOrigins::new(origins, dir.to_array());
    let along = SceneAlong::new(scene, dir.to_array());
    let sky = sweep.closest_with(&along, MAX_TRACE, |p| p & SKY != 0);
    sky.iter()
        .map(|h| h.map_or(MAX_TRACE, |h| (h.t - 1.0).max(MIN_T)))
        .collect()
}

/// The four ray sets from `count` sample points of the map's lit faces.
fn ray_sets(
    bsp: &Bsp,
    faces: &[FaceGeom],
    disps: &[Option<DispSurface>],
    scene: &Scene,
    count: usize,
) -> Vec<RaySet> {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let points = sample_points(&lit_triangles(faces, disps), count, &mut rng);
    let sun = sun_direction(bsp);
    let limits = short_of_sky(scene, points.iter().map(|p| p.0.to_array()).collect(), sun);
    let sun_rays = points.iter().zip(limits).map(|(p, t)| Ray::new(p.0, sun, t));
    let sun_closest = points.iter().map(|p| Ray::new(p.0, sun, MAX_TRACE));
    let sun_sets = [
        RaySet::new("sun", false, sun_rays.collect()),
        RaySet::new("sun-closest", true, sun_closest.collect()),
    ];
    let short = points.iter().map(|p| {
        let dir = rng.hemisphere(p.1);
        Ray::new(p.0, dir, 64.0 + rng.unit() * 1984.0)
    });
    let short = RaySet::new("hemi-occl", false, short.collect());
    let bounce = points
        .iter()
        .map(|p| Ray::new(p.0, rng.hemisphere(p.1), MAX_TRACE));
    let bounce = RaySet::new("closest", true, bounce.collect());
    sun_sets.into_iter().chain([short, bounce]).collect()
}

fn put_f32s(buf: &mut Vec<u8>, values: &[f32]) {
    for v in values {
        buf.extend_from_slice(&v.to_le_bytes());
    }
}

fn write_rays(path: &str, scene: &Scene, sets: &[RaySet]) -> std::io::Result<()> {
    let triangles = scene.triangles();
    let mut buf = b"SRCMRAY1".to_vec();
    for n in [triangles.len(), sets.len()] {
        buf.extend_from_slice(&(n as u32).to_le_bytes());
    }
    for s in sets {
        buf.extend_from_slice(&u32::from(s.closest).to_le_bytes());
        buf.extend_from_slice(&(s.rays.len() as u32).to_le_bytes());
    }
    put_f32s(&mut buf, triangles.as_flattened().as_flattened());
    for r in sets.iter().flat_map(|s| &s.rays) {
        put_f32s(&mut buf, &[r.origin.x, r.origin.y, r.origin.z]);
        put_f32s(&mut buf, &[r.dir.x, r.dir.y, r.dir.z, MIN_T, r.tfar]);
    }
    std::fs::File::create(path)?.write_all(&buf)
}

fn write_answers(path: &str, answers: &[Vec<Answer>]) -> std::io::Result<()> {
    let mut buf = Vec::new();
    for a in answers.iter().flatten() {
        match *a {
            Answer::Occluded(o) => buf.push(u8::from(o)),
            Answer::Closest(t, tri) => {
                buf.extend_from_slice(&t.to_le_bytes());
                buf.extend_from_slice(&tri.to_le_bytes());
            }
        }
    }
    std::fs::File::create(path)?.write_all(&buf)
}

/// Nanoseconds this thread has run on a CPU (Linux's scheduler statistics).
fn thread_cpu_ns() -> u64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

/// A closest-hit query's answer: infinity and `u32::MAX` on a miss (the file's layout).
fn closest_answer(hit: Option<Hit>) -> Answer {
    hit.map_or(Answer::Closest(f32::INFINITY, u32::MAX), |h| {
        Answer::Closest(h.t, h.triangle)
    })
}

fn answer(tracer: &dyn Tracer, ray: &Ray, closest: bool) -> Answer {
    let (o, d) = (ray.origin.to_array(), ray.dir.to_array());
    if closest {
        closest_answer(tracer.closest(o, d, ray.tfar))
    } else {
        Answer::Occluded(tracer.occluded(o, d, ray.tfar))
    }
}

/// Runs `work` three times on this thread; its answers and the least CPU seconds.
fn least_of_three<T>(mut work: impl FnMut() -> T) -> (T, f64) {
    let mut best = f64::INFINITY;
    let mut out = None;
    for _ in 0..3 {
        let start = thread_cpu_ns();
        out = Some(work());
        best = best.min((thread_cpu_ns() - start) as f64 * 1e-9);
    }
    (out.expect("three runs"), best)
}

/// Answers a set on every core at once: its answers, wall seconds and summed CPU seconds.
fn all_threads(tracer: &dyn Tracer, set: &RaySet) -> (Vec<Answer>, f64, f64) {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let chunk = set.rays.len().div_ceil(threads).max(1);
    let start = Instant::now();
    let parts: Vec<(Vec<Answer>, u64)> = std::thread::scope(|s| {
        let handles: Vec<_> = set
            .rays
            .chunks(chunk)
            .map(|rays| {
                s.spawn(move || {
                    let cpu = thread_cpu_ns();
                    let a: Vec<Answer> = rays.iter().map(|r| answer(tracer, r, set.closest)).collect();
                    (a, thread_cpu_ns() - cpu)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("worker")).collect()
    });
    let wall = start.elapsed().as_secs_f64();
    let cpu = parts.iter().map(|p| p.1).sum::<u64>() as f64 * 1e-9;
    (parts.into_iter().flat_map(|p| p.0).collect(), wall, cpu)
}

fn report(name: &str, how: &str, rays: usize, cpu: f64, extra: &str) {
    let rate = rays as f64 / cpu;
    println!("ours set={name} mode={how} rays={rays} cpu_s={cpu:.4} rays_per_s={rate:.0}{extra}");
}

/// Times one set on one thread (least of three) and on all threads, checking both agree.
fn time_set(scene: &Scene, set: &RaySet) -> Vec<Answer> {
    let (answers, cpu) = least_of_three(|| {
        let a: Vec<Answer> = set.rays.iter().map(|r| answer(scene, r, set.closest)).collect();
        a
    });
    let hits = answers
        .iter()
        .filter(|a| !matches!(a, Answer::Occluded(false) | Answer::Closest(_, u32::MAX)))
        .count();
    report(set.name, "single", set.rays.len(), cpu, &format!(" hits={hits}"));
    let (parallel, wall, cpu_all) = all_threads(scene, set);
    assert_eq!(parallel, answers, "all threads answer as one");
    report(
        set.name,
        "all-threads",
        set.rays.len(),
        cpu_all,
        &format!(" wall_s={wall:.4}"),
    );
    answers
}

/// Times one set on a scene built for `traversal` (one thread, least of three) and counts
/// its answers that agree with `want` (the default scene's): as [`same`], with bit-identical
/// distances, and with the same triangle too.
fn time_backend(scene: &Scene, traversal: Traversal, set: &RaySet, want: &[Answer]) {
    let (answers, cpu) = least_of_three(|| {
        let a: Vec<Answer> = set.rays.iter().map(|r| answer(scene, r, set.closest)).collect();
        a
    });
    let pairs = || answers.iter().zip(want);
    let agree = pairs().filter(|(a, b)| same(a, b)).count();
    let exact_t = pairs().filter(|(a, b)| same_distance(a, b)).count();
    let identical = pairs().filter(|(a, b)| a == b).count();
    let mode = format!("single-{traversal:?}").to_lowercase();
    let extra = format!(" agree={agree} same_t={exact_t} identical={identical}");
    report(set.name, &mode, set.rays.len(), cpu, &extra);
}

/// Same occlusion, or the same closest distance to the bit (either triangle).
fn same_distance(a: &Answer, b: &Answer) -> bool {
    match (*a, *b) {
        (Answer::Closest(s, _), Answer::Closest(t, _)) => s.to_bits() == t.to_bits(),
        _ => a == b,
    }
}

/// Whether two answers agree as the Embree harness counts it: the same occlusion, or both
/// missing, or both hitting at distances within 1e-3 relative (ties may pick either triangle).
fn same(a: &Answer, b: &Answer) -> bool {
    match (*a, *b) {
        (Answer::Closest(s, _), Answer::Closest(t, _)) if s.is_finite() && t.is_finite() => {
            (s - t).abs() <= 1e-3 * t.max(1.0)
        }
        _ => a == b,
    }
}

/// A sun set as VRAD traces it, through the one-direction structures (their building
/// counted): [`ParallelRays`] ray by ray and [`ParallelOrigins`] all at once.
fn time_sweeps(scene: &Scene, sun: &RaySet, want: &[Answer]) {
    let dir = sun.rays.first().map_or([0.0, 0.0, 1.0], |r| r.dir.to_array());
    let (answers, cpu) = least_of_three(|| {
        let along = ParallelRays::new(scene, dir);
        let a: Vec<Answer> = sun.rays.iter().map(|r| answer(&along, r, sun.closest)).collect();
        a
    });
    let agree = answers.iter().zip(want).filter(|(a, b)| same(a, b)).count();
    report(
        sun.name,
        "parallel-rays",
        sun.rays.len(),
        cpu,
        &format!(" agree={agree}"),
    );
    let (answers, cpu) = least_of_three(|| sweep(scene, sun));
    let agree = answers.iter().zip(want).filter(|(a, b)| same(a, b)).count();
    report(
        sun.name,
        "parallel-origins",
        sun.rays.len(),
        cpu,
        &format!(" agree={agree}"),
    );
}

/// A set's answers from one [`ParallelOrigins`] sweep (all its rays share one direction).
fn sweep(scene: &Scene, set: &RaySet) -> Vec<Answer> {
    let dir = set.rays.first().map_or([0.0, 0.0, 1.0], |r| r.dir.to_array());
    let origins = set.rays.iter().map(|r| r.origin.to_array()).collect();
    let rays = ParallelOrigins::new(origins, dir);
    let along = SceneAlong::new(scene, dir);
    if set.closest {
        let hits = rays.closest(&along, MAX_TRACE);
        hits.into_iter().map(closest_answer).collect()
    } else {
        let limits: Vec<f32> = set.rays.iter().map(|r| r.tfar).collect();
        let occluded = rays.occluded_except(&along, &limits, 0);
        occluded.into_iter().map(Answer::Occluded).collect()
    }
}
