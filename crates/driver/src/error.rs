//! What can stop a run. Each message names the file it is about, as the CLI prints it.

use std::path::PathBuf;

/// The driver's errors. A variant with a `source` prints it after its own text when the chain
/// is shown (`file: cannot read: No such file or directory`); the others hold the whole message.
#[derive(Debug, thiserror::Error)]
pub enum DriverError {
    /// An output would replace one of the run's inputs (wrong usage, found before any work).
    #[error("{}: the output is the input file {}; name another output", output.display(), input.display())]
    OutputIsInput { output: PathBuf, input: PathBuf },
    #[error("{}: cannot read", path.display())]
    Read { path: PathBuf, source: std::io::Error },
    #[error("{}: cannot write: {error}", path.display())]
    Write { path: PathBuf, error: std::io::Error },
    /// A map neither Hammer's reader nor the lenient one accepts (the strict reader's error).
    #[error("{}:{error}", path.display())]
    Vmf {
        path: PathBuf,
        error: Box<srcmap_vmf::VmfError>,
    },
    #[error("{}: {error}", map.display())]
    Instances {
        map: PathBuf,
        error: Box<srcmap_vbsp::instances::InstanceError>,
    },
    /// `-game` could not be opened for the material resolver.
    #[error("{0}")]
    Game(srcmap_content::ContentError),
    /// Game content (`-game` for models, a detail file) could not be read.
    #[error(transparent)]
    Content(#[from] srcmap_content::ContentError),
    #[error("{}:{error}", path.display())]
    Table {
        path: PathBuf,
        error: Box<srcmap_materials::MaterialsError>,
    },
    #[error("{}: {error}", map.display())]
    Vbsp {
        map: PathBuf,
        error: Box<srcmap_vbsp::VbspError>,
    },
    /// The map leaks.
    #[error(transparent)]
    Leak(Box<LeakError>),
    #[error("{}: writing the BSP: {error}", map.display())]
    WriteBsp {
        map: PathBuf,
        error: Box<srcmap_bsp::BspError>,
    },
    /// vvis failed inside `compile`.
    #[error("{}: vvis", map.display())]
    CompileVvis {
        map: PathBuf,
        source: Box<srcmap_vvis::VvisError>,
    },
    /// vrad failed inside `compile`.
    #[error("{}: vrad", map.display())]
    CompileVrad {
        map: PathBuf,
        source: Box<srcmap_vrad::VradError>,
    },
    /// `srcmap vvis` failed; `path` is the portal file when the portal file is at fault.
    #[error("{}: {error}", path.display())]
    Vvis {
        path: PathBuf,
        error: Box<srcmap_vvis::VvisError>,
    },
    #[error("{}: {error}", path.display())]
    Vrad {
        path: PathBuf,
        error: Box<srcmap_vrad::VradError>,
    },
    /// No known game: an unknown `--target`, or a gameinfo.txt naming no game srcmap knows.
    #[error(transparent)]
    Target(#[from] crate::target::TargetError),
    #[error("{}: {error}", path.display())]
    Bsp {
        path: PathBuf,
        error: Box<srcmap_bsp::BspError>,
    },
}

/// A leak: `pointfile` (written) holds the path from the void to `entity_id`; `hint` names what
/// was left out before the flood (often the hole itself).
#[derive(Debug, thiserror::Error)]
#[error(
    "{}: leak: entity {entity_id} '{classname}' at ({} {} {}) can reach the void; pointfile {}{hint}",
    map.display(), origin[0], origin[1], origin[2], pointfile.display()
)]
pub struct LeakError {
    pub map: PathBuf,
    pub entity_id: i64,
    pub classname: String,
    pub origin: [f64; 3],
    pub pointfile: PathBuf,
    pub hint: String,
}

impl DriverError {
    /// Wrong usage rather than a failed run: the CLI exits 2 on it, as on its own usage errors.
    pub fn is_usage(&self) -> bool {
        matches!(self, DriverError::OutputIsInput { .. } | DriverError::Target(_))
    }
}
