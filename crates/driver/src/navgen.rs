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

/// Runs the job: nothing is written unless the whole mesh is made.
pub fn navgen(job: &NavgenJob, progress: &dyn Progress) -> Result<NavgenRun, DriverError> {
    let started = Instant::now();
    let out = job.out_path();
    refuse_overwriting(&job.bsp, &out)?;
    let bytes = read(&job.bsp)?;
    let bsp = srcmap_bsp::Bsp::parse(&bytes).map_err(|e| bsp_error(&job.bsp, e))?;
    let game = job.game(&bsp)?;
    let (builder, solids) = srcmap_hull::from_bsp(&bsp);
    let world = builder.build();
    let options = Options {
        game,
        bsp_size: u32::try_from(bytes.len()).unwrap_or(u32::MAX),
        mask: game.trace_mask(),
    };
    let generated = srcmap_navgen::generate(&bsp, &world, &options, progress).map_err(|e| job.error(e))?;
    let nav = generated.mesh.write().map_err(|e| DriverError::Navgen {
        map: job.bsp.clone(),
        error: Box::new(srcmap_navgen::NavgenError::Write(e)),
    })?;
    write_output(&out, &nav)?;
    let mut report = generated.report;
    report.set("brushes", solids.brushes as f64);
    report.set("displacement_triangles", solids.displacement_triangles as f64);
    report.time("total", started.elapsed());
    Ok(NavgenRun {
        report,
        output: out,
        game,
        seconds: started.elapsed().as_secs_f64(),
    })
}

fn bsp_error(path: &Path, error: srcmap_bsp::BspError) -> DriverError {
    DriverError::Bsp {
        path: path.to_path_buf(),
        error: Box::new(error),
    }
}
