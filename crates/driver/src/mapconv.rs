//! `srcmap convert MAP.vmf MAP.vmap` and `srcmap convert MAP.vmap MAP.vmf`: the file is read,
//! converted by `srcmap_mapconv` in memory and written atomically (nothing on failure).

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::time::Instant;

use srcmap_mapconv::{ClassRenames, ToVmapOptions, ToVmapReport, ToVmfReport, Warning};
use srcmap_materials::Origin;
use srcmap_vmf::Vmf;

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
    /// VMF → VMAP: the game directory and material table texture sizes are read from (without
    /// either, every texture is taken as 512 × 512, as vbsp does without `-game`).
    pub game: Option<PathBuf>,
    pub materials: Option<PathBuf>,
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
    let (texture_sizes, unknown) = texture_sizes(&vmf, job)?;
    let opts = ToVmapOptions {
        renames: job.renames,
        texture_sizes,
    };
    let (vmap, mut report) = srcmap_mapconv::vmf_to_vmap(&vmf, &opts).map_err(|e| failed(&job.input, e))?;
    if !unknown.is_empty() {
        report.warnings.push(unknown_sizes(&unknown));
    }
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

/// Texture width and height by material name (lower case).
type TextureSizes = HashMap<String, [f64; 2]>;

/// Each material's texture size where the game's content or the material table knows it
/// (by the name as the VMF writes it, lower case), and the materials neither knows (they keep
/// 512 × 512). Nothing is looked up when neither was given.
fn texture_sizes(vmf: &Vmf, job: &MapconvJob) -> Result<(TextureSizes, BTreeSet<String>), DriverError> {
    let mut sizes = HashMap::new();
    let mut unknown = BTreeSet::new();
    if job.game.is_none() && job.materials.is_none() {
        return Ok((sizes, unknown));
    }
    let resolver = crate::materials::resolver(job.game.as_deref(), job.materials.as_deref())?;
    let sides = vmf.all_entities().flat_map(|e| &e.solids).flat_map(|s| &s.sides);
    for name in sides.map(|side| side.material.to_ascii_lowercase()) {
        if sizes.contains_key(&name) || unknown.contains(&name) {
            continue;
        }
        let known = resolver.resolve(&name);
        if matches!(known.size_from, Origin::Default) {
            unknown.insert(name);
        } else {
            sizes.insert(
                name,
                [f64::from(known.facts.width), f64::from(known.facts.height)],
            );
        }
    }
    Ok((sizes, unknown))
}

/// The warning that names the materials whose size nothing knew (the first few).
fn unknown_sizes(unknown: &BTreeSet<String>) -> Warning {
    let first: Vec<&str> = unknown.iter().take(5).map(String::as_str).collect();
    let more = if unknown.len() > first.len() { ", ..." } else { "" };
    Warning {
        place: "materials".into(),
        message: format!(
            "{} materials' texture sizes are unknown to the game and the table; texture coordinates assume 512 × 512 for: {}{more}",
            unknown.len(),
            first.join(", ")
        ),
    }
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
