//! Overlays back as `info_overlay` entities: the basis the record packs (U in the first three
//! UV points' z, V's direction in the fourth's), the faces mapped back to the sides they were
//! cut from, the fade distances, and the name a named overlay's accessor kept.

use std::collections::HashMap;

use srcmap_bsp::Overlay;
use srcmap_geom::DVec3;

use crate::context::Ctx;
use crate::types::{OutEntity, dvec, f32_value, f32x3_value};

/// The face count takes the record's low bits; the render order sits above them.
const RENDER_ORDER_SHIFT: u32 = 14;

impl Ctx<'_> {
    /// Every overlay; `names` gives a named overlay's targetname by index.
    pub fn overlays(&mut self, names: &HashMap<usize, String>) -> Vec<OutEntity> {
        let mut out = Vec::new();
        for (i, o) in self.bsp.overlays.iter().enumerate() {
            let mut e = OutEntity::new(self.ids.next(), "info_overlay");
            if let Some(name) = names.get(&i) {
                e.set("targetname", name.clone());
            }
            let material = self
                .materials
                .of_texinfo(self.bsp, o.texinfo)
                .map(|m| m.name.clone());
            e.set("material", material.unwrap_or_default());
            e.set("sides", self.overlay_sides(o));
            basis_keys(&mut e, o);
            if let Some(fade) = self.bsp.overlay_fades.get(i) {
                e.set("fademindist", f32_value(fade_distance(fade.min_dist_sq)));
                e.set("fademaxdist", f32_value(fade_distance(fade.max_dist_sq)));
            }
            out.push(e);
        }
        out
    }

    /// The VMF ids of the sides the overlay's faces came from, in order, each once.
    fn overlay_sides(&mut self, o: &Overlay) -> String {
        let count = (o.face_count_and_render_order & ((1 << RENDER_ORDER_SHIFT) - 1)) as usize;
        let mut ids: Vec<i64> = (o.faces.iter().take(count))
            .filter_map(|&f| {
                u32::try_from(f)
                    .ok()
                    .and_then(|f| self.face_sides.get(&f).copied())
            })
            .collect();
        ids.sort_unstable();
        ids.dedup();
        if ids.len() < count.min(1) {
            self.notes.push(format!(
                "overlay {}: none of its faces lies on a decompiled side",
                o.id
            ));
        }
        ids.iter().map(i64::to_string).collect::<Vec<_>>().join(" ")
    }
}

/// Origin, basis, texture extents, UV points and render order.
fn basis_keys(e: &mut OutEntity, o: &Overlay) {
    let u = DVec3::new(
        o.uv_points[0][2] as f64,
        o.uv_points[1][2] as f64,
        o.uv_points[2][2] as f64,
    );
    let n = dvec(o.basis_normal);
    let flip = if o.uv_points[3][2] == 1.0 { -1.0 } else { 1.0 };
    let v = n.cross(u) * flip;
    e.set("origin", f32x3_value(o.origin));
    e.set("BasisOrigin", f32x3_value(o.origin));
    e.set("BasisU", f32x3_value(u.as_vec3().to_array()));
    e.set("BasisV", f32x3_value(v.as_vec3().to_array()));
    e.set("BasisNormal", f32x3_value(o.basis_normal));
    e.set("StartU", f32_value(o.u[0]));
    e.set("EndU", f32_value(o.u[1]));
    e.set("StartV", f32_value(o.v[0]));
    e.set("EndV", f32_value(o.v[1]));
    for (k, p) in o.uv_points.iter().enumerate() {
        e.set(&format!("uv{k}"), f32x3_value([p[0], p[1], 0.0]));
    }
    e.set(
        "RenderOrder",
        (o.face_count_and_render_order >> RENDER_ORDER_SHIFT).to_string(),
    );
}

/// A stored squared fade distance as the mapper's distance (non-positive: no fade, kept).
fn fade_distance(squared: f32) -> f32 {
    if squared > 0.0 { squared.sqrt() } else { squared }
}
