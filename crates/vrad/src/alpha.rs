//! Texture shadows (VRAD's `-textureshadows`): static-prop render triangles whose material is
//! `$translucent` or `$alphatest` let light through where their base texture's alpha is low.
//!
//! VRAD adds the alpha it samples at each such triangle a ray crosses, and the ray is blocked
//! once the sum reaches 1; the light that passes is scaled by what remains. Our shadow rays
//! answer only "blocked or not", so a crossing blocks where the sampled alpha is at least
//! half (exact for alpha-tested textures, whose alpha is 0 or 255; a softer translucent
//! texture's partial shadow becomes all or nothing).

use std::collections::HashMap;
use std::sync::Arc;

use glam::{Vec2, Vec3};
use srcmap_content::vtf_decode::AlphaImage;
use srcmap_trace::{Hit, LeafCache, Scene, Tracer};

/// A shadow triangle whose texture decides where it blocks light.
#[derive(Debug, Clone, PartialEq)]
pub struct AlphaTriangle {
    /// World-space corners (to find where on it a ray crossed).
    pub points: [Vec3; 3],
    /// Texture coordinates of the corners.
    pub uv: [Vec2; 3],
    pub texture: Arc<AlphaImage>,
}

impl AlphaTriangle {
    /// The texture's alpha (0-255) where `p`, a point on the triangle's plane, lies.
    pub fn alpha_at(&self, p: Vec3) -> u8 {
        let [a, b, c] = self.points;
        let (e0, e1, ep) = (b - a, c - a, p - a);
        let (d00, d01, d11) = (e0.dot(e0), e0.dot(e1), e1.dot(e1));
        let (d20, d21) = (ep.dot(e0), ep.dot(e1));
        let den = d00 * d11 - d01 * d01;
        if den.abs() < 1e-12 {
            return 255;
        }
        let v = (d11 * d20 - d01 * d21) / den;
        let w = (d00 * d21 - d01 * d20) / den;
        let uv = self.uv[0] * (1.0 - v - w) + self.uv[1] * v + self.uv[2] * w;
        self.texture.sample(uv.to_array())
    }
}

/// The occluder scene, with the triangles (by their index in it) whose texture lets light
/// through.
pub struct Occluders {
    pub scene: Scene,
    pub alpha: HashMap<u32, AlphaTriangle>,
}

/// A crossing of a textured triangle blocks where its alpha is at least this.
const BLOCKING_ALPHA: u8 = 128;
/// Rays step this far past a triangle they pass through.
const STEP: f32 = 1e-3;

impl Occluders {
    pub fn new(scene: Scene) -> Occluders {
        Occluders {
            scene,
            alpha: HashMap::new(),
        }
    }

    /// These occluders traced through `inner`, another tracer of the same scene (a
    /// [`srcmap_trace::ParallelRays`] of it), with the same texture test.
    pub fn through<'a>(&'a self, inner: &'a dyn Tracer) -> AlphaTested<'a> {
        AlphaTested {
            inner,
            alpha: &self.alpha,
        }
    }
}

/// A tracer of the occluder scene whose hits on textured triangles pass where the texture
/// is clear.
pub struct AlphaTested<'a> {
    inner: &'a dyn Tracer,
    alpha: &'a HashMap<u32, AlphaTriangle>,
}

impl AlphaTested<'_> {
    /// The first hit that blocks: not of a payload in `ignore`, and not where a textured
    /// triangle is clear.
    fn first_blocking(&self, origin: [f32; 3], dir: [f32; 3], max_t: f32, ignore: u32) -> Option<Hit> {
        let (o, d) = (Vec3::from(origin), Vec3::from(dir));
        let mut start = 0.0f32;
        // Bounded: a ray crossing more clear triangles than this counts as blocked.
        for _ in 0..256 {
            let from = o + d * start;
            let hit = self.inner.closest(from.to_array(), dir, max_t - start)?;
            let t = hit.t + start;
            let clear = hit.payload & ignore != 0
                || self
                    .alpha
                    .get(&hit.triangle)
                    .is_some_and(|tri| tri.alpha_at(o + d * t) < BLOCKING_ALPHA);
            if !clear {
                return Some(Hit { t, ..hit });
            }
            start = t + STEP;
            if start >= max_t {
                return None;
            }
        }
        self.inner.closest(origin, dir, max_t)
    }
}

impl Tracer for AlphaTested<'_> {
    fn closest(&self, origin: [f32; 3], dir: [f32; 3], max_t: f32) -> Option<Hit> {
        if self.alpha.is_empty() {
            return self.inner.closest(origin, dir, max_t);
        }
        self.first_blocking(origin, dir, max_t, 0)
    }
    fn occluded(&self, origin: [f32; 3], dir: [f32; 3], max_t: f32) -> bool {
        if self.alpha.is_empty() {
            return self.inner.occluded(origin, dir, max_t);
        }
        self.first_blocking(origin, dir, max_t, 0).is_some()
    }
    fn occluded_except(&self, origin: [f32; 3], dir: [f32; 3], max_t: f32, ignore: u32) -> bool {
        if self.alpha.is_empty() {
            return self.inner.occluded_except(origin, dir, max_t, ignore);
        }
        self.first_blocking(origin, dir, max_t, ignore).is_some()
    }
    fn occluded_cached(
        &self,
        origin: [f32; 3],
        dir: [f32; 3],
        max_t: f32,
        ignore: u32,
        cache: &mut LeafCache,
    ) -> bool {
        if self.alpha.is_empty() {
            return self.inner.occluded_cached(origin, dir, max_t, ignore, cache);
        }
        self.occluded_except(origin, dir, max_t, ignore)
    }
}

impl Tracer for Occluders {
    fn closest(&self, origin: [f32; 3], dir: [f32; 3], max_t: f32) -> Option<Hit> {
        self.through(&self.scene).closest(origin, dir, max_t)
    }
    fn occluded(&self, origin: [f32; 3], dir: [f32; 3], max_t: f32) -> bool {
        self.through(&self.scene).occluded(origin, dir, max_t)
    }
    fn occluded_except(&self, origin: [f32; 3], dir: [f32; 3], max_t: f32, ignore: u32) -> bool {
        self.through(&self.scene)
            .occluded_except(origin, dir, max_t, ignore)
    }
    fn occluded_cached(
        &self,
        origin: [f32; 3],
        dir: [f32; 3],
        max_t: f32,
        ignore: u32,
        cache: &mut LeafCache,
    ) -> bool {
        self.through(&self.scene)
            .occluded_cached(origin, dir, max_t, ignore, cache)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use srcmap_trace::SceneBuilder;

    /// A 10×10 quad at z = 0, u along x, v along y, its texture clear on the left half
    /// (u < 0.5) and opaque on the right.
    fn half_clear_quad() -> Occluders {
        let texture = Arc::new(AlphaImage {
            width: 4,
            height: 4,
            alpha: (0..16).map(|i| if i % 4 < 2 { 0 } else { 255 }).collect(),
        });
        let p = [
            Vec3::ZERO,
            Vec3::new(10.0, 0.0, 0.0),
            Vec3::new(10.0, 10.0, 0.0),
            Vec3::new(0.0, 10.0, 0.0),
        ];
        let uv = [
            Vec2::ZERO,
            Vec2::new(1.0, 0.0),
            Vec2::new(1.0, 1.0),
            Vec2::new(0.0, 1.0),
        ];
        let mut b = SceneBuilder::new();
        b.add_triangle(p[0].to_array(), p[1].to_array(), p[2].to_array(), 0);
        b.add_triangle(p[0].to_array(), p[2].to_array(), p[3].to_array(), 0);
        let mut out = Occluders::new(b.build());
        for (k, [i, j, l]) in [[0, 1, 2], [0, 2, 3]].into_iter().enumerate() {
            out.alpha.insert(
                k as u32,
                AlphaTriangle {
                    points: [p[i], p[j], p[l]],
                    uv: [uv[i], uv[j], uv[l]],
                    texture: Arc::clone(&texture),
                },
            );
        }
        out
    }

    #[test]
    fn light_passes_where_the_texture_is_clear_and_not_where_it_is_opaque() {
        let quad = half_clear_quad();
        let down = [0.0, 0.0, -1.0];
        for y in [1.5, 5.0, 8.5] {
            // u = 0.15: texel 1, clear.
            assert!(!quad.occluded([1.5, y, 5.0], down, 10.0), "clear at y {y}");
            assert!(quad.closest([1.5, y, 5.0], down, 10.0).is_none());
            // u = 0.75: opaque.
            assert!(quad.occluded([7.5, y, 5.0], down, 10.0), "opaque at y {y}");
            let hit = quad.closest([7.5, y, 5.0], down, 10.0).unwrap();
            assert!((hit.t - 5.0).abs() < 1e-4);
        }
        // The same answers through a parallel-ray buffer of the scene along the rays.
        let along = srcmap_trace::ParallelRays::new(&quad.scene, down);
        let through = quad.through(&along);
        for (x, clear) in [(1.5, true), (7.5, false)] {
            assert_eq!(through.occluded([x, 5.0, 5.0], down, 10.0), !clear);
            assert_eq!(through.closest([x, 5.0, 5.0], down, 10.0).is_none(), clear);
        }
        // Without textures the same quad blocks everywhere.
        let mut opaque = half_clear_quad();
        opaque.alpha.clear();
        assert!(opaque.occluded([1.5, 5.0, 5.0], down, 10.0));
        // A ray stopping short of the quad is never blocked.
        assert!(!quad.occluded([7.5, 5.0, 5.0], down, 4.0));
    }
}
