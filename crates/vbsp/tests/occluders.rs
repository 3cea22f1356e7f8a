//! func_occluder and func_areaportalwindow on small purpose-built maps: the occlusion
//! lump's records, the window brushes' contents, and how entities naming nothing are reported.

mod common;

use common::*;
use srcmap_bsp::flags::{CONTENTS_SOLID, CONTENTS_TRANSLUCENT, CONTENTS_WINDOW};
use srcmap_vbsp::*;

const OCCLUDER: &str = "tools/toolsoccluder";
const NODRAW: &str = "tools/toolsnodraw";
/// `box_brush`'s -Y side.
const MINUS_Y: usize = 3;

fn named(mut e: MapEntity, key: &str, value: &str) -> MapEntity {
    e.keyvalues.push((key.into(), value.into()));
    e
}

/// A 1024×512×256 room with a light in it.
fn room_with(mut entities: Vec<MapEntity>) -> Vec<MapEntity> {
    let walls = room(
        1,
        [0.0, 0.0, 0.0],
        [1024.0, 512.0, 256.0],
        "dev/dev_measurewall01a",
    );
    entities.insert(0, world(walls));
    entities.push(entity(900, "light", [64.0, 64.0, 64.0], vec![]));
    entities
}

#[test]
fn occluders_become_records_with_polygons_and_areas() {
    // All six sides occlude; then one side only (the rest nodraw); then no brushes at all.
    let all = box_brush(100, [128.0, 128.0, 0.0], [256.0, 192.0, 128.0], OCCLUDER);
    let mut one = box_brush(101, [512.0, 128.0, 0.0], [768.0, 160.0, 192.0], NODRAW);
    one.sides[MINUS_Y].material = OCCLUDER.into();
    let out = compile_map(room_with(vec![
        named(
            entity(10, "func_occluder", [0.0; 3], vec![all]),
            "StartActive",
            "1",
        ),
        named(
            entity(11, "func_occluder", [0.0; 3], vec![one]),
            "StartActive",
            "0",
        ),
        entity(12, "func_occluder", [0.0; 3], vec![]),
    ]))
    .expect("compiles");
    let occ = out.bsp.occlusion.as_ref().expect("an occlusion lump");
    assert_eq!(occ.occluders.len(), 3);
    let counts: Vec<_> = occ
        .occluders
        .iter()
        .map(|o| (o.first_poly, o.poly_count))
        .collect();
    assert_eq!(counts, [(0, 6), (6, 1), (7, 0)]);
    assert_eq!(occ.polys.len(), 7);
    assert_eq!(occ.vertex_indices.len(), 7 * 4);
    // Valve leaves the flags to the engine (StartActive is read from the entity).
    assert!(occ.occluders.iter().all(|o| o.flags == 0));
    assert_eq!(occ.occluders[0].mins, [128.0, 128.0, 0.0]);
    assert_eq!(occ.occluders[0].maxs, [256.0, 192.0, 128.0]);
    // The lone polygon faces -Y, at y = 128, and its vertices lie on it.
    let poly = occ.polys[6];
    let plane = &out.bsp.planes[poly.plane as usize];
    assert_eq!((plane.normal, plane.dist), ([0.0, -1.0, 0.0], -128.0));
    for &v in &occ.vertex_indices[poly.first_vertex_index as usize..][..poly.vertex_count as usize] {
        assert_eq!(out.bsp.vertexes[v as usize][1], 128.0);
    }
    // The room is one area; the empty occluder has none, and its box is inside out.
    assert_eq!(occ.occluders[0].area, 1);
    assert_eq!(occ.occluders[1].area, 1);
    assert_eq!(occ.occluders[2].area, -1);
    assert_eq!(occ.occluders[2].mins, [f32::MAX; 3]);
    // The entities stay, numbered; their brushes are in the brush lump but in no model.
    assert!(has_keyvalue(&out, "occludernumber", "2"));
    // As Valve's: an occluder with brushes has an empty model key, one without has none.
    let models: Vec<_> = out
        .bsp
        .entities
        .iter()
        .filter(|e| e.get("classname") == Some("func_occluder"))
        .map(|e| e.get("model"))
        .collect();
    assert_eq!(models, [Some(""), Some(""), None]);
    assert_eq!(out.bsp.models.len(), 1);
    let empty = out
        .diagnostics
        .iter()
        .find(|d| d.message.contains("no brushes"))
        .unwrap_or_else(|| panic!("the brushless occluder is reported: {:?}", out.diagnostics));
    assert_eq!(empty.at.entity_id, Some(12));
}

#[test]
fn maps_without_occluders_write_an_empty_lump() {
    let out = compile_map(room_with(vec![])).expect("compiles");
    let occ = out.bsp.occlusion.as_ref().expect("an occlusion lump");
    assert!(occ.occluders.is_empty() && occ.polys.is_empty() && occ.vertex_indices.is_empty());
}

#[test]
fn areaportal_window_brushes_are_windows() {
    let fade = box_brush(
        200,
        [480.0, 0.0, 0.0],
        [496.0, 512.0, 256.0],
        "dev/dev_measurewall01a",
    );
    let behind = box_brush(
        201,
        [500.0, 0.0, 0.0],
        [504.0, 512.0, 256.0],
        "dev/dev_measurewall01a",
    );
    let other = box_brush(
        202,
        [700.0, 0.0, 0.0],
        [716.0, 64.0, 64.0],
        "dev/dev_measurewall01a",
    );
    let window = named(
        named(
            entity(20, "func_areaportalwindow", [0.0; 3], vec![]),
            "target",
            "fade",
        ),
        "BackgroundBModel",
        "behind",
    );
    let out = compile_map(room_with(vec![
        window,
        named(
            entity(21, "func_brush", [0.0; 3], vec![fade]),
            "targetname",
            "fade",
        ),
        named(
            entity(22, "func_brush", [0.0; 3], vec![behind]),
            "targetname",
            "behind",
        ),
        named(
            entity(23, "func_brush", [0.0; 3], vec![other]),
            "targetname",
            "other",
        ),
    ]))
    .expect("compiles");
    let contents_of_model = |m: usize| {
        let model = &out.bsp.models[m];
        let leaf = out.bsp.leaf_at(
            m,
            [
                (model.mins[0] + model.maxs[0]) as f64 / 2.0,
                (model.mins[1] + model.maxs[1]) as f64 / 2.0,
                (model.mins[2] + model.maxs[2]) as f64 / 2.0,
            ],
        );
        leaf.expect("leaf").contents as u32
    };
    let window_bits = CONTENTS_WINDOW | CONTENTS_TRANSLUCENT;
    for m in [1, 2] {
        assert_eq!(
            contents_of_model(m) & (window_bits | CONTENTS_SOLID),
            window_bits,
            "model {m}"
        );
    }
    assert_eq!(contents_of_model(3) & CONTENTS_SOLID, CONTENTS_SOLID);
    let windows = out
        .bsp
        .brushes
        .iter()
        .filter(|b| b.contents as u32 & window_bits == window_bits);
    assert_eq!(windows.count(), 2);
}

#[test]
fn areaportal_window_naming_nothing_is_reported() {
    let window = named(
        entity(30, "func_areaportalwindow", [0.0; 3], vec![]),
        "target",
        "missing",
    );
    let out = compile_map(room_with(vec![window])).expect("compiles");
    let d = out
        .diagnostics
        .iter()
        .find(|d| d.message.contains("missing"))
        .expect("the missing target is reported");
    assert_eq!(d.at.entity_id, Some(30));
    assert_eq!(d.severity, Severity::Warning);
}
