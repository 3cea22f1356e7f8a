//! What stops a pack: each error names the file or reference it is about.

/// A pack that cannot be done; nothing is written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PackError {
    /// The map itself cannot be read.
    #[error("{0}")]
    Bsp(#[from] srcmap_bsp::BspError),
    /// A content folder or file that cannot be read.
    #[error("{path}: {source}")]
    Io { path: String, source: std::io::Error },
    /// The game folder cannot be opened.
    #[error("{0}")]
    Game(#[from] srcmap_content::ContentError),
    /// A reference whose path leaves the content folder (`../`, an absolute path, a link
    /// pointing outside).
    #[error("'{path}' (referred to by {referrer}) escapes the content folder")]
    Escape { path: String, referrer: String },
    /// Files that include each other in a circle (patch materials, `$includemodel`, `#base`,
    /// `IncludeScript`): the engine would include them forever.
    #[error("reference loop: {}", .cycle.join(" -> "))]
    Loop { cycle: Vec<String> },
    /// A file or pakfile past what a zip (or the BSP's lump table) can hold.
    #[error("'{path}' is too large for the pakfile: {size} bytes, the limit is {limit}")]
    TooLarge { path: String, size: u64, limit: u64 },
    /// A file whose references cannot be read (a broken material, model or particle file); the
    /// walk tells it and goes on.
    #[error("{path}: {message}")]
    Unreadable { path: String, message: String },
    /// More entries than a zip directory counts.
    #[error("the pakfile would hold {count} entries, the limit is {limit}")]
    TooManyEntries { count: usize, limit: usize },
}

impl PackError {
    pub(crate) fn io(path: &std::path::Path, source: std::io::Error) -> PackError {
        PackError::Io {
            path: path.display().to_string(),
            source,
        }
    }
}
