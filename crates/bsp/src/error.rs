//! Typed errors. Every error that comes from the file names the lump (or game lump) and the
//! absolute byte offset where the problem was found.

use srcmap_bytes::ReadError;
use thiserror::Error;

use crate::lump::lump_name;

/// Errors from reading or writing a BSP.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum BspError {
    /// The file is a map of another engine (Quake, GoldSrc, Titanfall...), or not a map at all.
    #[error("not a Source BSP: {what}")]
    NotSource { what: String },
    /// The header or lump directory is damaged.
    #[error("BSP header at byte {offset}: {message}")]
    Header { offset: u64, message: String },
    /// A lump's data is damaged.
    #[error("lump {lump} ({name}) at byte {offset}: {message}", name = lump_name(*lump))]
    Lump {
        lump: usize,
        offset: u64,
        message: String,
    },
    /// One game lump (inside lump 35) is damaged.
    #[error("game lump '{id}' at byte {offset}: {message}")]
    GameLump {
        id: String,
        offset: u64,
        message: String,
    },
    /// A pakfile (zip) entry is damaged.
    #[error("pakfile at byte {offset}: {message}")]
    Pak { offset: u64, message: String },
    /// A value does not fit the on-disk layout while writing (an index too large for a u16 field).
    #[error("writing lump {lump} ({name}): {message}", name = lump_name(*lump))]
    Write { lump: usize, message: String },
}

impl BspError {
    pub(crate) fn lump(lump: usize, offset: u64, message: impl Into<String>) -> Self {
        BspError::Lump {
            lump,
            offset,
            message: message.into(),
        }
    }
    pub(crate) fn from_read(lump: usize, e: ReadError) -> Self {
        match e {
            ReadError::UnexpectedEnd {
                offset,
                needed,
                available,
            } => BspError::Lump {
                lump,
                offset,
                message: format!("truncated: needed {needed} bytes, {available} available"),
            },
            ReadError::Invalid { offset, message } => BspError::Lump {
                lump,
                offset,
                message,
            },
        }
    }
    /// The absolute byte offset the error refers to, where there is one.
    pub fn offset(&self) -> Option<u64> {
        match self {
            BspError::Header { offset, .. }
            | BspError::Lump { offset, .. }
            | BspError::GameLump { offset, .. }
            | BspError::Pak { offset, .. } => Some(*offset),
            _ => None,
        }
    }
}

pub type Result<T, E = BspError> = std::result::Result<T, E>;
