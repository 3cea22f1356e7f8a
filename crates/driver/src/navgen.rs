//! `srcmap nav generate`: a BSP read, its collision world built, the navigation mesh generated
//! for the game (`--target`, else `-game`'s gameinfo.txt, else told by the map's spawn entities)
//! and written all or none.

use std::path::{Path, PathBuf};
use std::time::Instant;

use srcmap_navgen::{Game, Options};
use srcmap_stage::{Progress, Report};

use crate::error::DriverError;
use crate::files::{read, refuse_overwriting, write_output};

/// What to generate.
#[derive(Debug, Clone, Default)]
pub struct NavgenJob {
    pub bsp: PathBuf,
    /// Default: the BSP's path with `.nav`.
    pub output: Option<PathBuf>,
    pub game_dir: Option<PathBuf>,
    /// A game name (`cstrike`, `csgo`, `tf`, `gmod`...).
    pub target: Option<String>,
    /// Also analyse the mesh (hiding spots, sniper classes), as `nav_analyze` does.
    pub analyze: bool,
    /// With `analyze`: light intensities from the lightmaps instead of 1.0 (what SDK 2013's
    /// servers write).
    pub lightmaps: bool,
}

/// What a run did.
#[derive(Debug, Clone)]
pub struct NavgenRun {
    pub report: Report,
    pub output: PathBuf,
    pub game: Game,
    pub seconds: f64,
}

impl NavgenJob {
    pub fn out_path(&self) -> PathBuf {
        self.output
            .clone()
            .unwrap_or_else(|| self.bsp.with_extension("nav"))
    }

    fn error(&self, error: srcmap_navgen::NavgenError) -> DriverError {
        DriverError::Navgen {
            map: self.bsp.clone(),
            error: Box::new(error),
        }
    }

    /// The game: a name srcmap's navigation generator knows, else the compile targets' (and
    /// their gameinfo.txt reading), else the map's own spawn entities.
    fn game(&self, bsp: &srcmap_bsp::Bsp) -> Result<Game, DriverError> {
        if let Some(game) = self.target.as_deref().and_then(Game::from_name) {
            return Ok(game);
        }
        if self.target.is_none() && self.game_dir.is_none() {
            return Ok(Game::guess(bsp));
        }
        let chosen = crate::target::choose(self.game_dir.as_deref(), self.target.as_deref())?;
        Ok(Game::from_name(chosen.target.name).unwrap_or(Game::Base))
    }
}

impl NavgenJob {
    /// The collision world: the BSP's brushes and displacements, and the solid static props
    /// whose models are found.
    fn collision(
        &self,
        bsp: &srcmap_bsp::Bsp,
    ) -> Result<(srcmap_hull::World, srcmap_hull::BspSolids, PropSolids), DriverError> {
        let (mut builder, solids) = srcmap_hull::from_bsp(bsp);
        let game_dir = self
            .game_dir
            .as_deref()
            .map(srcmap_content::GameDir::open)
            .transpose()?;
        let props = add_props(bsp, game_dir.as_ref(), &mut builder);
        Ok((builder.build(), solids, props))
    }
}

/// The solids' counts in the report, and a warning naming the props left out.
fn tell_solids(report: &mut Report, solids: srcmap_hull::BspSolids, props: &PropSolids) {
    report.set("brushes", solids.brushes as f64);
    report.set("displacement_triangles", solids.displacement_triangles as f64);
    report.set("solid_props", props.solid as f64);
    report.set("props_without_model", props.missing.len() as f64);
    if !props.missing.is_empty() {
        let message = format!(
            "{} solid static prop(s) whose model was not found (give --game DIR): {}; they do not block",
            props.missing.len(),
            props.missing_models().join(", ")
        );
        report
            .warnings
            .push(srcmap_stage::Warning::new("prop_model_missing", message));
    }
}

/// Runs the job: nothing is written unless the whole mesh is made.
pub fn navgen(job: &NavgenJob, progress: &dyn Progress) -> Result<NavgenRun, DriverError> {
    let started = Instant::now();
    let out = job.out_path();
    refuse_overwriting(&job.bsp, &out)?;
    let bytes = read(&job.bsp)?;
    let bsp = srcmap_bsp::Bsp::parse(&bytes).map_err(|e| bsp_error(&job.bsp, e))?;
    let game = job.game(&bsp)?;
    let (world, solids, props) = job.collision(&bsp)?;
    let options = Options {
        game,
        bsp_size: u32::try_from(bytes.len()).unwrap_or(u32::MAX),
        mask: game.trace_mask(),
        analyze: job.analyze,
        lightmaps: job.lightmaps,
    };
    let generated = srcmap_navgen::generate(&bsp, &world, &options, progress).map_err(|e| job.error(e))?;
    let nav = generated.mesh.write().map_err(|e| job.error(e.into()))?;
    write_output(&out, &nav)?;
    let mut report = generated.report;
    tell_solids(&mut report, solids, &props);
    report.time("total", started.elapsed());
    report.seconds = started.elapsed().as_secs_f64();
    Ok(NavgenRun {
        report,
        output: out,
        game,
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// Props collide as solid brushes do.
const CONTENTS_SOLID: u32 = 1;

/// The solid static props put into the collision world, and those left out for want of a model.
#[derive(Debug, Default)]
struct PropSolids {
    solid: usize,
    /// The model of each solid prop that could not be read.
    missing: Vec<String>,
}

impl PropSolids {
    /// Each missing model once, at most eight named.
    fn missing_models(&self) -> Vec<String> {
        let mut names = self.missing.clone();
        names.sort();
        names.dedup();
        names.truncate(8);
        names
    }
}

/// Static props with a solid type (bounding box or VPhysics) become boxes of their model's
/// collision hull bounds (`hull_min`/`hull_max`), turned as the prop is; the model is read from
/// the map's pakfile, else through the game folder.
fn add_props(
    bsp: &srcmap_bsp::Bsp,
    game: Option<&srcmap_content::GameDir>,
    builder: &mut srcmap_hull::WorldBuilder,
) -> PropSolids {
    let mut out = PropSolids::default();
    let Some(props) = bsp.game_lumps.static_props() else {
        return out;
    };
    let pak = srcmap_bsp::pak::Pak::parse(&bsp.pakfile, 0).ok();
    let mut bounds = std::collections::HashMap::new();
    for prop in props.props.iter().filter(|p| p.solid != 0) {
        let name = props
            .models
            .get(prop.prop_type as usize)
            .cloned()
            .unwrap_or_default();
        let hull = bounds
            .entry(name.clone())
            .or_insert_with(|| model_hull(&name, pak.as_ref(), game));
        let Some(hull) = *hull else {
            out.missing.push(name);
            continue;
        };
        let v = srcmap_hull::Vec3::from;
        builder.add_oriented_box(hull, v(prop.origin), v(prop.angles), CONTENTS_SOLID);
        out.solid += 1;
    }
    out
}

/// The collision bounds a model's header records, when the model can be read.
fn model_hull(
    name: &str,
    pak: Option<&srcmap_bsp::pak::Pak<'_>>,
    game: Option<&srcmap_content::GameDir>,
) -> Option<(srcmap_hull::Vec3, srcmap_hull::Vec3)> {
    let path = srcmap_model::normalise(name.trim_start_matches("./"));
    let from_pak = pak.and_then(|p| p.find(&path).and_then(|e| p.read(e).ok()));
    let bytes = from_pak.or_else(|| game.and_then(|g| g.read(&path).ok().flatten()))?;
    let mdl = srcmap_model::Mdl::parse(&bytes).ok()?;
    let (lo, hi) = (
        srcmap_hull::Vec3::from(mdl.hull_min),
        srcmap_hull::Vec3::from(mdl.hull_max),
    );
    (lo.cmplt(hi).all()).then_some((lo, hi))
}

fn bsp_error(path: &Path, error: srcmap_bsp::BspError) -> DriverError {
    DriverError::Bsp {
        path: path.to_path_buf(),
        error: Box::new(error),
    }
}
