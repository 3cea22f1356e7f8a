//! Stage 1 on files: the VMF and its instances through `srcmap_vbsp::compile`, the portal file
//! or the pointfile beside the BSP.

use std::path::{Path, PathBuf};

use srcmap_content::GameDir;
use srcmap_content::detail_vbsp::DetailTypes;
use srcmap_materials::Resolver;
use srcmap_stage::{Progress, Report, Threads};
use srcmap_vbsp::props::ModelReader;
use srcmap_vbsp::{Diagnostic, Output, Severity, VbspError};
use srcmap_vmf::Vmf;

use crate::error::DriverError;
use crate::files::{refuse_overwriting, write_output};
use crate::messages::Messages;

/// Unknown materials the warning names without `verbose`.
const UNKNOWN_MATERIALS_SHOWN: usize = 5;

/// A vbsp run (`srcmap vbsp`, and stage 1 of `srcmap compile`).
#[derive(Debug, Clone, Default)]
pub struct VbspJob {
    /// The map source.
    pub map: PathBuf,
    /// The BSP to write (default: the map's path with `.bsp`).
    pub output: Option<PathBuf>,
    /// Game directory: materials, instances, static props' models.
    pub game: Option<PathBuf>,
    /// A material table, consulted after `-game` content.
    pub materials: Option<PathBuf>,
    /// Leave out `func_detail` brushes.
    pub no_detail: bool,
    /// A detail.vbsp instead of the one the map names among the game's files.
    pub detail_file: Option<PathBuf>,
    /// On a leak, write the pointfile and still the BSP.
    pub allow_leak: bool,
    pub verify: bool,
    /// Worker threads for every stage (0 = all cores).
    pub threads: usize,
    /// Only errors are told.
    pub quiet: bool,
    /// Every unknown material is named, not the first few.
    pub verbose: bool,
}

/// What stage 1 produced: the map in memory and the file `srcmap vbsp` writes of it.
pub struct Stage1 {
    pub bsp: srcmap_bsp::Bsp,
    /// The BSP as `srcmap vbsp` writes it; later stages' lumps are laid out over it.
    pub file: Vec<u8>,
    pub out_path: PathBuf,
    /// The map is sealed (a portal file was written): vis can run.
    pub sealed: bool,
    pub report: Report,
}

/// The files stage 1 reads besides the map, opened before the compile.
struct Sources {
    materials: Resolver,
    /// Static props read their models through the game's search paths.
    game: Option<GameDir>,
    detail_types: Option<DetailTypes>,
}

impl VbspJob {
    /// The BSP this run writes.
    pub fn out_path(&self) -> PathBuf {
        self.output
            .clone()
            .unwrap_or_else(|| self.map.with_extension("bsp"))
    }

    /// The BSP and its side files (.prt, .lin) must not replace the map.
    fn refuse_replacing_the_map(&self, out_path: &Path) -> Result<(), DriverError> {
        for written in [
            out_path.to_path_buf(),
            out_path.with_extension("prt"),
            out_path.with_extension("lin"),
        ] {
            refuse_overwriting(&self.map, &written)?;
        }
        Ok(())
    }

    fn open_sources(&self) -> Result<Sources, DriverError> {
        let materials = crate::materials::resolver(self.game.as_deref(), self.materials.as_deref())?;
        let game = self.game.as_deref().map(GameDir::open).transpose()?;
        let detail_types = self
            .detail_file
            .as_deref()
            .map(crate::materials::load_detail_file)
            .transpose()?;
        Ok(Sources {
            materials,
            game,
            detail_types,
        })
    }

    /// The compiler's options for this map.
    fn stage_options<'a>(
        &self,
        vmf: &Vmf,
        out_path: &Path,
        sources: &'a Sources,
        models: Option<ModelReader<'a>>,
    ) -> srcmap_vbsp::Options<'a> {
        srcmap_vbsp::Options {
            materials: &sources.materials,
            no_detail: self.no_detail,
            allow_leak: self.allow_leak,
            verify: self.verify,
            dump: false,
            map_revision: vmf
                .version_info
                .as_ref()
                .map(|v| v.map_version as i32)
                .unwrap_or(0),
            // Valve names the map's patched materials after the BSP it writes.
            map_name: out_path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default(),
            threads: Threads(self.threads),
            models,
            detail_types: sources.detail_types.as_ref(),
        }
    }
}

/// `srcmap vbsp`: stage 1, the BSP written beside its side files; its report is returned.
pub fn vbsp(job: &VbspJob, progress: &dyn Progress, messages: &dyn Messages) -> Result<Report, DriverError> {
    let stage1 = run_vbsp(job, progress, messages)?;
    write_output(&stage1.out_path, &stage1.file)?;
    Ok(stage1.report)
}

/// Runs stage 1 and writes its side files (`.prt`, or `.lin` on a leak); the BSP itself is
/// returned for the caller to finish and write.
pub fn run_vbsp(
    job: &VbspJob,
    progress: &dyn Progress,
    messages: &dyn Messages,
) -> Result<Stage1, DriverError> {
    let out_path = job.out_path();
    job.refuse_replacing_the_map(&out_path)?;
    let (vmf, input) = crate::map::read_input(&job.map, job.game.as_deref(), messages)?;
    let sources = job.open_sources()?;
    let read_model = |path: &str| sources.game.as_ref().and_then(|g| g.read(path).ok().flatten());
    let models = sources.game.is_some().then_some(&read_model as ModelReader<'_>);
    let opts = job.stage_options(&vmf, &out_path, &sources, models);
    let out = match srcmap_vbsp::compile(&input, &opts, progress) {
        Ok(o) => o,
        Err(leak @ VbspError::Leak { .. }) => return Err(leak_error(job, &vmf, &out_path, leak, messages)),
        Err(error) => {
            return Err(DriverError::Vbsp {
                map: job.map.clone(),
                error,
            });
        }
    };
    finish(job, out, &sources.materials, out_path, messages)
}

/// After the compile: the material warnings and diagnostics told, the BSP serialised, the side
/// files written and the one-line summary told.
fn finish(
    job: &VbspJob,
    mut out: Output,
    materials: &Resolver,
    out_path: PathBuf,
    messages: &dyn Messages,
) -> Result<Stage1, DriverError> {
    tell_materials_and_diagnostics(job, &mut out, materials, messages);
    let file = out.bsp.to_bytes().map_err(|error| DriverError::WriteBsp {
        map: job.map.clone(),
        error,
    })?;
    let sealed = out.leak.is_none();
    write_side_files(&out_path, &out)?;
    if !job.quiet {
        messages.line(&summary(&out_path, &out.report));
    }
    Ok(Stage1 {
        bsp: out.bsp,
        file,
        out_path,
        sealed,
        report: out.report,
    })
}

/// Unknown materials in one line (the first few names; all of them with `verbose`), the
/// resolver's warnings into the report, and the compile's diagnostics (only errors when quiet).
fn tell_materials_and_diagnostics(
    job: &VbspJob,
    out: &mut Output,
    materials: &Resolver,
    messages: &dyn Messages,
) {
    if let Some(line) = materials.unknown_summary((!job.verbose).then_some(UNKNOWN_MATERIALS_SHOWN))
        && !job.quiet
    {
        messages.line(&format!("{}: warning: {line}", job.map.display()));
    }
    for w in materials.warnings() {
        out.report.warn(w.to_string());
    }
    for d in &out.diagnostics {
        if !job.quiet || d.severity == Severity::Error {
            messages.line(&format!("{}: {d}", job.map.display()));
        }
    }
}

/// The portal file of a sealed map, or the pointfile of a leaked one (written with
/// `allow_leak`); the other one, stale from an earlier compile, is removed.
fn write_side_files(out_path: &Path, out: &Output) -> Result<(), DriverError> {
    if let Some(VbspError::Leak { pointfile, .. }) = &out.leak {
        // Valve writes no portal file for a leaked map: vis cannot run on it.
        write_output(&out_path.with_extension("lin"), pointfile.as_bytes())?;
        let _ = std::fs::remove_file(out_path.with_extension("prt"));
    } else {
        write_output(&out_path.with_extension("prt"), out.prt.as_bytes())?;
        // A stale pointfile from an earlier leak would mislead.
        let _ = std::fs::remove_file(out_path.with_extension("lin"));
    }
    Ok(())
}

/// One line of what stage 1 built.
pub fn summary(out_path: &Path, r: &Report) -> String {
    format!(
        "vbsp: {} ({} brushes, {} models, {} faces, {} leaves, {} clusters, {} portals)",
        out_path.display(),
        r.count("brushes"),
        r.count("models"),
        r.count("faces"),
        r.count("world_leaves"),
        r.count("clusters"),
        r.count("portals")
    )
}

/// A leak: the pointfile is written beside the BSP, and the error names the entity that
/// reached the void and what was left out before the flood (often the hole itself).
fn leak_error(
    job: &VbspJob,
    vmf: &Vmf,
    out_path: &Path,
    leak: VbspError,
    messages: &dyn Messages,
) -> DriverError {
    let VbspError::Leak {
        entity_id,
        classname,
        origin,
        pointfile,
        skipped_brushes,
    } = leak
    else {
        return DriverError::Vbsp {
            map: job.map.clone(),
            error: leak,
        };
    };
    let lin = out_path.with_extension("lin");
    if let Err(e) = write_output(&lin, pointfile.as_bytes()) {
        return e;
    }
    // Whatever was left out before the flood may be the hole: say so here, where the
    // mapper looks, not only in the lines told before.
    for d in &skipped_brushes {
        messages.line(&format!("{}: {d}", job.map.display()));
    }
    DriverError::Leak {
        map: job.map.clone(),
        entity_id,
        classname,
        origin: [origin.x, origin.y, origin.z],
        pointfile: lin,
        hint: leak_hint(vmf, &skipped_brushes),
    }
}

/// What the leak message adds about parts left out: damaged parts of the map, brushes left
/// out before the flood.
fn leak_hint(vmf: &Vmf, skipped_brushes: &[Diagnostic]) -> String {
    let mut hint = String::new();
    if let Some(first) = vmf.problems.first() {
        hint += &format!(
            "; {} damaged part{} of the map left out ({first})",
            vmf.problems.len(),
            if vmf.problems.len() == 1 { "" } else { "s" }
        );
    }
    if let Some(first) = skipped_brushes.first() {
        hint += &format!(
            "; {} brush{} left out before the flood ({}: {})",
            skipped_brushes.len(),
            if skipped_brushes.len() == 1 { "" } else { "es" },
            first.at,
            first.message
        );
    }
    if !hint.is_empty() {
        hint += ": that may be the hole";
    }
    hint
}
