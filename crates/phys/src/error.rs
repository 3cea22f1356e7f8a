//! Errors naming where in the collision data a read failed: model, solid, byte offset, structure.

use std::fmt;

/// A read failed: `offset` is absolute (the file or lump offset given as the solid's base).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PhysError {
    /// The brush model (`*N`) whose collision this is, when read from a BSP lump.
    pub model: Option<i32>,
    /// The solid's index within its model or `.phy` file.
    pub solid: Option<usize>,
    /// The displacement whose packed hull this is, when read from the physdisp lump.
    pub displacement: Option<usize>,
    pub offset: u64,
    /// The structure being read (`compact ledge`, `ledge tree node`, ...).
    pub structure: &'static str,
    pub message: String,
}

impl PhysError {
    pub(crate) fn new(offset: u64, structure: &'static str, message: impl Into<String>) -> Self {
        PhysError {
            model: None,
            solid: None,
            displacement: None,
            offset,
            structure,
            message: message.into(),
        }
    }

    /// The same error, placed in a model.
    pub fn in_model(mut self, model: i32) -> Self {
        self.model = Some(model);
        self
    }

    /// The same error, placed in a displacement.
    pub fn in_displacement(mut self, displacement: usize) -> Self {
        self.displacement = Some(displacement);
        self
    }

    /// The same error, placed in a solid.
    pub fn in_solid(mut self, solid: usize) -> Self {
        self.solid = Some(solid);
        self
    }
}

impl fmt::Display for PhysError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(m) = self.model {
            write!(f, "model {m}: ")?;
        }
        if let Some(d) = self.displacement {
            write!(f, "displacement {d}: ")?;
        }
        if let Some(s) = self.solid {
            write!(f, "solid {s}: ")?;
        }
        write!(f, "{} at byte {}: {}", self.structure, self.offset, self.message)
    }
}

impl std::error::Error for PhysError {}

pub type Result<T, E = PhysError> = std::result::Result<T, E>;
