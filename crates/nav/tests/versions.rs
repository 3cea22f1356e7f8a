//! Synthetic meshes for every Source 1 version and game layout: write, read back, compare.

use srcmap_nav::*;

fn area(id: u32, version: u32, layout: GameLayout) -> NavArea {
    let attributes = if version <= 8 {
        0x41
    } else if version <= 12 {
        0x1041
    } else {
        0x2000_1041
    };
    NavArea {
        id,
        attributes,
        nw_corner: [0.0, 0.0, 1.5],
        se_corner: [50.0, 25.0, 2.5],
        ne_z: 1.75,
        sw_z: 2.25,
        connections: [vec![id + 1], vec![], vec![id + 2, id + 3], vec![]],
        hiding_spots: vec![HidingSpot {
            id: if version == 1 { 0 } else { 7 },
            position: [10.0, 12.0, 1.5],
            flags: if version == 1 { 0 } else { 1 },
        }],
        approaches: if version < 15 {
            vec![Approach {
                here: id,
                prev: id + 1,
                prev_to_here: 2,
                next: id + 2,
                here_to_next: 6,
            }]
        } else {
            vec![]
        },
        encounter_paths: if version < 3 {
            EncounterPaths::Old(vec![OldEncounterPath {
                from: 1,
                to: 2,
                path_from: [0.0; 3],
                path_to: [1.0; 3],
                spots: vec![[1.0, 2.0, 3.0, 4.0]],
            }])
        } else {
            EncounterPaths::New(vec![EncounterPath {
                from_area: 1,
                from_dir: 0,
                to_area: 2,
                to_dir: 2,
                spots: vec![EncounterSpot {
                    hiding_spot: 7,
                    t: 128,
                }],
            }])
        },
        place: if version >= 5 { 1 } else { 0 },
        ladder_connections: if version >= 7 {
            [vec![3], vec![]]
        } else {
            [vec![], vec![]]
        },
        earliest_occupy_time: if version >= 8 { [3.5, 4.5] } else { [0.0; 2] },
        light_intensity: if version >= 11 {
            [0.25, 0.5, 0.75, 1.0]
        } else {
            [0.0; 4]
        },
        visible_areas: if version >= 16 && layout != GameLayout::L4d2 {
            vec![VisibleArea {
                area: 9,
                attributes: 2,
            }]
        } else {
            vec![]
        },
        inherit_visibility_from: if version >= 16 && layout != GameLayout::L4d2 {
            4
        } else {
            0
        },
        custom: match layout {
            _ if version < 10 => AreaCustom::None,
            GameLayout::Tf2 => AreaCustom::Tf2 { attributes: 0x800 },
            GameLayout::CounterStrike if version >= 15 => AreaCustom::CsApproaches(vec![Approach {
                here: 1,
                prev: 2,
                prev_to_here: 0,
                next: 3,
                here_to_next: 1,
            }]),
            GameLayout::L4d2 => AreaCustom::L4d2(L4d2Area {
                spawn_attributes: Some(2),
                fog_place: Some(0),
                visible_areas: Some(vec![(5, Some(1))]),
                inherit_visibility_from: Some(0),
                ..Default::default()
            }),
            GameLayout::UnknownFixed(n) => AreaCustom::Raw(vec![0xAB; n as usize]),
            _ => AreaCustom::None,
        },
    }
}

fn mesh(version: u32, sub: Option<u32>, layout: GameLayout) -> NavMesh {
    NavMesh {
        version,
        sub_version: sub,
        bsp_size: (version >= 4).then_some(123456),
        is_analyzed: (version >= 14).then_some(1),
        places: if version >= 5 {
            vec![PlaceName::new("BombsiteA"), PlaceName::new("Mid")]
        } else {
            vec![]
        },
        has_unnamed_areas: (version >= 12).then_some(0),
        pre_area_data: if layout == GameLayout::L4d2 {
            vec![b'x', 0, 0, 0]
        } else {
            vec![]
        },
        areas: (1..=3).map(|i| area(i, version, layout)).collect(),
        ladders: (version >= 6).then(|| {
            vec![NavLadder {
                id: 3,
                width: 32.0,
                top: [0.0, 0.0, 128.0],
                bottom: [0.0, 0.0, 0.0],
                length: 128.0,
                direction: 2,
                is_dangling: (version == 6).then_some(0),
                top_forward_area: 1,
                top_left_area: 0,
                top_right_area: 0,
                top_behind_area: 2,
                bottom_area: 3,
            }]
        }),
        post_mesh_data: if layout == GameLayout::L4d2 {
            1500f32.to_le_bytes().to_vec()
        } else {
            vec![]
        },
        layout,
    }
}

#[test]
fn every_version_round_trips() {
    for version in 1..=16 {
        let sub = (version >= 10).then_some(0);
        let m = mesh(version, sub, GameLayout::Base);
        let bytes = m.write().unwrap_or_else(|e| panic!("v{version}: {e}"));
        let back = NavMesh::read(&bytes).unwrap_or_else(|e| panic!("v{version}: {e}"));
        assert_eq!(back, m, "version {version}");
        assert_eq!(back.write().unwrap(), bytes);
    }
}

#[test]
fn game_layouts_round_trip_and_are_detected() {
    let cases = [
        (16, 2, GameLayout::Tf2),
        (16, 1, GameLayout::CounterStrike),
        (16, 14, GameLayout::L4d2),
        (15, 13, GameLayout::L4d2),
        (16, 9, GameLayout::UnknownFixed(6)),
    ];
    for (version, sub, layout) in cases {
        let m = mesh(version, Some(sub), layout);
        let bytes = m.write().unwrap();
        let back = NavMesh::read(&bytes).unwrap_or_else(|e| panic!("{layout:?}: {e}"));
        assert_eq!(back.layout, layout);
        assert_eq!(back, m);
    }
}

#[test]
fn source2_and_garbage_are_refused() {
    let mut s2 = vec![0xCE, 0xFA, 0xED, 0xFE];
    s2.extend_from_slice(&35u32.to_le_bytes());
    s2.extend_from_slice(&1u32.to_le_bytes());
    assert!(matches!(
        NavMesh::read(&s2),
        Err(NavError::Source2 { version: 35, .. })
    ));
    assert!(matches!(
        NavMesh::read(b"VBSP...."),
        Err(NavError::BadMagic { .. })
    ));
    // Every header/place/count byte set to 0xFF in turn: errors (or a parse), never a panic
    // or a huge allocation.
    let good = mesh(16, Some(0), GameLayout::Base).write().unwrap();
    for i in 0..good.len().min(96) {
        let mut bad = good.clone();
        bad[i] = 0xFF;
        let _ = NavMesh::read(&bad);
    }
}

#[test]
fn values_that_do_not_fit_the_version_are_write_errors() {
    let mut m = mesh(8, None, GameLayout::Base);
    m.areas[0].attributes = 0x1000; // needs 16 bits; v8 stores 8
    assert!(matches!(m.write(), Err(NavError::Write { .. })));
}
