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

/// The collision world of `bsp`: its brushes and displacements, and the solid static props
/// whose models are found in its pakfile or through `game_dir`.
pub fn collision_world(
    bsp: &srcmap_bsp::Bsp,
    game_dir: Option<&Path>,
) -> Result<(srcmap_hull::World, srcmap_hull::BspSolids, PropSolids), DriverError> {
    let (mut builder, solids) = srcmap_hull::from_bsp(bsp);
    let game = game_dir.map(srcmap_content::GameDir::open).transpose()?;
    let props = add_props(bsp, game.as_ref(), &mut builder);
    Ok((builder.build(), solids, props))
}

/// The solids' counts in the report, and warnings naming the props left out and the `solid` 6
/// props that collide as boxes for want of a readable `.phy`.
fn tell_solids(report: &mut Report, solids: srcmap_hull::BspSolids, props: &PropSolids) {
    report.set("brushes", solids.brushes as f64);
    report.set("displacement_triangles", solids.displacement_triangles as f64);
    report.set("solid_props", (props.boxes + props.phy) as f64);
    report.set("props_as_boxes", props.boxes as f64);
    report.set("props_as_phy", props.phy as f64);
    report.set("prop_phy_pieces", props.phy_pieces as f64);
    report.set("props_without_model", props.missing.len() as f64);
    report.set("props_without_phy", props.without_phy.len() as f64);
    if !props.missing.is_empty() {
        let message = format!(
            "{} solid static prop(s) whose model was not found (give --game DIR): {}; they do not block",
            props.missing.len(),
            first_eight(&props.missing).join(", ")
        );
        report
            .warnings
            .push(srcmap_stage::Warning::new("prop_model_missing", message));
    }
    if !props.without_phy.is_empty() {
        let message = format!(
            "{} static prop(s) with solid 6 (VPhysics) collide as their model's box: {}",
            props.without_phy.len(),
            first_eight(&props.without_phy).join("; ")
        );
        report
            .warnings
            .push(srcmap_stage::Warning::new("prop_phy_unusable", message));
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
    let (world, solids, props) = collision_world(&bsp, job.game_dir.as_deref())?;
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

/// `solid` 6: the prop collides by its model's VPhysics solid (`.phy`).
const SOLID_VPHYSICS: u8 = 6;

/// Hammer units per IVP metre (the inverse of Valve's `METERS_PER_INCH`, 0.0254).
const UNITS_PER_METRE: f32 = 1.0 / 0.0254;

/// The solid static props put into the collision world, and those left out for want of a model.
#[derive(Debug, Default)]
pub struct PropSolids {
    /// Props added as their model's collision box (`solid` 2, or 6 without a usable `.phy`).
    pub boxes: usize,
    /// Props added as the convex pieces of their `.phy`'s first solid.
    pub phy: usize,
    /// The convex pieces those props added.
    pub phy_pieces: usize,
    /// The model of each solid prop that could not be read.
    pub missing: Vec<String>,
    /// Each `solid` 6 prop added as a box: its model and why its `.phy` did not serve
    /// ("models/x.mdl: its .phy is missing").
    pub without_phy: Vec<String>,
}

/// Each entry once, sorted, at most eight.
fn first_eight(entries: &[String]) -> Vec<String> {
    let mut names = entries.to_vec();
    names.sort();
    names.dedup();
    names.truncate(8);
    names
}

/// The convex pieces of a `.phy`, each as triangles in the model's frame.
type Pieces = Vec<Vec<[srcmap_hull::Vec3; 3]>>;

/// A model's collision as read once for all its props: its header's hull bounds, and for
/// `solid` 6 the convex pieces of its `.phy` or why there are none (none asked otherwise).
#[derive(Debug, Clone)]
struct ModelShape {
    hull: (srcmap_hull::Vec3, srcmap_hull::Vec3),
    pieces: Result<Pieces, String>,
}

/// Where models are read from: the map's pakfile, else the game folder.
struct ModelFiles<'a> {
    pak: Option<srcmap_bsp::pak::Pak<'a>>,
    game: Option<&'a srcmap_content::GameDir>,
}

impl ModelFiles<'_> {
    fn read(&self, path: &str) -> Option<Vec<u8>> {
        let from_pak = self
            .pak
            .as_ref()
            .and_then(|p| p.find(path).and_then(|e| p.read(e).ok()));
        from_pak.or_else(|| self.game.and_then(|g| g.read(path).ok().flatten()))
    }

    /// The model's collision, when its `.mdl` can be read; its `.phy` is read for `solid` 6.
    fn shape(&self, name: &str, vphysics: bool) -> Option<ModelShape> {
        let path = srcmap_model::normalise(name.trim_start_matches("./"));
        let mdl = srcmap_model::Mdl::parse(&self.read(&path)?).ok()?;
        let (lo, hi) = (
            srcmap_hull::Vec3::from(mdl.hull_min),
            srcmap_hull::Vec3::from(mdl.hull_max),
        );
        let pieces = match vphysics {
            true => self.phy_pieces(&path),
            false => Ok(Vec::new()),
        };
        (lo.cmplt(hi).all()).then_some(ModelShape {
            hull: (lo, hi),
            pieces,
        })
    }

    /// The convex pieces of the `.phy` beside the model `mdl`, or why there are none.
    fn phy_pieces(&self, mdl: &str) -> Result<Pieces, String> {
        let path = phy_path(mdl);
        let bytes = self
            .read(&path)
            .ok_or_else(|| format!("{mdl}: its .phy is missing"))?;
        phy_pieces(&bytes).map_err(|why| format!("{mdl}: {path} is unreadable ({why})"))
    }
}

/// The `.phy` beside a `.mdl`.
fn phy_path(mdl: &str) -> String {
    let stem = mdl.strip_suffix(".mdl").unwrap_or(mdl);
    format!("{stem}.phy")
}

/// The convex pieces of a `.phy`'s first solid, as triangles in the model's frame (Hammer
/// units), or why none can be read.
fn phy_pieces(bytes: &[u8]) -> Result<Pieces, String> {
    let phy = srcmap_phys::PhyFile::parse(bytes).map_err(|e| e.to_string())?;
    let surface = phy
        .solids
        .first()
        .and_then(|s| s.surface())
        .ok_or("its first solid is not a compact surface")?;
    let mut ledges: Vec<&srcmap_phys::Ledge> = surface.terminal_ledges().collect();
    if ledges.is_empty() {
        // A surface without a ledge tree (MOPP) keeps its pieces as plain ledges.
        ledges = surface.ledges.iter().collect();
    }
    let pieces: Pieces = ledges
        .iter()
        .filter_map(|l| ledge_triangles(surface, l))
        .collect();
    match pieces.is_empty() {
        true => Err("no convex piece in its first solid".into()),
        false => Ok(pieces),
    }
}

/// A ledge's triangles with their corners in Hammer units; none if a corner is missing.
fn ledge_triangles(
    surface: &srcmap_phys::CompactSurface,
    ledge: &srcmap_phys::Ledge,
) -> Option<Vec<[srcmap_hull::Vec3; 3]>> {
    let corner = |e: &srcmap_phys::Edge| surface.ledge_point(ledge, e.start_point_index).map(from_ivp);
    ledge
        .triangles
        .iter()
        .map(|t| Some([corner(&t.edges[0])?, corner(&t.edges[1])?, corner(&t.edges[2])?]))
        .collect()
}

/// An IVP point (metres, y down, z forward: Valve's `ConvertPositionToIVP` swaps and negates
/// Hammer's y and z) in Hammer units.
fn from_ivp([x, y, z]: [f32; 3]) -> srcmap_hull::Vec3 {
    srcmap_hull::Vec3::new(x, z, -y) * UNITS_PER_METRE
}

/// Static props with a solid type become collision solids, turned and placed as the prop is:
/// with `solid` 6 the convex pieces of the model's `.phy`, else (or without a `.phy`) a box of
/// the model's collision hull bounds (`hull_min`/`hull_max`). Models are read from the map's
/// pakfile, else through the game folder.
fn add_props(
    bsp: &srcmap_bsp::Bsp,
    game: Option<&srcmap_content::GameDir>,
    builder: &mut srcmap_hull::WorldBuilder,
) -> PropSolids {
    let mut out = PropSolids::default();
    let Some(props) = bsp.game_lumps.static_props() else {
        return out;
    };
    let files = ModelFiles {
        pak: srcmap_bsp::pak::Pak::parse(&bsp.pakfile, 0).ok(),
        game,
    };
    let mut shapes = std::collections::HashMap::new();
    for prop in props.props.iter().filter(|p| p.solid != 0) {
        let name = props
            .models
            .get(prop.prop_type as usize)
            .cloned()
            .unwrap_or_default();
        let vphysics = prop.solid == SOLID_VPHYSICS;
        let shape = shapes
            .entry((name.clone(), vphysics))
            .or_insert_with(|| files.shape(&name, vphysics));
        match shape {
            Some(shape) => add_prop(builder, (&name, shape), prop, &mut out),
            None => out.missing.push(name),
        }
    }
    out
}

/// One prop's solids: its `.phy` pieces when it has them, else its box (and for `solid` 6,
/// why the `.phy` did not serve).
fn add_prop(
    builder: &mut srcmap_hull::WorldBuilder,
    (name, shape): (&str, &ModelShape),
    prop: &srcmap_bsp::gamelump::StaticProp,
    out: &mut PropSolids,
) {
    let v = srcmap_hull::Vec3::from;
    let (origin, angles) = (v(prop.origin), v(prop.angles));
    let axes = srcmap_hull::world::axes_of(angles);
    let place = |p: srcmap_hull::Vec3| origin + axes[0] * p.x + axes[1] * p.y + axes[2] * p.z;
    let pieces = shape.pieces.as_deref().unwrap_or_default();
    let added = pieces
        .iter()
        .map(|piece| piece.iter().map(|t| t.map(place)).collect::<Vec<_>>())
        .filter(|placed| builder.add_convex_triangles(placed, CONTENTS_SOLID))
        .count();
    if added > 0 {
        out.phy += 1;
        out.phy_pieces += added;
        return;
    }
    builder.add_oriented_box(shape.hull, origin, angles, CONTENTS_SOLID);
    out.boxes += 1;
    match &shape.pieces {
        Err(why) => out.without_phy.push(why.clone()),
        Ok(p) if !p.is_empty() => out.without_phy.push(format!(
            "{name}: no piece of its .phy has four faces with an area"
        )),
        Ok(_) => {}
    }
}

fn bsp_error(path: &Path, error: srcmap_bsp::BspError) -> DriverError {
    DriverError::Bsp {
        path: path.to_path_buf(),
        error: Box::new(error),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_truncated_phy_gives_no_pieces_and_says_where_it_ends() {
        // A header for one solid, then a solid that says it holds 200 bytes but ends after 12.
        let mut bytes: Vec<u8> = [16i32, 0, 1, 0, 200]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        bytes.extend_from_slice(b"VPHY\0\x01\0\0\0\0\0\0");
        let why = phy_pieces(&bytes).unwrap_err();
        assert!(why.contains("solid 0"), "{why}");
        let files = ModelFiles {
            pak: None,
            game: None,
        };
        let missing = files.phy_pieces("models/x.mdl").unwrap_err();
        assert_eq!(missing, "models/x.mdl: its .phy is missing");
    }
}
