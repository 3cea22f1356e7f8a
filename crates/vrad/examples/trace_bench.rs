//! Raw ray throughput of the occluder scene VRAD builds for a map:
//! `cargo run --release -p srcmap-vrad --example trace_bench -- MAP.bsp [RAYS]`.
//! Shoots RAYS incoherent rays (random origins inside the world bounds, random directions),
//! first for closest hit, then as occlusion segments of 512 units, on all cores.

use std::time::Instant;

use glam::Vec3;
use rayon::prelude::*;
use srcmap_trace::Tracer;
use srcmap_vrad::sampling::hash01;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(path) = args.get(1) else {
        eprintln!("usage: trace_bench MAP.bsp [RAYS]");
        std::process::exit(2);
    };
    let n: usize = args.get(2).and_then(|v| v.parse().ok()).unwrap_or(2_000_000);
    let bytes = std::fs::read(path).expect("readable map");
    let bsp = srcmap_bsp::Bsp::parse(&bytes).expect("a Source BSP");
    let faces = srcmap_vrad::faces::build_faces(&bsp);
    let disps: Vec<_> = faces.iter().map(|_| None).collect();
    let t = Instant::now();
    let scene = srcmap_vrad::scene::occluders(&bsp, &faces, &disps);
    let build = t.elapsed().as_secs_f64();
    let world = bsp.models.first().expect("a world model");
    let (lo, hi) = (Vec3::from(world.mins), Vec3::from(world.maxs));
    let ray = |i: usize| {
        let k = i as u64 * 6;
        let o = lo + (hi - lo) * Vec3::new(hash01(k), hash01(k + 1), hash01(k + 2));
        let z = 2.0 * hash01(k + 3) - 1.0;
        let phi = std::f32::consts::TAU * hash01(k + 4);
        let r = (1.0 - z * z).max(0.0).sqrt();
        (o, Vec3::new(r * phi.cos(), r * phi.sin(), z))
    };
    let t = Instant::now();
    let hits: usize = (0..n)
        .into_par_iter()
        .filter(|&i| {
            let (o, d) = ray(i);
            scene.closest(o.to_array(), d.to_array(), 1e5).is_some()
        })
        .count();
    let closest = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let blocked: usize = (0..n)
        .into_par_iter()
        .filter(|&i| {
            let (o, d) = ray(i);
            scene.occluded(o.to_array(), d.to_array(), 512.0)
        })
        .count();
    let occl = t.elapsed().as_secs_f64();
    println!(
        "{{\"triangles\": {}, \"build_s\": {build:.3}, \"rays\": {n}, \"threads\": {}, \"closest_mrays_s\": {:.2}, \"occlusion_mrays_s\": {:.2}, \"hit\": {hits}, \"blocked\": {blocked}}}",
        scene.len(),
        rayon::current_num_threads(),
        n as f64 / closest / 1e6,
        n as f64 / occl / 1e6
    );
}
