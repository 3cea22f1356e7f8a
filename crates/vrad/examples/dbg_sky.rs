use srcmap_trace::Tracer;
fn main() {
    let a: Vec<String> = std::env::args().collect();
    let bytes = std::fs::read(&a[1]).unwrap();
    let bsp = srcmap_bsp::Bsp::parse(&bytes).unwrap();
    let faces = srcmap_vrad::faces::build_faces(&bsp);
    let disps: Vec<_> = faces.iter().map(|_| None).collect();
    let occ = srcmap_vrad::scene::occluders(&bsp, &faces, &disps);
    println!("occluder tris {} sky faces {}", occ.len(), faces.iter().filter(|f| f.texinfo_flags & 4 != 0).count());
    let (mut sky, mut opaque, mut miss) = (0, 0, 0);
    for f in faces.iter().filter(|f| f.lit) {
        let c = f.points.iter().copied().sum::<glam::Vec3>() / f.points.len() as f32 + f.normal;
        for d in srcmap_vrad::direct::sphere_directions(40) {
            if d.dot(f.normal) <= 0.0 { continue; }
            match occ.closest(c.to_array(), d.to_array(), 60000.0) {
                Some(h) if h.payload & (1 << 31) != 0 => sky += 1,
                Some(_) => opaque += 1,
                None => miss += 1,
            }
        }
    }
    println!("sky {sky} opaque {opaque} miss {miss}");
}
