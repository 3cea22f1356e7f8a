//! Texture axes back from a texinfo. The compiler stores `axis / scale` and the shift (plus
//! the projection of a brush entity's origin); the VMF gets the unit axis, `scale = 1/|vec|`
//! and the shift at full precision, so the recompile stores the same f32s again.

use srcmap_bsp::TexInfo;
use srcmap_geom::DVec3;
use srcmap_vmf::TextureAxis;

/// The u and v axes of `texinfo` for geometry moved back by `offset`, and the lightmap scale.
pub(crate) fn axes(texinfo: &TexInfo, offset: DVec3) -> ([TextureAxis; 2], f64) {
    let axes = [0, 1].map(|i| axis(texinfo.texture_vecs[i], offset));
    (axes, lightmap_scale(texinfo))
}

/// One axis; a zero or non-finite vector (a broken texinfo) reads as Hammer's default scale.
fn axis(vec: [f32; 4], offset: DVec3) -> TextureAxis {
    let v = DVec3::new(vec[0] as f64, vec[1] as f64, vec[2] as f64);
    let len = v.length();
    if !(len.is_finite() && len > 1e-12) {
        return TextureAxis {
            axis: [1.0, 0.0, 0.0],
            shift: 0.0,
            scale: 0.25,
        };
    }
    TextureAxis {
        axis: (v / len).to_array(),
        shift: vec[3] as f64 - v.dot(offset),
        scale: 1.0 / len,
    }
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
