//! Lightmaps packed into one RGB image: each lit face's light styles summed, each as bright as
//! [`StyleScales`] says (the map as it starts, or with lights switched), as a rectangle with a
//! one-luxel border copied from its edge (so that filtering never reads a neighbour).

use glam::Vec2;
use srcmap_bsp::Bsp;

use crate::faces::faces_of;
use crate::styles::StyleScales;

/// Which lighting lump the atlas is made from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LightmapSource {
    /// No lighting: every face maps to the white block (fullbright).
    None,
    Ldr,
    /// HDR samples, tone-mapped into the atlas.
    Hdr,
}

impl LightmapSource {
    /// LDR unless `prefer_hdr` (or only HDR exists); `None` when neither lump has samples.
    pub fn choose(bsp: &Bsp, prefer_hdr: bool) -> LightmapSource {
        match (bsp.lighting.is_empty(), bsp.lighting_hdr.is_empty()) {
            (true, true) => LightmapSource::None,
            (false, true) => LightmapSource::Ldr,
            (true, false) => LightmapSource::Hdr,
            (false, false) if prefer_hdr => LightmapSource::Hdr,
            (false, false) => LightmapSource::Ldr,
        }
    }
}

/// A face's luxels in the atlas: the `w × h` luxels start at `(x, y)`; the border lies outside.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rect {
    pub x: u32,
    pub y: u32,
    pub w: u32,
    pub h: u32,
}

/// The packed lightmaps.
#[derive(Debug, Clone, PartialEq)]
pub struct Atlas {
    pub width: u32,
    pub height: u32,
    /// RGB, 8 bits, display gamma; row-major from the top.
    pub pixels: Vec<u8>,
    /// Per face index: its rectangle, `None` when unlit.
    rects: Vec<Option<Rect>>,
    /// Per face index: lit, but no light of any style reaches it (every luxel below [`DARK`]).
    dark: Vec<bool>,
    /// The source the atlas was made from: [`LightmapSource::None`] also when the map's
    /// lightmaps were all dark (a map with no lights), so that it is drawn fullbright.
    pub source: LightmapSource,
}

/// A luxel below this (linear, 255 = full) shows as black: no light reaches it.
pub const DARK: f32 = 0.5;

/// The longest lightmap side packed, in luxels.
const MAX_SIDE: u32 = 1024;

/// The white block unlit faces map to (fullbright), at the atlas origin.
const WHITE: u32 = 4;

/// A linear sample (255 = full) to display gamma, 0-255. HDR is compressed first so that
/// bright areas keep their shape instead of clipping.
fn tone_map(linear: [f32; 3], hdr: bool) -> [u8; 3] {
    linear.map(|c| {
        let mut x = (c / 255.0).max(0.0);
        if hdr {
            x = x / (1.0 + x) * 1.6;
        }
        (x.min(1.0).powf(1.0 / 2.2) * 255.0 + 0.5) as u8
    })
}

/// One face's light styles summed, tone-mapped, ready to pack.
struct FaceLightmap {
    face: usize,
    w: u32,
    h: u32,
    texels: Vec<[u8; 3]>,
}

/// Every lit face of `faces`, its styles summed, and per face of the map whether no style
/// has light.
fn face_lightmaps(
    bsp: &Bsp,
    source: LightmapSource,
    faces: impl Iterator<Item = usize>,
    scales: &StyleScales,
) -> (Vec<FaceLightmap>, Vec<bool>) {
    let mut items = Vec::new();
    let mut dark = vec![false; faces_of(bsp).len()];
    let hdr = source == LightmapSource::Hdr;
    for fi in faces {
        if let Some((item, all_dark)) = face_lightmap(bsp, fi, hdr, scales) {
            dark[fi] = all_dark;
            items.push(item);
        }
    }
    (items, dark)
}

/// Face `fi`'s light styles, each scaled, summed and tone-mapped, and whether every style's
/// luxels are dark; `None` when the face has no usable lightmap.
fn face_lightmap(bsp: &Bsp, fi: usize, hdr: bool, scales: &StyleScales) -> Option<(FaceLightmap, bool)> {
    let f = faces_of(bsp).get(fi)?;
    // Valve's largest lightmap side is 128 luxels with the border; a damaged
    // record outside that is left unlit rather than packed.
    let side = |s: i32| {
        u32::try_from(s.saturating_add(1))
            .ok()
            .filter(|s| (1..=MAX_SIDE).contains(s))
    };
    let (w, h) = (side(f.lightmap_size[0])?, side(f.lightmap_size[1])?);
    let lit = bsp.face_lighting(fi, hdr)?;
    let n = (w * h) as usize;
    if lit.styles.first()?.len() < n {
        return None;
    }
    let face_styles = lit_face(bsp, fi, hdr)?.styles;
    let mut sum = vec![[0.0f32; 3]; n];
    let mut dark = true;
    // The first n samples of a style are its flat lightmap (bumped faces' bases follow).
    for (samples, &style) in lit.styles.iter().zip(&face_styles) {
        let scale = scales.scale(style);
        for (out, c) in sum.iter_mut().zip(&samples[..n]) {
            let linear = c.to_linear();
            dark &= linear.iter().all(|&v| v < DARK);
            *out = [0, 1, 2].map(|k| out[k] + linear[k] * scale);
        }
    }
    let texels = sum.into_iter().map(|c| tone_map(c, hdr)).collect();
    Some((
        FaceLightmap {
            face: fi,
            w,
            h,
            texels,
        },
        dark,
    ))
}

/// Face `fi` as the lighting of the range reads it (`Bsp::face_lighting`'s record: the HDR
/// faces when the range is HDR and the map has them).
fn lit_face(bsp: &Bsp, fi: usize, hdr: bool) -> Option<&srcmap_bsp::Face> {
    let faces = if hdr && !bsp.faces_hdr.is_empty() {
        &bsp.faces_hdr
    } else {
        &bsp.faces
    };
    faces.get(fi)
}

/// The atlas's width: a power of two around the square root of the area to pack (with some
/// slack), at least the widest lightmap and the white block.
fn atlas_width(items: &[FaceLightmap]) -> u32 {
    let area: u64 = items
        .iter()
        .map(|i| u64::from(i.w + 2) * u64::from(i.h + 2))
        .sum::<u64>()
        + u64::from(WHITE * WHITE);
    let widest = items.iter().map(|i| i.w + 2).max().unwrap_or(WHITE);
    (((area as f64 * 1.15).sqrt()) as u32)
        .max(widest)
        .max(WHITE)
        .next_power_of_two()
}

/// Shelf packing, tallest first, after the white block in the corner: the atlas's width
/// and height (powers of two) and each lightmap's rectangle (inside a one-texel border).
fn shelf_pack(items: &[FaceLightmap]) -> (u32, u32, Vec<Rect>) {
    let width = atlas_width(items);
    let mut placed = Vec::with_capacity(items.len());
    let (mut x, mut y, mut shelf) = (WHITE, 0u32, WHITE);
    for item in items {
        let (ow, oh) = (item.w + 2, item.h + 2);
        if x + ow > width {
            x = 0;
            y += shelf;
            shelf = 0;
        }
        placed.push(Rect {
            x: x + 1,
            y: y + 1,
            w: item.w,
            h: item.h,
        });
        x += ow;
        shelf = shelf.max(oh);
    }
    let height = (y + shelf).max(WHITE).next_power_of_two();
    (width, height, placed)
}

/// The lightmaps to pack and which faces are dark, from `source`. A map compiled without
/// lights has lightmaps that are black everywhere, in every style; the engine would show it
/// black, a picture of it is more use fullbright: then none, and the source becomes `None`.
/// (A map whose only lights are switched off is drawn as dark as it is.)
fn lightmaps_to_pack(
    bsp: &Bsp,
    source: LightmapSource,
    faces: impl Iterator<Item = usize>,
    scales: &StyleScales,
) -> (Vec<FaceLightmap>, Vec<bool>, LightmapSource) {
    if source == LightmapSource::None {
        return (Vec::new(), vec![false; faces_of(bsp).len()], source);
    }
    let (mut items, mut dark) = face_lightmaps(bsp, source, faces, scales);
    if items.iter().all(|i| dark[i.face]) {
        items.clear();
        dark.fill(false);
        return (items, dark, LightmapSource::None);
    }
    (items, dark, source)
}

/// The white block in the atlas's corner.
fn paint_white_block(pixels: &mut [u8], width: u32) {
    for py in 0..WHITE {
        for px in 0..WHITE {
            let o = ((py * width + px) * 3) as usize;
            pixels[o..o + 3].copy_from_slice(&[255, 255, 255]);
        }
    }
}

/// A lightmap into its rectangle `r` with its border: the edge texels repeated, so filtering
/// at the edge does not read the neighbour.
fn paint_with_border(pixels: &mut [u8], width: u32, r: &Rect, texels: &[[u8; 3]]) {
    for by in 0..r.h + 2 {
        for bx in 0..r.w + 2 {
            let sx = bx.saturating_sub(1).min(r.w - 1);
            let sy = by.saturating_sub(1).min(r.h - 1);
            let c = texels[(sy * r.w + sx) as usize];
            let o = (((r.y - 1 + by) * width + (r.x - 1 + bx)) * 3) as usize;
            pixels[o..o + 3].copy_from_slice(&c);
        }
    }
}

impl Atlas {
    /// Packs every lit face of `faces`, its styles as bright as `scales` says.
    pub fn build(
        bsp: &Bsp,
        source: LightmapSource,
        faces: impl Iterator<Item = usize>,
        scales: &StyleScales,
    ) -> Atlas {
        let (mut items, dark, source) = lightmaps_to_pack(bsp, source, faces, scales);
        items.sort_by(|a, b| b.h.cmp(&a.h).then(b.w.cmp(&a.w)).then(a.face.cmp(&b.face)));
        let (width, height, placed) = shelf_pack(&items);
        let mut pixels = vec![0u8; (width * height * 3) as usize];
        paint_white_block(&mut pixels, width);
        let mut rects = vec![None; faces_of(bsp).len()];
        for (r, item) in placed.iter().zip(&items) {
            paint_with_border(&mut pixels, width, r, &item.texels);
            rects[item.face] = Some(*r);
        }
        Atlas {
            width,
            height,
            pixels,
            rects,
            dark,
            source,
        }
    }

    /// Whether `face` is lit but no light reaches any of its luxels.
    pub fn is_dark(&self, face: usize) -> bool {
        self.dark.get(face).copied().unwrap_or(false)
    }

    /// An atlas with no lightmaps: every face maps to the white block (fullbright).
    pub fn fullbright() -> Atlas {
        Atlas {
            width: WHITE,
            height: WHITE,
            pixels: vec![255; (WHITE * WHITE * 3) as usize],
            rects: Vec::new(),
            dark: Vec::new(),
            source: LightmapSource::None,
        }
    }

    /// The face's rectangle, `None` when it is unlit.
    pub fn rect(&self, face: usize) -> Option<Rect> {
        self.rects.get(face).copied().flatten()
    }

    /// Faces with a rectangle.
    pub fn lit_faces(&self) -> usize {
        self.rects.iter().flatten().count()
    }

    /// Atlas coordinates of the white block's centre.
    pub fn white_uv(&self) -> Vec2 {
        Vec2::new(
            WHITE as f32 * 0.5 / self.width as f32,
            WHITE as f32 * 0.5 / self.height as f32,
        )
    }

    /// Atlas coordinates of a point `luxel` (in luxels from the rectangle's corner, centres at
    /// +0.5), kept inside the rectangle.
    pub fn to_uv(&self, r: Rect, luxel: Vec2) -> Vec2 {
        let lx = luxel.x.clamp(0.0, r.w as f32);
        let ly = luxel.y.clamp(0.0, r.h as f32);
        Vec2::new(
            (r.x as f32 + lx) / self.width as f32,
            (r.y as f32 + ly) / self.height as f32,
        )
    }

    /// The colour at atlas coordinates `uv`, bilinear, 0-1.
    pub fn sample(&self, uv: Vec2) -> [f32; 3] {
        let fx = (uv.x * self.width as f32 - 0.5).clamp(0.0, (self.width - 1) as f32);
        let fy = (uv.y * self.height as f32 - 0.5).clamp(0.0, (self.height - 1) as f32);
        let (x0, y0) = (fx as u32, fy as u32);
        let (x1, y1) = ((x0 + 1).min(self.width - 1), (y0 + 1).min(self.height - 1));
        let (tx, ty) = (fx - x0 as f32, fy - y0 as f32);
        let px = |x: u32, y: u32, c: usize| self.pixels[((y * self.width + x) * 3) as usize + c] as f32;
        [0, 1, 2].map(|c| {
            let top = px(x0, y0, c) * (1.0 - tx) + px(x1, y0, c) * tx;
            let bottom = px(x0, y1, c) * (1.0 - tx) + px(x1, y1, c) * tx;
            (top * (1.0 - ty) + bottom * ty) / 255.0
        })
    }
}
