//! The physdisp builder on every corpus BSP with Valve's displacement collision: rebuilt from
//! the BSP's own displacements, the lump has Valve's entry count and collision flags, every hull
//! is closed and outward, and its corners agree with Valve's hull (skipped when
//! `SRCMAP_CORPUS` is unset).

use srcmap_bsp::{Bsp, BspFile, Endian, lump::PHYSDISP};
use srcmap_geom::DVec3;
use srcmap_phys::PackedHull;
use srcmap_vbsp::phys_disp::{PhysDispBuild, build};

/// Corners closer than this (units) to the other hull count as on it.
const SHAPE_TOLERANCE: f64 = 0.1;

/// How far (units) the corners of hull `a` lie outside hull `b`: in front of a triangle's
/// plane of `b`, or outside the box of `b`'s corners (which bounds a flat hull sideways).
fn outside(points: &[DVec3], a: &PackedHull, b: &PackedHull) -> f64 {
    let corners_b: Vec<DVec3> = b.vertices().iter().map(|&k| points[k as usize]).collect();
    let lo = corners_b.iter().fold(DVec3::splat(f64::MAX), |m, p| m.min(*p));
    let hi = corners_b.iter().fold(DVec3::splat(f64::MIN), |m, p| m.max(*p));
    let centre = corners_b.iter().sum::<DVec3>() / corners_b.len() as f64;
    let mut worst = 0.0f64;
    for &k in &a.vertices() {
        let q = points[k as usize];
        worst = worst.max((lo - q).max_element()).max((q - hi).max_element());
        for t in 0..b.triangles.len() {
            let c = b.triangle_corners(t).unwrap().map(|k| points[k as usize]);
            let mut n = (c[1] - c[0]).cross(c[2] - c[0]).normalize_or_zero();
            // Valve's triangles may wind either way: face away from the centre.
            if n.dot(centre - c[0]) > 0.0 {
                n = -n;
            }
            let d = n.dot(q - c[0]);
            // A flat hull's two sides: its plane bounds both ways.
            worst = worst.max(if n.dot(centre - c[0]).abs() < 1e-3 {
                d.abs()
            } else {
                d
            });
        }
    }
    worst
}

#[test]
fn rebuilt_physdisp_matches_valves_hulls() {
    let Some(root) = srcmap_corpus::root("the physdisp builder corpus test") else {
        return;
    };
    let files = srcmap_corpus::files(&root, "bsp", |p| srcmap_corpus::has_extension(p, "bsp"));
    let (mut maps, mut hulls, mut same_corners, mut same_triangles, mut same_pierce, mut tris) =
        (0, 0, 0, 0, 0, 0);
    let (mut same_shape, mut superset, mut worst_bulge) = (0, 0, 0.0f64);
    for path in files {
        let data = std::fs::read(&path).unwrap();
        let Ok(file) = BspFile::parse(&data) else { continue };
        if file.endian() != Endian::Little || file.lump(PHYSDISP).unwrap().len() <= 2 {
            continue;
        }
        let Ok(bsp) = Bsp::parse(&data) else { continue };
        let name = path.display();
        // Strata (v25) gives lump 28 another use.
        let Some(valve) = bsp.phys_disp.as_ref() else {
            continue;
        };
        let valve = valve.read_hulls(0).unwrap();
        let (PhysDispBuild::Lump(lump), failed) = build(&bsp) else {
            panic!("{name}: Valve wrote physdisp, we did not");
        };
        assert!(failed.is_empty(), "{name}: no hull for displacements {failed:?}");
        let ours = lump.read_hulls(0).unwrap();
        assert_eq!(ours.len(), valve.len(), "{name}: entry count");
        let grids = srcmap_disp::grids_of(&bsp);
        for (i, (o, v)) in ours.iter().zip(&valve).enumerate() {
            assert_eq!(
                o.is_some(),
                v.is_some(),
                "{name} displacement {i}: collision or not"
            );
            let (Some(o), Some(v)) = (o, v) else { continue };
            let n = bsp.disp_info[i].vert_count();
            assert_eq!(o.verify(n), Vec::<String>::new(), "{name} displacement {i}");
            // Outward: no displacement vertex lies in front of a triangle.
            let g = grids[i].as_ref().unwrap();
            let p = |k: u8| {
                let v = g.verts[k as usize];
                DVec3::new(v.x.into(), v.y.into(), v.z.into())
            };
            for t in 0..o.triangles.len() {
                let c = o.triangle_corners(t).unwrap().map(p);
                let normal = (c[1] - c[0]).cross(c[2] - c[0]).normalize_or_zero();
                let worst = g
                    .verts
                    .iter()
                    .map(|v| normal.dot(DVec3::new(v.x.into(), v.y.into(), v.z.into()) - c[0]))
                    .fold(f64::MIN, f64::max);
                assert!(
                    worst < 0.02,
                    "{name} displacement {i} triangle {t}: a vertex {worst} in front"
                );
            }
            // Valve's pierce indices, recomputed from its own triangles, agree with ours' rule.
            let corners: Vec<[u8; 3]> = (0..v.triangles.len())
                .map(|t| v.triangle_corners(t).unwrap())
                .collect();
            let points: Vec<DVec3> = (0..n).map(|k| p(k as u8)).collect();
            for (t, tri) in v.triangles.iter().enumerate() {
                tris += 1;
                same_pierce += usize::from(
                    srcmap_vbsp::phys_disp::pierce(&points, &corners, t) == tri.pierce_index as usize,
                );
            }
            hulls += 1;
            same_corners += usize::from(o.vertices() == v.vertices());
            // The same shape: Valve's corners lie on or inside ours, ours on or inside Valve's
            // except where Valve's hull leaves out mesh points that stick out by less than
            // about half a unit (its hull cuts them off; ours keeps every point in).
            let valve_outside = outside(&points, v, o);
            let ours_outside = outside(&points, o, v);
            assert!(
                valve_outside <= SHAPE_TOLERANCE,
                "{name} displacement {i}: Valve's corner {valve_outside} units outside our hull"
            );
            assert!(
                ours_outside <= 1.0,
                "{name} displacement {i}: our corner {ours_outside} units outside Valve's hull"
            );
            same_shape += usize::from(ours_outside <= SHAPE_TOLERANCE);
            worst_bulge = worst_bulge.max(ours_outside);
            superset += usize::from(o.vertices().iter().all(|x| v.vertices().contains(x)));
            same_triangles += usize::from(o.triangles.len() == v.triangles.len());
        }
        maps += 1;
    }
    eprintln!(
        "{maps} maps, {hulls} hulls: the same shape as Valve's (within {SHAPE_TOLERANCE} units) \
         {same_shape}, the others larger by at most {worst_bulge:.3} units; corner sets equal {same_corners}, ours within Valve's {superset}; triangle \
         count equal {same_triangles}; pierce rule agrees on {same_pierce} of Valve's {tris} triangles"
    );
    assert!(maps >= 10 && hulls >= 900, "expected the corpus maps");
    assert!(
        same_shape * 100 >= hulls * 98,
        "{same_shape} of {hulls} hulls have Valve's shape"
    );
}
