//! Per-leaf ambient cubes (VRAD's `ComputePerLeafAmbientLighting`): from points inside each
//! empty leaf, rays in every direction read the light leaving the surface they hit
//! (reflectivity × lightmap) or the sky ambient colour where they reach sky; the results are
//! folded into six axis-aligned colours. Dim texture-light patches ([`in_ambient_cube`]) add
//! their direct light to the cubes too, as VRAD's `AddEmitSurfaceLights` (the engine then
//! skips them as world lights).

use glam::Vec3;
use srcmap_bsp::Bsp;
use srcmap_bsp::flags::Contents;
use srcmap_trace::{Hit, Tracer};

use crate::lights::{Light, LightKind};
use rayon::prelude::*;

use crate::sampling::{sphere_directions, toward};
use crate::scene::{MAX_TRACE, SKY};
use crate::tree::Tree;
use crate::world::par_map_steps;
use crate::{Counters, FaceLight, Options, Progress, Quality, World};

/// One ambient sample: the cube (linear, 0-1 scale as the engine reads it) and its position
/// as fractions (0-255) of the leaf's bounds.
#[derive(Debug, Clone, PartialEq)]
pub struct AmbientSample {
    pub cube: [Vec3; 6],
    pub frac: [u8; 3],
}

/// The samples of one leaf.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LeafCubes {
    pub samples: Vec<AmbientSample>,
}

/// VRAD's `IsLeafAmbientSurfaceLight`: a style-0 texture-light patch too dim to matter at
/// 512 units (world-light intensity / 512² under 0.005) goes into the ambient cubes
/// (`DWL_FLAGS_INAMBIENTCUBE`).
pub fn in_ambient_cube(light: &Light) -> bool {
    light.kind == LightKind::Surface
        && light.style == 0
        && light.intensity.max_element() / 255.0 / (512.0 * 512.0) < 0.005
}

/// Where one ambient ray went: nowhere that sends light, the sky, or a luxel of a lit face.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum CubeRay {
    Nothing,
    Sky,
    Luxel { face: u32, luxel: u32 },
}

/// One sample point's traced rays: the point, its place in the leaf's bounds (0-255 per
/// axis), per direction where the ray went, and the lights (indices into the run's lights)
/// that reach it unoccluded.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SampleRays {
    pub pos: Vec3,
    pub frac: [u8; 3],
    pub rays: Vec<CubeRay>,
    pub lights: Vec<u32>,
}

/// The traced rays of one leaf's sample points (none in solid or outside every cluster).
/// Tracing needs only the geometry, so it can run before the lightmaps are final (in a
/// shard); shading them ([`CubeShader`]) reads the lightmaps.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct LeafRays {
    pub samples: Vec<SampleRays>,
}

const BOX_DIRS: [Vec3; 6] = [Vec3::X, Vec3::NEG_X, Vec3::Y, Vec3::NEG_Y, Vec3::Z, Vec3::NEG_Z];

/// The directions light is gathered from at each sample point.
pub(crate) fn cube_directions(quality: Quality) -> Vec<Vec3> {
    sphere_directions(match quality {
        Quality::Fast => 40,
        Quality::Normal => 162,
        Quality::Final => 324,
    })
}

/// Per leaf, its ambient cubes for one range: from `traced` rays (one machine's or the
/// shards') where given, else traced here.
#[allow(clippy::too_many_arguments)]
pub(crate) fn leaf_ambient(
    bsp: &Bsp,
    world: &World,
    facelights: &[FaceLight],
    lights: &[Light],
    traced: Option<&[LeafRays]>,
    options: &Options,
    progress: &dyn Progress,
    counters: &Counters,
) -> Vec<LeafCubes> {
    let dirs = cube_directions(options.quality);
    let wanted: Vec<usize> = (0..lights.len())
        .filter(|&i| in_ambient_cube(&lights[i]))
        .collect();
    let tracer = CubeTracer::new(world, lights, wanted, &dirs, options.quality);
    let shader = CubeShader::new(world, facelights, lights, &dirs);
    par_map_steps(
        progress,
        "ambient cubes",
        srcmap_stage::Unit::Leaves,
        bsp.leafs.len(),
        |leaf| match traced.and_then(|t| t.get(leaf)) {
            Some(rays) => shader.leaf(rays),
            None => shader.leaf(&tracer.leaf(bsp, leaf, counters)),
        },
    )
}

/// The rays of the leaves `owned` names (per leaf, its index and rays), for every range at
/// once: the lights tested are those any range puts in the cubes.
pub(crate) fn trace_leaves(
    bsp: &Bsp,
    world: &World,
    ranges: &[Vec<Light>],
    options: &Options,
    owned: impl Fn(usize) -> bool + Sync + Send,
    counters: &Counters,
) -> Vec<(u32, LeafRays)> {
    let dirs = cube_directions(options.quality);
    let lights = ranges.first().map_or(&[][..], Vec::as_slice);
    let wanted = (0..lights.len())
        .filter(|&i| ranges.iter().any(|r| r.get(i).is_some_and(in_ambient_cube)))
        .collect();
    let tracer = CubeTracer::new(world, lights, wanted, &dirs, options.quality);
    let leaves: Vec<usize> = (0..bsp.leafs.len()).filter(|&l| owned(l)).collect();
    leaves
        .into_par_iter()
        .map(|leaf| (leaf as u32, tracer.leaf(bsp, leaf, counters)))
        .collect()
}

/// What tracing a leaf's rays reads.
struct CubeTracer<'a> {
    world: &'a World,
    lights: &'a [Light],
    /// The lights tested for occlusion (indices into `lights`, ascending).
    wanted: Vec<usize>,
    dirs: &'a [Vec3],
    quality: Quality,
}

impl<'a> CubeTracer<'a> {
    fn new(
        world: &'a World,
        lights: &'a [Light],
        wanted: Vec<usize>,
        dirs: &'a [Vec3],
        quality: Quality,
    ) -> Self {
        CubeTracer {
            world,
            lights,
            wanted,
            dirs,
            quality,
        }
    }

    /// The rays of `leaf`'s sample points: none in solid or outside every cluster.
    fn leaf(&self, bsp: &Bsp, leaf: usize, counters: &Counters) -> LeafRays {
        let l = &bsp.leafs[leaf];
        let mut out = LeafRays::default();
        if Contents::from_record(l.contents).intersects(Contents::SOLID) || l.cluster < 0 {
            return out;
        }
        let mins = Vec3::from(l.mins);
        let maxs = Vec3::from(l.maxs);
        let mut rays = 0u64;
        for pos in sample_positions(&self.world.tree, leaf, mins, maxs, self.quality) {
            let size = (maxs - mins).max(Vec3::splat(1e-3));
            let f = ((pos - mins) / size).clamp(Vec3::ZERO, Vec3::ONE) * 255.0;
            out.samples.push(SampleRays {
                pos,
                frac: [f.x as u8, f.y as u8, f.z as u8],
                rays: self.dirs.iter().map(|&d| self.ray(pos, d)).collect(),
                lights: self.visible_lights(pos, &mut rays),
            });
            rays += self.dirs.len() as u64;
        }
        counters.add_pass_rays(&counters.ambient_rays, rays);
        out
    }

    fn ray(&self, pos: Vec3, d: Vec3) -> CubeRay {
        let world = self.world;
        match world.surfaces.closest(pos.to_array(), d.to_array(), MAX_TRACE) {
            Some(h) if h.payload & SKY != 0 => CubeRay::Sky,
            Some(h) => luxel_hit(world, h, pos + d * h.t),
            None => CubeRay::Nothing,
        }
    }

    /// The wanted lights facing `pos` with nothing in between (`AddEmitSurfaceLights`' test).
    fn visible_lights(&self, pos: Vec3, rays: &mut u64) -> Vec<u32> {
        let mut seen = Vec::new();
        for &i in &self.wanted {
            let Some((_, dist, dir, _)) = facing(&self.lights[i], pos) else {
                continue;
            };
            *rays += 1;
            if !(self.world.occluders).occluded(pos.to_array(), dir.to_array(), dist - 0.05) {
                seen.push(i as u32);
            }
        }
        seen
    }
}

/// Distance², distance and direction from `pos` to `light`, and the cosine at the light, when
/// the light faces `pos`.
fn facing(light: &Light, pos: Vec3) -> Option<(f32, f32, Vec3, f32)> {
    let (dist2, dist, dir) = toward(pos, light.origin, 1e-6)?;
    let dot2 = -dir.dot(light.normal);
    (dot2 > 0.001).then_some((dist2, dist, dir, dot2))
}

/// The luxel a ray that hit a face at `point` reads: its nearest; nothing on an unlit face.
fn luxel_hit(world: &World, h: Hit, point: Vec3) -> CubeRay {
    let f = h.payload as usize;
    let g = &world.faces[f];
    if !(g.lit && g.width > 0) {
        return CubeRay::Nothing;
    }
    let (st, _) = world.surface_hit(f, h.triangle, point);
    let x = (st.x.round().max(0.0) as usize).min(g.width - 1);
    let y = (st.y.round().max(0.0) as usize).min(g.height - 1);
    CubeRay::Luxel {
        face: f as u32,
        luxel: (y * g.width + x) as u32,
    }
}

/// What shading a leaf's traced rays into cubes reads.
struct CubeShader<'a> {
    world: &'a World,
    facelights: &'a [FaceLight],
    lights: &'a [Light],
    dirs: &'a [Vec3],
    /// Sky ambient's light (scaled to 0..1) where a ray reaches sky.
    sky: Vec3,
}

impl<'a> CubeShader<'a> {
    fn new(world: &'a World, facelights: &'a [FaceLight], lights: &'a [Light], dirs: &'a [Vec3]) -> Self {
        CubeShader {
            world,
            facelights,
            lights,
            dirs,
            sky: lights
                .iter()
                .find(|l| l.kind == LightKind::SkyAmbient)
                .map_or(Vec3::ZERO, |l| l.intensity / 255.0),
        }
    }

    fn leaf(&self, traced: &LeafRays) -> LeafCubes {
        let samples = traced.samples.iter().map(|s| AmbientSample {
            cube: self.cube(s),
            frac: s.frac,
        });
        LeafCubes {
            samples: samples.collect(),
        }
    }

    fn cube(&self, s: &SampleRays) -> [Vec3; 6] {
        let radiance: Vec<Vec3> = s.rays.iter().map(|&r| self.radiance(r)).collect();
        let mut cube = fold_to_box(self.dirs, &radiance);
        self.add_surface_lights(s, &mut cube);
        cube
    }

    fn radiance(&self, ray: CubeRay) -> Vec3 {
        match ray {
            CubeRay::Nothing => Vec3::ZERO,
            CubeRay::Sky => self.sky,
            CubeRay::Luxel { face, luxel } => self.surface_light(face as usize, luxel as usize),
        }
    }

    /// The light face `f` sends back from `luxel`: its style 0 times its reflectivity (scaled
    /// to 0..1).
    fn surface_light(&self, f: usize, luxel: usize) -> Vec3 {
        let g = &self.world.faces[f];
        match self.facelights.get(f).and_then(|fl| fl.samples.first()) {
            Some(s) => s.get(luxel).copied().unwrap_or(Vec3::ZERO) * g.reflectivity / 255.0,
            None => Vec3::ZERO,
        }
    }

    /// The direct light of this range's ambient-cube texture lights that reach the sample,
    /// added to `cube` (`AddEmitSurfaceLights`: cos at the patch / distance², spread over the
    /// box sides facing it).
    fn add_surface_lights(&self, s: &SampleRays, cube: &mut [Vec3; 6]) {
        for light in s.lights.iter().filter_map(|&i| self.lights.get(i as usize)) {
            if !in_ambient_cube(light) {
                continue;
            }
            let Some((dist2, _, dir, dot2)) = facing(light, s.pos) else {
                continue;
            };
            let ratio = dot2 / dist2;
            for (side, axis) in cube.iter_mut().zip(BOX_DIRS) {
                let t = axis.dot(dir);
                if t > 0.0 {
                    *side += light.intensity / 255.0 * (t * ratio);
                }
            }
        }
    }
}

/// Sample points inside a leaf: its centre, plus (outside `-fast`) the centres of the
/// octants of large leaves; points that fall in another leaf are dropped.
fn sample_positions(tree: &Tree, leaf: usize, mins: Vec3, maxs: Vec3, quality: Quality) -> Vec<Vec3> {
    let center = (mins + maxs) * 0.5;
    let mut pts = vec![center];
    let size = maxs - mins;
    if quality != Quality::Fast && size.x * size.y * size.z > 128.0 * 128.0 * 128.0 {
        for k in 0..8 {
            let o = Vec3::new(
                if k & 1 == 0 { -0.25 } else { 0.25 },
                if k & 2 == 0 { -0.25 } else { 0.25 },
                if k & 4 == 0 { -0.25 } else { 0.25 },
            );
            pts.push(center + size * o);
        }
    }
    let inside: Vec<Vec3> = pts
        .iter()
        .copied()
        .filter(|&p| tree.leaf_at(p) == Some(leaf))
        .collect();
    if inside.is_empty() { vec![center] } else { inside }
}

/// The six box sides' light: per side the radiance of the directions facing it, weighted by
/// their cosine.
fn fold_to_box(dirs: &[Vec3], radiance: &[Vec3]) -> [Vec3; 6] {
    BOX_DIRS.map(|axis| {
        let (mut sum, mut weight) = (Vec3::ZERO, 0.0);
        for (d, c) in dirs.iter().zip(radiance) {
            let w = d.dot(axis);
            if w > 0.0 {
                sum += *c * w;
                weight += w;
            }
        }
        if weight > 0.0 { sum / weight } else { Vec3::ZERO }
    })
}
