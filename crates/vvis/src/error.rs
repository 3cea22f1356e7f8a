//! Typed errors of the visibility stage.

use thiserror::Error;

#[derive(Debug, Error)]
pub enum VisError {
    /// A PRT1 portal file that cannot be read.
    #[error("portal file line {line}: {msg}")]
    Prt { line: usize, msg: String },
    /// The BSP could not be read or written.
    #[error(transparent)]
    Bsp(#[from] srcmap_bsp::Error),
    /// Input that parses but cannot be vis'ed (bad tree, bad portals).
    #[error("{0}")]
    Invalid(String),
    /// The PRT file and the BSP disagree.
    #[error("portal file has {prt} clusters but the BSP's leaves use {bsp}")]
    ClusterMismatch { prt: u32, bsp: u32 },
    #[error("thread pool: {0}")]
    Threads(String),
}
