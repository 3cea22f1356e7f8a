//! The physics collision builder on every corpus BSP Valve compiled: rebuilt from the BSP's own
//! brushes, it must read back with srcmap-phys, hold the structural invariants, cover the same
//! models with the same number of convex pieces as Valve's lump, write the same water volumes,
//! and put every corner of a world piece on its brush (skipped when `SRCMAP_CORPUS` is unset).

use srcmap_bsp::{Bsp, BspFile, Endian, lump::PHYSCOLLIDE};
use srcmap_phys::ModelCollision;

/// Convex pieces per model.
fn pieces(models: &[ModelCollision]) -> Vec<(i32, usize)> {
    models
        .iter()
        .map(|m| {
            let n = m
                .solids
                .iter()
                .filter_map(|s| s.surface())
                .map(|s| s.terminal_ledges().count())
                .sum();
            (m.model_index, n)
        })
        .collect()
}

/// The `fluid` blocks' surface planes, in order.
fn fluids(models: &[ModelCollision]) -> Vec<String> {
    models
        .iter()
        .flat_map(|m| m.key_data.blocks.iter())
        .filter(|b| b.name == "fluid")
        .map(|b| b.get("surfaceplane").unwrap_or_default().to_string())
        .collect()
}

#[test]
fn rebuilt_physcollide_matches_valves_models_and_pieces() {
    let Some(root) = srcmap_corpus::root("the physics builder corpus test") else {
        return;
    };
    let files = srcmap_corpus::files(&root, "bsp", |p| srcmap_corpus::has_extension(p, "bsp"));
    let mut maps = 0;
    for path in files {
        let data = std::fs::read(&path).unwrap();
        let Ok(file) = BspFile::parse(&data) else { continue };
        if file.endian() != Endian::Little || file.lump(PHYSCOLLIDE).unwrap().is_empty() {
            continue;
        }
        let Ok(bsp) = Bsp::parse(&data) else { continue };
        let valve = bsp.phys_collide.as_ref().unwrap().read_models(0).unwrap();
        // Strata's collision (version 0x101) and polysoup solids are not compact surfaces.
        if valve
            .iter()
            .flat_map(|m| &m.solids)
            .any(|s| s.surface().is_none())
        {
            continue;
        }
        let built = srcmap_vbsp::physics::build(&bsp, &|_| None, &|_| None);
        let ours = built
            .collide
            .read_models(0)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let name = path.display();
        for m in &ours {
            for (i, s) in m.solids.iter().enumerate() {
                let s = s.surface().expect("a compact surface");
                let bad = s.verify(1e-3);
                assert!(
                    bad.is_empty(),
                    "{name}: model {} solid {i}: {bad:?}",
                    m.model_index
                );
                assert!(s.gaps.is_empty());
            }
        }
        // Brush entities: the same pieces. The world: within 0.5% (Valve adds a water brush
        // crossing two volumes' surfaces to both; mvm_smog_b3a has one piece more).
        let (o, v) = (pieces(&ours), pieces(&valve));
        assert_eq!(o[1..], v[1..], "{name}: convex pieces per brush entity differ");
        assert_eq!(o[0].0, v[0].0);
        assert!(
            o[0].1.abs_diff(v[0].1) * 200 <= v[0].1,
            "{name}: world pieces {} vs Valve's {}",
            o[0].1,
            v[0].1
        );
        assert_eq!(fluids(&ours), fluids(&valve), "{name}: water volumes differ");
        // World pieces are unshrunk: every corner lies on or behind each of its brush's planes
        // and on at least three of them.
        for s in ours[0].solids.iter().filter_map(|s| s.surface()) {
            for l in &s.ledges {
                let brush = &bsp.brushes[l.client_data as usize];
                let sides = &bsp.brush_sides[brush.first_side as usize..][..brush.num_sides as usize];
                for t in &l.triangles {
                    for e in &t.edges {
                        let p = s.ledge_point(l, e.start_point_index).unwrap();
                        let hl = [p[0] as f64 / 0.0254, p[2] as f64 / 0.0254, -p[1] as f64 / 0.0254];
                        let dists: Vec<f64> = sides
                            .iter()
                            .filter(|s| s.bevel & 0xff == 0)
                            .map(|s| {
                                let pl = &bsp.planes[s.plane as usize];
                                (0..3).map(|k| pl.normal[k] as f64 * hl[k]).sum::<f64>() - pl.dist as f64
                            })
                            .collect();
                        assert!(
                            dists.iter().all(|&d| d < 0.05),
                            "{name}: a corner outside its brush"
                        );
                        assert!(
                            dists.iter().filter(|d| d.abs() < 0.05).count() >= 3,
                            "{name}: a corner off the brush's corners"
                        );
                    }
                }
            }
        }
        maps += 1;
    }
    eprintln!("{maps} maps rebuilt");
    assert!(maps >= 20, "expected the corpus maps");
}
