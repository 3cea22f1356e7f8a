use srcmap_trace::Tracer;
fn main() {
    let a: Vec<String> = std::env::args().collect();
    let bytes = std::fs::read(&a[1]).unwrap();
    let bsp = srcmap_bsp::Bsp::parse(&bytes).unwrap();
    let faces = srcmap_vrad::faces::build_faces(&bsp);
    let disps: Vec<_> = faces.iter().map(|_| None).collect();
    let surf = srcmap_vrad::scene::surfaces(&faces, &disps);
    let f: usize = a[2].parse().unwrap();
    let g = &faces[f];
    let c = g.points.iter().copied().sum::<glam::Vec3>() / g.points.len() as f32 + g.normal;
    let mut counts = std::collections::BTreeMap::new();
    for d in srcmap_vrad::direct::sphere_directions(400) {
        if d.dot(g.normal) <= 0.0 { continue; }
        let k = match surf.closest(c.to_array(), d.to_array(), 60000.0) {
            Some(h) => format!("face {} front {}", h.payload, faces.get(h.payload as usize).map_or(false, |hf| hf.normal.dot(d) < 0.0)),
            None => "miss".into(),
        };
        *counts.entry(k).or_insert(0) += 1;
    }
    println!("{c:?} {counts:?}");
}
