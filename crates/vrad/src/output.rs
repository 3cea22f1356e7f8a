//! Writing results into the BSP: lighting lump and face offsets/styles, world lights, leaf
//! ambient cubes.

use srcmap_bsp::{Bsp, ColorRgbExp32, Face, LeafAmbientIndex, LeafAmbientLighting, WorldLight};

use crate::ambient::LeafCubes;
use crate::color::{encode, median};
use crate::lights::{Light, LightKind, Range};
use crate::tree::Tree;
use crate::{FaceLight, World};

/// Writes the lighting lump of `range` and points every face at its samples: per face, the
/// styles' median colours (last style first), then for each style the samples (bump-major).
pub(crate) fn write_lighting(bsp: &mut Bsp, world: &World, facelights: &[FaceLight], range: Range) {
    if range == Range::Hdr && bsp.faces_hdr.is_empty() {
        bsp.faces_hdr = bsp.faces.clone();
    }
    let floors = min_light(bsp);
    let mut lighting: Vec<ColorRgbExp32> = Vec::new();
    let faces = if range == Range::Hdr {
        &mut bsp.faces_hdr
    } else {
        &mut bsp.faces
    };
    for (i, face) in faces.iter_mut().enumerate() {
        match (world.faces.get(i), facelights.get(i)) {
            (Some(g), Some(fl)) if g.lit && !fl.styles.is_empty() => {
                let floor = floors.get(i).copied().unwrap_or(0.0);
                append_face(&mut lighting, face, g.luxel_count(), &raised(fl, floor));
            }
            _ => {
                face.light_offset = -1;
                face.styles = [255; 4];
            }
        }
    }
    // The samples are new: bytes kept past the old ones' end no longer belong to them.
    if range == Range::Hdr {
        bsp.lighting_hdr = lighting;
        bsp.tails.remove(&srcmap_bsp::lump::LIGHTING_HDR);
    } else {
        bsp.lighting = lighting;
        bsp.tails.remove(&srcmap_bsp::lump::LIGHTING);
    }
}

/// Per face, the least light each channel of its luxels may hold: its entity's `_minlight`
/// × 128 (VRAD's `FinalLightFace` raises every style's samples to it). As VRAD's
/// `EntityForModel`, the world and any model no entity names take the first entity's
/// (worldspawn's). 0 where none sets it.
fn min_light(bsp: &Bsp) -> Vec<f32> {
    let of = |e: &srcmap_bsp::Entity| crate::lights::key_f32(e, "_minlight") * 128.0;
    let world = bsp.entities.first().map_or(0.0, of);
    let mut per_model = vec![world; bsp.models.len()];
    for e in &bsp.entities {
        if let Some(slot) = e.brush_model().and_then(|m| per_model.get_mut(m)) {
            *slot = of(e);
        }
    }
    let models = crate::faces::face_models(bsp);
    models
        .iter()
        .map(|&m| per_model.get(m).copied().unwrap_or(0.0))
        .collect()
}

/// `fl` with every sample's channels raised to at least `floor` (itself when `floor` is 0).
fn raised(fl: &FaceLight, floor: f32) -> std::borrow::Cow<'_, FaceLight> {
    if floor <= 0.0 {
        return std::borrow::Cow::Borrowed(fl);
    }
    let mut out = fl.clone();
    for s in out.samples.iter_mut().flatten() {
        *s = s.max(glam::Vec3::splat(floor));
    }
    std::borrow::Cow::Owned(out)
}

/// Appends a lit face's samples to `lighting` (its styles' medians first, last style
/// first) and points the face at them.
fn append_face(lighting: &mut Vec<ColorRgbExp32>, face: &mut Face, luxels: usize, fl: &FaceLight) {
    for samples in fl.samples.iter().rev() {
        lighting.push(encode(median(
            samples[..luxels.min(samples.len())].iter().copied(),
        )));
    }
    face.light_offset = (lighting.len() * 4) as i32;
    face.styles = [255; 4];
    for (k, &s) in fl.styles.iter().enumerate().take(4) {
        face.styles[k] = s;
    }
    for samples in &fl.samples {
        lighting.extend(samples.iter().map(|&c| encode(c)));
    }
}

/// Writes the world lights lump of `range` (VRAD's `ExportDirectLightsToWorldLights`).
/// `in_cubes`: the ambient cubes were computed (and hold the dim texture lights).
pub(crate) fn write_world_lights(bsp: &mut Bsp, tree: &Tree, lights: &[Light], range: Range, in_cubes: bool) {
    let out: Vec<WorldLight> = lights
        .iter()
        // A texture light without a value in this range emits nothing here.
        .filter(|l| l.kind != LightKind::Surface || l.intensity.max_element() > 0.0)
        .map(|l| world_light(tree, l, in_cubes))
        .collect();
    if range == Range::Hdr {
        bsp.world_lights_hdr = out;
    } else {
        bsp.world_lights = out;
    }
}

/// Light `l`'s record; `in_cubes`: flagged as already in the ambient cubes when it is one
/// they hold.
fn world_light(tree: &Tree, l: &Light, in_cubes: bool) -> WorldLight {
    // A texture-light patch lies on its face: its cluster is the one in front.
    let at = if l.kind == LightKind::Surface {
        l.origin + l.normal
    } else {
        l.origin
    };
    let spot = l.kind == LightKind::Spot;
    WorldLight {
        origin: l.origin.to_array(),
        intensity: (l.intensity / 255.0).to_array(),
        normal: l.normal.to_array(),
        shadow_cast_offset: [0.0; 3],
        cluster: tree.leaf_cluster_at(at),
        kind: l.kind as i32,
        style: l.style as i32,
        stopdot: if spot { l.stopdot } else { 0.0 },
        stopdot2: if spot { l.stopdot2 } else { 0.0 },
        exponent: l.exponent,
        radius: l.radius,
        constant_attn: l.constant_attn,
        linear_attn: l.linear_attn,
        quadratic_attn: l.quadratic_attn,
        // DWL_FLAGS_INAMBIENTCUBE: already in the ambient cubes.
        flags: i32::from(in_cubes && crate::ambient::in_ambient_cube(l)),
        texinfo: 0,
        owner: 0,
    }
}

/// Writes the ambient cubes of `range`: the index and lighting lumps (v20+), or the cube
/// inside each leaf (v19 and older leaf layout). Returns the number of leaves with samples.
pub(crate) fn write_ambient(bsp: &mut Bsp, cubes: &[LeafCubes], range: Range) -> usize {
    let with_samples = cubes.iter().filter(|c| !c.samples.is_empty()).count();
    // The leaf lump's version decides its layout (a v19 map compiled here has no cube yet).
    let old_layout = bsp.lump_versions[srcmap_bsp::lump::LEAFS]
        == srcmap_bsp::versions::LEAFS_VERSION_WITH_AMBIENT
        || bsp.leafs.iter().any(|l| l.ambient.is_some());
    if old_layout {
        // Leaves carry a single cube each (LDR only).
        if range == Range::Ldr {
            for (leaf, c) in bsp.leafs.iter_mut().zip(cubes) {
                if let Some(s) = c.samples.first() {
                    leaf.ambient = Some(s.cube.map(encode));
                }
            }
        }
        return with_samples;
    }
    let (index, lighting) = ambient_lumps(cubes);
    if range == Range::Hdr {
        bsp.leaf_ambient_index_hdr = index;
        bsp.leaf_ambient_lighting_hdr = lighting;
    } else {
        bsp.leaf_ambient_index = index;
        bsp.leaf_ambient_lighting = lighting;
    }
    with_samples
}

/// The ambient index and lighting lumps of `cubes`: per leaf its samples' range, and the
/// samples.
fn ambient_lumps(cubes: &[LeafCubes]) -> (Vec<LeafAmbientIndex>, Vec<LeafAmbientLighting>) {
    let mut index = Vec::with_capacity(cubes.len());
    let mut lighting = Vec::new();
    for c in cubes {
        index.push(LeafAmbientIndex {
            sample_count: c.samples.len() as u32,
            first_sample: lighting.len() as u32,
        });
        for s in &c.samples {
            lighting.push(LeafAmbientLighting {
                cube: s.cube.map(encode),
                x: s.frac[0],
                y: s.frac[1],
                z: s.frac[2],
                pad: 0,
            });
        }
    }
    (index, lighting)
}

#[cfg(test)]
mod tests {
    use super::*;
    use srcmap_bsp::{Entity, Model};

    #[test]
    fn a_brush_entitys_minlight_raises_its_faces_luxels_alone() {
        // Faces 0-1 are the world's, 2-3 a func_brush's with `_minlight 1.25` (VRAD: × 128),
        // 4 a model no entity names, which takes worldspawn's.
        let mut bsp = Bsp::new(20);
        bsp.faces = vec![Face::default(); 5];
        for (first, count) in [(0, 2), (2, 2), (4, 1)] {
            bsp.models.push(Model {
                first_face: first,
                num_faces: count,
                ..Default::default()
            });
        }
        bsp.entities = vec![
            Entity::from_pairs(&[("classname", "worldspawn"), ("_minlight", "0.5")]),
            Entity::from_pairs(&[
                ("classname", "func_brush"),
                ("model", "*1"),
                ("_minlight", "1.25"),
            ]),
        ];
        assert_eq!(min_light(&bsp), vec![64.0, 64.0, 160.0, 160.0, 64.0]);
        let fl = FaceLight {
            styles: vec![0],
            samples: vec![vec![glam::Vec3::new(10.0, 200.0, 0.0)]],
        };
        assert_eq!(
            raised(&fl, 160.0).samples[0][0],
            glam::Vec3::new(160.0, 200.0, 160.0)
        );
        assert_eq!(raised(&fl, 0.0).samples, fl.samples);
    }
}
