//! Writing results into the BSP: lighting lump and face offsets/styles, world lights, leaf
//! ambient cubes.

use glam::Vec3;
use srcmap_bsp::{Bsp, ColorRgbExp32, LeafAmbientIndex, LeafAmbientLighting, WorldLight};

use crate::ambient::LeafCubes;
use crate::color::{encode, median};
use crate::lights::{Light, LightKind, Range};
use crate::{FaceLight, World};

/// The leaf containing `p` (walking the world tree from model 0's head node).
pub fn point_leaf(bsp: &Bsp, p: Vec3) -> Option<usize> {
    let mut node = bsp.models.first()?.head_node;
    let mut guard = 0;
    while node >= 0 {
        guard += 1;
        if guard > 100_000 {
            return None;
        }
        let n = bsp.nodes.get(node as usize)?;
        let plane = bsp.planes.get(usize::try_from(n.plane).ok()?)?;
        let d = Vec3::from(plane.normal).dot(p) - plane.dist;
        node = if d >= 0.0 { n.children[0] } else { n.children[1] };
    }
    let leaf = (-1 - node) as usize;
    (leaf < bsp.leafs.len()).then_some(leaf)
}

/// The world's BSP tree, copied out so lighting can find clusters without the whole BSP.
#[derive(Debug, Clone, Default)]
pub struct Tree {
    head: i32,
    nodes: Vec<(Vec3, f32, [i32; 2])>,
    leaf_clusters: Vec<i32>,
    leaf_solid: Vec<bool>,
}

impl Tree {
    pub fn new(bsp: &Bsp) -> Tree {
        let nodes = bsp
            .nodes
            .iter()
            .map(|n| {
                let p = usize::try_from(n.plane).ok().and_then(|i| bsp.planes.get(i));
                (
                    p.map_or(Vec3::Z, |p| Vec3::from(p.normal)),
                    p.map_or(0.0, |p| p.dist),
                    n.children,
                )
            })
            .collect();
        Tree {
            head: bsp.models.first().map_or(-1, |m| m.head_node),
            nodes,
            leaf_clusters: bsp.leafs.iter().map(|l| l.cluster).collect(),
            leaf_solid: bsp.leafs.iter().map(|l| l.contents & 1 != 0).collect(),
        }
    }

    /// The leaf containing `p`.
    pub fn leaf_at(&self, p: Vec3) -> Option<usize> {
        let mut node = self.head;
        let mut guard = 0;
        while node >= 0 {
            guard += 1;
            if guard > 100_000 {
                return None;
            }
            let (n, d, children) = self.nodes.get(node as usize)?;
            node = if n.dot(p) - d >= 0.0 {
                children[0]
            } else {
                children[1]
            };
        }
        let leaf = (-1 - node) as usize;
        (leaf < self.leaf_clusters.len()).then_some(leaf)
    }

    /// The cluster containing `p`; -1 in solid or outside the tree.
    pub fn cluster_at(&self, p: Vec3) -> i32 {
        match self.leaf_at(p) {
            Some(l) if !self.leaf_solid[l] => self.leaf_clusters[l],
            _ => -1,
        }
    }
}

/// Writes the lighting lump of `range` and points every face at its samples: per face, the
/// styles' median colours (last style first), then for each style the samples (bump-major).
pub(crate) fn write_lighting(bsp: &mut Bsp, world: &World, facelights: &[FaceLight], range: Range) {
    if range == Range::Hdr && bsp.faces_hdr.is_empty() {
        bsp.faces_hdr = bsp.faces.clone();
    }
    let mut lighting: Vec<ColorRgbExp32> = Vec::new();
    let faces = if range == Range::Hdr {
        &mut bsp.faces_hdr
    } else {
        &mut bsp.faces
    };
    for (i, face) in faces.iter_mut().enumerate() {
        let (Some(g), Some(fl)) = (world.faces.get(i), facelights.get(i)) else {
            face.light_offset = -1;
            face.styles = [255; 4];
            continue;
        };
        if !g.lit || fl.styles.is_empty() {
            face.light_offset = -1;
            face.styles = [255; 4];
            continue;
        }
        let n = g.luxel_count();
        for samples in fl.samples.iter().rev() {
            lighting.push(encode(median(samples[..n.min(samples.len())].iter().copied())));
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
    if range == Range::Hdr {
        bsp.lighting_hdr = lighting;
    } else {
        bsp.lighting = lighting;
    }
}

/// Writes the world lights lump of `range` (VRAD's `ExportDirectLightsToWorldLights`).
/// `in_cubes`: the ambient cubes were computed (and hold the dim texture lights).
pub(crate) fn write_world_lights(bsp: &mut Bsp, lights: &[Light], range: Range, in_cubes: bool) {
    let out: Vec<WorldLight> = lights
        .iter()
        // A texture light without a value in this range emits nothing here.
        .filter(|l| l.kind != LightKind::Surface || l.intensity.max_element() > 0.0)
        .map(|l| {
            // A texture-light patch lies on its face: its cluster is the one in front.
            let at = if l.kind == LightKind::Surface {
                l.origin + l.normal
            } else {
                l.origin
            };
            let cluster = point_leaf(bsp, at)
                .and_then(|leaf| bsp.leafs.get(leaf))
                .map_or(-1, |leaf| leaf.cluster);
            WorldLight {
                origin: l.origin.to_array(),
                intensity: (l.intensity / 255.0).to_array(),
                normal: l.normal.to_array(),
                shadow_cast_offset: [0.0; 3],
                cluster,
                kind: l.kind as i32,
                style: l.style as i32,
                stopdot: if l.kind == LightKind::Spot { l.stopdot } else { 0.0 },
                stopdot2: if l.kind == LightKind::Spot {
                    l.stopdot2
                } else {
                    0.0
                },
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
        })
        .collect();
    if range == Range::Hdr {
        bsp.world_lights_hdr = out;
    } else {
        bsp.world_lights = out;
    }
}

/// Writes the ambient cubes of `range`: the index and lighting lumps (v20+), or the cube
/// inside each leaf (v19 and older leaf layout). Returns the number of leaves with samples.
pub(crate) fn write_ambient(bsp: &mut Bsp, cubes: &[LeafCubes], range: Range) -> usize {
    let with_samples = cubes.iter().filter(|c| !c.samples.is_empty()).count();
    let old_layout = bsp.leafs.iter().any(|l| l.ambient.is_some());
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
    if range == Range::Hdr {
        bsp.leaf_ambient_index_hdr = index;
        bsp.leaf_ambient_lighting_hdr = lighting;
    } else {
        bsp.leaf_ambient_index = index;
        bsp.leaf_ambient_lighting = lighting;
    }
    with_samples
}
