//! `srcmap compile`: vbsp, then vvis, then vrad, in one process on one map in memory; the BSP
//! is written once, at the end.

use std::time::Instant;

use srcmap_bsp::Bsp;
use srcmap_stage::{Progress, Report, StageOutput, timed_stage};

use crate::error::DriverError;
use crate::files::write_output;
use crate::messages::Messages;
use crate::vbsp::{Stage1, VbspJob, run_vbsp};
use crate::vrad::{RadSettings, RadSources};
use crate::vvis::VisSettings;

/// A whole compile: stage 1's job, and the settings of the later stages that run (`None`
/// skips one).
#[derive(Debug, Clone, Default)]
pub struct CompileJob {
    pub vbsp: VbspJob,
    pub vis: Option<VisSettings>,
    pub rad: Option<RadSettings>,
    /// Texture-light files for lighting, as `srcmap vrad --lights` (each must exist).
    pub lights: Vec<std::path::PathBuf>,
}

/// The progress of each stage, shown by the caller as it likes.
pub struct CompileProgress<'a> {
    pub vbsp: &'a dyn Progress,
    pub vvis: &'a dyn Progress,
    pub vrad: &'a dyn Progress,
}

/// Each stage's report, in the order the stages ran.
pub type CompileReports = Vec<Report>;

/// Runs the compile and writes the BSP; "compile: wrote ... in N s" is told unless quiet.
/// Each stage is announced to its progress when it begins and ends (with its report, whose
/// `seconds` is the stage's wall time), and the later stages' warnings are told as text.
pub fn compile(
    job: &CompileJob,
    progress: &CompileProgress<'_>,
    messages: &dyn Messages,
) -> Result<CompileReports, DriverError> {
    let started = Instant::now();
    job.vbsp.check_usage()?;
    let Stage1 {
        mut bsp,
        file,
        out_path,
        sealed,
        report,
        side,
    } = timed_stage("vbsp", progress.vbsp, || {
        run_vbsp(&job.vbsp, progress.vbsp, messages)
    })?;
    let mut reports = vec![report];
    // -onlyents / -onlyprops keep the earlier compile's tree, so its visibility stays right.
    let vis = job.vis.filter(|_| job.vbsp.only.is_none());
    if let Some(settings) = &vis {
        let vis = || run_vis(job, &mut bsp, sealed, settings, progress.vvis, messages);
        reports.extend(timed_stage("vvis", progress.vvis, vis)?);
    }
    if let Some(settings) = &job.rad {
        let rad = || run_rad(job, &mut bsp, settings, progress.vrad, messages);
        reports.push(timed_stage("vrad", progress.vrad, rad)?);
    }
    let map = &job.vbsp.map;
    let bytes = bsp.to_bytes_over(&file).map_err(|error| DriverError::WriteBsp {
        map: map.clone(),
        error: Box::new(error),
    })?;
    write_output(&out_path, &bytes)?;
    side.write_beside(&out_path)?;
    if !job.vbsp.quiet {
        tell_later_warnings(&reports, messages);
        messages.line(&srcmap_stage::total_line(
            "compile",
            &out_path,
            started.elapsed().as_secs_f64(),
        ));
    }
    Ok(reports)
}

impl StageOutput for Stage1 {
    fn report_mut(&mut self) -> Option<&mut Report> {
        Some(&mut self.report)
    }
}

/// vvis's and vrad's warnings as text (vbsp tells its own as it goes).
fn tell_later_warnings(reports: &[Report], messages: &dyn Messages) {
    for report in reports.iter().filter(|r| r.stage != "vbsp") {
        for w in &report.warnings {
            messages.line(&format!("{}: {w}", report.stage));
        }
    }
}

/// Vis on a sealed map; a leaked one has no portals, so vis is skipped with a warning.
fn run_vis(
    job: &CompileJob,
    bsp: &mut Bsp,
    sealed: bool,
    settings: &VisSettings,
    progress: &dyn Progress,
    messages: &dyn Messages,
) -> Result<Option<Report>, DriverError> {
    let map = &job.vbsp.map;
    if !sealed {
        if !job.vbsp.quiet {
            messages.line(&format!(
                "{}: warning: the map leaked, so vis was skipped (one cluster, no visibility data: the game draws every leaf from everywhere)",
                map.display()
            ));
        }
        return Ok(None);
    }
    // Portals are rebuilt from the BSP's own tree rather than read from the .prt: they
    // give the same PVS on sealed maps, and stay right where our portal file's outer box
    // is too small (maps whose brushes reach far beyond the world model).
    let report = srcmap_vvis::vis(bsp, None, &settings.options(), progress).map_err(|source| {
        DriverError::CompileVvis {
            map: map.clone(),
            source: Box::new(source),
        }
    })?;
    Ok(Some(report))
}

/// Lighting with the texture lights of the material table, `-game`'s lights.rad and MAP.rad
/// beside the map, and `-game`'s static prop models.
fn run_rad(
    job: &CompileJob,
    bsp: &mut Bsp,
    settings: &RadSettings,
    progress: &dyn Progress,
    messages: &dyn Messages,
) -> Result<Report, DriverError> {
    let map = &job.vbsp.map;
    let sources = RadSources {
        game: job.vbsp.game.clone(),
        materials: job.vbsp.materials.clone(),
        lights: job.lights.clone(),
    };
    let texlights = sources.texlights(map, job.vbsp.quiet, messages)?;
    let options = settings.options(texlights, sources.models()?);
    srcmap_vrad::light(bsp, &options, progress).map_err(|source| DriverError::CompileVrad {
        map: map.clone(),
        source: Box::new(source),
    })
}
