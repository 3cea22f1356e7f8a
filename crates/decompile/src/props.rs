//! Static props back as `prop_static` entities, each key as the compiler reads it; a prop lit
//! from elsewhere gets an `info_lighting` at that point.

use srcmap_bsp::gamelump::static_prop_flags::*;
use srcmap_bsp::{StaticProp, StaticProps};

use crate::context::Ctx;
use crate::types::{OutEntity, f32_value, f32x3_value};

impl Ctx<'_> {
    /// The props of the static-prop game lump, with the `info_lighting`s they name.
    pub fn static_props(&mut self) -> Vec<OutEntity> {
        let Some(lump) = self.bsp.game_lumps.static_props() else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for (i, p) in lump.props.iter().enumerate() {
            let Some(model) = lump.models.get(p.prop_type as usize) else {
                self.notes.push(format!(
                    "static prop {i}: model {} is not in the dictionary; left out",
                    p.prop_type
                ));
                continue;
            };
            let mut e = OutEntity::new(self.ids.next(), "prop_static");
            prop_keys(&mut e, p, model, lump);
            if flags(p, lump) & USE_LIGHTING_ORIGIN != 0 {
                out.push(self.lighting_origin(&mut e, i, p.lighting_origin));
            }
            out.push(e);
        }
        out
    }

    /// An `info_lighting` at `at`, named in `prop`'s `lightingorigin`.
    fn lighting_origin(&mut self, prop: &mut OutEntity, index: usize, at: [f32; 3]) -> OutEntity {
        let name = format!("static_prop_lighting_{index}");
        prop.set("lightingorigin", name.clone());
        let mut e = OutEntity::new(self.ids.next(), "info_lighting");
        e.set("targetname", name);
        e.set("origin", f32x3_value(at));
        e
    }
}

fn flags(p: &StaticProp, lump: &StaticProps) -> u32 {
    p.flags_in(lump.layout)
}

/// The keys the compiler reads a prop's record from.
fn prop_keys(e: &mut OutEntity, p: &StaticProp, model: &str, lump: &StaticProps) {
    let flags = flags(p, lump);
    e.set("origin", f32x3_value(p.origin));
    e.set("angles", f32x3_value(p.angles));
    e.set("model", model);
    e.set("skin", p.skin.to_string());
    e.set("solid", p.solid.to_string());
    e.set("fademindist", f32_value(p.fade_min_dist));
    e.set("fademaxdist", f32_value(p.fade_max_dist));
    e.set("fadescale", f32_value(p.forced_fade_scale));
    for (key, bit) in [
        ("ignorenormals", IGNORE_NORMALS),
        ("disableshadows", NO_SHADOW),
        ("disablevertexlighting", NO_PER_VERTEX_LIGHTING),
        ("disableselfshadowing", NO_SELF_SHADOWING),
        ("screenspacefade", SCREEN_SPACE_FADE),
    ] {
        e.set(key, u32::from(flags & bit != 0).to_string());
    }
    level_keys(e, p);
    lightmap_keys(e, p, flags);
    render_keys(e, p);
}

/// DirectX, CPU and GPU level limits, where the record has them set.
fn level_keys(e: &mut OutEntity, p: &StaticProp) {
    for (key, v) in [("mindxlevel", p.min_dx_level), ("maxdxlevel", p.max_dx_level)] {
        e.set(key, v.to_string());
    }
    for (key, v) in [
        ("mincpulevel", p.min_cpu_level),
        ("maxcpulevel", p.max_cpu_level),
        ("mingpulevel", p.min_gpu_level),
        ("maxgpulevel", p.max_gpu_level),
    ] {
        e.set(key, v.to_string());
    }
}

/// Per-texel lighting: asked for unless the record says no, with its resolution.
fn lightmap_keys(e: &mut OutEntity, p: &StaticProp, flags: u32) {
    let lightmapped = flags & NO_PER_TEXEL_LIGHTING == 0;
    e.set("generatelightmaps", u32::from(lightmapped).to_string());
    if lightmapped {
        e.set("lightmapresolutionx", p.lightmap_res[0].to_string());
        e.set("lightmapresolutiony", p.lightmap_res[1].to_string());
    }
}

/// Colour, alpha and scale, written only where they differ from the defaults.
fn render_keys(e: &mut OutEntity, p: &StaticProp) {
    let [r, g, b, a] = p.diffuse_modulation;
    if [r, g, b] != [255, 255, 255] && [r, g, b, a] != [0, 0, 0, 0] {
        e.set("rendercolor", format!("{r} {g} {b}"));
    }
    if a != 255 && [r, g, b, a] != [0, 0, 0, 0] {
        e.set("renderamt", a.to_string());
    }
    if p.scale[0] != 1.0 && p.scale[0] > 0.0 {
        e.set("modelscale", f32_value(p.scale[0]));
    }
}
