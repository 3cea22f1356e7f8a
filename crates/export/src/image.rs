//! RGB images: PNG encoding and the checkerboard that stands in for a missing texture.

use crate::ExportError;

/// An RGB8 image, row-major from the top.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rgb8 {
    pub width: u32,
    pub height: u32,
    pub pixels: Vec<u8>,
}

impl Rgb8 {
    /// Encodes as PNG.
    pub fn to_png(&self) -> Result<Vec<u8>, ExportError> {
        let mut out = Vec::new();
        let mut enc = png::Encoder::new(&mut out, self.width, self.height);
        enc.set_color(png::ColorType::Rgb);
        enc.set_depth(png::BitDepth::Eight);
        let mut w = enc.write_header().map_err(|e| ExportError::Png(e.to_string()))?;
        w.write_image_data(&self.pixels)
            .map_err(|e| ExportError::Png(e.to_string()))?;
        w.finish().map_err(|e| ExportError::Png(e.to_string()))?;
        Ok(out)
    }

    /// Magenta and black squares, `cells` per side, as the engine draws a missing texture.
    pub fn checkerboard(size: u32, cells: u32) -> Rgb8 {
        let cell = (size / cells.max(1)).max(1);
        let mut pixels = Vec::with_capacity((size * size * 3) as usize);
        for y in 0..size {
            for x in 0..size {
                let on = ((x / cell) + (y / cell)).is_multiple_of(2);
                pixels.extend_from_slice(if on { &[255, 0, 255] } else { &[0, 0, 0] });
            }
        }
        Rgb8 {
            width: size,
            height: size,
            pixels,
        }
    }
}
