//! The sweep with its test of a cell's origins written with AVX2 operations: eight origins'
//! feet against a triangle's edges in one register per value. The arithmetic is the portable
//! test's, operation for operation and without fused multiply-adds, so the answers are
//! bit-identical; only the instructions differ.

use std::arch::x86_64::*;

use super::{LANES, LaneTest, LiveOrigins, ParallelOrigins, SceneAlong};

/// [`ParallelOrigins::sweep_with`] through [`under`], compiled for AVX2 as a whole so that the
/// test inlines into the sweep's loops.
#[target_feature(enable = "avx2")]
pub(super) fn sweep(
    origins: &ParallelOrigins,
    along: &SceneAlong<'_>,
    wanted: impl Fn(u32) -> bool,
    meet: impl FnMut(usize, usize, f32) -> bool,
) {
    origins.sweep_with(along, wanted, meet, |live, first, test| under(live, first, test));
}

/// [`super::portable_under`] on all [`LANES`] lanes at once.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn under(live: &LiveOrigins, first: usize, test: &LaneTest) -> u32 {
    let lanes = |v: &[f32]| -> __m256 {
        let values: [f32; LANES] = v[first..][..LANES].try_into().unwrap_or_default();
        bytemuck::cast(values)
    };
    let (x, y, z) = (lanes(&live.x), lanes(&live.y), lanes(&live.z));
    let zero = _mm256_setzero_ps();
    // "Not greater", true where unordered, is the scalar `!(z > far)`.
    let mut met = _mm256_cmp_ps::<_CMP_NGT_UQ>(z, _mm256_set1_ps(test.far));
    let [a, b, c, e] = test.plane.map(|v| _mm256_set1_ps(v));
    let beyond = _mm256_add_ps(
        _mm256_add_ps(
            _mm256_add_ps(_mm256_mul_ps(a, x), _mm256_mul_ps(b, y)),
            _mm256_mul_ps(c, z),
        ),
        e,
    );
    met = _mm256_and_ps(met, _mm256_cmp_ps::<_CMP_NGT_UQ>(beyond, zero));
    for edge in &test.edges {
        let across = _mm256_add_ps(
            _mm256_mul_ps(_mm256_set1_ps(edge[0]), x),
            _mm256_mul_ps(_mm256_set1_ps(edge[1]), y),
        );
        let side = _mm256_add_ps(across, _mm256_set1_ps(edge[2]));
        // "Greater or equal", false where unordered, is the scalar `>=`.
        met = _mm256_and_ps(met, _mm256_cmp_ps::<_CMP_GE_OQ>(side, zero));
    }
    _mm256_movemask_ps(met) as u32
}
