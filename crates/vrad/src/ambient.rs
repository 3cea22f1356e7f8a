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

/// The direct light of the ambient-cube texture lights at `pos`, added to `cube`
/// (`AddEmitSurfaceLights`: cos at the patch / distance², spread over the box sides facing it).
fn add_surface_lights(world: &World, lights: &[&Light], pos: Vec3, cube: &mut [Vec3; 6], rays: &mut u64) {
    for light in lights {
        let Some((dist2, dist, dir)) = toward(pos, light.origin, 1e-6) else {
            continue;
        };
        let dot2 = -dir.dot(light.normal);
        if dot2 <= 0.001 {
            continue;
        }
        *rays += 1;
        if world
            .occluders
            .occluded(pos.to_array(), dir.to_array(), dist - 0.05)
        {
            continue;
        }
        let ratio = dot2 / dist2;
        for (side, axis) in cube.iter_mut().zip(BOX_DIRS) {
            let t = axis.dot(dir);
            if t > 0.0 {
                *side += light.intensity / 255.0 * (t * ratio);
            }
        }
    }
}

const BOX_DIRS: [Vec3; 6] = [Vec3::X, Vec3::NEG_X, Vec3::Y, Vec3::NEG_Y, Vec3::Z, Vec3::NEG_Z];

pub(crate) fn leaf_ambient(
    bsp: &Bsp,
    world: &World,
    facelights: &[FaceLight],
    lights: &[Light],
    options: &Options,
    progress: &dyn Progress,
    counters: &Counters,
) -> Vec<LeafCubes> {
    let dirs = sphere_directions(match options.quality {
        Quality::Fast => 40,
        Quality::Normal => 162,
        Quality::Final => 324,
    });
    let sampler = CubeSampler::new(world, facelights, lights, &dirs, options.quality);
    // Leaves of the world model only (the tree under model 0).
    let leaves = bsp.leafs.len();
    par_map_steps(
        progress,
        "ambient cubes",
        srcmap_stage::Unit::Leaves,
        leaves,
        |leaf| sampler.leaf(bsp, leaf, counters),
    )
}

/// What sampling a leaf's ambient cubes reads.
struct CubeSampler<'a> {
    world: &'a World,
    facelights: &'a [FaceLight],
    /// The directions light is gathered from.
    dirs: &'a [Vec3],
    /// Sky ambient's light (scaled to 0..1) where a ray reaches sky.
    sky: Vec3,
    /// The texture lights that add straight into cubes ([`in_ambient_cube`]).
    cube_lights: Vec<&'a Light>,
    quality: Quality,
}

impl<'a> CubeSampler<'a> {
    fn new(
        world: &'a World,
        facelights: &'a [FaceLight],
        lights: &'a [Light],
        dirs: &'a [Vec3],
        quality: Quality,
    ) -> Self {
        CubeSampler {
            world,
            facelights,
            dirs,
            sky: lights
                .iter()
                .find(|l| l.kind == LightKind::SkyAmbient)
                .map_or(Vec3::ZERO, |l| l.intensity / 255.0),
            cube_lights: lights.iter().filter(|l| in_ambient_cube(l)).collect(),
            quality,
        }
    }

    /// The cubes of `leaf`: none in solid or outside every cluster.
    fn leaf(&self, bsp: &Bsp, leaf: usize, counters: &Counters) -> LeafCubes {
        let l = &bsp.leafs[leaf];
        let mut cubes = LeafCubes::default();
        if Contents::from_record(l.contents).intersects(Contents::SOLID) || l.cluster < 0 {
            return cubes;
        }
        let mins = Vec3::from(l.mins);
        let maxs = Vec3::from(l.maxs);
        let mut rays = 0u64;
        for pos in sample_positions(&self.world.tree, leaf, mins, maxs, self.quality) {
            let mut cube = cube_at(self.world, self.facelights, pos, self.dirs, self.sky, &mut rays);
            add_surface_lights(self.world, &self.cube_lights, pos, &mut cube, &mut rays);
            let size = (maxs - mins).max(Vec3::splat(1e-3));
            let f = ((pos - mins) / size).clamp(Vec3::ZERO, Vec3::ONE) * 255.0;
            cubes.samples.push(AmbientSample {
                cube,
                frac: [f.x as u8, f.y as u8, f.z as u8],
            });
        }
        counters.add_rays(rays);
        cubes
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

fn cube_at(
    world: &World,
    facelights: &[FaceLight],
    pos: Vec3,
    dirs: &[Vec3],
    sky: Vec3,
    rays: &mut u64,
) -> [Vec3; 6] {
    let mut radiance = Vec::with_capacity(dirs.len());
    for &d in dirs {
        *rays += 1;
        let c = match world.surfaces.closest(pos.to_array(), d.to_array(), MAX_TRACE) {
            Some(h) if h.payload & SKY != 0 => sky,
            Some(h) => surface_light(world, facelights, h, pos + d * h.t),
            None => Vec3::ZERO,
        };
        radiance.push(c);
    }
    BOX_DIRS.map(|axis| {
        let (mut sum, mut weight) = (Vec3::ZERO, 0.0);
        for (d, c) in dirs.iter().zip(&radiance) {
            let w = d.dot(axis);
            if w > 0.0 {
                sum += *c * w;
                weight += w;
            }
        }
        if weight > 0.0 { sum / weight } else { Vec3::ZERO }
    })
}

/// The light a face sends back where a ray hit it at `point`: its nearest luxel's style 0
/// times its reflectivity (scaled to 0..1); none from an unlit face.
#[inline]
fn surface_light(world: &World, facelights: &[FaceLight], h: Hit, point: Vec3) -> Vec3 {
    let f = h.payload as usize;
    let g = &world.faces[f];
    match facelights.get(f).and_then(|fl| fl.samples.first()) {
        Some(s) if g.lit && g.width > 0 => {
            let (st, _) = world.surface_hit(f, h.triangle, point);
            let x = (st.x.round().max(0.0) as usize).min(g.width - 1);
            let y = (st.y.round().max(0.0) as usize).min(g.height - 1);
            s.get(y * g.width + x).copied().unwrap_or(Vec3::ZERO) * g.reflectivity / 255.0
        }
        _ => Vec3::ZERO,
    }
}
