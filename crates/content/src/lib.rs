//! What a game directory provides to the map compiler and tools: VPK archives (v1 and v2),
//! VMT materials (KeyValues, `include` patches, the compile-relevant keys), VTF texture headers
//! (size, reflectivity, flags) and a game directory resolved through `gameinfo.txt` search
//! paths.
//!
//! ```no_run
//! let game = srcmap_content::GameDir::open("path/to/hl2".as_ref()).unwrap();
//! if let Some(mat) = game.material("tools/toolsnodraw").unwrap() {
//!     println!("{:?} nodraw={}", mat.shader, mat.compile_flags().nodraw);
//! }
//! ```

pub mod detail_vbsp;
pub mod gameinfo;
pub mod kv;
pub mod kv_save;
pub mod vmt;
pub mod vpk;
pub mod vtf;
pub mod vtf_decode;

pub use gameinfo::{GameDir, SearchPath};
pub use kv::{KvNode, KvValue};
pub use vmt::{CompileFlags, Vmt};
pub use vpk::{Vpk, VpkEntry};
pub use vtf::VtfHeader;

/// Errors reading game content; each names the file and the place.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ContentError {
    #[error("{path}: {source}")]
    Io { path: String, source: std::io::Error },
    #[error("{path}: byte {offset}: {message}")]
    Format {
        path: String,
        offset: u64,
        message: String,
    },
    /// Well-formed as far as read, in a format or version not decoded here.
    #[error("{path}: byte {offset}: {message} (not supported)")]
    Unsupported {
        path: String,
        offset: u64,
        message: String,
    },
    #[error("{path}:{line}: {message}")]
    Syntax {
        path: String,
        line: usize,
        message: String,
    },
}

pub type Result<T, E = ContentError> = std::result::Result<T, E>;

pub(crate) fn io_err(path: &std::path::Path, source: std::io::Error) -> ContentError {
    ContentError::Io {
        path: path.display().to_string(),
        source,
    }
}
