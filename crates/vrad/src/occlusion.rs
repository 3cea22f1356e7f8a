//! Ambient occlusion, an option off by default (the `-ambientocclusion`, `-aoradius`,
//! `-aosamples`, `-aoscale` flags of CS:GO-derived VRADs): each luxel, and each prop vertex
//! lit per vertex, is darkened by the fraction of short cosine-weighted hemisphere rays that
//! hit an occluder (brushes, displacements, prop shadow casters) within a radius. Sky faces do
//! not occlude. The light is scaled after bouncing, so the darkening does not feed back into
//! what surfaces send each other.

use glam::Vec3;
use rayon::prelude::*;
use srcmap_trace::Tracer;

use crate::sampling::cosine_dirs;
use crate::scene::SKY;
use crate::world::{Counters, FaceLight, World};

/// The settings of ambient occlusion.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AmbientOcclusion {
    /// Occluders farther than this (units) from the point do not darken it (`-aoradius`).
    pub radius: f32,
    /// Hemisphere rays per point (`-aosamples`).
    pub samples: usize,
    /// How strongly the occluded fraction darkens (`-aoscale`): light is multiplied by
    /// `1 - scale × fraction`, never below 0.
    pub scale: f32,
}

impl Default for AmbientOcclusion {
    fn default() -> Self {
        AmbientOcclusion {
            radius: 40.0,
            samples: 32,
            scale: 1.0,
        }
    }
}

impl AmbientOcclusion {
    /// The factor (0..=1) the light at `pos` (already off the surface) with normal `normal`
    /// is multiplied by; `seed` varies the ray set between points so the noise does not band.
    pub fn factor(&self, scene: &dyn Tracer, pos: Vec3, normal: Vec3, seed: u64, rays: &mut u64) -> f32 {
        if self.samples == 0 || self.radius <= 0.0 || normal == Vec3::ZERO {
            return 1.0;
        }
        let hits = cosine_dirs(normal, self.samples, seed)
            .filter(|d| scene.occluded_except(pos.to_array(), d.to_array(), self.radius, SKY))
            .count();
        *rays += self.samples as u64;
        let fraction = hits as f32 / self.samples as f32;
        (1.0 - self.scale * fraction).clamp(0.0, 1.0)
    }
}

/// Per face, per luxel: the occlusion factor of its sample (empty for faces not lit).
pub(crate) fn luxel_factors(world: &World, ao: &AmbientOcclusion, counters: &Counters) -> Vec<Vec<f32>> {
    world
        .samples
        .par_iter()
        .enumerate()
        .map(|(face, s)| {
            let mut rays = 0;
            let out = s
                .pos
                .iter()
                .zip(&s.normal)
                .enumerate()
                .map(|(i, (&p, &n))| {
                    let seed = (face as u64) << 32 ^ i as u64 ^ 0xa0_0000_0000_0000;
                    ao.factor(&world.occluders, p, n, seed, &mut rays)
                })
                .collect();
            counters.add_rays(rays);
            out
        })
        .collect()
}

/// Multiplies every style (and bump basis) of each face's light by its luxels' factors.
pub(crate) fn darken(face_lights: &mut [FaceLight], factors: &[Vec<f32>]) {
    for (fl, f) in face_lights.iter_mut().zip(factors) {
        if f.is_empty() {
            continue;
        }
        for style in &mut fl.samples {
            // Bump-major: the flat normal's luxels, then each basis's, all in luxel order.
            for (i, v) in style.iter_mut().enumerate() {
                *v *= f[i % f.len()];
            }
        }
    }
}
