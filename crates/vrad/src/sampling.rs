//! Deterministic direction sets and noise shared by the tracing passes.

use glam::Vec3;

/// Cheap deterministic hash of `x` into [0, 1).
pub fn hash01(mut x: u64) -> f32 {
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    x ^= x >> 33;
    (x >> 40) as f32 / (1u64 << 24) as f32
}

/// Fibonacci-sphere directions: an even spread like VRAD's 162 `g_anorms`.
pub fn sphere_directions(n: usize) -> Vec<Vec3> {
    let golden = std::f32::consts::PI * (3.0 - 5.0f32.sqrt());
    (0..n)
        .map(|i| {
            let z = 1.0 - 2.0 * (i as f32 + 0.5) / n as f32;
            let r = (1.0 - z * z).max(0.0).sqrt();
            let phi = golden * i as f32;
            Vec3::new(r * phi.cos(), r * phi.sin(), z)
        })
        .collect()
}

/// Cosine-weighted directions around `n`: stratified over a grid, rotated per point.
pub fn cosine_dirs(n: Vec3, count: usize, seed: u64) -> impl Iterator<Item = Vec3> {
    let (t, b) = n.any_orthonormal_pair();
    let side = (count as f32).sqrt().ceil() as usize;
    let rot = hash01(seed) * std::f32::consts::TAU;
    (0..count).map(move |k| {
        let (i, j) = (k % side, k / side);
        let u1 = (i as f32 + hash01(seed ^ (k as u64 * 2 + 1))) / side as f32;
        let u2 = (j as f32 + hash01(seed ^ (k as u64 * 2 + 2))) / side as f32;
        let r = u1.min(0.9999).sqrt();
        let phi = std::f32::consts::TAU * u2.min(1.0) + rot;
        let z = (1.0 - r * r).max(0.0).sqrt();
        t * (r * phi.cos()) + b * (r * phi.sin()) + n * z
    })
}

/// From `pos` to `target`: the squared distance, the distance and the unit direction; `None`
/// when the squared distance is at most `min_dist2` (the light sits on the sample).
#[inline]
pub(crate) fn toward(pos: Vec3, target: Vec3, min_dist2: f32) -> Option<(f32, f32, Vec3)> {
    let delta = target - pos;
    let dist2 = delta.length_squared();
    if dist2 <= min_dist2 {
        return None;
    }
    let dist = dist2.sqrt();
    Some((dist2, dist, delta / dist))
}

/// A deterministic stream of numbers in [-1, 1), for tests.
#[cfg(test)]
pub(crate) fn stream(mut seed: u32) -> impl FnMut() -> f32 {
    move || {
        seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        (seed >> 8) as f32 / (1u32 << 23) as f32 - 1.0
    }
}
