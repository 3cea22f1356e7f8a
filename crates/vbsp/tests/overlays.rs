//! `info_overlay` on a small purpose-built map: the OVERLAYS and OVERLAY_FADES records, the
//! faces an overlay lands on, and how an overlay on no face is reported.

mod common;

use common::*;
use srcmap_vbsp::*;

/// Index of `box_brush`'s top side (+Z).
const TOP: usize = 4;
/// The VMF ids of the two floor patches' top sides (`box_brush` numbers sides `id * 10 + i`).
const LEFT_TOP: i64 = 1004;
const RIGHT_TOP: i64 = 1014;

fn overlay(id: i64, sides: &str, extra: &[(&str, &str)]) -> MapEntity {
    let mut e = entity(id, "info_overlay", [128.0, 128.0, 16.0], vec![]);
    for (k, v) in [
        ("material", "decals/overlay_test"),
        ("sides", sides),
        ("StartU", "0.25"),
        ("EndU", "1"),
        ("StartV", "0"),
        ("EndV", "0.5"),
        ("uv0", "-32 -16 0"),
        ("uv1", "-32 16 0"),
        ("uv2", "32 16 0"),
        ("uv3", "32 -16 0"),
        ("BasisOrigin", "128 128 16"),
        ("BasisU", "1 0 0"),
        ("BasisV", "0 1 0"),
        ("BasisNormal", "0 0 1"),
    ] {
        e.set(k, v.to_string());
    }
    for (k, v) in extra {
        e.set(k, v.to_string());
    }
    e
}

/// A room with two touching floor patches of one material; overlays as given.
fn map(overlays: Vec<MapEntity>) -> Vec<MapEntity> {
    let mut brushes = room(1, [0.0; 3], [512.0, 512.0, 256.0], "dev/dev_measurewall01a");
    for (id, x) in [(100, 64.0), (101, 192.0)] {
        let b = box_brush(
            id,
            [x, 64.0, 0.0],
            [x + 128.0, 192.0, 16.0],
            "dev/dev_measuregeneric01b",
        );
        brushes.push(b);
    }
    let mut out = vec![
        world(brushes),
        entity(2, "info_player_start", [400.0, 400.0, 40.0], vec![]),
    ];
    out.extend(overlays);
    out
}

fn faces_of_side(bsp: &srcmap_bsp::Bsp, side: i64) -> Vec<i32> {
    (0..bsp.faces.len() as i32)
        .filter(|&f| bsp.face_ids[f as usize] as i64 == side)
        .collect()
}

#[test]
fn overlay_record_faces_texinfo_and_fades() {
    let named = overlay(
        10,
        &LEFT_TOP.to_string(),
        &[
            ("targetname", "sign"),
            ("fademindist", "100"),
            ("fademaxdist", "200"),
            ("RenderOrder", "1"),
            // V against normal × U: the record flags the flip in the fourth point's z.
            ("BasisV", "0 -1 0"),
        ],
    );
    let both = overlay(11, &format!("{LEFT_TOP} {RIGHT_TOP}"), &[]);
    let out = compile_map(map(vec![named, both])).expect("compiles");
    let bsp = &out.bsp;
    assert_eq!(bsp.overlays.len(), 2);
    assert_eq!(bsp.overlay_fades.len(), 2, "one fade record per overlay");

    // The two patches would merge into one face; their overlay sets differ, so they stay apart.
    let left = faces_of_side(bsp, LEFT_TOP);
    let right = faces_of_side(bsp, RIGHT_TOP);
    assert_eq!((left.len(), right.len()), (1, 1), "{left:?} {right:?}");

    let o = &bsp.overlays[0];
    assert_eq!(o.id, 0);
    assert_eq!(o.face_count(), 1);
    assert_eq!(o.render_order(), 1);
    assert_eq!(o.faces[0], left[0]);
    assert_eq!(o.faces.len(), 64, "the record's fixed face slots");
    assert_eq!((o.u, o.v), ([0.25, 1.0], [0.0, 0.5]));
    assert_eq!(o.origin, [128.0, 128.0, 16.0]);
    assert_eq!(o.basis_normal, [0.0, 0.0, 1.0]);
    // BasisU rides in the first three points' z; the flip flag in the fourth's.
    assert_eq!(o.uv_points[0], [-32.0, -16.0, 1.0]);
    assert_eq!(o.uv_points[1], [-32.0, 16.0, 0.0]);
    assert_eq!(o.uv_points[2], [32.0, 16.0, 0.0]);
    assert_eq!(o.uv_points[3], [32.0, -16.0, 1.0]);

    let t = &bsp.texinfo[o.texinfo as usize];
    assert_eq!(bsp.texdata_name(t.texdata as usize), Some("decals/overlay_test"));
    assert_eq!(t.flags, 0);
    assert_eq!(t.texture_vecs, [[0.0, 0.0, 0.0, -99999.0]; 2]);
    assert_eq!(t.lightmap_vecs, [[0.0, 0.0, 0.0, -99999.0]; 2]);
    let f = &bsp.overlay_fades[0];
    assert_eq!((f.min_dist_sq, f.max_dist_sq), (10000.0, 40000.0));

    let o = &bsp.overlays[1];
    assert_eq!(o.id, 1);
    assert_eq!(
        o.texinfo, bsp.overlays[0].texinfo,
        "one texinfo per overlay material"
    );
    assert_eq!(o.render_order(), 0);
    assert_eq!(
        o.faces[..o.face_count()],
        [left[0], right[0]],
        "faces in face order"
    );
    assert_eq!(o.uv_points[3][2], 0.0, "V along normal × U: no flip");
    let f = &bsp.overlay_fades[1];
    assert_eq!((f.min_dist_sq, f.max_dist_sq), (0.0, 0.0));

    // A named overlay stays in the entity lump as its accessor; the other leaves it.
    assert!(has_keyvalue(&out, "classname", "info_overlay_accessor"));
    assert!(has_keyvalue(&out, "OverlayID", "0"));
    assert!(!has_keyvalue(&out, "classname", "info_overlay"));
    assert_eq!(
        bsp.entities
            .iter()
            .filter(|e| e.get("classname") == Some("info_overlay_accessor"))
            .count(),
        1
    );
}

#[test]
fn overlay_on_no_face_is_a_warning_with_its_entity() {
    let lost = overlay(42, "999999 junk", &[("RenderOrder", "7")]);
    let out = compile_map(map(vec![lost])).expect("compiles");
    let o = &out.bsp.overlays[0];
    assert_eq!(o.face_count(), 0);
    assert_eq!(o.render_order(), 0, "an invalid render order falls back to 0");
    let about_42: Vec<String> = out
        .diagnostics
        .iter()
        .filter(|d| d.at.entity_id == Some(42))
        .map(|d| d.to_string())
        .collect();
    assert!(
        about_42.iter().any(|d| d.contains("lands on no face")),
        "{about_42:?}"
    );
    assert!(
        about_42.iter().any(|d| d.contains("render order")),
        "{about_42:?}"
    );
}

#[test]
fn overlay_with_no_sides_key_gives_an_empty_record() {
    let mut e = overlay(43, "", &[]);
    e.keyvalues.retain(|(k, _)| k != "sides");
    let out = compile_map(map(vec![e])).expect("compiles");
    assert_eq!(out.bsp.overlays.len(), 1);
    assert_eq!(out.bsp.overlays[0].face_count(), 0);
    assert!(
        out.diagnostics
            .iter()
            .any(|d| d.at.entity_id == Some(43) && d.message.contains("no face"))
    );
}

#[test]
fn maps_without_overlays_write_no_overlay_records() {
    let out = compile_map(map(vec![])).expect("compiles");
    assert!(out.bsp.overlays.is_empty() && out.bsp.overlay_fades.is_empty());
    // Without overlays the two patches merge.
    assert_eq!(
        faces_of_side(&out.bsp, LEFT_TOP).len() + faces_of_side(&out.bsp, RIGHT_TOP).len(),
        1
    );
}

// Keep the top-side constant honest with `box_brush`'s numbering.
#[test]
fn top_side_ids() {
    let b = box_brush(100, [0.0; 3], [1.0; 3], "x");
    assert_eq!(b.sides[TOP].id, LEFT_TOP);
    assert!(b.sides[TOP].points.iter().all(|p| p.z == 1.0));
}
