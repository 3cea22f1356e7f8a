//! The decompiler's error: a file that is no Source BSP, or (our bug) a VMF that does not re-read.

/// Why nothing could be decompiled.
#[derive(Debug, thiserror::Error)]
pub enum DecompileError {
    /// The header or lump directory is unreadable: nothing to decompile.
    #[error("{0}")]
    Bsp(#[from] srcmap_bsp::BspError),
    /// The VMF written does not parse back (a decompiler bug, reported instead of a panic).
    #[error("the decompiled VMF does not re-read at {0}")]
    Written(srcmap_vmf::VmfError),
}
