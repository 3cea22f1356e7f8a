//! The physics collision builder on every corpus BSP Valve compiled: rebuilt from the BSP's own
//! brushes, it must read back with srcmap-phys, hold the structural invariants, cover the same
//! models with the same number of convex pieces as Valve's lump, write the same water volumes,
//! and put every corner of a world piece on its brush (skipped when `SRCMAP_CORPUS` is unset).

mod common;

use common::*;
use srcmap_bsp::{Bsp, BspFile, Endian, lump::PHYSCOLLIDE};
use srcmap_materials::{MaterialTable, Resolver};
use srcmap_phys::{CompactSurface, ModelCollision};
use srcmap_vbsp::{MapEntity, MapInput, NoProgress, Options, Output, compile};

/// Whether a surface is polysoup (power-4 terrain): every ledge a flat triangle of two faces,
/// which no brush makes.
fn is_polysoup(s: &CompactSurface) -> bool {
    s.is_mopp() || s.ledges.iter().all(|l| l.triangles.len() == 2)
}

/// Convex pieces per model (polysoup solids left out).
fn pieces(models: &[ModelCollision]) -> Vec<(i32, usize)> {
    models
        .iter()
        .map(|m| {
            let n = m
                .solids
                .iter()
                .filter_map(|s| s.surface())
                .filter(|s| !is_polysoup(s))
                .map(|s| s.terminal_ledges().count())
                .sum();
            (m.model_index, n)
        })
        .collect()
}

/// The world's `staticsolid` blocks' contents, in order.
fn static_contents(models: &[ModelCollision]) -> Vec<String> {
    let world = models.iter().filter(|m| m.model_index == 0);
    let blocks = world.flat_map(|m| m.key_data.blocks.iter());
    let solids = blocks.filter(|b| b.name == "staticsolid");
    solids
        .filter_map(|b| b.get("contents"))
        .map(str::to_owned)
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
        // Strata's collision (version 0x101) is not read.
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
        // The world's solids group contents as the vbsp of the map's BSP version does; Garry's
        // Mod's BSP 20 vbsp groups as the BSP 21 branches' (no target is Garry's Mod).
        if !name.to_string().contains("gmod_") {
            assert_eq!(
                static_contents(&ours),
                static_contents(&valve),
                "{name}: world solids"
            );
        }
        // World pieces are unshrunk: every corner lies on or behind each of its brush's planes
        // and on at least three of them.
        for s in ours[0]
            .solids
            .iter()
            .filter_map(|s| s.surface())
            .filter(|s| !is_polysoup(s))
        {
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

/// Each brush entity's (surface property, mass) in the key data, per model.
fn entity_masses(models: &[ModelCollision]) -> Vec<(i32, String, f64)> {
    models
        .iter()
        .filter(|m| m.model_index != 0)
        .filter_map(|m| {
            let block = m.key_data.solids().next()?;
            let mass = block.get("mass")?.trim().parse().ok()?;
            Some((m.model_index, block.get("surfaceprop")?.to_string(), mass))
        })
        .collect()
}

/// With a material table learned from the corpus's Valve maps, every brush entity rebuilt from
/// Valve's own brushes names Valve's surface property and weighs what Valve's weighs (density
/// per surface property, shell materials by their surface, the 50,000 kg cap).
#[test]
fn rebuilt_brush_entities_weigh_as_valves() {
    let Some(root) = srcmap_corpus::root("the physics mass corpus test") else {
        return;
    };
    let files = srcmap_corpus::files(&root, "bsp", |p| srcmap_corpus::has_extension(p, "bsp"));
    let mut maps = Vec::new();
    for path in files {
        let data = std::fs::read(&path).unwrap();
        let Ok(file) = BspFile::parse(&data) else { continue };
        if file.endian() != Endian::Little || file.lump(PHYSCOLLIDE).unwrap().is_empty() {
            continue;
        }
        let Ok(bsp) = Bsp::parse(&data) else { continue };
        let Ok(valve) = bsp.phys_collide.as_ref().unwrap().read_models(0) else {
            continue;
        };
        if valve
            .iter()
            .flat_map(|m| &m.solids)
            .any(|s| s.surface().is_none())
        {
            continue;
        }
        maps.push((path.display().to_string(), bsp, valve));
    }
    let table = srcmap_materials::MaterialTable::harvest(maps.iter().map(|(n, b, _)| (n.clone(), b)));
    use srcmap_materials::SurfaceMass::{Density, Shell};
    // Valve's game scripts: wood 700 kg/m³, `default` 2000, glass a 0.5 in shell of 2700.
    assert!(matches!(table.surface_mass("wood"), Some(Density(d)) if (d - 700.0).abs() < 0.1));
    assert!(matches!(table.surface_mass("default"), Some(Density(d)) if (d - 2000.0).abs() < 0.1));
    assert!(matches!(table.surface_mass("glass"), Some(Shell(d)) if (d - 1350.0).abs() < 0.5));

    let (mut solids, mut same_prop, mut same_mass) = (0, 0, 0);
    for (name, bsp, valve) in &maps {
        let built = srcmap_vbsp::physics::build(
            bsp,
            &|m| {
                table
                    .surfaceprop(&srcmap_materials::unpatched_name(m))
                    .map(str::to_owned)
            },
            &|p| table.surface_mass(p),
        );
        let ours = entity_masses(&built.collide.read_models(0).unwrap());
        for ((mi, prop, mass), (vmi, vprop, vmass)) in ours.iter().zip(entity_masses(valve)) {
            assert_eq!(*mi, vmi, "{name}: brush entities differ");
            solids += 1;
            same_prop += usize::from(prop.eq_ignore_ascii_case(&vprop));
            let close = (mass - vmass).abs() <= 0.01 * vmass;
            same_mass += usize::from(close);
            if !close {
                eprintln!("{name}: model {mi}: {prop} {mass} kg, Valve's {vprop} {vmass} kg");
            }
        }
    }
    eprintln!(
        "{solids} brush entities: {same_prop} with Valve's surface property, {same_mass} with its mass (1%)"
    );
    assert!(solids >= 250, "expected the corpus's brush entities");
    assert_eq!(same_prop, solids, "surface properties differ");
    assert!(same_mass * 100 >= solids * 99, "masses: {same_mass} of {solids}");
}

/// Each ledge's first face: its three corners (IVP metres).
fn faces(s: &CompactSurface) -> Vec<[[f32; 3]; 3]> {
    s.ledges
        .iter()
        .map(|l| {
            l.triangles[0]
                .edges
                .map(|e| s.ledge_point(l, e.start_point_index).unwrap())
        })
        .collect()
}

/// Whether every corner of `a` lies within `tolerance` of a corner of `b`.
fn same_corners(a: &[[f32; 3]; 3], b: &[[f32; 3]; 3], tolerance: f32) -> bool {
    a.iter().all(|p| {
        b.iter()
            .any(|q| (0..3).map(|k| (p[k] - q[k]).powi(2)).sum::<f32>() <= tolerance * tolerance)
    })
}

#[test]
fn rebuilt_power4_terrain_matches_valves_polysoup() {
    let Some(root) = srcmap_corpus::root("the power-4 terrain corpus test") else {
        return;
    };
    let files = srcmap_corpus::files(&root, "bsp", |p| srcmap_corpus::has_extension(p, "bsp"));
    let mut maps = 0;
    for path in files {
        let data = std::fs::read(&path).unwrap();
        let Ok(bsp) = Bsp::parse(&data) else { continue };
        if bsp.disp_info.iter().all(|d| d.power <= 3) || bsp.phys_collide.is_none() {
            continue;
        }
        let name = path.display();
        let valve = bsp.phys_collide.as_ref().unwrap().read_models(0).unwrap();
        let built = srcmap_vbsp::physics::build(&bsp, &|_| None, &|_| None);
        let ours = built.collide.read_models(0).unwrap();
        let soups = |m: &ModelCollision| -> Vec<CompactSurface> {
            m.solids
                .iter()
                .filter_map(|s| s.surface())
                .filter(|s| is_polysoup(s))
                .cloned()
                .collect()
        };
        let (o, v) = (soups(&ours[0]), soups(&valve[0]));
        assert_eq!(
            ours[0].solids.len(),
            valve[0].solids.len(),
            "{name}: world solids"
        );
        assert_eq!(o.len(), v.len(), "{name}: terrain solids");
        assert!(!v.is_empty(), "{name}: Valve's lump has no polysoup");
        for (i, (o, v)) in o.iter().zip(&v).enumerate() {
            assert!(
                o.verify(1e-3).is_empty(),
                "{name}: terrain solid {i}: {:?}",
                o.verify(1e-3)
            );
            // One ledge per triangle of the same cell's displacements, centred and bounded alike.
            assert_eq!(
                o.ledges.len(),
                v.ledges.len(),
                "{name}: terrain solid {i}: triangles"
            );
            for k in 0..3 {
                assert!(
                    (o.header.mass_center[k] - v.header.mass_center[k]).abs() < 1e-3,
                    "{name}: solid {i} centre"
                );
            }
            assert!((o.header.upper_limit_radius - v.header.upper_limit_radius).abs() < 1e-3);
            // The same triangles, corner for corner (to 0.01 unit).
            let ours = faces(o);
            let found = faces(v)
                .iter()
                .filter(|t| ours.iter().any(|u| same_corners(t, u, 0.01 * 0.0254)))
                .count();
            eprintln!(
                "{name}: terrain solid {i}: {found} of Valve's {} triangles found",
                v.ledges.len()
            );
            assert_eq!(
                found,
                v.ledges.len(),
                "{name}: terrain solid {i}: triangles differ"
            );
        }
        // The displacements' surface property joins the world's material table (Valve's
        // RemapWorldMaterial); without a material table every slot is `default`, slot 1.
        assert!(
            o.iter()
                .flat_map(|s| &s.ledges)
                .flat_map(|l| &l.triangles)
                .all(|t| t.material_index == 1)
        );
        maps += 1;
    }
    eprintln!("{maps} maps with power-4 terrain rebuilt");
    assert!(maps >= 1, "expected gg_aim_shotty");
}

/// The outer hull ledge hung on the ledge tree's root, if any: its volume in cubic units.
fn outer_hull_volume(s: &CompactSurface) -> Option<f64> {
    let root = s
        .nodes
        .iter()
        .find(|n| n.offset as i32 == s.header.offset_ledgetree_root)?;
    // A terminal root is the one convex itself.
    if root.offset_compact_ledge == 0 || root.offset_right_node == 0 {
        return None;
    }
    let l = &s.ledges[s.ledge_at(root.offset as i64 + root.offset_compact_ledge as i64)?];
    assert_eq!(
        l.has_children_flag, 1,
        "the hull ledge is flagged as having children"
    );
    assert_eq!(
        l.offset as i64 + l.client_data as i64,
        root.offset as i64,
        "its client data names the root"
    );
    let mut volume = 0.0;
    for t in &l.triangles {
        let [a, b, c] = t.edges.map(|e| {
            s.ledge_point(l, e.start_point_index)
                .unwrap()
                .map(|v| v as f64 / 0.0254)
        });
        volume += (a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0])
            + a[2] * (b[0] * c[1] - b[1] * c[0]))
            / 6.0;
    }
    Some(volume)
}

/// Brush entities of several convexes carry an outer hull as Valve's do, of the same volume,
/// and their key data's volume (the convexes' sum, not the hull's) is Valve's.
#[test]
fn rebuilt_brush_entities_have_valves_outer_hull() {
    let Some(root) = srcmap_corpus::root("the outer hull corpus test") else {
        return;
    };
    let files = srcmap_corpus::files(&root, "bsp", |p| srcmap_corpus::has_extension(p, "bsp"));
    let (mut hulls, mut close, mut volumes, mut same_volume) = (0, 0, 0, 0);
    for path in files {
        let data = std::fs::read(&path).unwrap();
        let Ok(file) = BspFile::parse(&data) else { continue };
        if file.endian() != Endian::Little || file.lump(PHYSCOLLIDE).unwrap().is_empty() {
            continue;
        }
        let Ok(bsp) = Bsp::parse(&data) else { continue };
        let Ok(valve) = bsp.phys_collide.as_ref().unwrap().read_models(0) else {
            continue;
        };
        let name = path.display();
        let built = srcmap_vbsp::physics::build(&bsp, &|_| None, &|_| None);
        let ours = built.collide.read_models(0).unwrap();
        for (o, v) in ours.iter().zip(&valve).filter(|(o, _)| o.model_index != 0) {
            let (Some(os), Some(vs)) = (o.solids[0].surface(), v.solids.first().and_then(|s| s.surface()))
            else {
                continue;
            };
            let (oh, vh) = (outer_hull_volume(os), outer_hull_volume(vs));
            assert_eq!(
                oh.is_some(),
                vh.is_some(),
                "{name}: model {}: outer hull",
                o.model_index
            );
            if let (Some(oh), Some(vh)) = (oh, vh) {
                hulls += 1;
                // Ours is of the unshrunk-where-Valve-shrinks convexes alike: within 1%.
                let near = (oh - vh).abs() <= 0.01 * vh;
                close += near as usize;
                if !near {
                    eprintln!("{name}: model {}: hull {oh:.0} vs Valve's {vh:.0}", o.model_index);
                }
            }
            let key_volume = |m: &ModelCollision| -> Option<f64> {
                m.key_data.solids().next()?.get("volume")?.trim().parse().ok()
            };
            if let (Some(ov), Some(vv)) = (key_volume(o), key_volume(v)) {
                volumes += 1;
                same_volume += ((ov - vv).abs() <= 0.01 * vv) as usize;
            }
        }
    }
    eprintln!(
        "{hulls} outer hulls, {close} within 1% of Valve's volume; {same_volume} of {volumes} key-data volumes within 1%"
    );
    assert!(hulls >= 10, "expected the corpus's multi-brush entities");
    assert!(close * 100 >= hulls * 95, "hull volumes: {close} of {hulls}");
    assert!(
        same_volume * 100 >= volumes * 99,
        "key-data volumes: {same_volume} of {volumes}"
    );
}

/// A room of nodraw walls with a grate (tools/toolsinvisible) brush inside.
fn room_with_grate() -> Vec<MapEntity> {
    let mut brushes = room(1, [0.0; 3], [256.0; 3], "tools/toolsnodraw");
    brushes.push(box_brush(20, [64.0; 3], [128.0; 3], "tools/toolsinvisible"));
    vec![
        world(brushes),
        entity(100, "info_player_start", [200.0, 200.0, 16.0], vec![]),
    ]
}

/// A material table that learned `tools/toolsnodraw` as `default` from a BSP 20 map and as
/// `default_silent` from a BSP 42 (Desolation) map, as the corpus's tables do.
fn table_of_two_games() -> Resolver {
    let json = r#"{"format": "srcmap-materials", "version": 1, "materials": {
        "TOOLS/TOOLSNODRAW": {"contents": ["SOLID"], "width": 64, "height": 64,
            "reflectivity": [0.5, 0.5, 0.5], "surfaceprop": "default",
            "surfaceprop_by_version": {"20": "default", "42": "default_silent"}}}}"#;
    let table = MaterialTable::from_json(json).unwrap();
    Resolver::new(None, Some(("two games.json".into(), table)))
}

fn compile_for(entities: Vec<MapEntity>, target: &str, materials: &Resolver) -> Output {
    let opts = Options {
        verify: true,
        target: srcmap_bsp::Target::by_name(target).unwrap(),
        materials,
        ..Default::default()
    };
    compile(&MapInput { entities }, &opts, &NoProgress).unwrap()
}

/// The world's `staticsolid` contents in order, and its material table's names.
fn world_key_data(out: &Output) -> (Vec<String>, Vec<String>) {
    let models = out.bsp.phys_collide.as_ref().unwrap().read_models(0).unwrap();
    let world = models.iter().find(|m| m.model_index == 0).unwrap();
    let contents = (world.key_data.blocks.iter())
        .filter(|b| b.name == "staticsolid")
        .map(|b| b.get("contents").unwrap().to_string())
        .collect();
    let table = world
        .key_data
        .material_table()
        .iter()
        .map(|(k, _)| k.to_string())
        .collect();
    (contents, table)
}

/// Source 2013's vbsp keeps grates in the world's one `MASK_SOLID` solid; the later branches'
/// (BSP 21 on) give them a solid of their own, after the rest (Valve's CS:GO, Left 4 Dead 2,
/// Strata and Desolation maps' key data).
#[test]
fn later_branches_give_the_worlds_grates_a_solid_of_their_own() {
    let builtin = Resolver::default();
    let (tf, _) = world_key_data(&compile_for(room_with_grate(), "tf", &builtin));
    assert_eq!(tf, ["33570827"]);
    let (csgo, _) = world_key_data(&compile_for(room_with_grate(), "csgo", &builtin));
    assert_eq!(csgo, ["33570819", "8"]);
    assert_eq!(
        srcmap_vbsp::physics::world_solid_masks(20).len() + 1,
        srcmap_vbsp::physics::world_solid_masks(21).len()
    );
}

/// A material whose surface property the table's maps of two games disagree on takes the
/// target's game's; a target of neither takes the table's first and says so.
#[test]
fn the_worlds_surface_properties_are_the_target_games() {
    let materials = table_of_two_games();
    let (_, tf) = world_key_data(&compile_for(room_with_grate(), "tf", &materials));
    assert!(
        tf.contains(&"default".to_string()) && !tf.contains(&"default_silent".to_string()),
        "{tf:?}"
    );
    let (_, desolation) = world_key_data(&compile_for(room_with_grate(), "desolation", &materials));
    assert!(
        desolation.contains(&"default_silent".to_string()),
        "{desolation:?}"
    );
    assert!(materials.warnings().iter().all(|w| !w.contains("TOOLSNODRAW")));
    let csgo = compile_for(room_with_grate(), "csgo", &materials);
    let (_, table) = world_key_data(&csgo);
    assert!(table.contains(&"default".to_string()), "{table:?}");
    let warned = (materials.warnings().into_iter())
        .filter(|w| w.contains("TOOLS/TOOLSNODRAW") && w.contains("BSP v21"))
        .count();
    assert_eq!(warned, 1, "{:?}", materials.warnings());
}

/// A room of nodraw walls around a `concrete/floor01` block: two materials the table knows.
fn room_with_concrete_block() -> Vec<MapEntity> {
    let mut brushes = room(1, [0.0; 3], [256.0; 3], "tools/toolsnodraw");
    brushes.push(box_brush(20, [64.0; 3], [128.0; 3], "concrete/floor01"));
    vec![
        world(brushes),
        entity(100, "info_player_start", [200.0, 200.0, 16.0], vec![]),
    ]
}

/// A table knowing both materials' contents; `concrete_prop` the block's learned surface
/// property, if any.
fn table_with_concrete(concrete_prop: Option<&str>) -> Resolver {
    let prop = concrete_prop.map_or(String::new(), |p| format!(r#", "surfaceprop": "{p}""#));
    let json = format!(
        r#"{{"format": "srcmap-materials", "version": 1, "materials": {{
        "TOOLS/TOOLSNODRAW": {{"contents": ["SOLID"], "width": 64, "height": 64,
            "reflectivity": [0.5, 0.5, 0.5], "surfaceprop": "default"}},
        "CONCRETE/FLOOR01": {{"contents": ["SOLID"], "width": 512, "height": 512,
            "reflectivity": [0.5, 0.5, 0.5]{prop}}}}}}}"#
    );
    Resolver::new(
        None,
        Some(("concrete.json".into(), MaterialTable::from_json(&json).unwrap())),
    )
}

/// The compile's warnings about surface properties it had to guess.
fn guessed_surfaceprop_warnings(out: &Output) -> Vec<String> {
    (out.diagnostics.iter())
        .filter(|d| d.message.contains("surface property") && d.message.contains("not known"))
        .map(|d| d.message.clone())
        .collect()
}

/// A colliding material whose surface property neither the game nor the table knows is
/// named once (its solid says `default`, Valve's the VMT's `$surfaceprop`); once the table
/// has learned it, the key data carries it and nothing is said.
#[test]
fn a_collision_material_of_unknown_surface_property_is_named() {
    let unknown = compile_for(room_with_concrete_block(), "tf", &table_with_concrete(None));
    let warned = guessed_surfaceprop_warnings(&unknown);
    assert_eq!(warned.len(), 1, "{warned:?}");
    assert!(warned[0].contains("1 material ") && warned[0].contains("CONCRETE/FLOOR01"));
    assert!(!warned[0].contains("TOOLSNODRAW"), "{warned:?}");
    let (_, table) = world_key_data(&unknown);
    assert!(!table.contains(&"concrete".to_string()), "{table:?}");

    let known = compile_for(
        room_with_concrete_block(),
        "tf",
        &table_with_concrete(Some("concrete")),
    );
    assert_eq!(guessed_surfaceprop_warnings(&known), Vec::<String>::new());
    let (_, table) = world_key_data(&known);
    assert!(table.contains(&"concrete".to_string()), "{table:?}");
}

/// Each convex piece of brush model 1 (not the outer hull over them): its lowest and highest
/// point in Hammer units about the model's origin (IVP's y is Hammer's −z, in metres).
fn model_piece_heights(out: &Output) -> Vec<(f32, f32)> {
    let models = out.bsp.phys_collide.as_ref().unwrap().read_models(0).unwrap();
    let model = models.iter().find(|m| m.model_index == 1).unwrap();
    let surface = model.solids[0].surface().unwrap();
    let mut heights: Vec<(f32, f32)> = (surface.ledges.iter())
        .filter(|l| l.has_children_flag == 0)
        .map(|l| {
            let zs = (l.triangles.iter())
                .flat_map(|t| {
                    t.edges
                        .map(|e| surface.ledge_point(l, e.start_point_index).unwrap()[1])
                })
                .map(|y| -y / 0.0254);
            zs.fold((f32::MAX, f32::MIN), |(lo, hi), z| (lo.min(z), hi.max(z)))
        })
        .collect();
    heights.sort_by(|a, b| a.0.total_cmp(&b.0));
    heights
}

/// Valve shrinks a brush entity's brushes by half a unit on every side some part of which is
/// seen: a slab on a post shrinks on its underside, which the post covers only in part, and the
/// post does not on its top, which the slab covers all over (pcollab_26's portal bumpers: 0.9955
/// of Valve's collision when covered-in-part sides stayed put, 0.9999 now).
#[test]
fn a_brush_entity_side_covered_in_part_shrinks() {
    let post = box_brush(30, [64.0, 64.0, 16.0], [80.0, 80.0, 64.0], "concrete/floor01");
    let slab = box_brush(31, [64.0, 64.0, 64.0], [192.0, 80.0, 72.0], "concrete/floor01");
    let mut entities = room_with_concrete_block();
    entities[0].brushes.pop();
    entities.push(entity(101, "func_brush", [128.0, 72.0, 40.0], vec![post, slab]));
    let out = compile_for(entities, "tf", &table_with_concrete(Some("concrete")));
    let heights = model_piece_heights(&out);
    // The model's collision is about its origin (z = 40).
    let near =
        |a: (f32, f32), b: (f32, f32)| (a.0 - (b.0 - 40.0)).abs() < 0.01 && (a.1 - (b.1 - 40.0)).abs() < 0.01;
    assert_eq!(heights.len(), 2, "{heights:?}");
    assert!(near(heights[0], (16.5, 64.0)), "post: {heights:?}");
    assert!(near(heights[1], (64.5, 71.5)), "slab: {heights:?}");
}
