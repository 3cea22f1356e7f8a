//! Properties of compiled hand-made maps: where it is solid, leaks, hints, detail, water.

mod common;
use common::*;
use srcmap_vbsp::*;

const WALL: &str = "brick/wall01";

fn box_room() -> Vec<MapEntity> {
    vec![
        world(room(1, [-256.0, -256.0, 0.0], [256.0, 256.0, 256.0], WALL)),
        entity(100, "info_player_start", [0.0, 0.0, 16.0], vec![]),
    ]
}

#[test]
fn box_room_inside_empty_outside_solid() {
    let out = compile_map(box_room()).expect("compiles");
    assert_eq!(contents_at(&out, [0.0, 0.0, 100.0]), 0, "inside is empty");
    assert_eq!(contents_at(&out, [100.0, -200.0, 250.0]), 0, "inside is empty");
    assert_ne!(contents_at(&out, [0.0, 0.0, -8.0]) & 1, 0, "floor is solid");
    assert_ne!(contents_at(&out, [0.0, 0.0, 400.0]) & 1, 0, "outside is filled");
    assert_ne!(
        contents_at(&out, [1000.0, 1000.0, 1000.0]) & 1,
        0,
        "far outside is solid"
    );
    // Only the inner surfaces are drawn: 4 walls 512x256 and floor and ceiling 512x512.
    let area = area_of(&out, WALL);
    let expect = 4.0 * 512.0 * 256.0 + 2.0 * 512.0 * 512.0;
    assert!((area - expect).abs() < 1.0, "area {area} vs {expect}");
    assert!(out.report.count("clusters") >= 1);
    assert!(out.prt.starts_with("PRT1\n"));
    // Every face fits the lightmap limit.
    for f in &out.bsp.faces {
        assert!(
            f.lightmap_size[0] <= 32 && f.lightmap_size[1] <= 32,
            "{:?}",
            f.lightmap_size
        );
    }
    // 6 brushes, each with 6 sides (all axial, no bevels needed).
    assert_eq!(out.bsp.brushes.len(), 6);
    assert_eq!(out.bsp.brush_sides.len(), 36);
    assert_eq!(out.bsp.models.len(), 1);
}

#[test]
fn box_room_with_hole_leaks() {
    let mut ents = box_room();
    // Replace the +X wall by one with a 64-unit gap.
    let wall = ents[0].brushes.remove(1);
    let _ = wall;
    ents[0].brushes.push(common::box_brush(
        50,
        [256.0, -272.0, -16.0],
        [272.0, -32.0, 272.0],
        WALL,
    ));
    ents[0].brushes.push(common::box_brush(
        51,
        [256.0, 32.0, -16.0],
        [272.0, 272.0, 272.0],
        WALL,
    ));
    match compile_map(ents) {
        Err(VbspError::Leak {
            entity_id,
            classname,
            pointfile,
            ..
        }) => {
            assert_eq!(entity_id, 100);
            assert_eq!(classname, "info_player_start");
            let pts: Vec<Vec<f64>> = pointfile
                .lines()
                .map(|l| l.split_whitespace().map(|t| t.parse().unwrap()).collect())
                .collect();
            assert!(pts.len() >= 2, "{pointfile}");
            // The path starts in the void and ends at the entity.
            let first = &pts[0];
            assert!(first.iter().any(|c| c.abs() > 272.0), "starts outside: {first:?}");
            assert_eq!(pts.last().unwrap(), &vec![0.0, 0.0, 16.0]);
        }
        Err(e) => panic!("wrong error {e}"),
        Ok(_) => panic!("a map with a hole must leak"),
    }
}

#[test]
fn hint_splits_clusters() {
    let plain = compile_map(box_room()).unwrap();
    let mut ents = box_room();
    let mut hint = common::box_brush(60, [-1.0, -256.0, 0.0], [1.0, 256.0, 256.0], "tools/toolsskip");
    hint.sides[0].material = "tools/toolshint".into();
    hint.sides[1].material = "tools/toolshint".into();
    ents[0].brushes.push(hint);
    let hinted = compile_map(ents).unwrap();
    assert_ne!(
        cluster_at(&hinted, [-100.0, 0.0, 100.0]),
        cluster_at(&hinted, [100.0, 0.0, 100.0])
    );
    assert!(
        hinted.report.count("clusters") > plain.report.count("clusters"),
        "{} vs {}",
        hinted.report.count("clusters"),
        plain.report.count("clusters")
    );
    // The hint itself draws nothing and is not solid.
    assert_eq!(contents_at(&hinted, [0.0, 0.0, 100.0]), 0);
}

#[test]
fn detail_pillar_does_not_split_clusters() {
    let plain = compile_map(box_room()).unwrap();
    let mut ents = box_room();
    ents.push(entity(
        200,
        "func_detail",
        [0.0; 3],
        vec![common::box_brush(
            70,
            [-32.0, -32.0, 0.0],
            [32.0, 32.0, 256.0],
            "concrete/pillar",
        )],
    ));
    let out = compile_map(ents).unwrap();
    assert_eq!(out.report.count("clusters"), plain.report.count("clusters"));
    // Detail is not in the vis tree: the point inside the pillar is in an empty leaf whose
    // brush list holds the pillar (collision uses leaf brushes).
    let leaf = out.bsp.leaf_at(0, [0.0, 0.0, 100.0]).unwrap();
    assert_eq!(leaf.contents & 1, 0);
    let brushes = &out.bsp.leaf_brushes[leaf.first_leaf_brush as usize..][..leaf.num_leaf_brushes as usize];
    let pillar = brushes
        .iter()
        .any(|&b| out.bsp.brushes[b as usize].contents & contents::CONTENTS_DETAIL as i32 != 0);
    assert!(pillar, "pillar brush filed in the leaf");
    // Its four sides show (top and bottom touch the ceiling and floor: hidden).
    let area = area_of(&out, "concrete/pillar");
    assert!((area - 4.0 * 64.0 * 256.0).abs() < 1.0, "pillar area {area}");
    // func_detail is an internal entity.
    assert!(!has_keyvalue(&out, "classname", "func_detail"));
}

#[test]
fn water_contents() {
    let mut ents = box_room();
    ents[0].brushes.push(common::box_brush(
        80,
        [-256.0, -256.0, 0.0],
        [256.0, 256.0, 64.0],
        "nature/water_pond",
    ));
    let out = compile_map(ents).unwrap();
    assert_ne!(
        contents_at(&out, [0.0, 0.0, 32.0]) as u32 & contents::CONTENTS_WATER,
        0
    );
    assert_eq!(contents_at(&out, [0.0, 0.0, 128.0]), 0);
    // The surface shows from above; from below only with a $bottommaterial, which the
    // built-in rules do not know (tests/water.rs has the game's case).
    let area = area_of(&out, "nature/water_pond");
    assert!((area - 512.0 * 512.0).abs() < 1.0, "water area {area}");
}

#[test]
fn brush_entity_is_a_model() {
    let mut ents = box_room();
    ents.push(entity(
        300,
        "func_door",
        [0.0; 3],
        vec![common::box_brush(
            90,
            [-16.0, -16.0, 0.0],
            [16.0, 16.0, 64.0],
            "metal/door",
        )],
    ));
    let out = compile_map(ents).unwrap();
    assert_eq!(out.bsp.models.len(), 2);
    assert!(has_keyvalue(&out, "model", "*1"));
    let m = &out.bsp.models[1];
    assert_eq!(m.num_faces, 6);
    // The door does not change the world.
    assert_eq!(contents_at(&out, [0.0, 0.0, 32.0]), 0);
}

#[test]
fn bad_brushes_are_reported_and_skipped() {
    let mut ents = box_room();
    let mut bad = common::box_brush(95, [0.0, 0.0, 0.0], [32.0, 32.0, 32.0], WALL);
    bad.sides[2].points[2] = bad.sides[2].points[1]; // collinear points
    ents[0].brushes.push(bad);
    let mut thin = common::box_brush(96, [0.0, 0.0, 0.0], [32.0, 32.0, 32.0], WALL);
    thin.sides.truncate(3);
    ents[0].brushes.push(thin);
    let out = compile_map(ents).unwrap();
    let msgs: Vec<String> = out.diagnostics.iter().map(|d| d.to_string()).collect();
    assert!(msgs.iter().any(|m| m.contains("brush 95 side 952")), "{msgs:?}");
    assert!(msgs.iter().any(|m| m.contains("brush 96")), "{msgs:?}");
    assert_eq!(out.bsp.brushes.len(), 6);
}

#[test]
fn random_garbage_brushes_never_panic() {
    // Random side points: inside-out, degenerate, huge, NaN. Every outcome is fine but a panic.
    let mut rnd = srcmap_corpus::unit_random(0x9e37_79b9_7f4a_7c15);
    for round in 0..20 {
        let mut ents = box_room();
        for b in 0..30 {
            let mut brush = common::box_brush(1000 + b, [-64.0, -64.0, 0.0], [64.0, 64.0, 128.0], WALL);
            for s in &mut brush.sides {
                for p in &mut s.points {
                    if rnd() < 0.5 {
                        *p = srcmap_geom::DVec3::new(
                            rnd() * 600.0 - 300.0,
                            rnd() * 600.0 - 300.0,
                            rnd() * 300.0,
                        );
                    }
                }
                if rnd() < 0.02 {
                    s.points[0].x = f64::NAN;
                }
                if rnd() < 0.02 {
                    s.points[1].y = 1e9;
                }
            }
            ents[0].brushes.push(brush);
        }
        let _ = round;
        let _ = compile_map(ents);
    }
}

#[test]
fn closed_room_surface_is_watertight() {
    // Fine lightmaps force subdivision, whose cuts meet neighbouring faces in T-junctions;
    // after fixing, every edge of the closed inner surface is shared by exactly two faces.
    let mut ents = box_room();
    for b in &mut ents[0].brushes {
        for s in &mut b.sides {
            s.lightmap_scale = 3.0;
        }
    }
    let out = compile_map(ents).unwrap();
    assert!(out.bsp.faces.len() > 6 * 4, "subdivided: {}", out.bsp.faces.len());
    let mut uses = vec![0u32; out.bsp.edges.len()];
    for f in &out.bsp.faces {
        for i in 0..f.num_edges {
            uses[out.bsp.surfedges[(f.first_edge + i) as usize].unsigned_abs() as usize] += 1;
        }
    }
    let open: Vec<usize> = (1..uses.len()).filter(|&e| uses[e] != 2).collect();
    assert!(open.is_empty(), "{} edges not shared by two faces", open.len());
}

/// What the compile leaves out is said once per kind, with its count: here two
/// info_no_dynamic_shadow entities; nothing about kinds the map lacks, nor about the static and
/// detail props and the brush models' collision, which are compiled.
#[test]
fn left_out_kinds_are_one_warning_each_with_counts() {
    let mut ents = box_room();
    for (i, x) in [-64.0, 0.0, 64.0].into_iter().enumerate() {
        ents.push(entity(400 + i as i64, "prop_static", [x, 0.0, 0.0], vec![]));
    }
    ents.push(entity(410, "prop_detail", [0.0, 32.0, 0.0], vec![]));
    for id in [430, 431] {
        ents.push(entity(id, "info_no_dynamic_shadow", [0.0, 0.0, 32.0], vec![]));
    }
    ents.push(entity(
        420,
        "func_door",
        [0.0; 3],
        vec![common::box_brush(
            90,
            [-16.0, -16.0, 0.0],
            [16.0, 16.0, 64.0],
            "metal/door",
        )],
    ));
    let out = compile_map(ents).unwrap();
    let msgs: Vec<String> = out.diagnostics.iter().map(|d| d.to_string()).collect();
    let left_out: Vec<&String> = msgs.iter().filter(|m| m.contains("not compiled")).collect();
    assert_eq!(left_out.len(), 1, "{msgs:?}");
    assert!(
        left_out[0].contains("2 info_no_dynamic_shadow entities"),
        "{msgs:?}"
    );
    // It is also a warning of the report.
    assert!(
        out.report
            .warnings
            .iter()
            .any(|w| w.message.contains("2 info_no_dynamic_shadow"))
    );
}

#[test]
fn a_map_over_an_engine_limit_is_refused_not_written() {
    // 1100 env_cubemaps: over MAX_MAP_CUBEMAPSAMPLES (1024), a BSP `check` and the engine refuse.
    let mut ents = box_room();
    for i in 0..1100i64 {
        let at = [
            -200.0 + (i % 40) as f64 * 10.0,
            -200.0 + (i / 40) as f64 * 10.0,
            64.0,
        ];
        ents.push(entity(1000 + i, "env_cubemap", at, vec![]));
    }
    match compile_map(ents) {
        Err(VbspError::OverLimit(what)) => assert!(what.contains("MAX_MAP_CUBEMAPSAMPLES"), "{what}"),
        Err(e) => panic!("another error: {e}"),
        Ok(_) => panic!("a map over the cubemap limit compiled"),
    }
}

/// A box room with a player start, and a separate sealed 3D skybox room beside it holding a
/// sky_camera, cut in two leaves by a hint.
fn room_with_skybox() -> Vec<MapEntity> {
    let mut brushes = room(1, [-256.0, -256.0, 0.0], [256.0, 256.0, 256.0], WALL);
    brushes.extend(room(20, [1024.0, -128.0, 0.0], [1280.0, 128.0, 128.0], WALL));
    let mut hint = common::box_brush(
        60,
        [1151.0, -128.0, 0.0],
        [1153.0, 128.0, 128.0],
        "tools/toolsskip",
    );
    hint.sides[0].material = "tools/toolshint".into();
    hint.sides[1].material = "tools/toolshint".into();
    brushes.push(hint);
    vec![
        world(brushes),
        entity(100, "info_player_start", [0.0, 0.0, 16.0], vec![]),
        entity(101, "sky_camera", [1100.0, 0.0, 64.0], vec![]),
    ]
}

fn compile_for(entities: Vec<MapEntity>, target: &str) -> Output {
    let opts = Options {
        verify: true,
        target: srcmap_bsp::Target::by_name(target).unwrap(),
        ..Default::default()
    };
    compile(&MapInput { entities }, &opts, &NoProgress).unwrap()
}

#[test]
fn skybox_is_one_cluster_from_source_2007_on_and_leaf_by_leaf_before() {
    let (a, b) = ([1100.0, 0.0, 64.0], [1200.0, 0.0, 64.0]);
    let tf = compile_for(room_with_skybox(), "tf");
    assert_eq!(
        cluster_at(&tf, a),
        cluster_at(&tf, b),
        "one cluster for the skybox"
    );
    let ep1 = compile_for(room_with_skybox(), "source2006");
    assert_ne!(
        cluster_at(&ep1, a),
        cluster_at(&ep1, b),
        "Episode One's vbsp numbers each leaf"
    );
    // Every skybox leaf (the hint and the main room's planes cut it) gets its own cluster.
    let sky_leaves = tf.report.count("skybox_leaves");
    assert!(sky_leaves >= 2, "{sky_leaves}");
    assert_eq!(ep1.report.count("skybox_leaves"), 0);
    assert_eq!(
        ep1.report.count("clusters"),
        tf.report.count("clusters") + sky_leaves - 1
    );
    // The main room is numbered the same way by both.
    assert_ne!(cluster_at(&tf, [0.0, 0.0, 100.0]), cluster_at(&tf, a));
}

#[test]
fn no_entity_in_open_space_is_written_as_leaked() {
    let ents = vec![world(room(1, [-256.0, -256.0, 0.0], [256.0, 256.0, 256.0], WALL))];
    let out = compile_map(ents).expect("compiles, with a warning");
    assert!(out.diagnostics.iter().any(|d| d.code == Some("vbsp.no_entities")));
    // As Valve's leaked BSPs: no portal file, no visibility, every leaf (solid ones too) in
    // cluster 0.
    assert!(out.prt.is_empty());
    assert!(out.bsp.visibility.is_none());
    assert_eq!(out.report.count("clusters"), 1);
    assert!(out.bsp.leafs.iter().skip(1).all(|l| l.cluster == 0));
    assert_ne!(
        contents_at(&out, [0.0, 0.0, -8.0]) & 1,
        0,
        "the floor is still solid"
    );
}

/// A room whose six walls overlap at every edge and corner, across the block grid lines
/// (x = 0, y = 0) as test_chapter1's nodraw shell does.
fn overlapping_room_across_blocks() -> Vec<MapEntity> {
    vec![
        world(room(1, [-512.0, -336.0, -128.0], [464.0, 432.0, 512.0], WALL)),
        entity(100, "info_player_start", [0.0, 0.0, 16.0], vec![]),
    ]
}

/// Valve's vbsp carves overlapping brushes apart in each block before its tree
/// (`ChopBrushes`), so no region is solid by two brushes and no leaf lists two brushes
/// (uncarved, this room's corner leaves list two or three). The leaf count against
/// Valve's own tree is judged on test_chapter1 by the corpus test.
#[test]
fn overlapping_walls_are_carved_in_each_block() {
    let out = compile_map(overlapping_room_across_blocks()).expect("compiles");
    let b = &out.bsp;
    for (i, l) in b.leafs.iter().enumerate() {
        assert!(
            l.num_leaf_brushes <= 1,
            "leaf {i} lists {} brushes",
            l.num_leaf_brushes
        );
    }
    // The same room of walls that only touch (each wall trimmed to its own face) has the
    // same tree: carving makes the overlap irrelevant.
    let (lo, hi, t) = ([-512.0, -336.0, -128.0], [464.0, 432.0, 512.0], 16.0);
    let mut walls = Vec::new();
    for axis in 0..3 {
        for side in [0, 1] {
            // Earlier axes' walls span the later ones' thickness; later ones are trimmed.
            let mut mins = [lo[0], lo[1], lo[2]];
            let mut maxs = [hi[0], hi[1], hi[2]];
            for a in 0..axis {
                (mins[a], maxs[a]) = (lo[a] - t, hi[a] + t);
            }
            if side == 0 {
                (mins[axis], maxs[axis]) = (lo[axis] - t, lo[axis]);
            } else {
                (mins[axis], maxs[axis]) = (hi[axis], hi[axis] + t);
            }
            walls.push(box_brush(1 + walls.len() as i64, mins, maxs, WALL));
        }
    }
    let touching = vec![
        world(walls),
        entity(100, "info_player_start", [0.0, 0.0, 16.0], vec![]),
    ];
    let touching = compile_map(touching).expect("compiles");
    assert_eq!(
        b.leafs.len(),
        touching.bsp.leafs.len(),
        "leaves: overlapping vs touching walls"
    );
}

/// Leaf 0, the reserved solid leaf, reads as in Valve's BSPs: solid, cluster 0 (Valve's
/// vbsp leaves the record zeroed but for its contents), and no tree node names it.
#[test]
fn leaf_zero_is_valves() {
    let out = compile_map(box_room()).expect("compiles");
    let b = &out.bsp;
    assert_eq!((b.leafs[0].contents & 1, b.leafs[0].cluster), (1, 0));
    assert!(
        b.nodes.iter().all(|n| !n.children.contains(&-1)),
        "a node names leaf 0"
    );
}

/// FACEIDS keeps a side's Hammer id in a short, as Valve's vbsp assigns it: its low 16 bits
/// (a side numbered past 65535, as instances and big maps number them, wraps round).
#[test]
fn face_ids_keep_the_low_16_bits_of_large_side_ids() {
    let mut brushes = room(1, [0.0; 3], [256.0; 3], "dev/dev_measurewall01a");
    brushes.push(box_brush(10_000, [64.0; 3], [128.0; 3], "dev/dev_measurewall01a"));
    let out = compile_map(vec![
        world(brushes),
        entity(100, "info_player_start", [200.0, 200.0, 16.0], vec![]),
    ])
    .unwrap();
    let wrapped: Vec<u32> = (100_000..100_006).map(|id| id - 65_536).collect();
    let ids = &out.bsp.face_ids;
    assert!(wrapped.iter().all(|w| ids.contains(w)), "{ids:?}");
    assert!(!ids.contains(&65_535), "{ids:?}");
}
