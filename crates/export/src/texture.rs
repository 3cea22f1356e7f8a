//! Texture pixels from VTF files (7.0-7.5): one mip level of the first frame, face and slice,
//! decoded to RGB by `srcmap_content::vtf_decode` (DXT1/3/5, 8-bit RGB(A) orders, I8, IA88, A8).

use crate::ExportError;
use crate::image::Rgb8;

/// What a material's texture lookup found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TextureLookup {
    /// Decoded pixels.
    Found(Rgb8),
    /// Looked for where textures are and not there: drawn as a checkerboard.
    Missing,
    /// Not looked for, or in a format not decoded: a flat colour from the reflectivity.
    Unknown,
}

/// Decodes the largest mip level no wider or taller than `max_side` (the smallest one if none
/// is) to RGB. `Ok(None)` for formats not decoded (HDR, 16-bit, bump formats, VTF 7.6).
pub fn decode_vtf(data: &[u8], name: &str, max_side: u32) -> Result<Option<Rgb8>, ExportError> {
    match srcmap_content::vtf_decode::decode_rgba(data, name, max_side) {
        Ok(image) => Ok(Some(Rgb8 {
            width: image.width,
            height: image.height,
            pixels: image
                .pixels
                .chunks_exact(4)
                .flat_map(|p| [p[0], p[1], p[2]])
                .collect(),
        })),
        Err(srcmap_content::ContentError::Unsupported { .. }) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rgb_of_the_decoded_texels_and_formats_not_decoded() {
        let mut d = srcmap_content::vtf::build_header(2, 2, 1, 0, [0.5; 3]);
        d[52..56].copy_from_slice(&12i32.to_le_bytes()); // BGRA8888
        d[56] = 1;
        d[57..61].copy_from_slice(&(-1i32).to_le_bytes());
        let header_size = d.len() as u32;
        d[12..16].copy_from_slice(&header_size.to_le_bytes());
        d.extend_from_slice(&[1, 2, 3, 4, 5, 6, 7, 8]);
        let img = decode_vtf(&d, "t", 64).unwrap().unwrap();
        assert_eq!(
            (img.width, img.height, &img.pixels[..]),
            (2, 1, &[3u8, 2, 1, 7, 6, 5][..])
        );
        // A format not decoded is a flat colour, truncated data an error.
        assert!(decode_vtf(&d[..d.len() - 1], "t", 64).is_err());
        d[52..56].copy_from_slice(&24i32.to_le_bytes()); // RGBA16161616F
        assert_eq!(decode_vtf(&d, "t", 64).unwrap(), None);
    }
}
