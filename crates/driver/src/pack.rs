//! `srcmap pack` and `compile --pack`: a map's custom content walked (`srcmap_pack::plan`) and
//! written into its pakfile, in place under the edit lock or to another file, atomically.

use std::path::{Path, PathBuf};
use std::time::Instant;

use srcmap_content::GameDir;
use srcmap_pack::{Compression, Limits, Options, Plan};

use crate::compile::{CompileJob, CompileProgress, CompileReports, compile};
use crate::error::DriverError;
use crate::files::{lock_for_edit, read, refuse_overwriting, tell_skipped_search_paths, write_output};
use crate::messages::Messages;

/// One pack, from plain values.
#[derive(Debug, Clone, Default)]
pub struct PackJob {
    /// The BSP.
    pub map: PathBuf,
    /// Where the packed map goes (default: the map itself, edited in place).
    pub output: Option<PathBuf>,
    /// The game: files its VPKs and folders hold are never packed.
    pub game: Option<PathBuf>,
    /// Loose content folders, searched in order.
    pub content: Vec<PathBuf>,
    /// Game paths packed whether the map names them or not.
    pub include: Vec<String>,
    /// Globs of game paths left out.
    pub exclude: Vec<String>,
    /// Population files read for the HUD icons and sounds they name (not packed).
    pub pops: Vec<PathBuf>,
    /// The map's name for the files named after it (default: the BSP's file stem).
    pub name: Option<String>,
    pub rename_nav: bool,
    pub compression: Compression,
    /// Plan and report only; write nothing.
    pub dry_run: bool,
    pub limits: Limits,
}

/// What a pack found and did.
#[derive(Debug, Clone, serde::Serialize)]
pub struct PackReport {
    pub map: PathBuf,
    /// The file written, when one was.
    pub written: Option<PathBuf>,
    pub seconds: f64,
    #[serde(flatten)]
    pub plan: Plan,
}

/// Plans the pack and, unless a dry run, writes the map with its new pakfile.
pub fn pack(job: &PackJob, messages: &dyn Messages) -> Result<PackReport, DriverError> {
    let started = Instant::now();
    if let Some(out) = &job.output {
        refuse_overwriting(&job.map, out)?;
    }
    let _lock = match (&job.output, job.dry_run) {
        (None, false) => Some(lock_for_edit(&job.map)?),
        _ => None,
    };
    let bytes = read(&job.map)?;
    let plan = plan(job, &bytes, messages)?;
    let written = if job.dry_run {
        None
    } else {
        write(job, &bytes, &plan)?
    };
    Ok(PackReport {
        map: job.map.clone(),
        written,
        seconds: started.elapsed().as_secs_f64(),
        plan,
    })
}

/// The walk over the map's bytes.
fn plan(job: &PackJob, bytes: &[u8], messages: &dyn Messages) -> Result<Plan, DriverError> {
    let game = match &job.game {
        Some(dir) => Some(GameDir::open(dir).map_err(DriverError::Game)?),
        None => None,
    };
    if let Some(game) = &game {
        tell_skipped_search_paths(game, messages);
    }
    let options = Options {
        map: job.name.clone().unwrap_or_else(|| map_name(&job.map)),
        rename_nav: job.rename_nav,
        include: job.include.clone(),
        exclude: job.exclude.clone(),
        pops: read_pops(&job.pops)?,
        compression: job.compression,
        limits: job.limits,
    };
    srcmap_pack::plan(bytes, &job.content, game.as_ref(), &options).map_err(|e| pack_error(&job.map, e))
}

/// The population files' names and bytes.
fn read_pops(paths: &[PathBuf]) -> Result<Vec<(String, Vec<u8>)>, DriverError> {
    paths
        .iter()
        .map(|p| Ok((p.display().to_string(), read(p)?)))
        .collect()
}

/// Writes the packed map: to the output (always), or in place (only when it changed).
fn write(job: &PackJob, bytes: &[u8], plan: &Plan) -> Result<Option<PathBuf>, DriverError> {
    let packed = srcmap_pack::pack(bytes, plan, &job.limits).map_err(|e| pack_error(&job.map, e))?;
    let target = job.output.clone().unwrap_or_else(|| job.map.clone());
    if job.output.is_none() && packed == bytes {
        return Ok(None);
    }
    write_output(&target, &packed)?;
    Ok(Some(target))
}

/// The map's name: its file stem, lower case.
fn map_name(map: &Path) -> String {
    map.file_stem()
        .map(|s| s.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default()
}

fn pack_error(map: &Path, error: srcmap_pack::PackError) -> DriverError {
    DriverError::Pack {
        map: map.to_path_buf(),
        error: Box::new(error),
    }
}

/// `srcmap compile --pack`: the compile, then its BSP packed in place (`pack.map` is set to
/// the compile's output).
pub fn compile_and_pack(
    job: &CompileJob,
    pack_job: &PackJob,
    progress: &CompileProgress<'_>,
    messages: &dyn Messages,
) -> Result<(CompileReports, PackReport), DriverError> {
    let reports = compile(job, progress, messages)?;
    let pack_job = PackJob {
        map: job.vbsp.out_path(),
        output: None,
        game: pack_job.game.clone().or_else(|| job.vbsp.game.clone()),
        ..pack_job.clone()
    };
    let report = pack(&pack_job, messages)?;
    Ok((reports, report))
}
