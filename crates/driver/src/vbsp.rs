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

use crate::error::{DriverError, LeakError};
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
    /// `func_detail` brushes are structural (Valve's `-fulldetail`).
    pub full_detail: bool,
    /// Rewrite only the entities or the props of the BSP compiled earlier (at the output
    /// path), as Valve's `-onlyents` / `-onlyprops`; nothing else is written.
    pub only: Option<srcmap_vbsp::Only>,
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
    /// The game to write for (`--target`), instead of the one `game`'s gameinfo.txt names.
    pub target: Option<String>,
}

/// What stage 1 produced: the map in memory and the file `srcmap vbsp` writes of it.
pub struct Stage1 {
    pub bsp: srcmap_bsp::Bsp,
    /// The BSP as `srcmap vbsp` writes it; later stages' lumps are laid out over it.
    pub file: Vec<u8>,
    pub out_path: PathBuf,
    /// The map is sealed (it has a portal file): vis can run.
    pub sealed: bool,
    pub report: Report,
    /// The portal file or pointfile, written beside the BSP once the BSP is.
    pub side: SideFile,
}

/// What stage 1 leaves beside the BSP: the portal file of a sealed map, or the pointfile of a
/// leaked one (compiled with `allow_leak`).
pub enum SideFile {
    Portals(String),
    Pointfile(String),
    /// Neither: the outside was not filled for want of an entity in open space, so there is
    /// no portal file and no leak to draw (Valve's vbsp calls it leaked all the same).
    Unsealed,
    /// `-onlyents`/`-onlyprops` keep the tree, so the side files already there stay right.
    Kept,
}

impl SideFile {
    /// Taken out of `out` (a large map's portal file is megabytes: moved, not copied).
    fn take(out: &mut Output) -> SideFile {
        match &mut out.leak {
            Some(VbspError::Leak { pointfile, .. }) => SideFile::Pointfile(std::mem::take(pointfile)),
            _ if out.prt.is_empty() => SideFile::Unsealed,
            _ => SideFile::Portals(std::mem::take(&mut out.prt)),
        }
    }

    /// Writes the file beside `bsp_path` and removes the other kind, stale from an earlier
    /// compile. Called after the BSP is written: a compile that fails on the way leaves no new
    /// `.prt` beside an old `.bsp`.
    pub fn write_beside(&self, bsp_path: &Path) -> Result<(), DriverError> {
        let (text, ext, stale) = match self {
            SideFile::Kept => return Ok(()),
            SideFile::Unsealed => {
                for stale in ["prt", "lin"] {
                    let _ = std::fs::remove_file(bsp_path.with_extension(stale));
                }
                return Ok(());
            }
            // Valve writes no portal file for a leaked map: vis cannot run on it.
            SideFile::Pointfile(text) => (text, "lin", "prt"),
            // A stale pointfile from an earlier leak would mislead.
            SideFile::Portals(text) => (text, "prt", "lin"),
        };
        write_output(&bsp_path.with_extension(ext), text.as_bytes())?;
        let _ = std::fs::remove_file(bsp_path.with_extension(stale));
        Ok(())
    }
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

    /// The usage errors found before any work (an unknown `--target`, a gameinfo.txt naming no
    /// known game, an output over the map), checked before the stage is told to have started.
    pub fn check_usage(&self) -> Result<(), DriverError> {
        self.refuse_replacing_the_map(&self.out_path())?;
        crate::target::choose(self.game.as_deref(), self.target.as_deref())?;
        Ok(())
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
        target: &'static srcmap_bsp::Target,
    ) -> srcmap_vbsp::Options<'a> {
        srcmap_vbsp::Options {
            materials: &sources.materials,
            no_detail: self.no_detail,
            full_detail: self.full_detail,
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
            target,
        }
    }
}

/// `srcmap vbsp`: stage 1, the BSP written beside its side files; its report is returned.
/// The stage is timed and told to `progress` as in `srcmap compile`, and the total told last.
pub fn vbsp(job: &VbspJob, progress: &dyn Progress, messages: &dyn Messages) -> Result<Report, DriverError> {
    let started = std::time::Instant::now();
    job.check_usage()?;
    let stage1 = srcmap_stage::timed_stage("vbsp", progress, || run_vbsp(job, progress, messages))?;
    write_output(&stage1.out_path, &stage1.file)?;
    stage1.side.write_beside(&stage1.out_path)?;
    if !job.quiet {
        let seconds = started.elapsed().as_secs_f64();
        messages.line(&srcmap_stage::total_line("vbsp", &stage1.out_path, seconds));
    }
    Ok(stage1.report)
}

/// Runs stage 1; the BSP and its side file (`.prt`, or `.lin` on a leak) are returned for the
/// caller to finish and write, the BSP first.
pub fn run_vbsp(
    job: &VbspJob,
    progress: &dyn Progress,
    messages: &dyn Messages,
) -> Result<Stage1, DriverError> {
    let out_path = job.out_path();
    job.refuse_replacing_the_map(&out_path)?;
    let chosen = crate::target::choose(job.game.as_deref(), job.target.as_deref())?;
    if !job.quiet {
        messages.line(&chosen.line());
    }
    let (vmf, input) = crate::map::read_input(&job.map, job.game.as_deref(), messages)?;
    let sources = job.open_sources()?;
    if let (Some(game), false) = (&sources.game, job.quiet) {
        crate::files::tell_skipped_search_paths(game, messages);
    }
    let read_model = |path: &str| sources.game.as_ref().and_then(|g| g.read(path).ok().flatten());
    let models = sources.game.is_some().then_some(&read_model as ModelReader<'_>);
    let opts = job.stage_options(&vmf, &out_path, &sources, models, chosen.target);
    let run = Run {
        job,
        out_path,
        messages,
    };
    if let Some(only) = job.only {
        return run.update(&input, only, &opts, progress, &sources.materials);
    }
    let stage1 = match srcmap_vbsp::compile(&input, &opts, progress) {
        Ok(out) => run.finish(out, &sources.materials)?,
        Err(error) => return Err(run.compile_error(&vmf, error)),
    };
    if let (Some(note), false) = (skybox_note(&chosen, &stage1.report), job.quiet) {
        messages.line(&note);
    }
    Ok(stage1)
}

/// Without a named game, a 3D skybox of several leaves is made one vis cluster as the vbsp of
/// Source 2007 and later does; the Episode One-era vbsp (Source 2006 games, Valve's BSPs of
/// Ricochet among them) numbers its leaves one by one, so say which game would change it.
fn skybox_note(chosen: &crate::target::Chosen, report: &Report) -> Option<String> {
    let leaves = report.count("skybox_leaves");
    (chosen.by == crate::target::ChosenBy::Default && leaves > 1).then(|| {
        format!(
            "note: the 3D skybox's {leaves} leaves share one vis cluster, as in the vbsp of Source 2007 and later \
             games; a Source 2006 game's vbsp gives each its own (--target source2006)"
        )
    })
}

/// One stage-1 run after the compile: what it tells and writes.
struct Run<'a> {
    job: &'a VbspJob,
    out_path: PathBuf,
    messages: &'a dyn Messages,
}

impl Run<'_> {
    /// `-onlyents` / `-onlyprops`: the BSP at the output path read, what `only` names
    /// rewritten from the map, the file laid out over the one read (its other lumps keep their
    /// bytes). No side file is written: the tree is the earlier compile's.
    fn update(
        self,
        input: &srcmap_vbsp::MapInput,
        only: srcmap_vbsp::Only,
        opts: &srcmap_vbsp::Options<'_>,
        progress: &dyn Progress,
        materials: &Resolver,
    ) -> Result<Stage1, DriverError> {
        let earlier = crate::files::read(&self.out_path)?;
        let existing = srcmap_bsp::Bsp::parse(&earlier).map_err(|error| DriverError::Bsp {
            path: self.out_path.clone(),
            error: Box::new(error),
        })?;
        let mut out = srcmap_vbsp::update(input, existing, only, opts, progress).map_err(|error| {
            DriverError::Vbsp {
                map: self.job.map.clone(),
                error: Box::new(error),
            }
        })?;
        self.tell_materials_and_diagnostics(&mut out, materials);
        let file = out
            .bsp
            .to_bytes_over(&earlier)
            .map_err(|error| DriverError::WriteBsp {
                map: self.job.map.clone(),
                error: Box::new(error),
            })?;
        if !self.job.quiet {
            self.messages
                .line(&update_summary(&self.out_path, only, &out.bsp));
        }
        Ok(Stage1 {
            bsp: out.bsp,
            file,
            out_path: self.out_path,
            sealed: true,
            report: out.report,
            side: SideFile::Kept,
        })
    }

    /// The material warnings and diagnostics told, the BSP serialised, its side file taken for
    /// writing after it, and the one-line summary told.
    fn finish(self, mut out: Output, materials: &Resolver) -> Result<Stage1, DriverError> {
        self.tell_materials_and_diagnostics(&mut out, materials);
        let file = out.bsp.to_bytes().map_err(|error| DriverError::WriteBsp {
            map: self.job.map.clone(),
            error: Box::new(error),
        })?;
        let side = SideFile::take(&mut out);
        let sealed = matches!(side, SideFile::Portals(_));
        if !self.job.quiet {
            self.messages.line(&summary(&self.out_path, &out.report));
        }
        Ok(Stage1 {
            bsp: out.bsp,
            file,
            out_path: self.out_path,
            sealed,
            report: out.report,
            side,
        })
    }

    /// Unknown materials in one line (the first few names; all of them with `verbose`), the
    /// resolver's warnings into the report, and the diagnostics (only errors when quiet).
    fn tell_materials_and_diagnostics(&self, out: &mut Output, materials: &Resolver) {
        let (job, map) = (self.job, self.job.map.display());
        if let Some(line) = materials.unknown_summary((!job.verbose).then_some(UNKNOWN_MATERIALS_SHOWN))
            && !job.quiet
        {
            self.messages.line(&format!("{map}: warning: {line}"));
        }
        // The unknown-material line above says what these say one by one.
        for w in materials.warnings() {
            out.report.warn(w.to_string());
        }
        for d in &out.diagnostics {
            if !job.quiet || d.severity == Severity::Error {
                self.messages.line(&format!("{map}: {d}"));
            }
        }
    }

    /// A failed compile. A leak writes the pointfile beside the BSP, and the error names the
    /// entity that reached the void and what was left out before the flood (often the hole).
    fn compile_error(&self, vmf: &Vmf, error: VbspError) -> DriverError {
        let VbspError::Leak {
            entity_id,
            classname,
            origin,
            pointfile,
            skipped_brushes,
        } = error
        else {
            let map = self.job.map.clone();
            return DriverError::Vbsp {
                map,
                error: Box::new(error),
            };
        };
        let lin = match self.write_pointfile(&pointfile, &skipped_brushes) {
            Ok(lin) => lin,
            Err(e) => return e,
        };
        DriverError::Leak(Box::new(LeakError {
            map: self.job.map.clone(),
            entity_id,
            classname,
            origin: [origin.x, origin.y, origin.z],
            pointfile: lin,
            hint: leak_hint(vmf, &skipped_brushes),
        }))
    }

    /// The pointfile written beside the BSP (its path returned), then the brushes left out
    /// before the flood told: whatever was left out may be the hole, so it is said here, where
    /// the mapper looks, not only in the lines told before.
    fn write_pointfile(
        &self,
        pointfile: &str,
        skipped_brushes: &[Diagnostic],
    ) -> Result<PathBuf, DriverError> {
        let lin = self.out_path.with_extension("lin");
        write_output(&lin, pointfile.as_bytes())?;
        for d in skipped_brushes {
            self.messages.line(&format!("{}: {d}", self.job.map.display()));
        }
        Ok(lin)
    }
}

/// One line of what stage 1 built.
pub fn summary(out_path: &Path, r: &Report) -> String {
    format!(
        "vbsp: {} ({} brushes, {} models, {} faces, {} leaves, {} clusters, {} portals)",
        out_path.display(),
        r.count("brushes"),
        r.count("models"),
        r.count("faces"),
        r.count("leaves"),
        r.count("clusters"),
        r.count("portals")
    )
}

/// One line of what `-onlyents` / `-onlyprops` rewrote.
fn update_summary(out_path: &Path, only: srcmap_vbsp::Only, bsp: &srcmap_bsp::Bsp) -> String {
    let props = bsp.game_lumps.static_props().map_or(0, |p| p.props.len());
    match only {
        srcmap_vbsp::Only::Entities => format!(
            "vbsp -onlyents: {} ({} entities, {props} static props rewritten; other lumps kept)",
            out_path.display(),
            bsp.entities.len()
        ),
        srcmap_vbsp::Only::Props => format!(
            "vbsp -onlyprops: {} ({props} static props rewritten, detail props placed; other lumps kept)",
            out_path.display()
        ),
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
