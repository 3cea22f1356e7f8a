fn main() {
    let a: Vec<String> = std::env::args().collect();
    let bytes = std::fs::read(&a[1]).unwrap();
    let bsp = srcmap_bsp::Bsp::parse(&bytes).unwrap();
    let faces = srcmap_vrad::faces::build_faces(&bsp);
    let f: usize = a[2].parse().unwrap();
    let g = &faces[f];
    println!("normal {:?} pts {:?}", g.normal, g.points);
    println!("w {} h {} mins {:?} vecs {:?}", g.width, g.height, g.mins, g.vecs);
    println!("poly {:?}", g.luxel_poly);
    let s = srcmap_vrad::direct::FaceSamples::build(g, None);
    for i in [0, g.width / 2, g.luxel_count() / 2, g.luxel_count() - 1] {
        println!("luxel {i}: {:?} n {:?}", s.pos[i], s.normal[i]);
    }
}
