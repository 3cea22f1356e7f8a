//! The node and packet tests written with AVX2 vector operations: all eight child boxes of a
//! node in one register per plane, four triangles of a packet in one register per value.
//! The arithmetic is the portable tests' own, operation for operation, so the answers are
//! bit-identical; only the instructions differ.

use std::arch::x86_64::*;

use super::{LANES, LeafCache, Node, Packet, WIDTH, WideBvh, WideRay};
use crate::{EDGE_TOLERANCE, MIN_DET};

/// A ray's values broadcast to every lane.
struct Broadcast {
    origin: [__m256; 3],
    inv: [__m256; 3],
    tmin: __m256,
    origin4: [__m128; 3],
    dir4: [__m128; 3],
    tmin4: __m128,
}

impl Broadcast {
    #[target_feature(enable = "avx2")]
    fn new(ray: &WideRay) -> Broadcast {
        Broadcast {
            origin: ray.origin.map(|c| _mm256_set1_ps(c)),
            inv: ray.inv.map(|c| _mm256_set1_ps(c)),
            tmin: _mm256_set1_ps(ray.tmin),
            origin4: ray.origin.map(|c| _mm_set1_ps(c)),
            dir4: ray.dir.map(|c| _mm_set1_ps(c)),
            tmin4: _mm_set1_ps(ray.tmin),
        }
    }
}

/// [`WideRay::enter`]: per axis `(bound - origin) * inv`, near planes maxed, far planes
/// minned, the same operations in the same order.
#[target_feature(enable = "avx2")]
fn enter(ray: &WideRay, b: &Broadcast, node: &Node, tmax: f32) -> ([f32; WIDTH], u32) {
    let plane = |a: usize, side: usize| {
        let bound: __m256 = bytemuck::cast(node.bounds[a][side & 1]);
        _mm256_mul_ps(_mm256_sub_ps(bound, b.origin[a]), b.inv[a])
    };
    let mut near = b.tmin;
    let mut far = _mm256_set1_ps(tmax);
    for a in 0..3 {
        // `max(n, near)` keeps `near` where `n` is NaN, as the portable `if n > near`.
        near = _mm256_max_ps(plane(a, ray.near[a]), near);
        far = _mm256_min_ps(plane(a, !ray.near[a]), far);
    }
    let met = _mm256_cmp_ps::<_CMP_LE_OQ>(near, far);
    (bytemuck::cast(near), _mm256_movemask_ps(met) as u32)
}

/// [`Packet::distances`] on four lanes at once.
#[target_feature(enable = "avx2")]
fn distances(b: &Broadcast, p: &Packet, tmax: f32) -> [f32; LANES] {
    let row = |r: [f32; LANES]| -> __m128 { bytemuck::cast(r) };
    let (mul, add, sub) = (_mm_mul_ps, _mm_add_ps, _mm_sub_ps);
    let dot = |a: [__m128; 3], c: [__m128; 3]| add(add(mul(a[0], c[0]), mul(a[1], c[1])), mul(a[2], c[2]));
    // `a × c`, each component as `a.y c.z - a.z c.y`.
    let cross = |a: [__m128; 3], c: [__m128; 3]| {
        [
            sub(mul(a[1], c[2]), mul(a[2], c[1])),
            sub(mul(a[2], c[0]), mul(a[0], c[2])),
            sub(mul(a[0], c[1]), mul(a[1], c[0])),
        ]
    };
    let (e1, e2) = (p.e1.map(row), p.e2.map(row));
    let d = b.dir4;
    let pv = cross(d, e2);
    let det = dot(e1, pv);
    let inv = _mm_div_ps(_mm_set1_ps(1.0), det);
    let v0 = p.v0.map(row);
    let tv = [0, 1, 2].map(|a| sub(b.origin4[a], v0[a]));
    let u = mul(dot(tv, pv), inv);
    let q = cross(tv, e1);
    let v = mul(dot(d, q), inv);
    let t = mul(dot(e2, q), inv);
    let (lo, hi) = (_mm_set1_ps(-EDGE_TOLERANCE), _mm_set1_ps(1.0 + EDGE_TOLERANCE));
    let abs_det = _mm_andnot_ps(_mm_set1_ps(-0.0), det);
    let tests = [
        _mm_cmp_ps::<_CMP_GE_OQ>(abs_det, _mm_set1_ps(MIN_DET)),
        _mm_cmp_ps::<_CMP_GE_OQ>(u, lo),
        _mm_cmp_ps::<_CMP_LE_OQ>(u, hi),
        _mm_cmp_ps::<_CMP_GE_OQ>(v, lo),
        _mm_cmp_ps::<_CMP_LE_OQ>(add(u, v), hi),
        _mm_cmp_ps::<_CMP_GE_OQ>(t, b.tmin4),
        _mm_cmp_ps::<_CMP_LT_OQ>(t, _mm_set1_ps(tmax)),
    ];
    let hit = tests.into_iter().fold(tests[0], |a, c| _mm_and_ps(a, c));
    bytemuck::cast(_mm_blendv_ps(_mm_set1_ps(f32::INFINITY), t, hit))
}

/// [`WideBvh::closest`] with the AVX2 tests.
#[target_feature(enable = "avx2")]
pub(super) fn closest(bvh: &WideBvh, ray: &WideRay) -> Option<(f32, u32)> {
    let b = Broadcast::new(ray);
    let enter = |node: &Node, tmax| enter(ray, &b, node, tmax);
    bvh.closest_by(ray, enter, |p: &Packet, tmax| distances(&b, p, tmax))
}

/// [`WideBvh::occluded`] with the AVX2 tests.
#[target_feature(enable = "avx2")]
pub(super) fn occluded(bvh: &WideBvh, ray: &WideRay, counts: impl Fn(u32) -> bool) -> bool {
    let b = Broadcast::new(ray);
    let enter = |node: &Node, tmax| enter(ray, &b, node, tmax);
    (bvh.occluded_by(ray, counts, enter, |p: &Packet, tmax| distances(&b, p, tmax))).is_some()
}

/// [`WideBvh::occluded_cached`] with the AVX2 tests.
#[target_feature(enable = "avx2")]
pub(super) fn occluded_cached(
    bvh: &WideBvh,
    (ray, counts): (&WideRay, impl Fn(u32) -> bool),
    cache: &mut LeafCache,
) -> bool {
    let b = Broadcast::new(ray);
    let enter = |node: &Node, tmax| enter(ray, &b, node, tmax);
    bvh.occluded_cached_by((ray, counts), cache, enter, |p: &Packet, tmax| {
        distances(&b, p, tmax)
    })
}
