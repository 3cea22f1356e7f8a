//! One ray-tracing interface for srcmap's stages: a static triangle scene built once, then
//! queried from many threads for the closest hit or for occlusion.
//!
//! The default backend ([`Traversal::Wide`]) is our own eight-wide BVH with float child boxes
//! and four-triangle packets, its tree built by the pure-Rust `obvhs` crate's PLOC builder;
//! obvhs's own compressed wide BVH (CWBVH) stays available as [`Traversal::Obvhs`]. Every
//! triangle carries a `u32` payload chosen by the caller (a face index, a material flag, ...),
//! returned with each hit.
//!
//! ```
//! use srcmap_trace::{Scene, SceneBuilder, Tracer};
//! let mut b = SceneBuilder::new();
//! // A unit quad in the plane z = 0, payload 7.
//! b.add_polygon(&[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 1.0, 0.0]], 7);
//! let scene: Scene = b.build();
//! let hit = scene.closest([0.5, 0.5, 1.0], [0.0, 0.0, -1.0], 10.0).unwrap();
//! assert_eq!(hit.payload, 7);
//! assert!((hit.t - 1.0).abs() < 1e-5);
//! assert!(!scene.occluded([2.0, 2.0, 1.0], [0.0, 0.0, -1.0], 10.0));
//! ```

use std::time::Duration;

mod parallel;
mod sbvh;
mod wide;
pub use parallel::{ParallelOrigins, ParallelRays, SceneAlong};
pub use wide::LeafCache;

use glam::Vec3A;
use obvhs::BvhBuildParams;
use obvhs::aabb::Aabb;
use obvhs::cwbvh::CwBvh;
use obvhs::cwbvh::builder::build_cwbvh;
use obvhs::ray::{Ray, RayHit};
use obvhs::triangle::Triangle;

/// A ray's first intersection.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hit {
    /// Distance along the (unit) direction.
    pub t: f32,
    /// The payload given with the triangle.
    pub payload: u32,
    /// The triangle's index in insertion order.
    pub triangle: u32,
}

/// What a stage needs from a ray tracer. Directions need not be normalised, but `t` and
/// `max_t` are then measured in multiples of the direction's length.
pub trait Tracer: Sync {
    /// The nearest triangle hit by the ray from `origin` along `dir`, up to `max_t`.
    fn closest(&self, origin: [f32; 3], dir: [f32; 3], max_t: f32) -> Option<Hit>;
    /// Whether any triangle lies on the segment from `origin` to `origin + dir * max_t`.
    fn occluded(&self, origin: [f32; 3], dir: [f32; 3], max_t: f32) -> bool;
    /// [`Tracer::occluded`] counting only triangles whose payload has none of the bits of
    /// `ignore`.
    fn occluded_except(&self, origin: [f32; 3], dir: [f32; 3], max_t: f32, ignore: u32) -> bool;
    /// [`Tracer::occluded_except`], where the tracer may keep in `cache` what stopped the
    /// last ray given it (see [`LeafCache`]): the same answer, sooner when neighbouring
    /// rays (toward one point, or along one direction) are stopped by the same triangles.
    fn occluded_cached(
        &self,
        origin: [f32; 3],
        dir: [f32; 3],
        max_t: f32,
        ignore: u32,
        cache: &mut LeafCache,
    ) -> bool {
        let _ = cache;
        self.occluded_except(origin, dir, max_t, ignore)
    }
}

/// Collects triangles before the BVH is built.
#[derive(Debug, Default, Clone)]
pub struct SceneBuilder {
    triangles: Vec<Triangle>,
    payloads: Vec<u32>,
}

impl SceneBuilder {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds one triangle; degenerate ones (zero area) are dropped.
    pub fn add_triangle(&mut self, a: [f32; 3], b: [f32; 3], c: [f32; 3], payload: u32) {
        let (a, b, c) = (Vec3A::from(a), Vec3A::from(b), Vec3A::from(c));
        if (b - a).cross(c - a).length_squared() <= 0.0 || !(a + b + c).is_finite() {
            return;
        }
        self.triangles.push(Triangle { v0: a, v1: b, v2: c });
        self.payloads.push(payload);
    }

    /// Adds a convex polygon as a triangle fan.
    pub fn add_polygon(&mut self, points: &[[f32; 3]], payload: u32) {
        for i in 2..points.len() {
            self.add_triangle(points[0], points[i - 1], points[i], payload);
        }
    }

    /// Triangles added so far.
    pub fn len(&self) -> usize {
        self.triangles.len()
    }

    pub fn is_empty(&self) -> bool {
        self.triangles.is_empty()
    }

    /// Builds the scene with the default traversal.
    pub fn build(self) -> Scene {
        self.build_with(Traversal::default())
    }

    /// Builds the scene for the given traversal backend (both from obvhs's medium-quality
    /// PLOC preset: about Embree's build time, faster traversal).
    pub fn build_with(self, traversal: Traversal) -> Scene {
        let padded: Vec<PaddedTriangle> = self.triangles.iter().map(|t| PaddedTriangle(*t)).collect();
        if padded.is_empty() {
            return self.into_scene(Backend::Empty, Vec::new());
        }
        let params = BvhBuildParams::medium_build();
        match traversal {
            Traversal::Obvhs => {
                let bvh = build_cwbvh(&padded, params, &mut Duration::default());
                let order = bvh.primitive_indices.clone();
                self.into_scene(Backend::Obvhs(bvh), order)
            }
            Traversal::Wide => {
                let tree = wide::ploc_tree(&self.triangles, params, padded_box);
                let (bvh, order) = wide::WideBvh::build(&self.triangles, &tree);
                self.into_scene(Backend::Wide(bvh), order)
            }
            Traversal::WideSbvh => {
                let tree = sbvh::build(&self.triangles, padded_box);
                let (bvh, order) = wide::WideBvh::build(&self.triangles, &tree);
                self.into_scene(Backend::Wide(bvh), order)
            }
        }
    }

    /// The scene with its triangles stored in `order` (the BVH's leaf order, so a hit reads
    /// memory next to its neighbours').
    fn into_scene(self, backend: Backend, order: Vec<u32>) -> Scene {
        let triangles = order.iter().map(|&i| self.triangles[i as usize]).collect();
        let payloads = order.iter().map(|&i| self.payloads[i as usize]).collect();
        Scene {
            backend,
            triangles,
            payloads,
            original: order,
            groups: std::sync::OnceLock::new(),
        }
    }
}

/// Which traversal a [`Scene`] answers with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Traversal {
    /// obvhs's compressed wide BVH (CWBVH): the backend before [`Traversal::Wide`], kept for
    /// comparison.
    Obvhs,
    /// Our own: eight float child boxes per node stored axis by axis, packets of four
    /// triangles, AVX2 where the CPU has it (1.7–2.7× the CWBVH's single-ray rate on
    /// four maps' ray sets, `scripts/bench_embree.sh`).
    #[default]
    Wide,
    /// The same wide layout collapsed from our own SBVH build (binned SAH with spatial splits,
    /// `sbvh.rs`) instead of PLOC: 3–19% more closest-hit rays per second on three maps' ray
    /// sets, but up to 32% fewer occlusion rays on two of them, and 7–18× the build time
    /// (docs/vrad-measurements.md, "A spatial-split build for the wide BVH"). Not the default.
    WideSbvh,
}

/// The built acceleration structure.
enum Backend {
    Empty,
    Obvhs(CwBvh),
    Wide(wide::WideBvh),
}

/// A triangle whose bounding box is padded on every axis. The CWBVH stores child boxes
/// quantised to the parent's extent; a box of zero thickness (any axis-aligned face, which
/// Source maps are full of) then loses rays that run along it or start near it. A small pad
/// costs nothing measurable and makes traversal exact again.
#[derive(Clone, Copy)]
struct PaddedTriangle(Triangle);

impl obvhs::Boundable for PaddedTriangle {
    fn aabb(&self) -> Aabb {
        padded_box(self.0.aabb())
    }
}

/// A box grown by [`PaddedTriangle`]'s pad.
fn padded_box(b: Aabb) -> Aabb {
    let pad = Vec3A::splat(1e-2) + (b.max - b.min).abs() * 1e-4;
    Aabb::new(b.min - pad, b.max + pad)
}

/// [`intersect`]'s tolerance on the barycentrics (both backends share it).
const EDGE_TOLERANCE: f32 = 1e-5;
/// Below this determinant a ray runs along the triangle's plane: no hit.
const MIN_DET: f32 = 1e-12;

/// Möller–Trumbore with a small tolerance on the barycentrics, both sides: a ray through
/// the edge two triangles share (common with axis-aligned rays on a luxel grid) hits one of
/// them instead of slipping between. Returns the distance, or infinity on a miss.
#[inline(always)]
fn intersect(tri: &Triangle, ray: &Ray) -> f32 {
    let e1 = tri.v1 - tri.v0;
    let e2 = tri.v2 - tri.v0;
    let p = ray.direction.cross(e2);
    let det = e1.dot(p);
    if det.abs() < MIN_DET {
        return f32::INFINITY;
    }
    let inv = 1.0 / det;
    let tv = ray.origin - tri.v0;
    let u = tv.dot(p) * inv;
    if !(-EDGE_TOLERANCE..=1.0 + EDGE_TOLERANCE).contains(&u) {
        return f32::INFINITY;
    }
    let q = tv.cross(e1);
    let v = ray.direction.dot(q) * inv;
    if v < -EDGE_TOLERANCE || u + v > 1.0 + EDGE_TOLERANCE {
        return f32::INFINITY;
    }
    let t = e2.dot(q) * inv;
    if t >= ray.tmin && t <= ray.tmax {
        t
    } else {
        f32::INFINITY
    }
}

/// A built scene: immutable and shareable between threads.
pub struct Scene {
    backend: Backend,
    /// Triangles in `bvh.primitive_indices` order (BVH leaf slot `i` is `triangles[i]`).
    triangles: Vec<Triangle>,
    payloads: Vec<u32>,
    original: Vec<u32>,
    /// Boxes around runs of triangles, made when [`ParallelOrigins`] first sweeps the scene.
    groups: std::sync::OnceLock<parallel::Groups>,
}

impl std::fmt::Debug for Scene {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scene")
            .field("triangles", &self.triangles.len())
            .finish()
    }
}

impl Scene {
    /// Number of triangles in the scene.
    pub fn len(&self) -> usize {
        self.triangles.len()
    }

    pub fn is_empty(&self) -> bool {
        self.triangles.is_empty()
    }

    /// The same triangles and payloads built again for `traversal` (to compare backends on
    /// one scene); triangle numbers stay the same.
    pub fn rebuilt(&self, traversal: Traversal) -> Scene {
        let mut order: Vec<usize> = (0..self.triangles.len()).collect();
        order.sort_unstable_by_key(|&slot| self.original[slot]);
        let builder = SceneBuilder {
            triangles: order.iter().map(|&s| self.triangles[s]).collect(),
            payloads: order.iter().map(|&s| self.payloads[s]).collect(),
        };
        builder.build_with(traversal)
    }

    /// The triangles as [`Hit::triangle`] numbers them (insertion order, degenerate ones left
    /// out): to hand exactly this scene to another tracer, as the Embree benchmark does.
    pub fn triangles(&self) -> Vec<[[f32; 3]; 3]> {
        let mut out = vec![[[0.0; 3]; 3]; self.triangles.len()];
        for (tri, &i) in self.triangles.iter().zip(&self.original) {
            out[i as usize] = [tri.v0.into(), tri.v1.into(), tri.v2.into()];
        }
        out
    }
}

/// Hits closer than this to the origin are ignored, so a ray leaving a surface does not hit
/// that surface itself.
pub const MIN_T: f32 = 1e-3;

/// The ray handed to the BVH. A direction component of negative zero (what negating an
/// axis-aligned vector gives) is made positive zero: the traversal takes the octant from the
/// sign bit but the slab test from `1 / d = -inf`, and the two disagreeing made such rays
/// miss everything.
fn ray(origin: [f32; 3], dir: [f32; 3], max_t: f32) -> Ray {
    Ray::new(origin.into(), positive_zeros(dir).into(), MIN_T, max_t)
}

/// `dir` with any negative zero component made positive (see [`ray`]).
fn positive_zeros(dir: [f32; 3]) -> [f32; 3] {
    dir.map(|c| if c == 0.0 { 0.0 } else { c })
}

impl Scene {
    /// Bytes the acceleration structure and triangle tables hold (not counting [`ParallelOrigins`]'
    /// boxes).
    pub fn heap_bytes(&self) -> usize {
        let tables = self.triangles.capacity() * size_of::<Triangle>()
            + (self.payloads.capacity() + self.original.capacity()) * size_of::<u32>();
        tables
            + match &self.backend {
                Backend::Empty => 0,
                Backend::Obvhs(bvh) => {
                    bvh.nodes.capacity() * size_of_val(&bvh.nodes[0])
                        + bvh.primitive_indices.capacity() * size_of::<u32>()
                }
                Backend::Wide(w) => w.heap_bytes(),
            }
    }

    /// The hit on the triangle in `slot`.
    fn hit(&self, slot: u32, t: f32) -> Hit {
        Hit {
            t,
            payload: self.payloads[slot as usize],
            triangle: self.original[slot as usize],
        }
    }

    /// [`Tracer::occluded_except`]'s answer and the work the BVH took for it: nodes entered
    /// plus leaf packets of triangles tested, a measure of the ray's cost that does not depend
    /// on the machine or its load. The work is `None` where the backend does not count it.
    pub fn occluded_except_work(
        &self,
        origin: [f32; 3],
        dir: [f32; 3],
        max_t: f32,
        ignore: u32,
    ) -> (bool, Option<u32>) {
        let counts = |slot: u32| self.payloads[slot as usize] & ignore == 0;
        match &self.backend {
            Backend::Wide(w) => {
                let (hit, work) = w.occluded_work(&wide_ray(origin, dir, max_t), counts);
                (hit, Some(work))
            }
            _ => (self.occluded_where(origin, dir, max_t, counts), None),
        }
    }

    /// Whether a triangle whose slot `counts` accepts lies on the segment.
    fn occluded_where(
        &self,
        origin: [f32; 3],
        dir: [f32; 3],
        max_t: f32,
        counts: impl Fn(u32) -> bool,
    ) -> bool {
        let ray = ray(origin, dir, max_t);
        match &self.backend {
            Backend::Empty => false,
            Backend::Obvhs(bvh) => !bvh.ray_traverse_miss(ray, |ray, slot| {
                if counts(slot as u32) {
                    intersect(&self.triangles[slot], ray)
                } else {
                    f32::INFINITY
                }
            }),
            Backend::Wide(w) => w.occluded(&wide_ray(origin, dir, max_t), counts),
        }
    }
}

/// The wide backend's form of [`ray`]'s ray (the same origin, direction and range).
fn wide_ray(origin: [f32; 3], dir: [f32; 3], max_t: f32) -> wide::WideRay {
    wide::WideRay::new(origin, positive_zeros(dir), MIN_T, max_t)
}

impl Tracer for Scene {
    fn closest(&self, origin: [f32; 3], dir: [f32; 3], max_t: f32) -> Option<Hit> {
        let ray = ray(origin, dir, max_t);
        match &self.backend {
            Backend::Empty => None,
            Backend::Obvhs(bvh) => {
                let mut hit = RayHit::none();
                let found =
                    bvh.ray_traverse(ray, &mut hit, |ray, slot| intersect(&self.triangles[slot], ray));
                found.then(|| self.hit(hit.primitive_id, hit.t))
            }
            Backend::Wide(w) => (w.closest(&wide_ray(origin, dir, max_t))).map(|(t, slot)| self.hit(slot, t)),
        }
    }

    fn occluded(&self, origin: [f32; 3], dir: [f32; 3], max_t: f32) -> bool {
        self.occluded_where(origin, dir, max_t, |_| true)
    }

    fn occluded_except(&self, origin: [f32; 3], dir: [f32; 3], max_t: f32, ignore: u32) -> bool {
        self.occluded_where(origin, dir, max_t, |slot| {
            self.payloads[slot as usize] & ignore == 0
        })
    }

    fn occluded_cached(
        &self,
        origin: [f32; 3],
        dir: [f32; 3],
        max_t: f32,
        ignore: u32,
        cache: &mut LeafCache,
    ) -> bool {
        let counts = |slot: u32| self.payloads[slot as usize] & ignore == 0;
        let ray = wide_ray(origin, dir, max_t);
        match &self.backend {
            // Every triangle counts: a test the leaf test folds away.
            Backend::Wide(w) if ignore == 0 => w.occluded_cached(&ray, |_| true, cache),
            Backend::Wide(w) => w.occluded_cached(&ray, counts, cache),
            _ => self.occluded_except(origin, dir, max_t, ignore),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(super) fn grid(n: usize) -> SceneBuilder {
        // n*n unit quads at z = 0, payload = quad index.
        let mut b = SceneBuilder::new();
        for y in 0..n {
            for x in 0..n {
                let (x0, y0) = (x as f32, y as f32);
                b.add_polygon(
                    &[
                        [x0, y0, 0.0],
                        [x0 + 1.0, y0, 0.0],
                        [x0 + 1.0, y0 + 1.0, 0.0],
                        [x0, y0 + 1.0, 0.0],
                    ],
                    (y * n + x) as u32,
                );
            }
        }
        b
    }

    /// The counted traversal answers as [`Tracer::occluded_except`] does, and counts more
    /// work for a ray that runs the length of the scene than for one stopped at once.
    #[test]
    fn occluded_work_answers_as_occluded_and_grows_with_the_ray() {
        // A row of 64 triangles across the x axis, each filling the lower half of the unit
        // square at its x: a ray along x through the upper half of the square passes through
        // every one's box and meets none; through the lower half, the first stops it.
        let mut b = SceneBuilder::new();
        for k in 1..=64 {
            let x = k as f32;
            b.add_triangle([x, 0.0, 0.0], [x, 1.0, 0.0], [x, 0.0, 1.0], k % 2);
        }
        let scene = b.build();
        for i in 0..100 {
            let (y, z) = ((i * 37 % 100) as f32 / 100.0, (i * 53 % 100) as f32 / 100.0);
            for ignore in [0, 1] {
                let (o, d) = ([0.5, y, z], [1.0, 0.01, -0.01]);
                let (hit, _) = scene.occluded_except_work(o, d, 1000.0, ignore);
                assert_eq!(hit, scene.occluded_except(o, d, 1000.0, ignore));
            }
        }
        let along_x = [1.0, 0.0, 0.0];
        let (stopped_hit, stopped) = scene.occluded_except_work([0.5, 0.1, 0.1], along_x, 1000.0, 0);
        let (through_hit, through) = scene.occluded_except_work([0.5, 0.9, 0.9], along_x, 1000.0, 0);
        assert!(stopped_hit && !through_hit);
        let (stopped, through) = (stopped.unwrap_or(0), through.unwrap_or(0));
        assert!(
            stopped > 0 && through > 4 * stopped,
            "stopped {stopped}, through {through}"
        );
    }

    #[test]
    fn closest_hit_reports_payload_and_distance() {
        let mut b = grid(16);
        // A blocker above quad (3, 4) at z = 2.
        b.add_polygon(
            &[[3.0, 4.0, 2.0], [4.0, 4.0, 2.0], [4.0, 5.0, 2.0], [3.0, 5.0, 2.0]],
            999,
        );
        let scene = b.build();
        let hit = scene.closest([5.5, 7.5, 10.0], [0.0, 0.0, -1.0], 100.0).unwrap();
        assert_eq!(hit.payload, 7 * 16 + 5);
        assert!((hit.t - 10.0).abs() < 1e-4);
        let hit = scene.closest([3.5, 4.5, 10.0], [0.0, 0.0, -1.0], 100.0).unwrap();
        assert_eq!(hit.payload, 999);
        assert!((hit.t - 8.0).abs() < 1e-4);
        assert!(scene.occluded([3.5, 4.5, 1.0], [0.0, 0.0, 1.0], 5.0));
        assert!(!scene.occluded([3.5, 4.5, 1.0], [0.0, 0.0, 1.0], 0.5));
        // A flagged roof over quad (8, 8) at z = 3: ignored, nothing else above; the floor
        // below still counts.
        let mut b = grid(16);
        let flag = 1 << 30;
        b.add_polygon(
            &[[8.0, 8.0, 3.0], [9.0, 8.0, 3.0], [9.0, 9.0, 3.0], [8.0, 9.0, 3.0]],
            flag,
        );
        let flagged = b.build();
        assert!(flagged.occluded([8.5, 8.5, 1.0], [0.0, 0.0, 1.0], 5.0));
        assert!(!flagged.occluded_except([8.5, 8.5, 1.0], [0.0, 0.0, 1.0], 5.0, flag));
        assert!(flagged.occluded_except([8.5, 8.5, 1.0], [0.0, 0.0, -1.0], 5.0, flag));
        assert!(
            scene
                .closest([100.0, 100.0, 1.0], [0.0, 0.0, -1.0], 10.0)
                .is_none()
        );
        // Rays against flat axis-aligned geometry (zero-thickness boxes), in every octant.
        for d in [
            [0.0, 0.0, 1.0],
            [0.01, 0.01, 1.0],
            [-0.1, 0.1, 1.0],
            [0.1, -0.1, 1.0],
        ] {
            assert!(scene.occluded([3.5, 4.5, 1.0], d, 5.0), "{d:?}");
            assert_eq!(
                scene.closest([3.5, 4.5, 1.0], d, 5.0).map(|h| h.payload),
                Some(999),
                "{d:?}"
            );
        }
        let mut b = SceneBuilder::new();
        b.add_polygon(
            &[[3.0, 4.0, 2.0], [4.0, 4.0, 2.0], [4.0, 5.0, 2.0], [3.0, 5.0, 2.0]],
            1,
        );
        let flat = b.build();
        assert!(flat.occluded([3.5, 4.5, 1.0], [0.0, 0.0, 1.0], 5.0));
        assert_eq!(
            flat.closest([3.5, 4.5, 1.0], [0.0, 0.0, 1.0], 5.0)
                .map(|h| h.payload),
            Some(1)
        );
    }

    #[test]
    fn negative_zero_direction_components_still_hit() {
        // A wall at x = -10 facing +x; rays along -x written as the negation of +x.
        let mut b = grid(4);
        b.add_polygon(
            &[
                [-10.0, -5.0, -5.0],
                [-10.0, 5.0, -5.0],
                [-10.0, 5.0, 5.0],
                [-10.0, -5.0, 5.0],
            ],
            42,
        );
        let scene = b.build();
        let dir = (-glam::Vec3::X).to_array();
        assert!(dir[1].is_sign_negative());
        let hit = scene.closest([0.5, 0.5, 1.0], dir, 1.0e5).map(|h| h.payload);
        assert_eq!(hit, Some(42));
        assert!(scene.occluded([0.5, 0.5, 1.0], dir, 1.0e5));
        let down = [-0.0, -0.0, -1.0];
        assert!(scene.closest([0.5, 0.5, 1.0], down, 10.0).is_some());
    }

    #[test]
    fn empty_scene_never_hits() {
        let scene = SceneBuilder::new().build();
        assert!(scene.is_empty());
        assert!(scene.closest([0.0; 3], [1.0, 0.0, 0.0], 1e9).is_none());
        assert!(!scene.occluded([0.0; 3], [1.0, 0.0, 0.0], 1e9));
    }
}

#[cfg(test)]
mod parallel_tests {
    use super::tests::grid;
    use super::*;

    /// A small deterministic generator (xorshift) for test scenes.
    pub(super) struct Rng(pub(super) u64);
    impl Rng {
        pub(super) fn next(&mut self) -> f32 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 >> 40) as f32 / (1u64 << 24) as f32
        }
        pub(super) fn point(&mut self, scale: f32) -> Vec3A {
            Vec3A::new(self.next(), self.next(), self.next()) * scale
        }
    }

    /// The payload of one random triangle in seven in [`clutter`].
    pub(super) const FLAGGED: u32 = 1 << 31;

    /// Boxes of every size (small clutter, a few huge walls), axis-aligned quads and random
    /// triangles, like a map's mix.
    fn clutter() -> Scene {
        clutter_where(|_| true)
    }

    /// [`clutter`]'s triangles whose payload `keep` accepts.
    fn clutter_where(keep: impl Fn(u32) -> bool) -> Scene {
        clutter_builder(keep).build()
    }

    /// The builder of [`clutter_where`].
    pub(super) fn clutter_builder(keep: impl Fn(u32) -> bool) -> SceneBuilder {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        // The grid's quads carry payloads 0..576: all kept or none.
        let mut b = if keep(0) { grid(24) } else { SceneBuilder::new() };
        for i in 0..400 {
            let a = rng.point(24.0);
            let size = if i % 50 == 0 { 200.0 } else { 3.0 };
            let c = a + (rng.point(1.0) - Vec3A::splat(0.5)) * size;
            let e = a + (rng.point(1.0) - Vec3A::splat(0.5)) * size;
            let payload = if i % 7 == 0 { FLAGGED } else { i };
            if keep(payload) {
                b.add_triangle(a.into(), c.into(), e.into(), payload);
            }
        }
        for k in (0..6).filter(|&k| keep(1000 + k)) {
            let z = 2.0 + k as f32 * 3.0;
            b.add_polygon(
                &[[4.0, 4.0, z], [12.0, 4.0, z], [12.0, 12.0, z], [4.0, 12.0, z]],
                1000 + k,
            );
        }
        b
    }

    #[test]
    fn parallel_rays_answer_as_the_bvh() {
        let scene = clutter();
        let mut rng = Rng(42);
        let mut dirs = vec![
            [0.0, 0.0, 1.0],
            [0.0, 0.0, -1.0],
            [-0.0, 1.0, 0.0],
            [1.0, 0.0, 0.0],
        ];
        for _ in 0..12 {
            let d = rng.point(2.0) - Vec3A::ONE;
            dirs.push((d * 3.0).into());
        }
        let (mut hits, mut compared) = (0, 0);
        for dir in dirs {
            let along = ParallelRays::new(&scene, dir);
            for _ in 0..3000 {
                let o: [f32; 3] = (rng.point(30.0) - Vec3A::splat(3.0)).into();
                let max_t = if rng.next() < 0.3 { 5.0 } else { 1e5 };
                let want = scene.closest(o, dir, max_t);
                let got = along.closest(o, dir, max_t);
                compared += 1;
                hits += usize::from(want.is_some());
                assert_eq!(want.map(|h| h.t), got.map(|h| h.t), "{o:?} {dir:?}");
                if let (Some(w), Some(g)) = (want, got)
                    && w.triangle != g.triangle
                {
                    // Only a tie may pick another triangle.
                    assert_eq!(w.t, g.t);
                }
                for ignore in [0, 1 << 31] {
                    assert_eq!(
                        scene.occluded_except(o, dir, max_t, ignore),
                        along.occluded_except(o, dir, max_t, ignore),
                        "{o:?} {dir:?} {ignore}"
                    );
                }
            }
            // Another direction falls back to the BVH.
            let other = [0.3, 0.2, 1.0];
            let o = [5.0, 5.0, -3.0];
            assert_eq!(scene.closest(o, other, 1e5), along.closest(o, other, 1e5));
        }
        assert!(hits > compared / 4, "{hits} of {compared}");
    }

    #[test]
    fn parallel_rays_of_an_empty_scene_never_hit() {
        let scene = SceneBuilder::new().build();
        let along = ParallelRays::new(&scene, [0.0, 0.0, 1.0]);
        assert!(along.closest([0.0; 3], [0.0, 0.0, 1.0], 1e9).is_none());
        assert!(!along.occluded([0.0; 3], [0.0, 0.0, 1.0], 1e9));
    }

    /// A few origins in one corner (a shard's share of a map's luxels): whole groups of
    /// triangles meet none and are passed over; the answers stay the BVH's. One scene seen
    /// along a direction serves every set of origins asked along it (a sky table's levels):
    /// the corner's, then origins all over, then the corner's again.
    #[test]
    fn parallel_origins_few_and_close_answer_as_the_bvh() {
        let scene = clutter();
        let mut rng = Rng(5);
        let corner: Vec<[f32; 3]> = (0..60)
            .map(|_| (rng.point(4.0) + Vec3A::splat(2.0)).into())
            .collect();
        let spread: Vec<[f32; 3]> = (0..300)
            .map(|_| (rng.point(30.0) - Vec3A::splat(3.0)).into())
            .collect();
        for dir in [
            [0.0, 0.0, 1.0],
            [0.3, -0.2, 1.0],
            [-1.0, 0.1, -0.4],
            [0.0, 1.0, 0.0],
        ] {
            let along = SceneAlong::new(&scene, dir);
            for origins in [&corner, &spread, &corner] {
                assert_sweeps_answer_as_the_bvh((&scene, &along), origins, dir, 1e5);
            }
        }
    }

    /// Every origin's closest distance and occlusion up to `max_t` along `dir`, swept through
    /// `along` (`scene` seen along `dir`), equal to `scene`'s BVH answers.
    fn assert_sweeps_answer_as_the_bvh(
        (scene, along): (&Scene, &SceneAlong<'_>),
        origins: &[[f32; 3]],
        dir: [f32; 3],
        max_t: f32,
    ) {
        let rays = ParallelOrigins::new(origins.to_vec(), dir);
        let closest = rays.closest(along, max_t);
        let occluded = rays.occluded_except(along, &vec![max_t; origins.len()], 0);
        for (i, &o) in origins.iter().enumerate() {
            let want = scene.closest(o, dir, max_t);
            assert_eq!(want.map(|h| h.t), closest[i].map(|h| h.t), "{o:?} {dir:?}");
            assert_eq!(occluded[i], scene.occluded(o, dir, max_t), "{o:?} {dir:?}");
        }
    }

    /// Brush-like faces far out (where rounding is coarsest: corners near 30,000), thin ones,
    /// and origins on their planes and just off them on either side, asked along directions
    /// that leave the faces steeply and grazing: a sweep passes over a triangle whose plane lies
    /// behind an origin, and must still answer every ray as the BVH does.
    #[test]
    fn origins_on_and_just_off_faces_answer_as_the_bvh() {
        let mut rng = Rng(77);
        let mut b = SceneBuilder::new();
        let mut tris = Vec::new();
        for i in 0..300 {
            let far = if i % 2 == 0 { 30_000.0 } else { 500.0 };
            let a = rng.point(far) - Vec3A::splat(far / 2.0);
            let (s, thin) = (
                if i % 10 == 0 { 2000.0 } else { 40.0 },
                if i % 7 == 0 { 0.02 } else { 1.0 },
            );
            let (u, v) = match i % 4 {
                0 => (Vec3A::X * s, Vec3A::Y * s * thin),
                1 => (Vec3A::Y * s, Vec3A::Z * s * thin),
                2 => (Vec3A::Z * s, Vec3A::X * s * thin),
                _ => (
                    (rng.point(2.0) - Vec3A::ONE) * s,
                    (rng.point(2.0) - Vec3A::ONE) * s * thin,
                ),
            };
            b.add_triangle(a.into(), (a + u).into(), (a + v).into(), i);
            tris.push((a, u, v));
        }
        let scene = b.build();
        let mut origins: Vec<[f32; 3]> = Vec::new();
        for &(a, u, v) in &tris {
            let n = u.cross(v).normalize_or_zero();
            let on = a + u * rng.next() * 0.5 + v * rng.next() * 0.5;
            for lift in [-1.0, -0.3, -0.01, 0.0, 0.001, 0.05, 0.2, 0.5, 1.0, 3.0] {
                origins.push((on + n * lift).into());
            }
        }
        let mut dirs = vec![[0.0, 0.0, 1.0], [0.0, -1.0, 0.0], [1.0, 0.0, 0.0]];
        for graze in [0.3, 1e-2, 1e-3, 1e-4, -1e-3] {
            dirs.extend([[1.0, 0.5, graze], [graze, 1.0, -0.5], [0.7, graze, 1.0]]);
        }
        dirs.extend((0..8).map(|_| <[f32; 3]>::from(rng.point(2.0) - Vec3A::ONE)));
        for dir in dirs {
            let along = SceneAlong::new(&scene, dir);
            assert_sweeps_answer_as_the_bvh((&scene, &along), &origins, dir, 1e6);
        }
    }

    #[test]
    #[should_panic(expected = "along one direction")]
    fn origins_and_triangles_seen_along_two_directions_are_refused() {
        let scene = clutter();
        let rays = ParallelOrigins::new(vec![[1.0, 2.0, 3.0]], [0.0, 0.0, 1.0]);
        rays.closest(&SceneAlong::new(&scene, [0.0, 1.0, 0.0]), 1e5);
    }

    #[test]
    fn parallel_origins_answer_as_the_bvh() {
        let scene = clutter();
        let only_flagged = clutter_where(|p| p == FLAGGED);
        let mut rng = Rng(99);
        let mut dirs = vec![[0.0, 0.0, 1.0], [0.0, -1.0, 0.0]];
        for _ in 0..10 {
            let d = rng.point(2.0) - Vec3A::ONE;
            dirs.push((d * 2.0).into());
        }
        let mut hits = 0;
        for dir in dirs {
            // Clumps of origins (a face's luxels) and loose ones, a few not finite.
            let mut origins: Vec<[f32; 3]> = Vec::new();
            for _ in 0..200 {
                let centre = rng.point(30.0) - Vec3A::splat(3.0);
                for _ in 0..8 {
                    origins.push((centre + (rng.point(1.0) - Vec3A::splat(0.5)) * 2.0).into());
                }
            }
            origins.push([f32::NAN, 0.0, 0.0]);
            let limits: Vec<f32> = (0..origins.len())
                .map(|_| if rng.next() < 0.3 { 4.0 } else { 1e5 })
                .collect();
            let rays = ParallelOrigins::new(origins.clone(), dir);
            let along = SceneAlong::new(&scene, dir);
            let closest = rays.closest(&along, 1e5);
            // Among the flagged triangles alone: as a scene of those alone answers.
            let flagged = rays.closest_with(&along, 1e5, |p| p == FLAGGED);
            for (i, &o) in origins.iter().enumerate() {
                assert_eq!(
                    flagged[i].map(|h| h.t),
                    only_flagged.closest(o, dir, 1e5).map(|h| h.t),
                    "{o:?} {dir:?}"
                );
                assert!(flagged[i].is_none_or(|h| h.payload == FLAGGED));
            }
            for ignore in [0, 1 << 31] {
                let occluded = rays.occluded_except(&along, &limits, ignore);
                for (i, &o) in origins.iter().enumerate() {
                    assert_eq!(
                        occluded[i],
                        scene.occluded_except(o, dir, limits[i], ignore),
                        "{o:?} {dir:?} {ignore}"
                    );
                }
            }
            for (i, &o) in origins.iter().enumerate() {
                let want = scene.closest(o, dir, 1e5);
                hits += usize::from(want.is_some());
                assert_eq!(want.map(|h| h.t), closest[i].map(|h| h.t), "{o:?} {dir:?}");
                if let (Some(w), Some(g)) = (want, closest[i])
                    && w.triangle != g.triangle
                {
                    assert_eq!(w.t, g.t, "only a tie may pick another triangle");
                }
            }
        }
        assert!(hits > 1000, "{hits} hits");
        assert!(
            ParallelOrigins::new(Vec::new(), [0.0, 0.0, 1.0])
                .closest(&SceneAlong::new(&scene, [0.0, 0.0, 1.0]), 1e5)
                .is_empty()
        );
    }
}

#[cfg(test)]
mod wide_tests {
    use super::parallel_tests::{FLAGGED, Rng, clutter_builder};
    use super::*;

    /// The closest hit and occlusion by testing every triangle: what any backend must answer.
    fn brute(scene: &Scene, o: [f32; 3], d: [f32; 3], max_t: f32, ignore: u32) -> (Option<f32>, bool) {
        let r = ray(o, d, max_t);
        let ts = (scene.triangles.iter().zip(&scene.payloads)).map(|(t, p)| (intersect(t, &r), p));
        let best = ts.clone().map(|(t, _)| t).fold(f32::INFINITY, f32::min);
        let occluded = ts.filter(|(_, p)| *p & ignore == 0).any(|(t, _)| t < max_t);
        ((best < max_t).then_some(best), occluded)
    }

    /// Random rays plus rays along and starting on the axis-aligned faces of the grid
    /// (z = 0, edges at whole x and y) and the stacked quads (z = 2, 5, ...).
    fn rays(rng: &mut Rng) -> Vec<([f32; 3], [f32; 3], f32)> {
        let mut out = Vec::new();
        let axes = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
        let signed = axes.iter().flat_map(|a| [*a, a.map(|c: f32| -c)]);
        for d in signed.collect::<Vec<_>>() {
            for _ in 0..300 {
                let p = rng.point(30.0) - Vec3A::splat(3.0);
                let grid = [p.x.round(), p.y.round(), p.z];
                for o in [
                    p.into(),
                    [p.x, p.y, 0.0],
                    [grid[0], p.y, 0.0],
                    [grid[0], grid[1], 5.0],
                    grid,
                ] {
                    out.push((o, d, if rng.next() < 0.3 { 4.0 } else { 1e5 }));
                }
            }
        }
        for _ in 0..6000 {
            let o: [f32; 3] = (rng.point(30.0) - Vec3A::splat(3.0)).into();
            let d: [f32; 3] = (rng.point(2.0) - Vec3A::ONE).into();
            out.push((o, d, if rng.next() < 0.3 { 4.0 } else { 1e5 }));
        }
        out
    }

    #[test]
    fn wide_traversal_answers_as_every_triangle_tested() {
        for tree in [Traversal::Wide, Traversal::WideSbvh] {
            let mut scene = clutter_builder(|_| true).build_with(tree);
            answers_as_every_triangle_tested(&scene);
            // The portable node and packet tests too, where the AVX2 ones ran above.
            let Backend::Wide(wide) = &mut scene.backend else {
                panic!("not the wide backend");
            };
            if wide.avx2 {
                wide.avx2 = false;
                answers_as_every_triangle_tested(&scene);
            }
        }
    }

    fn answers_as_every_triangle_tested(scene: &Scene) {
        let mut rng = Rng(7);
        let (mut hits, mut occluded) = (0, 0);
        // One cache over unrelated rays: it holds whatever leaf stopped the last one.
        let mut cache = LeafCache::default();
        for (o, d, max_t) in rays(&mut rng) {
            let (want, want_occluded) = brute(scene, o, d, max_t, 0);
            let got = scene.closest(o, d, max_t);
            assert_eq!(got.map(|h| h.t), want, "{o:?} {d:?} {max_t}");
            if let Some(h) = got {
                let r = ray(o, d, max_t);
                let slot = scene.original.iter().position(|&i| i == h.triangle).unwrap();
                assert_eq!(
                    intersect(&scene.triangles[slot], &r),
                    h.t,
                    "the reported triangle is hit there"
                );
                assert_eq!(h.payload, scene.payloads[slot]);
            }
            assert_eq!(scene.occluded(o, d, max_t), want_occluded, "{o:?} {d:?} {max_t}");
            let cached = scene.occluded_cached(o, d, max_t, 0, &mut cache);
            assert_eq!(cached, want_occluded, "cached: {o:?} {d:?} {max_t}");
            let (_, want_flagged) = brute(scene, o, d, max_t, FLAGGED);
            assert_eq!(
                scene.occluded_except(o, d, max_t, FLAGGED),
                want_flagged,
                "{o:?} {d:?}"
            );
            let cached = scene.occluded_cached(o, d, max_t, FLAGGED, &mut cache);
            assert_eq!(cached, want_flagged, "cached, flagged: {o:?} {d:?}");
            hits += usize::from(want.is_some());
            occluded += usize::from(want_occluded != want_flagged);
        }
        assert!(hits > 5_000, "{hits} hits");
        assert!(
            occluded > 10,
            "{occluded} rays where only flagged triangles occlude"
        );
    }

    /// Shadow rays from a grid of points toward one light, as vrad traces them a face at a
    /// time: with the cache each answer is every triangle's, and a ray whose cached leaf no
    /// longer stops it is traced in full.
    #[test]
    fn cached_shadow_rays_toward_a_light_answer_as_every_triangle_tested() {
        // Without the few triangles that span the whole scene, and from above the floor.
        let scene = clutter_builder(|p| p == 0 || (p != FLAGGED && p % 50 != 0)).build_with(Traversal::Wide);
        let light = Vec3A::new(12.0, 13.0, 40.0);
        let (mut cache, mut shadowed, mut lit) = (LeafCache::default(), 0, 0);
        for i in 0..60 {
            for j in 0..60 {
                let o = Vec3A::new(i as f32 * 0.4, j as f32 * 0.4, 0.5);
                let to = light - o;
                let (d, len) = (to.normalize().into(), to.length());
                let (_, want) = brute(&scene, o.into(), d, len, 0);
                assert_eq!(
                    scene.occluded_cached(o.into(), d, len, 0, &mut cache),
                    want,
                    "{o:?}"
                );
                (shadowed, lit) = if want {
                    (shadowed + 1, lit)
                } else {
                    (shadowed, lit + 1)
                };
            }
        }
        assert!(shadowed > 500 && lit > 100, "{shadowed} shadowed, {lit} lit");
    }

    /// Triangles the SBVH splits (long slivers over a floor of small quads): answers stay
    /// exact, and each triangle keeps one slot though several leaves hold it.
    #[test]
    fn split_triangles_answer_as_every_triangle_tested_and_keep_one_slot() {
        let mut b = SceneBuilder::new();
        for (i, t) in crate::sbvh::tests::slivers().iter().enumerate() {
            b.add_triangle(t.v0.into(), t.v1.into(), t.v2.into(), i as u32);
        }
        let scene = b.build_with(Traversal::WideSbvh);
        let mut numbers = scene.original.clone();
        numbers.sort_unstable();
        assert!(numbers.iter().copied().eq(0..scene.len() as u32));
        let mut rng = Rng(5);
        let mut hits = 0;
        for _ in 0..20_000 {
            let o: [f32; 3] = (rng.point(40.0) - Vec3A::new(4.0, 4.0, 18.0)).into();
            let d: [f32; 3] = (rng.point(2.0) - Vec3A::ONE).into();
            let (want, want_occluded) = brute(&scene, o, d, 1e5, 0);
            let got = scene.closest(o, d, 1e5);
            assert_eq!(got.map(|h| h.t), want, "{o:?} {d:?}");
            assert_eq!(scene.occluded(o, d, 1e5), want_occluded, "{o:?} {d:?}");
            hits += usize::from(want.is_some());
        }
        assert!(hits > 3_000, "{hits} hits");
    }

    #[test]
    fn both_traversals_agree_and_keep_the_triangle_numbering() {
        let wide = clutter_builder(|_| true).build_with(Traversal::Wide);
        let obvhs = clutter_builder(|_| true).build_with(Traversal::Obvhs);
        assert_eq!(wide.triangles(), obvhs.triangles());
        let mut rng = Rng(11);
        for (o, d, max_t) in rays(&mut rng) {
            let (w, b) = (wide.closest(o, d, max_t), obvhs.closest(o, d, max_t));
            assert_eq!(w.map(|h| h.t), b.map(|h| h.t), "{o:?} {d:?}");
            assert_eq!(
                wide.occluded(o, d, max_t),
                obvhs.occluded(o, d, max_t),
                "{o:?} {d:?}"
            );
        }
    }

    #[test]
    fn one_triangle_and_non_finite_rays() {
        let mut b = SceneBuilder::new();
        b.add_triangle([0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], 3);
        let scene = b.build_with(Traversal::Wide);
        let hit = scene.closest([0.2, 0.2, 1.0], [0.0, 0.0, -1.0], 10.0).unwrap();
        assert_eq!((hit.payload, hit.triangle, hit.t), (3, 0, 1.0));
        assert!(scene.occluded([0.2, 0.2, -1.0], [0.0, 0.0, 1.0], 10.0));
        assert!(
            !scene.occluded([0.2, 0.2, -1.0], [0.0, 0.0, 1.0], 1.0),
            "a hit at max_t does not count"
        );
        assert!(
            scene
                .closest([f32::NAN, 0.2, 1.0], [0.0, 0.0, -1.0], 10.0)
                .is_none()
        );
        assert!(!scene.occluded([0.2, 0.2, 1.0], [f32::INFINITY, 0.0, -1.0], 10.0));
        assert!(
            SceneBuilder::new()
                .build_with(Traversal::Wide)
                .closest([0.0; 3], [1.0, 0.0, 0.0], 1.0)
                .is_none()
        );
    }
}
