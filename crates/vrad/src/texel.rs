//! Per-texel static-prop lighting (Source 2013's lightmapped props): for each static prop
//! with `generatelightmaps` (a lightmap resolution in a 72-byte `sprp` record and no
//! `STATIC_PROP_NO_PER_TEXEL_LIGHTING`) whose model the game files have, a
//! `texelslighting_N.ppl` in the pakfile ([`srcmap_model::ppl`]), N the prop's index in `sprp`.
//!
//! Per model of the `.mdl` (body part × model), its LOD 0 triangles are rasterised into a
//! `width` × `height` image through their first texture coordinates, as VRAD does: texel
//! centres inside a triangle take its interpolated world position and normal; texels within
//! one texel of a triangle's UV bounds but outside it take the extrapolated position of the
//! nearest such triangle (by UV distance to the edge opposite its smallest barycentric), so
//! the engine's bilinear filter finds lit texels beside each edge. Texels inside a triangle
//! and those next to one are lit like a prop vertex ([`crate::vertexlight`]: direct, bounced,
//! ambient occlusion), though where they lie even inside solid (VRAD's texel pass has no
//! in-solid recovery, unlike its vertex pass). The image is then box-filtered 3×3 over inside texels, in VRAD's
//! `ColorRGBExp32`-rounded linear space, and written as `RGB888` bytes in the engine's
//! vertex-light gamma with a 2×2-averaged mip chain. Every VTX strip group of every LOD of
//! that model gets the same image (VRAD's mesh list, as in `.vhv` files).
//!
//! One difference from VRAD: its per-mesh rasteriser clears the model's image for each mesh,
//! so a multi-material model keeps only its last mesh's texels; here every mesh of the model
//! is rasterised into the one image the engine samples for all of them.

use glam::{Vec2, Vec3};
use rayon::prelude::*;
use srcmap_model::ppl::{IMAGE_FORMAT_RGB888, Ppl, mip_levels};
use srcmap_model::{ModelFiles, StripGroup};

use crate::color::{decode, encode};

/// One texel of the image being rasterised.
#[derive(Debug, Clone, Copy, Default)]
struct Texel {
    position: Vec3,
    normal: Vec3,
    /// UV distance to the triangle that wrote it (0 inside).
    distance: f32,
    /// Its centre lies inside a triangle.
    inside: bool,
    /// A triangle's inflated bounds cover it.
    covered: bool,
}

/// A triangle in texture space with its world-space corners.
pub(crate) struct TexelTriangle {
    pub uv: [Vec2; 3],
    pub position: [Vec3; 3],
    pub normal: [Vec3; 3],
}

/// Distance from `p` to the segment `a`–`b`.
fn segment_distance(p: Vec2, a: Vec2, b: Vec2) -> f32 {
    p.distance(crate::faces::closest_on_edge(a, b, p))
}

/// The rasterised texels of `triangles` in a `width` × `height` image (row-major, v down).
fn rasterise(width: usize, height: usize, triangles: &[TexelTriangle]) -> Vec<Texel> {
    let mut texels = vec![
        Texel {
            distance: f32::MAX,
            ..Texel::default()
        };
        width * height
    ];
    for t in triangles {
        rasterise_triangle(&mut texels, width, height, t);
    }
    texels
}

/// Covers the texels around triangle `t` (its UV box puffed by one for the bilinear
/// filter) not already inside another: those it holds, and those nearer to it than to any
/// triangle before.
fn rasterise_triangle(texels: &mut [Texel], width: usize, height: usize, t: &TexelTriangle) {
    let [t0, t1, t2] = t.uv;
    let (min, max) = (t0.min(t1).min(t2), t0.max(t1).max(t2));
    // Degenerate in UV (VRAD skips these too) or not finite: nothing to rasterise.
    if min.x == max.x || min.y == max.y || !(min.is_finite() && max.is_finite()) {
        return;
    }
    let Some(weights) = Barycentric::new(t.uv) else {
        return;
    };
    let (step_x, step_y) = (1.0 / width as f32, 1.0 / height as f32);
    // The UV bounds clamped to 0..1, in texels, puffed by one for the bilinear filter.
    let col = |x: f32| (x.clamp(0.0, 1.0) * width as f32) as i64;
    let row = |y: f32| (y.clamp(0.0, 1.0) * height as f32) as i64;
    let (x0, y0) = ((col(min.x) - 1).max(0), (row(min.y) - 1).max(0));
    let x1 = (col(max.x) + 2).min(width as i64 - 1);
    let y1 = (row(max.y) + 2).min(height as i64 - 1);
    for j in y0..=y1 {
        for i in x0..=x1 {
            let at = j as usize * width + i as usize;
            if texels[at].inside {
                continue;
            }
            let p = Vec2::new((i as f32 + 0.5) * step_x, (j as f32 + 0.5) * step_y);
            cover(&mut texels[at], t, p, weights.at(p));
        }
    }
}

/// Barycentric weights over a UV triangle.
struct Barycentric {
    t0: Vec2,
    edge_a: Vec2,
    edge_b: Vec2,
    aa: f32,
    ab: f32,
    bb: f32,
    inv: f32,
}

impl Barycentric {
    /// `None` for a degenerate triangle.
    fn new([t0, t1, t2]: [Vec2; 3]) -> Option<Barycentric> {
        let (edge_a, edge_b) = (t1 - t0, t2 - t0);
        let (aa, ab, bb) = (edge_a.dot(edge_a), edge_a.dot(edge_b), edge_b.dot(edge_b));
        let denom = aa * bb - ab * ab;
        if denom == 0.0 || !denom.is_finite() {
            return None;
        }
        Some(Barycentric {
            t0,
            edge_a,
            edge_b,
            aa,
            ab,
            bb,
            inv: 1.0 / denom,
        })
    }

    /// The weights of the three corners at `p`.
    #[inline]
    fn at(&self, p: Vec2) -> [f32; 3] {
        let c = p - self.t0;
        let (ca, cb) = (c.dot(self.edge_a), c.dot(self.edge_b));
        let v = (self.bb * ca - self.ab * cb) * self.inv;
        let w = (self.aa * cb - self.ab * ca) * self.inv;
        [1.0 - v - w, v, w]
    }
}

/// Gives `texel` (at `p`, weights `bary` in triangle `t`) the triangle's position and
/// normal there when `p` lies inside it, or nearer to it than to what covers it.
#[inline]
fn cover(texel: &mut Texel, t: &TexelTriangle, p: Vec2, bary: [f32; 3]) {
    let inside = bary.iter().all(|b| (0.0..=1.0).contains(b));
    // The edge opposite the corner with the smallest weight.
    let k = (0..3).min_by(|&a, &b| bary[a].total_cmp(&bary[b])).unwrap_or(0);
    let distance = segment_distance(p, t.uv[(k + 1) % 3], t.uv[(k + 2) % 3]);
    if inside || !texel.covered || texel.distance > distance {
        let mix = |c: [Vec3; 3]| c[0] * bary[0] + c[1] * bary[1] + c[2] * bary[2];
        *texel = Texel {
            position: mix(t.position),
            normal: mix(t.normal).normalize_or_zero(),
            distance,
            inside,
            covered: true,
        };
    }
}

/// Whether texel (i, j) is lit: inside a triangle, or covered and beside one inside (its
/// eight neighbours, clamped to the image).
fn lit(texels: &[Texel], width: usize, height: usize, i: usize, j: usize) -> bool {
    let t = &texels[j * width + i];
    if t.inside {
        return true;
    }
    if !t.covered {
        return false;
    }
    let clamp = |v: i64, n: usize| v.clamp(0, n as i64 - 1) as usize;
    (-1..=1).any(|dj: i64| {
        (-1..=1).any(|di: i64| {
            let (x, y) = (clamp(i as i64 + di, width), clamp(j as i64 + dj, height));
            texels[y * width + x].inside
        })
    })
}

/// Linear light (1 = lightmap white) as the engine's vertex-light bytes: gamma 2.2 with
/// overbright 2 (VRAD's `LinearToVertexLight` table, 1024 steps per unit up to 4), the colour
/// scaled down when a channel exceeds 1 (`ColorClamp`), rounded to bytes; RGB.
pub fn engine_bytes(linear: Vec3) -> [u8; 3] {
    let to_vertex = |f: f32| {
        let i = (f * 1024.0).round().clamp(0.0, 4095.0);
        ((i / 1024.0).powf(1.0 / 2.2) * 0.5).min(1.0)
    };
    let mut v = Vec3::new(to_vertex(linear.x), to_vertex(linear.y), to_vertex(linear.z));
    let max = v.max_element();
    if max > 1.0 {
        v /= max;
    }
    let byte = |f: f32| (f.max(0.0) * 255.0).round().min(255.0) as u8;
    [byte(v.x), byte(v.y), byte(v.z)]
}

/// The `RGB888` mip chain of an image of light (VRAD's 0-255 scale): each colour rounded
/// through `ColorRGBExp32` to linear 0..1, inside texels averaged with their 3×3 neighbours
/// (a neighbour outside every triangle counts as the texel itself), then each coarser level
/// the mean of 2×2 texels of the filtered level above it.
pub(crate) fn encode_image(width: usize, height: usize, light: &[Vec3], inside: &[bool]) -> Vec<u8> {
    let linear: Vec<Vec3> = light.iter().map(|&c| decode(encode(c)) / 255.0).collect();
    let mut level = filtered(width, height, &linear, inside);
    let mut out: Vec<u8> = level.iter().flat_map(|&c| engine_bytes(c)).collect();
    let mut levels = mip_levels(width as u32, height as u32);
    levels.next();
    let (mut w, mut h) = (width, height);
    for (dw, dh) in levels {
        let (dw, dh) = (dw as usize, dh as usize);
        let next = half(&level, (w, h), (dw, dh));
        out.extend(next.iter().flat_map(|&c| engine_bytes(c)));
        (level, w, h) = (next, dw, dh);
    }
    out
}

/// Inside texels averaged with their 3×3 neighbours (a neighbour outside every triangle
/// counts as the texel itself); the others as they are.
fn filtered(width: usize, height: usize, linear: &[Vec3], inside: &[bool]) -> Vec<Vec3> {
    let clamp = |v: i64, n: usize| v.clamp(0, n as i64 - 1) as usize;
    (0..width * height)
        .map(|at| {
            if !inside[at] {
                return linear[at];
            }
            let (i, j) = ((at % width) as i64, (at / width) as i64);
            let mut sum = Vec3::ZERO;
            for dj in -1..=1 {
                for di in -1..=1 {
                    let n = clamp(j + dj, height) * width + clamp(i + di, width);
                    sum += linear[if inside[n] { n } else { at }];
                }
            }
            sum / 9.0
        })
        .collect()
}

/// The next mip level (`dw × dh`) of a `w × h` level: the mean of each 2×2 block.
fn half(level: &[Vec3], (w, h): (usize, usize), (dw, dh): (usize, usize)) -> Vec<Vec3> {
    let mut next = vec![Vec3::ZERO; dw * dh];
    // Odd sizes: VRAD clamps the destination, so the last 2×2 block of a row or column wins.
    for j in (0..h).step_by(2) {
        for i in (0..w).step_by(2) {
            let (i1, j1) = ((i + 1).min(w - 1), (j + 1).min(h - 1));
            let sum = level[j * w + i] + level[j * w + i1] + level[j1 * w + i] + level[j1 * w + i1];
            next[(j / 2).min(dh - 1) * dw + (i / 2).min(dw - 1)] = sum / 4.0;
        }
    }
    next
}

/// The placed LOD 0 triangles of each model (body part × model) of `files`, in `.mdl` order.
fn model_triangles(
    files: &ModelFiles,
    place: impl Fn(Vec3, Vec3) -> (Vec3, Vec3),
) -> Vec<Vec<TexelTriangle>> {
    let Some(vtx) = &files.vtx else { return Vec::new() };
    let mut out = Vec::new();
    for (part, vtx_part) in files.mdl.body_parts.iter().zip(&vtx.body_parts) {
        for (model, vtx_model) in part.models.iter().zip(vtx_part) {
            let mut tris = Vec::new();
            if let Some(lod0) = vtx_model.first() {
                for ((_, groups), mesh) in lod0.meshes.iter().zip(&model.meshes) {
                    let first = model.first_vertex + mesh.vertex_offset as usize;
                    for g in groups {
                        add_group_triangles(files, first, g, &place, &mut tris);
                    }
                }
            }
            out.push(tris);
        }
    }
    out
}

/// The placed triangles of strip group `g`, whose vertices index the `.vvd` from `first`
/// (triangles with a corner out of range left out).
fn add_group_triangles(
    files: &ModelFiles,
    first: usize,
    g: &StripGroup,
    place: &impl Fn(Vec3, Vec3) -> (Vec3, Vec3),
    tris: &mut Vec<TexelTriangle>,
) {
    for t in g.triangles() {
        let corner = |k: usize| {
            let v = *g.vertices.get(t[k] as usize)? as usize;
            files.vvd.vertices.get(first + v)
        };
        let (Some(a), Some(b), Some(c)) = (corner(0), corner(1), corner(2)) else {
            continue;
        };
        let placed = [a, b, c].map(|v| place(Vec3::from(v.position), Vec3::from(v.normal)));
        tris.push(TexelTriangle {
            uv: [a, b, c].map(|v| Vec2::from(v.uv)),
            position: placed.map(|p| p.0),
            normal: placed.map(|p| p.1),
        });
    }
}

/// The `.ppl` file of one prop: each model's image lit by `light` (world position and
/// normal → light and rays traced), one mesh per VTX strip group of every LOD.
pub(crate) fn prop_texels(
    files: &ModelFiles,
    size: [u16; 2],
    place: impl Fn(Vec3, Vec3) -> (Vec3, Vec3),
    light: impl Fn(Vec3, Vec3) -> (Vec3, u64) + Sync,
    rays: &mut u64,
) -> Vec<u8> {
    let (width, height) = (size[0] as usize, size[1] as usize);
    let images: Vec<Vec<u8>> = model_triangles(files, place)
        .iter()
        .map(|tris| light_image(width, height, tris, &light, rays))
        .collect();
    let mut meshes = Vec::new();
    let vtx_models = (files.vtx.iter()).flat_map(|v| v.body_parts.iter().flatten());
    for (image, vtx_model) in images.iter().zip(vtx_models) {
        for (lod, l) in vtx_model.iter().enumerate() {
            for (_, groups) in &l.meshes {
                for _ in groups {
                    meshes.push((lod as u32, size[0] as u32, size[1] as u32, image.clone()));
                }
            }
        }
    }
    Ppl::new(files.mdl.checksum, IMAGE_FORMAT_RGB888, meshes).to_bytes()
}

/// One model's image: its triangles rasterised, each lit texel lit by `light`, encoded
/// with its mip chain ([`encode_image`]).
fn light_image(
    width: usize,
    height: usize,
    tris: &[TexelTriangle],
    light: &(impl Fn(Vec3, Vec3) -> (Vec3, u64) + Sync),
    rays: &mut u64,
) -> Vec<u8> {
    let texels = rasterise(width, height, tris);
    let (light, traced): (Vec<Vec3>, Vec<u64>) = (0..width * height)
        .into_par_iter()
        .map(|at| {
            let t = &texels[at];
            if lit(&texels, width, height, at % width, at / width) {
                light(t.position, t.normal)
            } else {
                (Vec3::ZERO, 0)
            }
        })
        .unzip();
    *rays += traced.iter().sum::<u64>();
    let inside: Vec<bool> = texels.iter().map(|t| t.inside).collect();
    encode_image(width, height, &light, &inside)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn triangle(uv: [[f32; 2]; 3]) -> TexelTriangle {
        TexelTriangle {
            uv: uv.map(Vec2::from),
            // World x, y follow u, v (scaled by 8); every normal up.
            position: uv.map(|[u, v]| Vec3::new(8.0 * u, 8.0 * v, 0.0)),
            normal: [Vec3::Z; 3],
        }
    }

    #[test]
    fn texel_centres_inside_take_the_triangle_and_a_one_texel_rim_is_extrapolated() {
        // The lower-left half of an 8×8 image, u + v ≤ 1.
        let texels = rasterise(8, 8, &[triangle([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]])]);
        let at = |i: usize, j: usize| &texels[j * 8 + i];
        // Texel (1, 2) has its centre at (0.1875, 0.3125): inside, at world 8× that.
        assert!(at(1, 2).inside);
        assert!((at(1, 2).position - Vec3::new(1.5, 2.5, 0.0)).length() < 1e-4);
        assert_eq!(at(1, 2).normal, Vec3::Z);
        // Texel (4, 4), centre (0.5625, 0.5625), is just outside: covered, extrapolated, lit
        // since a neighbour is inside; (7, 7) is covered too but far from every inside texel.
        assert!(!at(4, 4).inside && at(4, 4).covered);
        assert!((at(4, 4).position - Vec3::new(4.5, 4.5, 0.0)).length() < 1e-4);
        assert!(lit(&texels, 8, 8, 4, 4));
        assert!(!lit(&texels, 8, 8, 7, 7));
        // Centres with i + j ≤ 6 are inside; those with i + j = 7 lie on the hypotenuse.
        let inside = texels.iter().filter(|t| t.inside).count();
        assert!((28..=36).contains(&inside), "{inside}");
    }

    #[test]
    fn a_triangle_without_uv_area_writes_nothing() {
        let texels = rasterise(4, 4, &[triangle([[0.0, 0.0], [0.5, 0.5], [1.0, 1.0]])]);
        assert!(texels.iter().all(|t| !t.covered));
    }

    #[test]
    fn images_filter_inside_texels_and_halve_to_one_texel() {
        // 4×2: the left half inside and lightmap-white, the right half outside and dark.
        let light: Vec<Vec3> = (0..8)
            .map(|at| {
                if at % 4 < 2 {
                    Vec3::splat(255.0)
                } else {
                    Vec3::ZERO
                }
            })
            .collect();
        let inside: Vec<bool> = (0..8).map(|at| at % 4 < 2).collect();
        let bytes = encode_image(4, 2, &light, &inside);
        assert_eq!(bytes.len(), 3 * (8 + 2 + 1));
        let white = engine_bytes(Vec3::ONE);
        // Inside texels see only inside neighbours (outside ones count as themselves).
        assert_eq!(bytes[..3], white);
        assert_eq!(bytes[3..6], white);
        assert_eq!(bytes[6..9], [0, 0, 0]);
        // Level 1 (2×1): the mean of white and black halves; level 2 the mean of those.
        assert_eq!(bytes[24..27], white);
        assert_eq!(bytes[27..30], [0, 0, 0]);
        assert_eq!(bytes[30..33], engine_bytes(Vec3::splat(0.5)));
        assert!(white.iter().all(|&c| (126..=128).contains(&c)), "{white:?}");
    }
}
