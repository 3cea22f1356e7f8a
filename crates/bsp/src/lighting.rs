//! Lightmap samples: a face's sample groups in the lighting lumps, and the displacement
//! luxels' sample positions.

use crate::records::{ColorRgbExp32, Face};

/// A face's lightmap samples.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FaceLighting {
    /// One average per style, in style order (stored before the samples, in reverse).
    pub averages: Vec<ColorRgbExp32>,
    /// For each style: `luxels` samples (times 4 when bump-mapped: normal then three bump bases).
    pub styles: Vec<Vec<ColorRgbExp32>>,
}

/// Cuts a face's sample groups out of a lighting lump (LDR or HDR). `None` when the face is
/// unlit or its samples fall outside the lump.
pub fn face_lighting(face: &Face, bumped: bool, lighting: &[ColorRgbExp32]) -> Option<FaceLighting> {
    if face.light_offset < 0 || face.light_offset % 4 != 0 {
        return None;
    }
    let first = face.light_offset as usize / 4;
    let styles = face.style_count();
    let per_style = face.luxel_count() * if bumped { 4 } else { 1 };
    let end = first.checked_add(per_style.checked_mul(styles)?)?;
    if styles == 0 || end > lighting.len() || first < styles {
        return None;
    }
    let averages = (0..styles).map(|s| lighting[first - 1 - s]).collect();
    let groups = (0..styles)
        .map(|s| lighting[first + s * per_style..first + (s + 1) * per_style].to_vec())
        .collect();
    Some(FaceLighting {
        averages,
        styles: groups,
    })
}

/// One luxel's sample position on a displacement (`LUMP_DISP_LIGHTMAP_SAMPLE_POSITIONS`): the
/// triangle of the displacement it lies in and its barycentric coordinates (0-255 each).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DispSamplePosition {
    pub triangle: u32,
    pub barycentric: [u8; 3],
}

/// Decodes `count` sample positions starting at byte `start` of the lump. Each is a triangle
/// index (one byte; 255 means "255 plus the next byte") then three barycentric bytes.
/// Returns the positions and the offset after them, or `None` if the stream ends early.
pub fn decode_disp_sample_positions(
    data: &[u8],
    start: usize,
    count: usize,
) -> Option<(Vec<DispSamplePosition>, usize)> {
    let mut out = Vec::with_capacity(count.min(data.len() / 4));
    let mut i = start;
    for _ in 0..count {
        let mut triangle = *data.get(i)? as u32;
        i += 1;
        if triangle == 255 {
            triangle += *data.get(i)? as u32;
            i += 1;
        }
        let bary = data.get(i..i + 3)?;
        out.push(DispSamplePosition {
            triangle,
            barycentric: [bary[0], bary[1], bary[2]],
        });
        i += 3;
    }
    Some((out, i))
}

/// Encodes sample positions as VBSP writes them (the inverse of
/// [`decode_disp_sample_positions`]). The escape holds one byte, so VBSP's power-4 triangle
/// 511 comes out as `255, 0` (read back as 255): kept, as the engine reads what VBSP wrote.
pub fn encode_disp_sample_positions(positions: &[DispSamplePosition], out: &mut Vec<u8>) {
    for p in positions {
        if p.triangle < 255 {
            out.push(p.triangle as u8);
        } else {
            out.push(255);
            out.push((p.triangle - 255) as u8);
        }
        out.extend_from_slice(&p.barycentric);
    }
}
