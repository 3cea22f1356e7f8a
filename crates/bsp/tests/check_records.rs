//! The overlay, occluder, water and cubemap checks: broken records are reported by record,
//! lump and byte offset without panicking; a consistent map passes. (Every corpus map passes
//! `check`, these checks included: `tests/check.rs`.)

use srcmap_bsp::check::{check, occlusion, overlays, water};
use srcmap_bsp::lump::*;
use srcmap_bsp::{
    Bsp, Cubemap, Face, Leaf, LeafWaterData, OccluderData, OccluderPolyData, Occlusion, Overlay, OverlayFade,
    Plane, TexInfo,
};

/// Two faces, one texinfo, two planes, four vertices; one overlay on both faces, one occluder
/// with one square polygon, one water volume that the second leaf references.
fn consistent() -> Bsp {
    let mut bsp = Bsp::new(20);
    bsp.planes = vec![Plane::default(); 2];
    bsp.texinfo = vec![TexInfo {
        texdata: -1,
        ..Default::default()
    }];
    bsp.vertexes = vec![[0.0; 3]; 4];
    bsp.faces = vec![
        Face {
            dispinfo: -1,
            light_offset: -1,
            ..Default::default()
        };
        2
    ];
    let mut faces = vec![0; 64];
    faces[1] = 1;
    bsp.overlays = vec![Overlay {
        texinfo: 0,
        face_count_and_render_order: 2 | (1 << 14),
        faces,
        ..Default::default()
    }];
    bsp.overlay_fades = vec![OverlayFade::default()];
    bsp.occlusion = Some(Occlusion {
        occluders: vec![OccluderData {
            first_poly: 0,
            poly_count: 1,
            ..Default::default()
        }],
        polys: vec![OccluderPolyData {
            first_vertex_index: 0,
            vertex_count: 4,
            plane: 1,
        }],
        vertex_indices: vec![0, 1, 2, 3],
    });
    bsp.leaf_water_data = vec![LeafWaterData {
        surface_texinfo: 0,
        ..Default::default()
    }];
    bsp.leafs = vec![
        Leaf {
            leaf_water_data: -1,
            ..Default::default()
        },
        Leaf {
            leaf_water_data: 0,
            ..Default::default()
        },
    ];
    bsp.cubemaps = vec![Cubemap::default(); 3];
    bsp
}

fn messages(found: &[srcmap_bsp::check::Violation]) -> Vec<String> {
    found.iter().map(|v| v.to_string()).collect()
}

#[test]
fn a_consistent_map_passes() {
    let bsp = consistent();
    assert!(check(&bsp).is_empty(), "{:?}", messages(&check(&bsp)));
    // It survives a write and a parse unchanged in these respects.
    let again = Bsp::parse(&bsp.to_bytes().unwrap()).unwrap();
    assert!(check(&again).is_empty(), "{:?}", messages(&check(&again)));
}

#[test]
fn broken_overlays_are_reported_by_record_and_byte_offset() {
    let mut bsp = consistent();
    let good = bsp.overlays[0].clone();
    let mut bad_texinfo = good.clone();
    bad_texinfo.texinfo = 5;
    let mut bad_face = good.clone();
    bad_face.faces[1] = 2;
    let mut too_many = good.clone();
    too_many.face_count_and_render_order = 65;
    bsp.overlays = vec![good, bad_texinfo, bad_face, too_many];
    let found = overlays(&bsp);
    let text = messages(&found);
    assert_eq!(found.len(), 4, "{text:?}");
    assert!(found[..3].iter().all(|v| v.lump == OVERLAYS));
    // 352-byte records.
    assert!(
        text[0].contains("overlay 1 (byte 352): texinfo 5 is out of range (TEXINFO has 1)"),
        "{text:?}"
    );
    assert!(
        text[1].contains("overlay 2 (byte 704): listed face 2 is out of range (FACES has 2)"),
        "{text:?}"
    );
    assert!(
        text[2].contains("overlay 3 (byte 1056): face count 65 exceeds OVERLAY_BSP_FACE_COUNT (64)"),
        "{text:?}"
    );
    // One fade for four overlays.
    let all = messages(&check(&bsp));
    assert!(
        all.iter()
            .any(|m| m.contains("OVERLAY_FADES") && m.contains("1 fades for 4 overlays")),
        "{all:?}"
    );
    // No fades at all is allowed (older maps have none).
    bsp.overlay_fades.clear();
    assert!(!messages(&check(&bsp)).iter().any(|m| m.contains("fades")));
}

#[test]
fn broken_occluders_are_reported_by_entry_and_byte_offset() {
    let mut bsp = consistent();
    let o = bsp.occlusion.as_mut().unwrap();
    o.occluders.push(OccluderData {
        first_poly: 1,
        poly_count: 1,
        ..Default::default()
    });
    o.polys.push(OccluderPolyData {
        first_vertex_index: 2,
        vertex_count: 5,
        plane: 2,
    });
    o.vertex_indices.push(4);
    o.vertex_indices.push(-1);
    // The second occluder's polygon now exists, but reads past the five indices, names a
    // third plane; the fifth and sixth indices name no vertex.
    let found = occlusion(&bsp);
    let text = messages(&found);
    assert!(found.iter().all(|v| v.lump == OCCLUSION), "{text:?}");
    // Occluders at 4 (40 bytes each), polygons after them and their count at 88, indices at 116.
    let expected = [
        "occluder polygon 1 (byte 100): vertex indices 2..7 are out of range (the vertex index list has 6)",
        "occluder polygon 1 (byte 100): plane 2 is out of range (PLANES has 2)",
        "occluder vertex index 4 (byte 132): vertex 4 is out of range (VERTEXES has 4)",
        "occluder vertex index 5 (byte 136): vertex -1 is out of range (VERTEXES has 4)",
    ];
    assert_eq!(text.len(), expected.len(), "{text:?}");
    for (got, want) in text.iter().zip(expected) {
        assert!(got.contains(want), "{got} / {want}");
    }

    let o = bsp.occlusion.as_mut().unwrap();
    o.occluders[1].poly_count = 2;
    o.occluders.push(OccluderData {
        first_poly: -1,
        poly_count: 1,
        ..Default::default()
    });
    let text = messages(&occlusion(&bsp));
    assert!(
        text.iter()
            .any(|m| m
                .contains("occluder 1 (byte 44): polygons 1..3 are out of range (the polygon list has 2)")),
        "{text:?}"
    );
    assert!(
        text.iter()
            .any(|m| m.contains("occluder 2 (byte 84): polygons -1..0")),
        "{text:?}"
    );
    // The byte offsets are those of the written lump: the entry at each named offset is the one
    // reported (with three occluders, polygons start at 128 and indices at 156).
    assert!(
        text.iter()
            .any(|m| m.contains("occluder polygon 1 (byte 140): plane 2"))
    );
    assert!(
        text.iter()
            .any(|m| m.contains("occluder vertex index 5 (byte 176): vertex -1"))
    );
    let bytes = bsp.lump_bytes(OCCLUSION).unwrap();
    let at = |ofs: usize| i32::from_le_bytes(bytes[ofs..ofs + 4].try_into().unwrap());
    assert_eq!(at(84 + 4), -1); // occluder 2's first polygon
    assert_eq!(at(140 + 8), 2); // polygon 1's plane
    assert_eq!(at(176), -1); // index 5
    // Huge counts and starts do not overflow.
    let o = bsp.occlusion.as_mut().unwrap();
    o.occluders[0].first_poly = i32::MAX;
    o.occluders[0].poly_count = i32::MAX;
    o.polys[0].first_vertex_index = i32::MIN;
    o.polys[0].vertex_count = i32::MIN;
    assert!(occlusion(&bsp).len() >= 6);
}

#[test]
fn broken_water_references_are_reported_by_leaf_and_byte_offset() {
    let mut bsp = consistent();
    bsp.leafs[0].leaf_water_data = 1;
    bsp.leafs[1].leaf_water_data = -2;
    bsp.leaf_water_data.push(LeafWaterData {
        surface_texinfo: 3,
        ..Default::default()
    });
    bsp.leaf_water_data[0].surface_texinfo = -1;
    let found = water(&bsp);
    let text = messages(&found);
    assert_eq!(found.len(), 2, "{text:?}");
    assert_eq!((found[0].lump, found[0].record), (LEAFS, Some(1)));
    // 32-byte leaves (lump version 1), 12-byte water data.
    assert!(
        text[0].contains("leaf 1 (byte 32): leaf water data -2 is out of range (LEAFWATERDATA has 2)"),
        "{text:?}"
    );
    assert_eq!((found[1].lump, found[1].record), (LEAFWATERDATA, Some(1)));
    assert!(
        text[1].contains("leaf water data 1 (byte 12): surface texinfo 3 is out of range (TEXINFO has 1)"),
        "{text:?}"
    );
    bsp.leaf_water_data.truncate(1);
    assert!(
        messages(&water(&bsp))
            .iter()
            .any(|m| m.contains("leaf 0 (byte 0): leaf water data 1 is out of range (LEAFWATERDATA has 1)"))
    );
}

#[test]
fn too_many_cubemaps_exceed_valves_limit() {
    let mut bsp = consistent();
    bsp.cubemaps = vec![Cubemap::default(); 1024];
    assert!(check(&bsp).is_empty());
    bsp.cubemaps.push(Cubemap::default());
    let found = check(&bsp);
    assert_eq!(found.len(), 1, "{:?}", messages(&found));
    assert_eq!(found[0].lump, CUBEMAPS);
    assert!(
        found[0]
            .message
            .contains("1025 records exceed MAX_MAP_CUBEMAPSAMPLES (1024)")
    );
}
