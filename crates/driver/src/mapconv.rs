//! `srcmap convert MAP.vmf MAP.vmap` and `srcmap convert MAP.vmap MAP.vmf`: the file is read,
//! converted by `srcmap_mapconv` in memory and written atomically (nothing on failure).

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::Instant;

use srcmap_mapconv::{
    ClassRenames, InstancePaths, PrefabFile, ToVmapOptions, ToVmapReport, ToVmfReport, Warning,
    with_extension,
};
use srcmap_materials::Origin;
use srcmap_vmf::Vmf;

use crate::error::DriverError;
use crate::files::{read, refuse_overwriting};

/// One conversion, from plain values.
#[derive(Debug, Clone, Default)]
pub struct MapconvJob {
    pub input: PathBuf,
    pub output: PathBuf,
    /// VMAP output: binary 9 (Hammer's own) when true, else keyvalues2 4.
    pub binary: bool,
    /// VMAP output: class renames of a target game.
    pub renames: ClassRenames,
    /// VMF → VMAP: the game directory and material table texture sizes are read from (without
    /// either, every texture is taken as 512 × 512, as vbsp does without `-game`); the game
    /// directory is also where instance files are looked for after the map's folder.
    pub game: Option<PathBuf>,
    pub materials: Option<PathBuf>,
    /// VMF → VMAP: leave out the world's faces that no playable space sees, as our vbsp's
    /// flooded tree finds them (the map must be sealed).
    pub cull: bool,
}

/// Which way a conversion went and what it reported.
#[derive(Debug, Clone, serde::Serialize)]
#[serde(tag = "direction")]
pub enum MapconvReport {
    #[serde(rename = "vmf_to_vmap")]
    ToVmap {
        seconds: f64,
        report: ToVmapReport,
        /// Instance maps converted and written beside the output (relative paths).
        instance_maps: Vec<String>,
    },
    #[serde(rename = "vmap_to_vmf")]
    ToVmf {
        seconds: f64,
        report: ToVmfReport,
        /// Prefab maps converted and written beside the output (relative paths).
        instance_maps: Vec<String>,
    },
}

impl MapconvReport {
    pub fn warnings(&self) -> &[Warning] {
        match self {
            MapconvReport::ToVmap { report, .. } => &report.warnings,
            MapconvReport::ToVmf { report, .. } => &report.warnings,
        }
    }
}

/// Instance maps nest at most this deep (a file that places itself stops here).
const MAX_INSTANCE_DEPTH: usize = 16;

/// VMF → VMAP: the map and, beside it, each instance map it places (nested ones too), all
/// written only once every one converted.
pub fn vmf_to_vmap(job: &MapconvJob) -> Result<MapconvReport, DriverError> {
    refuse_overwriting(&job.input, &job.output)?;
    let started = Instant::now();
    let vmf = read_vmf(&job.input)?;
    let paths = InstancePaths {
        content_folder: content_folder(&job.output),
        base: String::new(),
    };
    let culled_sides = if job.cull {
        unseen_sides(job)?
    } else {
        HashSet::new()
    };
    let (bytes, mut report) = vmap_bytes(job, &vmf, &job.input, paths.clone(), culled_sides)?;
    let instances = report.instances.clone();
    let convert = |file: &String| convert_instance(job, &paths, file);
    let mut files = vec![(job.output.clone(), bytes)];
    files.extend(convert_placed(
        &instances,
        |f| f.clone(),
        convert,
        &mut report.warnings,
    )?);
    crate::files::write_outputs(&files)?;
    Ok(MapconvReport::ToVmap {
        seconds: started.elapsed().as_secs_f64(),
        report,
        instance_maps: files[1..].iter().map(|(p, _)| p.display().to_string()).collect(),
    })
}

/// The instance map `file` (relative to the outermost map) as a VMAP beside the output;
/// `None` when it is not found.
fn convert_instance(
    job: &MapconvJob,
    paths: &InstancePaths,
    file: &str,
) -> Result<Option<Converted<String>>, DriverError> {
    let Some(path) = crate::map::find_instance(&job.input, job.game.as_deref(), file) else {
        return Ok(None);
    };
    let sub_paths = InstancePaths {
        base: folder_of(file),
        ..paths.clone()
    };
    let (bytes, sub) = vmap_bytes(job, &read_vmf(&path)?, &path, sub_paths, HashSet::new())?;
    Ok(Some(Converted {
        output: beside(&job.output, &with_extension(file, ".vmf", ".vmap")),
        bytes,
        places: sub.instances,
        warnings: sub.warnings,
    }))
}

/// A placed map converted: its output file, and the maps it places in turn.
struct Converted<T> {
    output: PathBuf,
    bytes: Vec<u8>,
    places: Vec<T>,
    warnings: Vec<Warning>,
}

/// The maps `first` names converted, and those they place in turn (to
/// [`MAX_INSTANCE_DEPTH`]), each (by `key`, its relative file) once; `convert` gives `None`
/// for a map not found, which is warned about. Their warnings are named by their files.
fn convert_placed<T: Clone>(
    first: &[T],
    key: impl Fn(&T) -> String,
    mut convert: impl FnMut(&T) -> Result<Option<Converted<T>>, DriverError>,
    warnings: &mut Vec<Warning>,
) -> Result<Vec<(PathBuf, Vec<u8>)>, DriverError> {
    let mut queue: Vec<(T, usize)> = first.iter().map(|t| (t.clone(), 1)).collect();
    let mut done = BTreeSet::new();
    let mut files = Vec::new();
    while let Some((item, depth)) = queue.pop() {
        if depth > MAX_INSTANCE_DEPTH || !done.insert(key(&item)) {
            continue;
        }
        match convert(&item)? {
            None => warnings.push(missing(&key(&item))),
            Some(c) => {
                warnings.extend(placed(&key(&item), c.warnings));
                files.push((c.output, c.bytes));
                queue.extend(c.places.into_iter().map(|p| (p, depth + 1)));
            }
        }
    }
    Ok(files)
}

/// A VMF read leniently: a bad side drops out with a warning naming its place, as the
/// compiler does.
fn read_vmf(path: &Path) -> Result<Vmf, DriverError> {
    Vmf::parse_lenient(&read(path)?).map_err(|error| DriverError::Vmf {
        path: path.to_path_buf(),
        error: Box::new(error),
    })
}

/// One VMF converted to VMAP bytes in the job's encoding (`path` names it in errors).
fn vmap_bytes(
    job: &MapconvJob,
    vmf: &Vmf,
    path: &Path,
    instances: InstancePaths,
    culled_sides: HashSet<i64>,
) -> Result<(Vec<u8>, ToVmapReport), DriverError> {
    let (texture_sizes, unknown) = texture_sizes(vmf, job)?;
    let opts = ToVmapOptions {
        renames: job.renames,
        texture_sizes,
        instances,
        culled_sides,
    };
    let (vmap, mut report) = srcmap_mapconv::vmf_to_vmap(vmf, &opts).map_err(|e| failed(path, e))?;
    if !unknown.is_empty() {
        report.warnings.push(unknown_sizes(&unknown));
    }
    let version = if job.binary { 9 } else { 4 };
    let bytes = vmap
        .doc
        .write_as(job.binary, Some(version))
        .map_err(|e| failed(path, e.into()))?;
    Ok((bytes, report))
}

/// The VMF ids of the map's world sides no playable space sees: the map (its instances
/// collapsed) through our vbsp's first world pass. A leak is an error; a map without world
/// brushes has none.
fn unseen_sides(job: &MapconvJob) -> Result<HashSet<i64>, DriverError> {
    let (_, input) = crate::map::read_input(&job.input, job.game.as_deref(), &crate::NoMessages)?;
    let materials = crate::materials::resolver(job.game.as_deref(), job.materials.as_deref())?;
    let opts = srcmap_vbsp::Options {
        materials: &materials,
        ..srcmap_vbsp::Options::default()
    };
    match srcmap_vbsp::unseen_sides(&input, &opts, &srcmap_stage::NoProgress) {
        Ok(unseen) => Ok(unseen.into_iter().collect()),
        // No world brushes: no world face to cull (an instance map, an entity test map).
        Err(srcmap_vbsp::VbspError::NoBrushes) => Ok(HashSet::new()),
        Err(error) => Err(DriverError::Vbsp {
            map: job.input.clone(),
            error: Box::new(error),
        }),
    }
}

/// The folder of a `/`-separated relative path, with a trailing `/` (empty for none).
fn folder_of(file: &str) -> String {
    file.rsplit_once('/')
        .map(|(d, _)| format!("{d}/"))
        .unwrap_or_default()
}

/// `relative` (a `/`-separated path) in the folder of `output`.
fn beside(output: &Path, relative: &str) -> PathBuf {
    output.parent().unwrap_or(Path::new("")).join(relative)
}

/// The folder a map lies in under its content root, from the last `maps` folder on, with a
/// trailing `/` (`maps/`, `maps/sub/`); empty when no folder above it is called `maps`.
fn content_folder(map: &Path) -> String {
    let folder = std::path::absolute(map.parent().unwrap_or(Path::new(""))).unwrap_or_default();
    let names: Vec<String> = folder
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    match names.iter().rposition(|n| n.eq_ignore_ascii_case("maps")) {
        Some(i) => names[i..].iter().map(|n| format!("{n}/")).collect(),
        None => String::new(),
    }
}

/// The content root above a map's `maps` folder, when there is one.
fn content_root(map: &Path) -> Option<PathBuf> {
    let folder = content_folder(map);
    let depth = folder.matches('/').count();
    let absolute = std::path::absolute(map).ok()?;
    (depth > 0).then(|| absolute.ancestors().nth(depth + 1).map(Path::to_path_buf))?
}

/// The warning for an instance (or prefab) map that was not found.
fn missing(file: &str) -> Warning {
    Warning {
        place: format!("instance map '{file}'"),
        message: "not found beside the map (or under --game); not converted".into(),
    }
}

/// An instance map's warnings, their places prefixed with the map.
fn placed(file: &str, warnings: Vec<Warning>) -> impl Iterator<Item = Warning> + '_ {
    warnings.into_iter().map(move |w| Warning {
        place: format!("{file}: {}", w.place),
        ..w
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

/// VMAP → VMF: the map and, beside it, each prefab map it places (found beside the VMAP
/// or under its content root) as an instance VMF, all written only once every one converted.
pub fn vmap_to_vmf(job: &MapconvJob) -> Result<MapconvReport, DriverError> {
    refuse_overwriting(&job.input, &job.output)?;
    let started = Instant::now();
    let paths = InstancePaths {
        content_folder: content_folder(&job.input),
        base: String::new(),
    };
    let (text, mut report) = vmf_text(&job.input, paths.clone())?;
    let prefabs = report.prefabs.clone();
    let convert = |prefab: &PrefabFile| convert_prefab(job, &paths, prefab);
    let mut files = vec![(job.output.clone(), text.into_bytes())];
    files.extend(convert_placed(
        &prefabs,
        |p| p.file.clone(),
        convert,
        &mut report.warnings,
    )?);
    crate::files::write_outputs(&files)?;
    Ok(MapconvReport::ToVmf {
        seconds: started.elapsed().as_secs_f64(),
        report,
        instance_maps: files[1..].iter().map(|(p, _)| p.display().to_string()).collect(),
    })
}

/// A prefab's map as an instance VMF beside the output; `None` when it is not found.
fn convert_prefab(
    job: &MapconvJob,
    paths: &InstancePaths,
    prefab: &PrefabFile,
) -> Result<Option<Converted<PrefabFile>>, DriverError> {
    let Some(path) = find_prefab(&job.input, prefab, paths) else {
        return Ok(None);
    };
    let sub_paths = InstancePaths {
        base: folder_of(&prefab.file),
        ..paths.clone()
    };
    let (text, sub) = vmf_text(&path, sub_paths)?;
    Ok(Some(Converted {
        output: beside(&job.output, &prefab.file),
        bytes: text.into_bytes(),
        places: sub.prefabs,
        warnings: sub.warnings,
    }))
}

/// One VMAP file as VMF text.
fn vmf_text(path: &Path, instances: InstancePaths) -> Result<(String, ToVmfReport), DriverError> {
    let vmap = srcmap_vmap::Vmap::read(&read(path)?).map_err(|e| failed(path, e.into()))?;
    let opts = srcmap_mapconv::ToVmfOptions { instances };
    srcmap_mapconv::vmap_to_vmf_with(&vmap, &opts).map_err(|e| failed(path, e))
}

/// A prefab's VMAP: under the content root by its target, else beside the map by the
/// instance file's path (as `.vmap`), else by its target or its bare name beside the map.
fn find_prefab(map: &Path, prefab: &PrefabFile, paths: &InstancePaths) -> Option<PathBuf> {
    let folder = map.parent().unwrap_or(Path::new(""));
    let target = prefab.target.replace('\\', "/");
    let name = Path::new(&target).file_name()?.to_owned();
    let relative = with_extension(&paths.instance_file(&paths.file(&target)), ".vmf", ".vmap");
    let candidates = [
        content_root(map).map(|r| r.join(&target)),
        Some(folder.join(relative)),
        Some(folder.join(&target)),
        Some(folder.join(name)),
    ];
    candidates.into_iter().flatten().find(|p| p.is_file())
}

fn failed(path: &Path, error: srcmap_mapconv::MapconvError) -> DriverError {
    DriverError::Mapconv {
        path: path.to_path_buf(),
        error: Box::new(error),
    }
}
