//! `ColorRGBExp32`: three 8-bit mantissas and one shared signed exponent.

use glam::Vec3;
use srcmap_bsp::ColorRgbExp32;

/// Encodes linear light (VRAD's 0-255 scale) like `VectorToColorRGBExp32`: the exponent
/// puts the largest channel's mantissa in 128..=255, mantissas truncate.
pub fn encode(c: Vec3) -> ColorRgbExp32 {
    let c = c.max(Vec3::ZERO);
    let max = c.max_element();
    if max.is_nan() || max <= 0.0 || !max.is_finite() {
        return ColorRgbExp32 {
            r: 0,
            g: 0,
            b: 0,
            exponent: 0,
        };
    }
    // frexp: max = f * 2^e with f in [0.5, 1); mantissa = f * 256.
    let e = max.log2().floor() as i32 + 1;
    let exponent = (e - 8).clamp(-128, 127);
    let scale = (-exponent as f32).exp2();
    let m = |v: f32| (v * scale).min(255.0) as u8;
    ColorRgbExp32 {
        r: m(c.x),
        g: m(c.y),
        b: m(c.z),
        exponent: exponent as i8,
    }
}

/// Decodes to linear light.
pub fn decode(c: ColorRgbExp32) -> Vec3 {
    Vec3::from(c.to_linear())
}

/// Per-channel median (VRAD stores the median, not the mean, as a style's average colour:
/// small very bright spots then do not dominate it).
pub fn median(values: impl Iterator<Item = Vec3>) -> Vec3 {
    let (mut r, mut g, mut b): (Vec<f32>, Vec<f32>, Vec<f32>) = (Vec::new(), Vec::new(), Vec::new());
    for v in values {
        r.push(v.x);
        g.push(v.y);
        b.push(v.z);
    }
    if r.is_empty() {
        return Vec3::ZERO;
    }
    let mid = |v: &mut Vec<f32>| {
        v.sort_by(f32::total_cmp);
        v[v.len() / 2]
    };
    Vec3::new(mid(&mut r), mid(&mut g), mid(&mut b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_within_one_mantissa_step() {
        for v in [
            Vec3::new(1.0, 2.0, 3.0),
            Vec3::new(300.0, 5.0, 0.0),
            Vec3::new(0.01, 0.02, 0.005),
            Vec3::splat(255.0),
        ] {
            let c = encode(v);
            let d = decode(c);
            let step = (c.exponent as f32).exp2();
            assert!((d - v).abs().max_element() <= step, "{v} -> {c:?} -> {d}");
            assert!(c.r.max(c.g).max(c.b) >= 128);
        }
        assert_eq!(
            encode(Vec3::ZERO),
            ColorRgbExp32 {
                r: 0,
                g: 0,
                b: 0,
                exponent: 0
            }
        );
    }

    #[test]
    fn median_per_channel() {
        let m = median(
            [
                Vec3::new(1.0, 9.0, 0.0),
                Vec3::new(2.0, 8.0, 0.0),
                Vec3::new(100.0, 7.0, 0.0),
            ]
            .into_iter(),
        );
        assert_eq!(m, Vec3::new(2.0, 8.0, 0.0));
    }
}
