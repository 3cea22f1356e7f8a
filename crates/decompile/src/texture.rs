//! Texture axes back from a texinfo. The compiler stores `axis / scale` and the shift (plus
//! the projection of a brush entity's origin) as f32s, and `axis / lightmapscale` beside them;
//! the VMF gets the unit axis, `scale = 1/|vec|` and the shift. Each number is written in the
//! shortest decimal that the compiler turns back into every one of those same f32s (the
//! mapper's `0.7`, not `0.69999998`); where none does, the full-precision value.

use srcmap_bsp::TexInfo;
use srcmap_geom::DVec3;
use srcmap_vmf::TextureAxis;

/// The u and v axes of `texinfo` for geometry moved back by `offset`, and the lightmap scale.
pub(crate) fn axes(texinfo: &TexInfo, offset: DVec3) -> ([TextureAxis; 2], f64) {
    let lm = lightmap_scale(texinfo);
    let axes = [0, 1].map(|i| {
        let stored = Stored {
            vec: texinfo.texture_vecs[i],
            lightmap: texinfo.lightmap_vecs[i],
            lm,
            offset,
        };
        stored.axis()
    });
    (axes, lm)
}

/// One axis as the texinfo stores it, with what it was stored for.
struct Stored {
    vec: [f32; 4],
    lightmap: [f32; 4],
    lm: f64,
    offset: DVec3,
}

impl Stored {
    /// The axis in its shortest exact form, else at full precision; a zero or non-finite
    /// vector (a broken texinfo) reads as Hammer's default.
    fn axis(&self) -> TextureAxis {
        let v = DVec3::new(self.vec[0] as f64, self.vec[1] as f64, self.vec[2] as f64);
        let len = v.length();
        if !(len.is_finite() && len > 1e-12) {
            return TextureAxis {
                axis: [1.0, 0.0, 0.0],
                shift: 0.0,
                scale: 0.25,
            };
        }
        let raw = TextureAxis {
            axis: (v / len).to_array(),
            shift: self.vec[3] as f64 - v.dot(self.offset),
            scale: 1.0 / len,
        };
        let short = self.shortened(raw);
        if self.texture_agrees(&short) && (self.lightmap_agrees(&short) || !self.lightmap_agrees(&raw)) {
            short
        } else {
            raw
        }
    }

    /// Each number of `raw` cut to the fewest decimals that still store as the same f32s.
    fn shortened(&self, raw: TextureAxis) -> TextureAxis {
        let mut a = raw;
        for k in 0..3 {
            a.axis[k] = shortest(raw.axis[k], |c| {
                (c / raw.scale) as f32 == self.vec[k]
                    && (!self.lm_usable() || (c / self.lm) as f32 == self.lightmap[k])
            });
        }
        a.scale = shortest(raw.scale, |s| {
            (0..3).all(|k| (a.axis[k] / s) as f32 == self.vec[k])
        });
        a.shift = shortest(raw.shift, |s| {
            self.stored_shift(&TextureAxis { shift: s, ..a }) == self.vec[3]
        });
        a
    }

    /// The lightmap vector was made from this axis (a lightmap scale was found).
    fn lm_usable(&self) -> bool {
        self.lm > 0.0 && self.lightmap[..3].iter().any(|&c| c != 0.0)
    }

    /// The shift the compiler stores for `a`.
    fn stored_shift(&self, a: &TextureAxis) -> f32 {
        let tv = DVec3::from_array(a.axis) / a.scale;
        (a.shift + tv.dot(self.offset)) as f32
    }

    fn texture_agrees(&self, a: &TextureAxis) -> bool {
        (0..3).all(|k| (a.axis[k] / a.scale) as f32 == self.vec[k]) && self.stored_shift(a) == self.vec[3]
    }

    fn lightmap_agrees(&self, a: &TextureAxis) -> bool {
        let shift = self.stored_shift(a) as f64;
        (0..3).all(|k| (a.axis[k] / self.lm) as f32 == self.lightmap[k])
            && (shift * a.scale / self.lm) as f32 == self.lightmap[3]
    }
}

/// `x` with the fewest decimals (up to 9) that `ok` accepts, else `x`.
fn shortest(x: f64, ok: impl Fn(f64) -> bool) -> f64 {
    (0..=9)
        .map(|digits| {
            let p = 10f64.powi(digits);
            (x * p).round() / p
        })
        .find(|&c| ok(c))
        .unwrap_or(x)
}

/// Hammer's lightmap scale: texels per luxel, `1/|lightmap vec|`, integral when that is what
/// was meant.
fn lightmap_scale(texinfo: &TexInfo) -> f64 {
    let l = texinfo.lightmap_vecs[0];
    let len = DVec3::new(l[0] as f64, l[1] as f64, l[2] as f64).length();
    if !(len.is_finite() && len > 1e-9) {
        return 16.0;
    }
    let scale = 1.0 / len;
    if (scale - scale.round()).abs() < 1e-3 {
        scale.round()
    } else {
        scale
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rotated_scaled_axis_comes_back_as_written() {
        let (s, c) = (0.5f64, 0.75f64.sqrt());
        let (scale, shift, lm) = (0.3, 17.5, 16.0);
        let tv = [c / scale, s / scale, 0.0, shift].map(|x| x as f32);
        let lv = [c / lm, s / lm, 0.0, shift * scale / lm].map(|x| x as f32);
        let info = TexInfo {
            texture_vecs: [tv, tv],
            lightmap_vecs: [lv, lv],
            ..Default::default()
        };
        let ([u, _], lightmap) = axes(&info, DVec3::ZERO);
        assert_eq!(lightmap, 16.0);
        assert_eq!((u.scale, u.shift), (0.3, 17.5));
        assert_eq!(u.axis[1], 0.5);
        assert!((u.axis[0] - c).abs() < 1e-7);
    }
}
