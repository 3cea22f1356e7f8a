//! The `.ppl` per-texel static-prop lighting file VRAD packs as `texelslighting_N.ppl`
//! (`HardwareTexels`, version 0): one lightmap image per mesh of the prop's model, each
//! addressed by the model's texture coordinates (u across, v down, both 0..1).
//!
//! Layout (little-endian): a 32-byte file header (version, the `.mdl`'s checksum, an
//! `ImageFormat` for every texel, mesh count, 16 unused bytes), one 32-byte mesh header per
//! mesh (LOD, offset, byte count, width, height, 12 unused bytes), then the meshes' texels
//! back to back from the first 512-byte boundary after the headers; the file ends padded
//! with zeros to a 512-byte boundary. Source 2013's VRAD writes `RGB888` images with their
//! full mip chain (finest first, each level half the last down to 1×1), one mesh per VTX
//! strip group of every LOD, all with the same image.

use srcmap_bytes::{Endian, Reader};

use crate::{Context, ModelError, index};

const FORMAT: &str = "PPL";
/// `VHT_VERSION`.
pub const PPL_VERSION: i32 = 0;
/// `IMAGE_FORMAT_RGB888`: three bytes per texel, red first.
pub const IMAGE_FORMAT_RGB888: u32 = 2;
const FILE_HEADER: usize = 32;
const MESH_HEADER: usize = 32;
/// Alignment of the texel data and of the file's end.
const ALIGN: usize = 512;

/// A `.ppl` file: its header and each mesh's image.
#[derive(Debug, Clone, PartialEq)]
pub struct Ppl {
    pub version: i32,
    /// Must equal the `.mdl`'s checksum for the engine to use the file.
    pub checksum: u32,
    /// `ImageFormat` of every mesh's texels ([`IMAGE_FORMAT_RGB888`] from VRAD).
    pub texel_format: u32,
    pub meshes: Vec<PplMesh>,
    /// Length of the file (the padding after the last mesh's texels).
    pub len: usize,
}

/// One mesh's image.
#[derive(Debug, Clone, PartialEq)]
pub struct PplMesh {
    pub lod: u32,
    /// Where the texels start in the file.
    pub offset: u32,
    pub width: u32,
    pub height: u32,
    /// The encoded texels (`m_nBytes` of them), every mip level.
    pub texels: Vec<u8>,
}

/// Texels of a `width` × `height` image with its full mip chain down to 1×1 (in `u128`: a
/// hostile header's sizes overflow `u64`).
pub fn mip_chain_texels(width: u32, height: u32) -> u128 {
    mip_levels(width, height)
        .map(|(w, h)| w as u128 * h as u128)
        .sum()
}

/// The sizes of an image's mip levels, finest first, down to 1×1.
pub fn mip_levels(width: u32, height: u32) -> impl Iterator<Item = (u32, u32)> {
    let mut next = Some((width.max(1), height.max(1)));
    std::iter::from_fn(move || {
        let (w, h) = next?;
        next = (w > 1 || h > 1).then(|| ((w >> 1).max(1), (h >> 1).max(1)));
        Some((w, h))
    })
}

impl PplMesh {
    /// The RGB bytes of the finest mip level of an [`IMAGE_FORMAT_RGB888`] image (row by
    /// row, `width` × `height` texels); `None` when the mesh holds fewer bytes.
    pub fn rgb888_level0(&self) -> Option<&[u8]> {
        let bytes = 3u128 * self.width as u128 * self.height as u128;
        self.texels.get(..usize::try_from(bytes).ok()?)
    }
}

impl Ppl {
    /// A file laid out as VRAD lays it out (texels from the first 512-byte boundary after
    /// the headers, mesh after mesh; the end padded to 512 bytes).
    pub fn new(checksum: u32, texel_format: u32, meshes: Vec<(u32, u32, u32, Vec<u8>)>) -> Ppl {
        let mut offset = (FILE_HEADER + MESH_HEADER * meshes.len()).div_ceil(ALIGN) * ALIGN;
        let meshes: Vec<PplMesh> = meshes
            .into_iter()
            .map(|(lod, width, height, texels)| {
                let m = PplMesh {
                    lod,
                    offset: offset as u32,
                    width,
                    height,
                    texels,
                };
                offset += m.texels.len();
                m
            })
            .collect();
        Ppl {
            version: PPL_VERSION,
            checksum,
            texel_format,
            meshes,
            len: offset.div_ceil(ALIGN) * ALIGN,
        }
    }

    pub fn parse(data: &[u8]) -> Result<Ppl, ModelError> {
        let h = "HardwareTexels::FileHeader_t";
        let mut r = Reader::new(data, Endian::Little);
        let version = read_version(&mut r)?;
        let checksum = r.u32().at(FORMAT, h)?;
        let texel_format = r.u32().at(FORMAT, h)?;
        let mesh_count = index(r.i32().at(FORMAT, h)?, FORMAT, h, 12)?;
        r.seek(FILE_HEADER).at(FORMAT, h)?;
        let s = "HardwareTexels::MeshHeader_t";
        r.check_count(mesh_count as u64, MESH_HEADER as u64)
            .at(FORMAT, s)?;
        let mut meshes = Vec::with_capacity(mesh_count);
        for i in 0..mesh_count {
            meshes.push(read_mesh(&mut r, data, i, mesh_count, texel_format)?);
        }
        Ok(Ppl {
            version,
            checksum,
            texel_format,
            meshes,
            len: data.len(),
        })
    }

    /// The file's bytes: headers, each mesh's texels at its offset, zeros elsewhere.
    pub fn to_bytes(&self) -> Vec<u8> {
        let headers = FILE_HEADER + MESH_HEADER * self.meshes.len();
        let end = (self.meshes.iter())
            .map(|m| m.offset as usize + m.texels.len())
            .chain([headers, self.len])
            .max()
            .unwrap_or(self.len);
        let mut out = vec![0u8; end];
        let mut put = |at: usize, v: u32| out[at..at + 4].copy_from_slice(&v.to_le_bytes());
        put(0, self.version as u32);
        put(4, self.checksum);
        put(8, self.texel_format);
        put(12, self.meshes.len() as u32);
        for (i, m) in self.meshes.iter().enumerate() {
            let at = FILE_HEADER + MESH_HEADER * i;
            for (k, v) in [m.lod, m.offset, m.texels.len() as u32, m.width, m.height]
                .into_iter()
                .enumerate()
            {
                put(at + 4 * k, v);
            }
        }
        for m in &self.meshes {
            let at = m.offset as usize;
            out[at..at + m.texels.len()].copy_from_slice(&m.texels);
        }
        out
    }
}

/// `FileHeader_t`'s version, which must be [`PPL_VERSION`].
fn read_version(r: &mut Reader<'_>) -> Result<i32, ModelError> {
    let version = r.i32().at(FORMAT, "HardwareTexels::FileHeader_t")?;
    if version != PPL_VERSION {
        return Err(ModelError::format(
            FORMAT,
            "HardwareTexels::FileHeader_t",
            0,
            format!("version {version}, expected {PPL_VERSION}"),
        ));
    }
    Ok(version)
}

/// A `MeshHeader_t`: its LOD, and where its texels lie and what size they are.
struct MeshHeader {
    lod: u32,
    offset: u32,
    bytes: u32,
    width: u32,
    height: u32,
}

impl MeshHeader {
    fn read(r: &mut Reader<'_>, at: u64) -> Result<MeshHeader, ModelError> {
        let s = "HardwareTexels::MeshHeader_t";
        r.seek(at as usize).at(FORMAT, s)?;
        Ok(MeshHeader {
            lod: r.u32().at(FORMAT, s)?,
            offset: r.u32().at(FORMAT, s)?,
            bytes: r.u32().at(FORMAT, s)?,
            width: r.u32().at(FORMAT, s)?,
            height: r.u32().at(FORMAT, s)?,
        })
    }

    /// Mesh `i` (header at `at`): its texels must lie in the file's data, after the
    /// `mesh_count` headers, and an RGB888 mesh's be a whole mip chain.
    fn check(
        &self,
        i: usize,
        at: u64,
        data_len: usize,
        mesh_count: usize,
        texel_format: u32,
    ) -> Result<(), ModelError> {
        let s = "HardwareTexels::MeshHeader_t";
        let MeshHeader {
            offset,
            bytes,
            width,
            height,
            ..
        } = *self;
        let end = offset as u64 + bytes as u64;
        if end > data_len as u64 || (offset as usize) < FILE_HEADER + MESH_HEADER * mesh_count {
            let why = format!("mesh {i}: texels {offset}..{end} outside the file's data ({data_len} bytes)");
            return Err(ModelError::format(FORMAT, s, at, why));
        }
        if texel_format == IMAGE_FORMAT_RGB888 && bytes as u128 != 3 * mip_chain_texels(width, height) {
            let why = format!("mesh {i}: {bytes} bytes for a {width}x{height} RGB888 mip chain");
            return Err(ModelError::format(FORMAT, s, at, why));
        }
        Ok(())
    }
}

/// Mesh `i`'s header, checked, and texels.
fn read_mesh(
    r: &mut Reader<'_>,
    data: &[u8],
    i: usize,
    mesh_count: usize,
    texel_format: u32,
) -> Result<PplMesh, ModelError> {
    let at = (FILE_HEADER + MESH_HEADER * i) as u64;
    let m = MeshHeader::read(r, at)?;
    m.check(i, at, data.len(), mesh_count, texel_format)?;
    let end = m.offset as u64 + m.bytes as u64;
    Ok(PplMesh {
        lod: m.lod,
        offset: m.offset,
        width: m.width,
        height: m.height,
        texels: data[m.offset as usize..end as usize].to_vec(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mip_chains_end_at_one_texel() {
        assert_eq!(mip_chain_texels(512, 512), 349_525);
        assert_eq!(mip_levels(4, 1).collect::<Vec<_>>(), [(4, 1), (2, 1), (1, 1)]);
        assert_eq!(mip_chain_texels(1, 1), 1);
    }

    #[test]
    fn a_written_file_reads_back_with_valves_alignment() {
        let texels = |n: u8| vec![n; 3 * mip_chain_texels(4, 2) as usize];
        let ppl = Ppl::new(
            0xabcd,
            IMAGE_FORMAT_RGB888,
            vec![(0, 4, 2, texels(1)), (1, 4, 2, texels(2))],
        );
        let bytes = ppl.to_bytes();
        assert_eq!(bytes.len(), 1024);
        assert_eq!((ppl.meshes[0].offset, ppl.meshes[1].offset), (512, 512 + 33));
        assert_eq!(Ppl::parse(&bytes).unwrap(), ppl);
        // Truncated, or a mesh pointing past the end: an error naming the structure.
        let err = Ppl::parse(&bytes[..40]).unwrap_err().to_string();
        assert!(err.contains("MeshHeader_t"), "{err}");
        let err = Ppl::parse(&bytes[..560]).unwrap_err().to_string();
        assert!(err.contains("outside the file"), "{err}");
    }
}
