//! Finding the shared corpus: `SRCMAP_CORPUS`, absolute or relative to the current directory or
//! the workspace root (CI passes `../shared/corpus`).

use std::path::{Path, PathBuf};

pub fn corpus_root() -> Option<PathBuf> {
    let value = PathBuf::from(std::env::var_os("SRCMAP_CORPUS")?);
    if value.is_absolute() || value.exists() {
        return Some(value);
    }
    Some(Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(value))
}
