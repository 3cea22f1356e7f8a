//! Traces a ray file written by `crates/vrad/examples/bench_rays.rs` with one backend, for
//! profiling a traversal alone (`perf record` on this, not on the whole benchmark).
//!
//! `cargo run --release -p srcmap-trace --example trace_rays -- RAYS obvhs|wide|sbvh [REPEAT [SET]]`
//! traces every set (or only the set numbered SET) REPEAT times (default 3) and prints each
//! set's best rate in rays per CPU second of this thread.

use std::time::Instant;

use srcmap_trace::{SceneBuilder, Tracer, Traversal};

/// One ray set: closest-hit or occlusion queries, as origin, direction, tnear, tfar.
struct Set {
    closest: bool,
    rays: Vec<[f32; 8]>,
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"))
}

fn f32s(bytes: &[u8], at: usize, n: usize) -> Vec<f32> {
    (0..n)
        .map(|i| f32::from_bits(u32_at(bytes, at + 4 * i)))
        .collect()
}

/// The triangles and ray sets of a `SRCMRAY1` file.
fn read(path: &str) -> Result<(Vec<[f32; 9]>, Vec<Set>), String> {
    let b = std::fs::read(path).map_err(|e| format!("{path}: {e}"))?;
    if b.len() < 16 || &b[..8] != b"SRCMRAY1" {
        return Err(format!("{path}: not a SRCMRAY1 file"));
    }
    let (tris, sets) = (u32_at(&b, 8) as usize, u32_at(&b, 12) as usize);
    let head = 16 + 8 * sets;
    let counts: Vec<(bool, usize)> = (0..sets)
        .map(|s| (u32_at(&b, 16 + 8 * s) == 1, u32_at(&b, 20 + 8 * s) as usize))
        .collect();
    let need = head + 36 * tris + 32 * counts.iter().map(|c| c.1).sum::<usize>();
    if b.len() < need {
        return Err(format!("{path}: {} bytes, the header promises {need}", b.len()));
    }
    let flat = f32s(&b, head, 9 * tris);
    let triangles = flat.chunks(9).map(|c| c.try_into().expect("9")).collect();
    let mut at = head + 36 * tris;
    let mut out = Vec::new();
    for (closest, n) in counts {
        let rays = f32s(&b, at, 8 * n);
        at += 32 * n;
        let rays = rays.chunks(8).map(|c| c.try_into().expect("8")).collect();
        out.push(Set { closest, rays });
    }
    Ok((triangles, out))
}

/// Rays of `set` that hit, traced once.
fn trace(scene: &dyn Tracer, set: &Set) -> usize {
    let hit = |r: &[f32; 8]| {
        let (o, d) = ([r[0], r[1], r[2]], [r[3], r[4], r[5]]);
        if set.closest {
            scene.closest(o, d, r[7]).is_some()
        } else {
            scene.occluded(o, d, r[7])
        }
    };
    set.rays.iter().filter(|r| hit(r)).count()
}

/// Nanoseconds this thread has run on a CPU (Linux's scheduler statistics).
fn thread_cpu_ns() -> u64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().collect();
    let [_, path, backend, rest @ ..] = args.as_slice() else {
        return Err("usage: trace_rays RAYS obvhs|wide|sbvh [REPEAT [SET]]".into());
    };
    let traversal = match backend.as_str() {
        "obvhs" => Traversal::Obvhs,
        "wide" => Traversal::Wide,
        "sbvh" => Traversal::WideSbvh,
        other => return Err(format!("unknown backend {other}")),
    };
    let number = |i: usize, default: usize| rest.get(i).map_or(Ok(default), |n| n.parse());
    let repeat = number(0, 3).map_err(|e| e.to_string())?;
    let only = number(1, usize::MAX).map_err(|e| e.to_string())?;
    let (triangles, sets) = read(path)?;
    let mut b = SceneBuilder::new();
    for t in &triangles {
        b.add_triangle([t[0], t[1], t[2]], [t[3], t[4], t[5]], [t[6], t[7], t[8]], 0);
    }
    let start = Instant::now();
    let scene = b.build_with(traversal);
    let build = start.elapsed().as_secs_f64();
    println!(
        "triangles={} build_s={build:.4} bytes={}",
        scene.len(),
        scene.heap_bytes()
    );
    for (i, set) in sets
        .iter()
        .enumerate()
        .filter(|(i, _)| only == usize::MAX || *i == only)
    {
        let mut best = f64::INFINITY;
        let mut hits = 0;
        for _ in 0..repeat {
            let start = thread_cpu_ns();
            hits = trace(&scene, set);
            best = best.min((thread_cpu_ns() - start) as f64 * 1e-9);
        }
        let rate = set.rays.len() as f64 / best / 1e6;
        println!("set={i} closest={} hits={hits} rate={rate:.2}M", set.closest);
    }
    Ok(())
}
