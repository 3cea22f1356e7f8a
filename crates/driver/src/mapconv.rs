//! `srcmap convert MAP.vmf MAP.vmap` and `srcmap convert MAP.vmap MAP.vmf`: the file is read,
//! converted by `srcmap_mapconv` in memory and written atomically (nothing on failure).

use std::path::{Path, PathBuf};
use std::time::Instant;

use srcmap_mapconv::{ClassRenames, ToVmapOptions, ToVmapReport, ToVmfReport, Warning};

use crate::error::DriverError;
use crate::files::{read, refuse_overwriting, write_output};

/// One conversion, from plain values.
#[derive(Debug, Clone)]
pub struct MapconvJob {
    pub input: PathBuf,
    pub output: PathBuf,
    /// VMAP output: binary 9 (Hammer's own) when true, else keyvalues2 4.
    pub binary: bool,
    /// VMAP output: class renames of a target game.
    pub renames: ClassRenames,
}

/// Which way a conversion went and what it reported.
#[derive(Debug, Clone, serde::Serialize)]
#[serde(tag = "direction")]
pub enum MapconvReport {
    #[serde(rename = "vmf_to_vmap")]
    ToVmap { seconds: f64, report: ToVmapReport },
    #[serde(rename = "vmap_to_vmf")]
    ToVmf { seconds: f64, report: ToVmfReport },
}

impl MapconvReport {
    pub fn warnings(&self) -> &[Warning] {
        match self {
            MapconvReport::ToVmap { report, .. } => &report.warnings,
            MapconvReport::ToVmf { report, .. } => &report.warnings,
        }
    }
}

/// VMF → VMAP.
pub fn vmf_to_vmap(job: &MapconvJob) -> Result<MapconvReport, DriverError> {
    refuse_overwriting(&job.input, &job.output)?;
    let started = Instant::now();
    // Lenient: a bad side drops out with a warning naming its place, as the compiler does.
    let vmf = srcmap_vmf::Vmf::parse_lenient(&read(&job.input)?).map_err(|error| DriverError::Vmf {
        path: job.input.clone(),
        error: Box::new(error),
    })?;
    let opts = ToVmapOptions {
        renames: job.renames,
        ..ToVmapOptions::default()
    };
    let (vmap, report) = srcmap_mapconv::vmf_to_vmap(&vmf, &opts).map_err(|e| failed(&job.input, e))?;
    let version = if job.binary { 9 } else { 4 };
    let bytes = vmap
        .doc
        .write_as(job.binary, Some(version))
        .map_err(|e| failed(&job.input, e.into()))?;
    write_output(&job.output, &bytes)?;
    Ok(MapconvReport::ToVmap {
        seconds: started.elapsed().as_secs_f64(),
        report,
    })
}

/// VMAP → VMF.
pub fn vmap_to_vmf(job: &MapconvJob) -> Result<MapconvReport, DriverError> {
    refuse_overwriting(&job.input, &job.output)?;
    let started = Instant::now();
    let vmap = srcmap_vmap::Vmap::read(&read(&job.input)?).map_err(|e| failed(&job.input, e.into()))?;
    let (text, report) = srcmap_mapconv::vmap_to_vmf(&vmap).map_err(|e| failed(&job.input, e))?;
    write_output(&job.output, text.as_bytes())?;
    Ok(MapconvReport::ToVmf {
        seconds: started.elapsed().as_secs_f64(),
        report,
    })
}

fn failed(path: &Path, error: srcmap_mapconv::MapconvError) -> DriverError {
    DriverError::Mapconv {
        path: path.to_path_buf(),
        error: Box::new(error),
    }
}
