//! `info_overlay` entities → the OVERLAYS and OVERLAY_FADES lumps (Valve's `overlay.cpp`).
//!
//! Valve does no clipping at compile time: an overlay's record holds its entity's numbers, a
//! texinfo naming its material, and every emitted face that came from one of the VMF sides
//! listed in its `sides` key. The engine projects the overlay onto those faces at load time.
//! (The 2013 SDK's VBSP drops `info_overlay_transition` without a record, so WATEROVERLAYS
//! stays empty.)

use std::collections::HashMap;

use srcmap_bsp::{Bsp, Overlay, OverlayFade, TexInfo};
use srcmap_kv::values;

use crate::diag::{Diagnostic, Where};
use crate::input::MapEntity;

/// The face slots of an overlay record.
const FACE_SLOTS: usize = 64;
/// Valve refuses an overlay touching this many faces or more.
const MAX_FACES: usize = FACE_SLOTS - 1;
/// Render order lives in the top two bits of the face count.
const RENDER_ORDERS: i32 = 4;
const RENDER_ORDER_SHIFT: u32 = 14;
/// The texture and lightmap offsets of an overlay's texinfo: it maps no texture itself.
const NO_OFFSET: f32 = -99999.0;

/// One `info_overlay` as read from its entity.
#[derive(Debug, Clone)]
pub(crate) struct MapOverlay {
    /// The VMF entity id, for messages.
    pub entity_id: i64,
    pub material: String,
    pub u: [f32; 2],
    pub v: [f32; 2],
    pub uv_points: [[f32; 3]; 4],
    pub origin: [f32; 3],
    /// BasisU, BasisV, BasisNormal.
    pub basis: [[f32; 3]; 3],
    pub render_order: u32,
    /// Squared fade distances; a non-positive distance is kept as written (no fade).
    pub fade_min_sq: f32,
    pub fade_max_sq: f32,
    /// VMF side ids from `sides`.
    pub sides: Vec<i64>,
}

impl MapOverlay {
    /// Reads an overlay's keys as Valve's `Overlay_GetFromEntity` does (missing numbers are 0).
    pub fn from_entity(e: &MapEntity, diags: &mut Vec<Diagnostic>) -> MapOverlay {
        let num = |k: &str| e.get(k).map_or(0.0, values::atof) as f32;
        let vec3 = |k: &str| {
            e.get(k)
                .map_or([0.0; 3], values::vector_or_zero)
                .map(|x| x as f32)
        };
        let squared = |d: f32| if d > 0.0 { d * d } else { d };
        let origin = vec3("BasisOrigin");
        let render_order = render_order(e, origin, diags);
        let sides = side_ids(e);
        MapOverlay {
            entity_id: e.id,
            material: e.get("material").unwrap_or("").to_string(),
            u: [num("StartU"), num("EndU")],
            v: [num("StartV"), num("EndV")],
            uv_points: [vec3("uv0"), vec3("uv1"), vec3("uv2"), vec3("uv3")],
            origin,
            basis: [vec3("BasisU"), vec3("BasisV"), vec3("BasisNormal")],
            render_order,
            fade_min_sq: squared(num("fademindist")),
            fade_max_sq: squared(num("fademaxdist")),
            sides,
        }
    }
}

/// The overlay's render order; one out of range is reported and read as 0.
fn render_order(e: &MapEntity, origin: [f32; 3], diags: &mut Vec<Diagnostic>) -> u32 {
    let requested = e.get("RenderOrder").map_or(0.0, values::atof) as i32;
    if (0..RENDER_ORDERS).contains(&requested) {
        return requested as u32;
    }
    diags.push(Diagnostic::warning(
        at(e.id),
        format!(
            "overlay at {} {} {} has invalid render order ({requested}); using 0",
            origin[0], origin[1], origin[2]
        ),
    ));
    0
}

/// The VMF side ids of `sides`, like `sscanf("%d")` on each space-separated word: words
/// that do not start with a number are skipped.
fn side_ids(e: &MapEntity) -> Vec<i64> {
    e.get("sides")
        .unwrap_or("")
        .split_whitespace()
        .filter_map(leading_int)
        .collect()
}

fn at(entity_id: i64) -> Where {
    Where {
        entity_id: Some(entity_id),
        classname: Some("info_overlay".to_string()),
        ..Where::default()
    }
}

/// The integer a word starts with, as `%d` reads it.
fn leading_int(word: &str) -> Option<i64> {
    let sign = usize::from(word.starts_with(['-', '+']));
    let digits = word[sign..].bytes().take_while(u8::is_ascii_digit).count();
    (digits > 0).then(|| word[..sign + digits].parse().ok()).flatten()
}

/// For each VMF side an overlay names, the overlays on it (sorted): faces from sides with
/// different sets never merge, so each overlay keeps exactly its own faces.
pub(crate) fn overlays_by_side(overlays: &[MapOverlay]) -> HashMap<i64, Vec<u32>> {
    let mut by_side: HashMap<i64, Vec<u32>> = HashMap::new();
    for (id, o) in overlays.iter().enumerate() {
        for &s in &o.sides {
            let list = by_side.entry(s).or_default();
            if !list.contains(&(id as u32)) {
                list.push(id as u32);
            }
        }
    }
    by_side
}

/// The texinfo Valve gives every overlay: no flags, zero axes, offsets of -99999.
pub(crate) fn overlay_texinfo(texdata: u32) -> TexInfo {
    let row = [0.0, 0.0, 0.0, NO_OFFSET];
    TexInfo {
        texture_vecs: [row; 2],
        lightmap_vecs: [row; 2],
        flags: 0,
        texdata: texdata as i32,
    }
}

/// Writes one OVERLAYS and one OVERLAY_FADES record per overlay, in entity order.
/// `texinfos[i]` is overlay `i`'s texinfo; `face_sides[f]` the VMF side id face `f` came from.
pub(crate) fn write_records(
    bsp: &mut Bsp,
    overlays: &[MapOverlay],
    texinfos: &[u32],
    face_sides: &[i64],
    diags: &mut Vec<Diagnostic>,
) {
    let faces = faces_of_overlays(overlays, face_sides);
    for (id, (o, mut list)) in overlays.iter().zip(faces).enumerate() {
        check_face_list(o, &mut list, diags);
        let count = list.len() as u32;
        list.resize(FACE_SLOTS, 0);
        bsp.overlays.push(Overlay {
            id: id as i32,
            texinfo: texinfos[id] as i32,
            face_count_and_render_order: count | (o.render_order << RENDER_ORDER_SHIFT),
            faces: list,
            u: o.u,
            v: o.v,
            uv_points: uv_points_with_basis(o),
            origin: o.origin,
            basis_normal: o.basis[2],
        });
        bsp.overlay_fades.push(OverlayFade {
            min_dist_sq: o.fade_min_sq,
            max_dist_sq: o.fade_max_sq,
        });
    }
}

/// Each overlay's faces: those made from the sides it names, in face order, as Valve fills
/// the lists while it emits faces.
fn faces_of_overlays(overlays: &[MapOverlay], face_sides: &[i64]) -> Vec<Vec<i32>> {
    let by_side = overlays_by_side(overlays);
    let mut faces: Vec<Vec<i32>> = vec![Vec::new(); overlays.len()];
    for (f, side) in face_sides.iter().enumerate() {
        for &o in by_side.get(side).into_iter().flatten() {
            faces[o as usize].push(f as i32);
        }
    }
    faces
}

/// An overlay on no face is reported; one on more faces than the record holds keeps the
/// first ones, reported.
fn check_face_list(o: &MapOverlay, list: &mut Vec<i32>, diags: &mut Vec<Diagnostic>) {
    if list.is_empty() {
        diags.push(Diagnostic::warning(
            at(o.entity_id),
            format!(
                "overlay {} at {} {} {} lands on no face (sides '{}')",
                o.material,
                o.origin[0],
                o.origin[1],
                o.origin[2],
                o.sides.iter().map(i64::to_string).collect::<Vec<_>>().join(" ")
            ),
        ));
    }
    if list.len() > MAX_FACES {
        diags.push(Diagnostic::warning(
            at(o.entity_id),
            format!(
                "overlay touching too many faces (touching {}, max {FACE_SLOTS}): overlay {} at {:.1} {:.1} {:.1}; keeping the first {MAX_FACES}",
                list.len(),
                o.material,
                o.origin[0],
                o.origin[1],
                o.origin[2]
            ),
        ));
        list.truncate(MAX_FACES);
    }
}

/// The record has no BasisU: its three components ride in the unused z of the first three
/// UV points, and the fourth's z says whether V runs against normal × U.
fn uv_points_with_basis(o: &MapOverlay) -> [[f32; 3]; 4] {
    let mut uv_points = o.uv_points;
    for (p, &b) in uv_points.iter_mut().zip(&o.basis[0]) {
        p[2] = b;
    }
    let [bu, bv, bn] = o.basis;
    let cross = [
        bn[1] * bu[2] - bn[2] * bu[1],
        bn[2] * bu[0] - bn[0] * bu[2],
        bn[0] * bu[1] - bn[1] * bu[0],
    ];
    if cross[0] * bv[0] + cross[1] * bv[1] + cross[2] * bv[2] < 0.0 {
        uv_points[3][2] = 1.0;
    }
    uv_points
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn side_words_read_like_percent_d() {
        let words: Vec<_> = "12 7x -3 abc +4"
            .split_whitespace()
            .filter_map(leading_int)
            .collect();
        assert_eq!(words, [12, 7, -3, 4]);
    }

    #[test]
    fn an_overlay_on_too_many_faces_keeps_the_first_and_warns() {
        let e = MapEntity {
            id: 7,
            classname: "info_overlay".into(),
            keyvalues: vec![("sides".into(), "5 6".into()), ("RenderOrder".into(), "3".into())],
            outputs: vec![],
            brushes: vec![],
        };
        let mut diags = Vec::new();
        let o = MapOverlay::from_entity(&e, &mut diags);
        assert!(diags.is_empty());
        // Faces 0..70 from side 5, one from an unrelated side, one from side 6.
        let mut face_sides = vec![5i64; 70];
        face_sides.extend([9, 6]);
        let mut bsp = Bsp::new(20);
        write_records(&mut bsp, &[o], &[3], &face_sides, &mut diags);
        let r = &bsp.overlays[0];
        assert_eq!((r.face_count(), r.render_order(), r.texinfo), (MAX_FACES, 3, 3));
        assert_eq!(
            r.faces[..MAX_FACES],
            (0..MAX_FACES as i32).collect::<Vec<_>>()[..]
        );
        assert_eq!(diags.len(), 1);
        assert_eq!(diags[0].at.entity_id, Some(7));
        assert!(diags[0].message.contains("touching 71"), "{}", diags[0]);
    }
}
