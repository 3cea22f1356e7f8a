//! Texture projection, the one formula both engines share (vmap.md §3): a corner at `p` has
//! `u = (p·U.xyz / scale.u + U.w) / width`, likewise v; and the names of materials and models
//! on each side (`DEV/FOO` ↔ `materials/dev/foo.vmat`, `x.mdl` ↔ `x.vmdl`).

use srcmap_geom::DVec3;
use srcmap_vmf::TextureAxis;

/// Texture size assumed for every material (the size the compiler assumes without `-game`).
pub const DEFAULT_TEXTURE_SIZE: [f64; 2] = [512.0, 512.0];

/// A face with a corner farther out than this many texels has its texture coordinates shifted
/// by whole textures: stored as f32, a coordinate of `t` texels is off by up to `t / 2^24`
/// texels (1/4096 here), and a repeat of the texture away is the same texel.
const REBASE_TEXELS: f64 = 4096.0;

/// One face's texture parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Projection {
    pub u: TextureAxis,
    pub v: TextureAxis,
}

impl Projection {
    /// Texture coordinates of a world point for a texture of `size` texels.
    pub fn texcoord(&self, p: DVec3, size: [f64; 2]) -> [f64; 2] {
        [coord(&self.u, p) / size[0], coord(&self.v, p) / size[1]]
    }

    /// The texture coordinates of a face's corners as stored (f32): the formula's, or where a
    /// corner lies more than [`REBASE_TEXELS`] out, shifted on each axis by the whole textures
    /// of the face's middle (as Hammer shifts them), so that f32 keeps every corner within
    /// 1/4096 texel of the formula modulo the texture.
    pub fn face_texcoords(&self, corners: &[DVec3], size: [f64; 2]) -> Vec<[f32; 2]> {
        let uv: Vec<[f64; 2]> = corners.iter().map(|&p| self.texcoord(p, size)).collect();
        let far = |axis: usize| uv.iter().any(|c| (c[axis] * size[axis]).abs() > REBASE_TEXELS);
        let whole = |axis: usize| {
            let mean = uv.iter().map(|c| c[axis]).sum::<f64>() / uv.len().max(1) as f64;
            if far(axis) { mean.floor() } else { 0.0 }
        };
        let shift = [whole(0), whole(1)];
        uv.iter()
            .map(|c| [(c[0] - shift[0]) as f32, (c[1] - shift[1]) as f32])
            .collect()
    }

    /// The corner tangent: U made unit length, w the handedness of (N × T) against V.
    pub fn tangent(&self, normal: DVec3) -> [f64; 4] {
        let t = DVec3::from_array(self.u.axis).normalize_or_zero();
        let w = if normal.cross(t).dot(DVec3::from_array(self.v.axis)) < 0.0 {
            -1.0
        } else {
            1.0
        };
        [t.x, t.y, t.z, w]
    }
}

/// Texels along one axis (before dividing by the texture size).
fn coord(a: &TextureAxis, p: DVec3) -> f64 {
    let scale = if a.scale == 0.0 { 1.0 } else { a.scale };
    DVec3::from_array(a.axis).dot(p) / scale + a.shift
}

/// `DEV/Dev_Floor` → `materials/dev/dev_floor.vmat` (how Valve's importer names them).
pub fn vmat_path(vmt: &str) -> String {
    let name = vmt.trim().replace('\\', "/").to_ascii_lowercase();
    let name = name.trim_start_matches('/');
    let name = name.strip_prefix("materials/").unwrap_or(name);
    let name = name.strip_suffix(".vmt").unwrap_or(name);
    format!("materials/{name}.vmat")
}

/// `materials/dev/dev_floor.vmat` → `DEV/DEV_FLOOR` (Hammer's spelling in a VMF).
pub fn vmt_name(vmat: &str) -> String {
    let name = vmat.trim().replace('\\', "/");
    let name = name.trim_start_matches('/');
    let name = name.strip_prefix("materials/").unwrap_or(name);
    let name = name.strip_suffix(".vmat").unwrap_or(name);
    name.to_ascii_uppercase()
}

/// A model path with its extension swapped (`.mdl` → `.vmdl` or back), else unchanged.
pub fn swap_model_extension(path: &str, from: &str, to: &str) -> String {
    match path.len().checked_sub(from.len()) {
        Some(cut) if path.is_char_boundary(cut) && path[cut..].eq_ignore_ascii_case(from) => {
            format!("{}{to}", &path[..cut])
        }
        _ => path.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_go_both_ways() {
        assert_eq!(vmat_path("DEV\\Dev_Floor.vmt"), "materials/dev/dev_floor.vmat");
        assert_eq!(vmt_name("materials/dev/dev_floor.vmat"), "DEV/DEV_FLOOR");
        assert_eq!(
            swap_model_extension("models/a.MDL", ".mdl", ".vmdl"),
            "models/a.vmdl"
        );
        assert_eq!(swap_model_extension("x", ".mdl", ".vmdl"), "x");
    }

    #[test]
    fn texcoords_follow_vbsp_formula() {
        let axis = |axis, shift, scale| TextureAxis { axis, shift, scale };
        let p = Projection {
            u: axis([1.0, 0.0, 0.0], 16.0, 0.5),
            v: axis([0.0, 0.0, -1.0], 8.0, 0.25),
        };
        let uv = p.texcoord(DVec3::new(64.0, 3.0, 32.0), [512.0, 256.0]);
        assert_eq!(uv, [(128.0 + 16.0) / 512.0, (-128.0 + 8.0) / 256.0]);
        assert_eq!(p.tangent(DVec3::Y)[3], 1.0);
        assert_eq!(p.tangent(-DVec3::Y)[3], -1.0);
    }

    #[test]
    fn far_faces_keep_their_texels_by_whole_texture_shifts() {
        let axis = |axis, shift, scale| TextureAxis { axis, shift, scale };
        // A far wall at a fine scale: 250 000 texels out, where f32 holds 1/64 texel.
        let p = Projection {
            u: axis([1.0, 0.0, 0.0], 0.3, 0.0625),
            v: axis([0.0, 0.0, -1.0], 7.7, 0.25),
        };
        let size = [512.0, 256.0];
        let corners = [
            DVec3::new(15600.3, 0.0, 10.1),
            DVec3::new(15650.7, 0.0, 10.1),
            DVec3::new(15650.7, 0.0, 200.9),
        ];
        let texels = |c: DVec3| [coord(&p.u, c), coord(&p.v, c)];
        let off_by = |stored: [f32; 2], c: DVec3| {
            let exact = texels(c);
            (0..2)
                .map(|i| {
                    let d = (f64::from(stored[i]) * size[i] - exact[i]).rem_euclid(size[i]);
                    d.min(size[i] - d)
                })
                .fold(0.0, f64::max)
        };
        let raw = p.texcoord(corners[0], size).map(|x| x as f32);
        assert!(
            off_by(raw, corners[0]) > 1e-3,
            "the test needs a corner f32 cannot hold"
        );
        let stored = p.face_texcoords(&corners, size);
        for (&c, &s) in corners.iter().zip(&stored) {
            assert!(off_by(s, c) < 1e-3, "{c} {s:?}");
            assert!(s[0].abs() < 2.0, "u shifted near the face: {s:?}");
        }
        // Near faces are stored as computed.
        let near = [
            DVec3::new(64.0, 0.0, 8.0),
            DVec3::new(96.0, 0.0, 8.0),
            DVec3::new(96.0, 0.0, 40.0),
        ];
        let as_computed: Vec<[f32; 2]> = near
            .iter()
            .map(|&c| p.texcoord(c, size).map(|x| x as f32))
            .collect();
        assert_eq!(p.face_texcoords(&near, size), as_computed);
    }
}
