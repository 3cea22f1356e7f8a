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
    /// A VMF ↔ VMAP conversion failed (the error names the brush or element).
    #[error("{}: {error}", path.display())]
    Mapconv {
        path: PathBuf,
        error: Box<srcmap_mapconv::MapconvError>,
    },
    /// No known game: an unknown `--target`, or a gameinfo.txt naming no game srcmap knows.
    #[error(transparent)]
    Target(#[from] crate::target::TargetError),
    #[error("{}: {error}", path.display())]
    Bsp {
        path: PathBuf,
        error: Box<srcmap_bsp::BspError>,
    },
    /// `srcmap pack` (or `compile --pack`) refused the map's content.
    #[error("{}: pack: {error}", map.display())]
    Pack {
        map: PathBuf,
        error: Box<srcmap_pack::PackError>,
    },
    /// `srcmap nav generate` could not make a mesh of the map.
    #[error("{}: nav generate: {error}", map.display())]
    Navgen {
        map: PathBuf,
        error: Box<srcmap_navgen::NavgenError>,
    },
    /// A partial file of a sharded run that is missing, damaged or of another run (`path`: the
    /// part at fault, or the parts' folder for a shard no part holds).
    #[error("{}: {error}", path.display())]
    Shard {
        path: PathBuf,
        error: Box<srcmap_shard::ShardError>,
    },
    /// A farm run (Slurm) that could not be submitted or did not finish.
    #[error("{0}")]
    Farm(String),
}

/// A leak: `pointfile` (written) holds the path from the void to `entity_id`; `hint` names what
/// was left out before the flood (often the hole itself).
#[derive(Debug, thiserror::Error)]
#[error(
    "{}: leak: entity {entity_id} '{classname}' at ({} {} {}) can reach the void; pointfile {}{hint}\n\
     to see the leak line: compile again with --allowleak, then `srcmap view {}` draws the pointfile",
    map.display(), origin[0], origin[1], origin[2], pointfile.display(), pointfile.with_extension("bsp").display()
)]
pub struct LeakError {
    pub map: PathBuf,
    pub entity_id: i64,
    pub classname: String,
    pub origin: [f64; 3],
    pub pointfile: PathBuf,
    pub hint: String,
}

/// An error as `--json` prints it (`{"error": ...}`): what kind of failure, the message as
/// text prints it, and where, each place `None` when unknown. `kind` is one of `usage`, `read`,
/// `write`, `vmf_syntax`, `instances`, `game`, `materials`, `leak`, `limit`, `compile`, `bsp`,
/// `pack`, `navgen`, `convert`, `shard`, `error`.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct ErrorReport {
    pub kind: &'static str,
    pub message: String,
    pub file: Option<PathBuf>,
    /// 1-based line and column in `file`.
    pub line: Option<usize>,
    pub col: Option<usize>,
    /// The VMF id of the entity at fault.
    pub entity: Option<i64>,
    /// A point in map units.
    pub position: Option<[f64; 3]>,
}

impl ErrorReport {
    /// `kind`, `message` and `file`; no place inside the file.
    pub fn new(kind: &'static str, message: impl Into<String>, file: Option<&std::path::Path>) -> Self {
        ErrorReport {
            kind,
            message: message.into(),
            file: file.map(PathBuf::from),
            ..Default::default()
        }
    }

    /// This error's report, `message` being its text as printed.
    pub fn of(error: &DriverError, message: impl Into<String>) -> ErrorReport {
        use DriverError as E;
        let (kind, file) = error.kind_and_file();
        let mut report = ErrorReport::new(kind, message, file);
        match error {
            E::Vmf { error, .. } => (report.line, report.col) = (Some(error.line), Some(error.column)),
            E::Leak(leak) => (report.entity, report.position) = (Some(leak.entity_id), Some(leak.origin)),
            _ => {}
        }
        report
    }
}

impl DriverError {
    /// The `kind` of [`ErrorReport`] and the file the error is about.
    fn kind_and_file(&self) -> (&'static str, Option<&std::path::Path>) {
        use DriverError as E;
        match self {
            E::OutputIsInput { output, .. } => ("usage", Some(output)),
            E::Target(error) => ("usage", error.file()),
            E::Read { path, .. } => ("read", Some(path)),
            E::Write { path, .. } => ("write", Some(path)),
            E::Vmf { path, .. } => ("vmf_syntax", Some(path)),
            E::Instances { map, .. } => ("instances", Some(map)),
            E::Game(_) | E::Content(_) => ("game", None),
            E::Table { path, .. } => ("materials", Some(path)),
            E::Vbsp { map, error } => match **error {
                srcmap_vbsp::VbspError::Limit { .. } | srcmap_vbsp::VbspError::OverLimit(_) => {
                    ("limit", Some(map))
                }
                _ => ("compile", Some(map)),
            },
            E::Leak(leak) => ("leak", Some(&leak.map)),
            E::WriteBsp { map, .. } => ("write", Some(map)),
            E::CompileVvis { map, .. } | E::CompileVrad { map, .. } => ("compile", Some(map)),
            E::Vvis { path, .. } | E::Vrad { path, .. } => ("compile", Some(path)),
            E::Bsp { path, .. } => ("bsp", Some(path)),
            E::Pack { map, .. } => ("pack", Some(map)),
            E::Navgen { map, .. } => ("navgen", Some(map)),
            E::Mapconv { path, .. } => ("convert", Some(path)),
            E::Shard { path, .. } => ("shard", Some(path)),
            E::Farm(_) => ("error", None),
        }
    }

    /// Wrong usage rather than a failed run: the CLI exits 2 on it, as on its own usage errors.
    pub fn is_usage(&self) -> bool {
        matches!(self, DriverError::OutputIsInput { .. } | DriverError::Target(_))
    }
}
