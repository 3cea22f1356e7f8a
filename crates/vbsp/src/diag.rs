//! Map diagnostics naming the VMF's own ids, and the compile's errors.

use std::fmt;

use srcmap_geom::DVec3;
use thiserror::Error;

/// Where in the map a problem is: entity, brush and side by their VMF ids.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Where {
    pub entity_id: Option<i64>,
    pub classname: Option<String>,
    pub brush: Option<i64>,
    pub side: Option<i64>,
}

impl fmt::Display for Where {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts = Vec::new();
        if let Some(b) = self.brush {
            parts.push(format!("brush {b}"));
        }
        if let Some(s) = self.side {
            parts.push(format!("side {s}"));
        }
        let mut out = parts.join(" ");
        if let Some(e) = self.entity_id {
            let class = self.classname.as_deref().unwrap_or("?");
            if out.is_empty() {
                out = format!("entity {e} '{class}'");
            } else {
                out = format!("{out} (entity {e} '{class}')");
            }
        }
        f.write_str(&out)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Severity {
    Warning,
    /// The object was skipped; the compile goes on.
    Error,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Diagnostic {
    pub severity: Severity,
    pub at: Where,
    pub message: String,
}

impl Diagnostic {
    pub fn warning(at: Where, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Warning,
            at,
            message: message.into(),
        }
    }
    pub fn error(at: Where, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            at,
            message: message.into(),
        }
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sev = match self.severity {
            Severity::Warning => "warning",
            Severity::Error => "error",
        };
        if self.at == Where::default() {
            write!(f, "{sev}: {}", self.message)
        } else {
            write!(f, "{}: {sev}: {}", self.at, self.message)
        }
    }
}

/// A compile that could not produce a BSP.
#[derive(Debug, Error)]
pub enum VbspError {
    /// An entity sees the void. `pointfile` is Valve's `.lin`: the path from the void to the
    /// entity, one `x y z` point per line.
    #[error("leak: entity {entity_id} '{classname}' at ({:.0} {:.0} {:.0}) can reach the void (see the .lin pointfile){}", origin.x, origin.y, origin.z, skipped_note(skipped_brushes))]
    Leak {
        entity_id: i64,
        classname: String,
        origin: DVec3,
        pointfile: String,
        /// Brushes the compile left out before the flood (bad side planes), each with where and
        /// why: a skipped wall brush is the likeliest hole.
        skipped_brushes: Vec<Diagnostic>,
    },
    #[error("map has no worldspawn entity")]
    NoWorld,
    #[error("map has no world brushes")]
    NoBrushes,
    #[error("limit exceeded: {what} ({count} > {max})")]
    Limit {
        what: &'static str,
        count: usize,
        max: usize,
    },
    /// More distinct light names than switchable styles (Valve's `MAX_SWITCHED_LIGHTS`).
    #[error(
        "too many switched lights: light '{name}' (entity {entity_id}) would need a style past the {max} named lights may have"
    )]
    TooManySwitchedLights {
        name: String,
        entity_id: i64,
        max: usize,
    },
    #[error(transparent)]
    Threads(#[from] srcmap_stage::ThreadsError),
    /// The BSP's pakfile could not be extended (a compiler bug: vbsp writes the zip itself).
    #[error("pakfile: {0}")]
    Pakfile(#[from] srcmap_bsp::BspError),
    /// A pass left the map in a state the next cannot rely on (a compiler bug).
    #[error("verify after {pass}: {message}")]
    Verify { pass: &'static str, message: String },
}

/// The leak message's pointer at brushes left out before the flood.
fn skipped_note(skipped: &[Diagnostic]) -> String {
    match skipped {
        [] => String::new(),
        [only] => format!("; {}: {}, which may be the hole", only.at, only.message),
        [first, rest @ ..] => format!(
            "; {} brushes were left out, which may be the hole: {}: {} (and {} more)",
            skipped.len(),
            first.at,
            first.message,
            rest.len()
        ),
    }
}

/// `count` records of `what` fit Valve's `max`, or [`VbspError::Limit`].
pub(crate) fn check_limit(what: &'static str, count: usize, max: usize) -> Result<(), VbspError> {
    if count > max {
        Err(VbspError::Limit { what, count, max })
    } else {
        Ok(())
    }
}
