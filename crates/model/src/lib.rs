//! Source-engine game models as the map tools need them: the `.mdl` header (flags,
//! bounds, body parts → models → meshes, materials, include models, key values), the `.vvd`
//! vertex file (positions, LOD fixups), the `.vtx` mesh strips (render triangles per LOD) and
//! the `.ppl` per-texel prop lighting VRAD packs into maps.
//!
//! Every parser reads through a bounds-checked cursor: truncated or hostile files give a
//! [`ModelError`] naming the structure and the byte offset, never a panic. [`ModelFiles`] ties
//! the three files of one model together and checks that they belong to each other (their
//! checksums); [`ModelFiles::find`] looks them up through a game's search paths.

pub mod mdl;
pub mod ppl;
pub mod vtx;
pub mod vvd;

pub use mdl::{BodyPart, IncludeModel, Mdl, Mesh, StaticUse, SubModel};
pub use ppl::{Ppl, PplMesh};
pub use vtx::{StripGroup, Vtx};
pub use vvd::{Fixup, Vertex, Vvd};

use srcmap_bytes::ReadError;
use thiserror::Error;

/// LOD slots in MDL meshes and VVD headers (`MAX_NUM_LODS`).
pub const MAX_LODS: usize = 8;

/// A model file that cannot be read, or files of one model that do not belong together.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum ModelError {
    /// The bytes of `structure` are missing or hold an impossible value.
    #[error("{format} {structure} at byte {offset}: {message}")]
    Format {
        format: &'static str,
        structure: &'static str,
        offset: u64,
        message: String,
    },
    /// Sibling files whose checksums differ (a `.vvd` or `.vtx` from another compile).
    #[error("{file}: checksum {found:#010x} differs from the .mdl's {expected:#010x}")]
    Checksum { file: String, expected: u32, found: u32 },
    /// A model whose sibling file is not in the search paths.
    #[error("{0}: not found")]
    Missing(String),
    #[error("{path}: {message}")]
    Content { path: String, message: String },
}

impl ModelError {
    pub(crate) fn format(
        format: &'static str,
        structure: &'static str,
        offset: u64,
        message: impl Into<String>,
    ) -> Self {
        ModelError::Format {
            format,
            structure,
            offset,
            message: message.into(),
        }
    }
}

/// Attaches the format and structure names to a cursor error.
pub(crate) trait Context<T> {
    fn at(self, format: &'static str, structure: &'static str) -> Result<T, ModelError>;
}

impl<T> Context<T> for Result<T, ReadError> {
    fn at(self, format: &'static str, structure: &'static str) -> Result<T, ModelError> {
        self.map_err(|e| {
            let message = match &e {
                ReadError::UnexpectedEnd {
                    needed, available, ..
                } => format!("needed {needed} bytes, {available} available"),
                ReadError::Invalid { message, .. } => message.clone(),
            };
            ModelError::format(format, structure, e.offset(), message)
        })
    }
}

/// A non-negative count or offset from a file, as `usize`, or an error at `at`.
pub(crate) fn index(
    value: i32,
    format: &'static str,
    structure: &'static str,
    at: u64,
) -> Result<usize, ModelError> {
    usize::try_from(value)
        .map_err(|_| ModelError::format(format, structure, at, format!("negative value {value}")))
}

/// Which kind of model file `data` is, by its first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModelKind {
    Mdl,
    Vvd,
    Vtx,
}

/// Recognises a model file by content: `IDST` (.mdl), `IDSV` (.vvd), or a VTX v7 header whose
/// counts and offsets fit the file.
pub fn detect(data: &[u8]) -> Option<ModelKind> {
    match data.get(..4)? {
        b"IDST" => Some(ModelKind::Mdl),
        b"IDSV" => Some(ModelKind::Vvd),
        _ => vtx::looks_like_vtx(data).then_some(ModelKind::Vtx),
    }
}

/// The files of one model, read and checked against each other.
#[derive(Debug, Clone)]
pub struct ModelFiles {
    pub mdl: Mdl,
    pub vvd: Vvd,
    /// The first VTX found (`.dx90.vtx`, then `.vtx`, `.dx80.vtx`, `.sw.vtx`), when any is.
    pub vtx: Option<Vtx>,
}

/// VTX suffixes in the order the tools look for them.
pub const VTX_SUFFIXES: &[&str] = &[".dx90.vtx", ".vtx", ".dx80.vtx", ".sw.vtx"];

impl ModelFiles {
    /// Reads the model named `path` (`models/x.mdl`) through `read`, which returns a game
    /// file's bytes or `None` when no search path has it. The VVD is looked for beside the
    /// `.mdl` and, as Valve's tools, under the name the `.mdl` records for itself.
    pub fn load(path: &str, mut read: impl FnMut(&str) -> Option<Vec<u8>>) -> Result<ModelFiles, ModelError> {
        let path = normalise(path);
        let bytes = read(&path).ok_or_else(|| ModelError::Missing(path.clone()))?;
        let mdl = Mdl::parse(&bytes).map_err(|e| in_file(&path, e))?;
        let stem = path.strip_suffix(".mdl").unwrap_or(&path).to_string();
        let internal = format!("models/{}", normalise(&mdl.name));
        let internal = internal.strip_suffix(".mdl").unwrap_or(&internal).to_string();
        let (vvd_path, vvd_bytes) = [&stem, &internal]
            .into_iter()
            .find_map(|s| {
                let p = format!("{s}.vvd");
                read(&p).map(|b| (p, b))
            })
            .ok_or_else(|| ModelError::Missing(format!("{stem}.vvd")))?;
        let vvd = Vvd::parse(&vvd_bytes).map_err(|e| in_file(&vvd_path, e))?;
        check_checksum(&vvd_path, mdl.checksum, vvd.checksum)?;
        let mut vtx = None;
        for suffix in VTX_SUFFIXES {
            let p = format!("{stem}{suffix}");
            if let Some(b) = read(&p) {
                let v = Vtx::parse(&b).map_err(|e| in_file(&p, e))?;
                check_checksum(&p, mdl.checksum, v.checksum)?;
                vtx = Some(v);
                break;
            }
        }
        Ok(ModelFiles { mdl, vvd, vtx })
    }

    /// [`ModelFiles::load`] through a game directory's search paths (loose files and VPKs).
    pub fn find(game: &srcmap_content::GameDir, path: &str) -> Result<ModelFiles, ModelError> {
        let mut failure = None;
        let files = Self::load(path, |p| match game.read(p) {
            Ok(found) => found,
            Err(e) => {
                failure.get_or_insert(ModelError::Content {
                    path: p.to_string(),
                    message: e.to_string(),
                });
                None
            }
        });
        match (files, failure) {
            (Err(_), Some(e)) => Err(e),
            (files, _) => files,
        }
    }

    /// The position of every vertex of each mesh (LOD 0, the VVD's own order), one list per
    /// mesh in body part → model → mesh order: what Valve's VBSP wraps in one convex hull each.
    pub fn mesh_points(&self) -> Vec<Vec<[f32; 3]>> {
        let mut out = Vec::new();
        for part in &self.mdl.body_parts {
            for model in &part.models {
                for mesh in &model.meshes {
                    let first = model.first_vertex + mesh.vertex_offset as usize;
                    let end = first + mesh.vertex_count as usize;
                    out.push(
                        self.vvd
                            .vertices
                            .get(first..end.min(self.vvd.vertices.len()))
                            .unwrap_or(&[])
                            .iter()
                            .map(|v| v.position)
                            .collect(),
                    );
                }
            }
        }
        out
    }
}

fn check_checksum(file: &str, expected: u32, found: u32) -> Result<(), ModelError> {
    if expected == found {
        Ok(())
    } else {
        Err(ModelError::Checksum {
            file: file.to_string(),
            expected,
            found,
        })
    }
}

fn in_file(path: &str, e: ModelError) -> ModelError {
    ModelError::Content {
        path: path.to_string(),
        message: e.to_string(),
    }
}

/// A game path in the form the search paths use: forward slashes, lower case, no leading slash.
pub fn normalise(path: &str) -> String {
    path.replace('\\', "/")
        .trim_start_matches('/')
        .to_ascii_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detect_by_content() {
        assert_eq!(detect(b"IDST\x31\0\0\0"), Some(ModelKind::Mdl));
        assert_eq!(detect(b"IDSV\x04\0\0\0"), Some(ModelKind::Vvd));
        // A VTX v7 header: one LOD, one body part right after the 36-byte header.
        let mut vtx = vec![0u8; 44];
        vtx[0] = 7;
        vtx[20] = 1;
        vtx[28] = 1;
        vtx[32] = 36;
        assert_eq!(detect(&vtx), Some(ModelKind::Vtx));
        // The body part array would run past the end.
        vtx.truncate(40);
        assert_eq!(detect(&vtx), None);
        assert_eq!(detect(b"VBSP"), None);
        assert_eq!(detect(b""), None);
    }

    #[test]
    fn paths_normalise_like_the_search_paths() {
        assert_eq!(normalise("\\Models\\Props\\Chair.MDL"), "models/props/chair.mdl");
    }
}
