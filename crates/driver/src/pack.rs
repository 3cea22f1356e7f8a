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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::messages::NoMessages;

    fn temp(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("srcmap-driver-pack-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("content/materials/a")).unwrap();
        dir
    }

    /// A map whose one brush material is `a/one`.
    fn map() -> Vec<u8> {
        let mut bsp = srcmap_bsp::Bsp::new(20);
        let name_id = bsp.add_texdata_name("a/one");
        bsp.texdata.push(srcmap_bsp::TexData {
            name_id,
            ..Default::default()
        });
        bsp.entities = vec![srcmap_bsp::Entity::from_pairs(&[("classname", "worldspawn")])];
        bsp.to_bytes().unwrap()
    }

    #[test]
    fn a_refused_pack_leaves_the_map_as_it_was_and_a_good_one_edits_it_in_place() {
        let dir = temp("inplace");
        let bsp = dir.join("m.bsp");
        std::fs::write(&bsp, map()).unwrap();
        let materials = dir.join("content/materials/a");
        std::fs::write(materials.join("one.vmt"), "patch { include materials/a/two.vmt }").unwrap();
        std::fs::write(materials.join("two.vmt"), "patch { include materials/a/one.vmt }").unwrap();
        let job = PackJob {
            map: bsp.clone(),
            content: vec![dir.join("content")],
            ..PackJob::default()
        };
        let err = pack(&job, &NoMessages).unwrap_err().to_string();
        assert!(err.contains("reference loop") && err.contains("m.bsp"), "{err}");
        assert_eq!(std::fs::read(&bsp).unwrap(), map());
        std::fs::write(materials.join("two.vmt"), "LightmappedGeneric { }").unwrap();
        let dry = pack(
            &PackJob {
                dry_run: true,
                ..job.clone()
            },
            &NoMessages,
        )
        .unwrap();
        assert_eq!((dry.written, dry.plan.files.len()), (None, 2));
        assert_eq!(std::fs::read(&bsp).unwrap(), map());
        let report = pack(&job, &NoMessages).unwrap();
        assert_eq!(report.written.as_deref(), Some(bsp.as_path()));
        assert!(std::fs::read(&bsp).unwrap().len() > map().len());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn compile_with_pack_packs_the_custom_chair() {
        let Some(corpus) = std::env::var_os("SRCMAP_CORPUS").map(PathBuf::from) else {
            eprintln!("skipped compile --pack test: SRCMAP_CORPUS is not set");
            return;
        };
        let dir = temp("compile");
        let vmf = dir.join("test_chapter1.vmf");
        std::fs::copy(corpus.join("vmf/kane8kki+whohl2mod/test_chapter1.vmf"), &vmf).unwrap();
        let job = CompileJob {
            vbsp: crate::VbspJob {
                map: vmf,
                quiet: true,
                ..Default::default()
            },
            ..CompileJob::default()
        };
        let pack_job = PackJob {
            content: vec![corpus.join("model/kane8kki+whohl2mod")],
            ..PackJob::default()
        };
        let quiet = srcmap_stage::NoProgress;
        let progress = CompileProgress {
            vbsp: &quiet,
            vvis: &quiet,
            vrad: &quiet,
        };
        let (_, report) = compile_and_pack(&job, &pack_job, &progress, &NoMessages).unwrap();
        let names: Vec<&str> = report.plan.files.iter().map(|f| f.name.as_str()).collect();
        let stem = "models/bluechaire/bluewoodnchair";
        for ext in [".mdl", ".vvd", ".dx90.vtx", ".dx80.vtx", ".sw.vtx", ".phy"] {
            assert!(
                names.contains(&format!("{stem}{ext}").as_str()),
                "{ext}: {names:?}"
            );
        }
        let bytes = std::fs::read(dir.join("test_chapter1.bsp")).unwrap();
        let file = srcmap_bsp::BspFile::parse(&bytes).unwrap();
        let lump = srcmap_bsp::pak::pak_lump(&file).unwrap();
        let zip = srcmap_bsp::pak::Pak::of_lump(&file, &lump).unwrap();
        let mdl = zip.find(&format!("{stem}.mdl")).unwrap();
        let original = std::fs::read(corpus.join(format!("model/kane8kki+whohl2mod/{stem}.mdl"))).unwrap();
        assert_eq!(zip.read(mdl).unwrap(), original);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
