//! Debug aid: traces rays through a map's occluder scene and prints what they hit:
//! `probe MAP.bsp X Y Z DX DY DZ`.

use srcmap_bsp::{Bsp, BspFile};
use srcmap_trace::Tracer;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let bytes = std::fs::read(&args[0]).expect("read");
    let file = BspFile::parse(&bytes).expect("parse");
    let bsp = Bsp::from_file(&file).expect("bsp");
    let faces = srcmap_vrad::faces::build_faces(&bsp);
    let disps: Vec<_> = faces
        .iter()
        .enumerate()
        .map(|(i, g)| {
            if g.is_displacement {
                srcmap_vrad::displacement::DispSurface::build(&bsp, i, g)
            } else {
                None
            }
        })
        .collect();
    let scene = srcmap_vrad::scene::occluders(&bsp, &faces, &disps);
    if args.len() == 2 {
        let i: usize = args[1].parse().unwrap();
        let f = &faces[i];
        println!(
            "face {i}: normal {:?} lit {} points {:?} flags {:#x}",
            f.normal,
            f.lit,
            f.points,
            f.texinfo_flags.bits()
        );
        let s = srcmap_vrad::samples::FaceSamples::build(f, disps[i].as_ref());
        for (p, n) in s.pos.iter().zip(&s.normal).take(3) {
            let h = scene.closest(p.to_array(), [-1.0, 0.0, 0.0], 1.0e6);
            println!("sample {p:?} n {n:?} -> {h:?}");
            let (lights, _) = srcmap_vrad::lights::parse_lights(&bsp.entities, srcmap_vrad::Range::Ldr);
            let dirs = srcmap_vrad::sampling::sphere_directions(162);
            let shadows = srcmap_vrad::direct::Shadows::new(&scene, &dirs);
            for l in &lights {
                let mut rays = 0;
                let mut out = [0.0f32; 4];
                let ok = srcmap_vrad::direct::gather(&shadows, l, *p, &[*n], &mut rays, &mut out);
                println!("  {:?} {:?} -> {ok} {:?}", l.kind, l.intensity, out);
            }
        }
        return;
    }
    let v: Vec<f32> = args[1..7].iter().map(|s| s.parse().unwrap()).collect();
    let mut o = [v[0], v[1], v[2]];
    let d = [v[3], v[4], v[5]];
    for _ in 0..6 {
        match scene.closest(o, d, v.get(6).copied().unwrap_or(1.0e6)) {
            Some(h) => {
                let p = [o[0] + d[0] * h.t, o[1] + d[1] * h.t, o[2] + d[2] * h.t];
                println!(
                    "hit t={} at {:?} payload {:#x} tri {}",
                    h.t, p, h.payload, h.triangle
                );
                o = [p[0] + d[0] * 0.1, p[1] + d[1] * 0.1, p[2] + d[2] * 0.1];
            }
            None => {
                println!("miss");
                break;
            }
        }
    }
}
