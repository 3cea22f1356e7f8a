//! Typed errors of the visibility stage.

use thiserror::Error;

#[derive(Debug, Error)]
pub enum VvisError {
    /// A PRT1 portal file that cannot be read.
    #[error("portal file line {line}: {msg}")]
    Prt { line: usize, msg: String },
    /// The BSP could not be read or written.
    #[error(transparent)]
    Bsp(#[from] srcmap_bsp::BspError),
    /// Input that parses but cannot be vis'ed (bad tree, bad portals).
    #[error("{0}")]
    Invalid(String),
    /// The PRT file and the BSP disagree.
    #[error("portal file has {prt} clusters but the BSP's leaves use {bsp}")]
    ClusterMismatch { prt: u32, bsp: u32 },
    #[error(transparent)]
    Threads(#[from] srcmap_stage::ThreadsError),
    /// An invariant a pass relies on does not hold after the pass before it (checked in debug
    /// builds, in tests, and with `verify`): a bug, not bad input.
    #[error("vvis {pass}: {message}")]
    Verify { pass: &'static str, message: String },
}
