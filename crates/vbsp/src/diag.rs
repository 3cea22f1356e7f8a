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
        let place = srcmap_stage::map_place(self.brush, self.side, self.entity_id, self.classname.as_deref());
        f.write_str(&place)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Severity {
    Warning,
    /// The object was skipped; the compile goes on.
    Error,
    /// Not a problem: what the compile did where the mapper may need to know it.
    Note,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Diagnostic {
    pub severity: Severity,
    pub at: Where,
    pub message: String,
    /// A stable name for what is wrong (`vbsp.leak`), where one was given.
    pub code: Option<&'static str>,
}

impl Diagnostic {
    pub fn warning(at: Where, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Warning,
            at,
            message: message.into(),
            code: None,
        }
    }
    pub fn note(message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Note,
            at: Where::default(),
            message: message.into(),
            code: None,
        }
    }
    pub fn error(at: Where, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            at,
            message: message.into(),
            code: None,
        }
    }

    /// The same diagnostic with a stable code.
    pub fn with_code(self, code: &'static str) -> Diagnostic {
        Diagnostic {
            code: Some(code),
            ..self
        }
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sev = match self.severity {
            Severity::Warning => "warning",
            Severity::Error => "error",
            Severity::Note => "note",
        };
        if self.at == Where::default() {
            write!(f, "{sev}: {}", self.message)
        } else {
            write!(f, "{}: {sev}: {}", self.at, self.message)
        }
    }
}

/// The report's form of a diagnostic: its place kept as fields (code `vbsp.map`,
/// `vbsp.entity`, `vbsp.brush` or `vbsp.side` by the narrowest place it names, or the code it
/// was given).
impl From<&Diagnostic> for srcmap_stage::Warning {
    fn from(d: &Diagnostic) -> srcmap_stage::Warning {
        let code = d
            .code
            .unwrap_or(match (&d.at.side, &d.at.brush, &d.at.entity_id) {
                (Some(_), _, _) => "vbsp.side",
                (None, Some(_), _) => "vbsp.brush",
                (None, None, Some(_)) => "vbsp.entity",
                _ => "vbsp.map",
            });
        srcmap_stage::Warning {
            severity: match d.severity {
                Severity::Warning => srcmap_stage::Severity::Warning,
                Severity::Error => srcmap_stage::Severity::Error,
                Severity::Note => srcmap_stage::Severity::Note,
            },
            code,
            entity: d.at.entity_id,
            classname: d.at.classname.clone(),
            brush: d.at.brush,
            side: d.at.side,
            position: None,
            message: d.message.clone(),
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
    /// The finished BSP exceeds a limit of its version that `check` judges (entities,
    /// cubemaps, overlays, lighting bytes...): the engine would refuse it.
    #[error("limit exceeded: {0}")]
    OverLimit(String),
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
