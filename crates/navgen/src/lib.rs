//! Generates a bots' navigation mesh from a compiled map, offline, the way the game's
//! `nav_generate` does (Valve's `nav_generate.cpp`, read for behaviour):
//!
//! 1. **seeds** — the game's spawn points, each dropped to the floor and put on the 25-unit grid;
//! 2. **sampling** (`sample`) — a depth-first flood over the grid with swept-box traces
//!    ([`srcmap_hull`]): steps up to 18 units, climbs onto obstacles up to the game's climb
//!    height, drops to the floor below, skips sky and boxed-in spots, and records for each node
//!    which corner quadrants have standing or only crouching room; then again from the ladders'
//!    ends;
//! 3. **areas** (`areas`) — greedy rectangles of closed, flat, equally crouched cells, 50×50
//!    down to 1×1; **merging** (`merge`) of neighbours sharing a whole edge in one plane;
//!    **squaring up** (`square`): long thin areas halved until roughly square;
//! 4. **connections** (`connect`) from the sample links, one-way where the sampler dropped;
//! 5. **ladders** (`ladders`) from `info_ladder`/`func_simpleladder` volumes, joined to the
//!    areas at their bottom and over their top, the top found through the game's area grid
//!    (`grid`);
//! 6. with [`Options::analyze`], the **analysis**: hiding spots (`hiding`), and for games whose
//!    analysis has them sniper classes and encounter paths (`encounter`) and earliest occupy
//!    times (`occupy`, over `paths`); visibility between
//!    areas (`visibility`, culled by the BSP's PVS, `pvs`) for the v16 games; light intensity
//!    from the lightmaps (`light`) when asked.
//!
//! Jump areas (`jump`) are marked before merging; with SDK 2013's generator, after connecting,
//! areas under overhangs are split (`overhang`), stairs marked (`stairs`) and the jump areas
//! stitched over and removed.
//!
//! The mesh is returned as a [`srcmap_nav::NavMesh`] in the game's version and sub-version
//! ([`Game::format`]). Not done (yet): obstacle tops, corner-on-corner
//! fixes; places stay empty (Source 1 maps do not name them).

pub mod areas;
pub mod attributes;
pub mod connect;
pub mod encounter;
pub mod game;
pub mod grid;
pub mod hiding;
pub mod jump;
pub mod ladders;
pub mod light;
pub mod merge;
pub mod mesh;
pub mod nodes;
pub mod occupy;
pub mod overhang;
pub mod paths;
pub mod pvs;
pub mod sample;
pub mod search;
pub mod square;
pub mod stairs;
pub mod visibility;

use std::time::Instant;

use glam::Vec3;
use srcmap_bsp::Bsp;
use srcmap_hull::World;
use srcmap_nav::NavMesh;
use srcmap_stage::{Progress, Report, Unit};

pub use game::Game;

/// Why no mesh was made.
#[derive(Debug, thiserror::Error)]
pub enum NavgenError {
    #[error("no spawn point: the map has no {classes} entity to start sampling from")]
    NoSpawnPoint { classes: String },
    #[error("empty world: the map has no solid brushes")]
    EmptyWorld,
    #[error("the map leaked (vbsp wrote no portal file): its outside would be walked; fix the leak first")]
    Leaked,
    #[error("no floor under any spawn point within {drop} units")]
    NoGround { drop: f32 },
    #[error("sampling found no walkable area around the spawn points")]
    NoAreas,
    #[error("writing the mesh: {0}")]
    Write(#[from] srcmap_nav::NavError),
}

/// What to generate for.
#[derive(Debug, Clone, Copy)]
pub struct Options {
    pub game: Game,
    /// The BSP file's size, stored in the mesh to tie it to this build.
    pub bsp_size: u32,
    /// Solid contents for generation (Valve's `MASK_NPCSOLID_BRUSHONLY`).
    pub mask: u32,
    /// Run the analysis: hiding spots (and, for games whose analysis does, sniper classes).
    pub analyze: bool,
    /// Light intensities from the map's lightmaps (as a listen server of a game that computes
    /// them would), instead of the 1.0 every corpus file has (SDK 2013's servers write it).
    pub lightmaps: bool,
}

/// The mesh and how it was made.
#[derive(Debug, Clone)]
pub struct Generated {
    pub mesh: NavMesh,
    pub report: Report,
}

/// Generates the mesh of `bsp` against the solids of `world` (built from the same map).
pub fn generate(
    bsp: &Bsp,
    world: &World,
    options: &Options,
    progress: &dyn Progress,
) -> Result<Generated, NavgenError> {
    check_input(bsp, world)?;
    let mut report = Report::new("navgen");
    let space = sample::Space {
        world,
        mask: options.mask,
        heights: options.game.heights(),
    };
    let seeds = seeds(bsp, &space, options.game)?;
    let ladder_space = sample::Space {
        mask: options.game.line_mask(),
        ..space
    };
    let mut ladders: Vec<ladders::Ladder> = ladders::volumes(bsp)
        .into_iter()
        .map(|v| ladders::create(&ladder_space, v))
        .collect();
    let mut clock = Instant::now();
    progress.start("sampling", 0, Unit::Steps);
    let mut sampler = sample::Sampler::new(&space, seeds);
    sampler.run(&ladders::ends(&ladders));
    let mut graph = sampler.graph;
    lap(&mut report, &mut clock, "sampling", progress);
    progress.start("areas", 0, Unit::Steps);
    let (areas, links) = build_areas(&space, options.game, &mut graph)?;
    let grid = grid::AreaGrid::new(areas.iter().map(|a| (a.min, a.max)));
    for ladder in &mut ladders {
        ladders::connect(&ladder_space, ladder, &areas, &grid);
    }
    lap(&mut report, &mut clock, "areas", progress);
    report.set("nodes", graph.nodes.len() as f64);
    let analysis = options.analyze.then(|| {
        let space = sample::Space {
            mask: options.game.analysis_mask(),
            ..space
        };
        analyze(bsp, &space, options, (&areas, &links), &ladders, progress)
    });
    if analysis.is_some() {
        lap(&mut report, &mut clock, "analysis", progress);
    }
    let parts = mesh::Parts {
        areas: &areas,
        links: &links,
        ladders: &ladders,
        analysis: analysis.as_ref(),
    };
    let mesh = mesh::to_mesh(options.game, options.bsp_size, &parts);
    count(&mut report, &mesh);
    Ok(Generated { mesh, report })
}

/// The analysis: hiding spots, then their sniper classes and the encounter paths where the
/// game's analysis has them; visibility between areas where the game's file has it (v16);
/// light intensities from the lightmaps when asked.
fn analyze(
    bsp: &Bsp,
    space: &sample::Space<'_>,
    options: &Options,
    (areas, links): (&[areas::Area], &[connect::Links]),
    ladders: &[ladders::Ladder],
    progress: &dyn Progress,
) -> mesh::Analysis {
    progress.start("analysis", 0, Unit::Steps);
    let pvs = pvs::Pvs::new(bsp);
    let mut spots = hiding::hiding_spots(space, areas, links);
    let mut encounters = Vec::new();
    if let Some(eye) = options.game.full_analysis_eye() {
        hiding::classify_snipers(space, &pvs, areas, &mut spots, eye);
        let eyes = encounter::Eyes {
            space,
            pvs: &pvs,
            height: eye,
        };
        encounters = encounter::encounters(&eyes, areas, links, &spots);
    }
    let visibility = options
        .game
        .has_visibility()
        .then(|| visibility::visibility(space, &pvs, areas, links));
    let light = options.lightmaps.then(|| {
        let maps = light::Lightmaps::new(bsp);
        areas.iter().map(|a| maps.area(a)).collect()
    });
    let ways = paths::ways(links, ladders);
    let occupy = team_analysis(bsp, options.game, areas, &ways);
    mesh::Analysis {
        spots,
        encounters,
        visibility,
        light,
        occupy,
    }
}

/// Counter-Strike's earliest occupy times: CS:S computes them; SDK 2013's CS:GO analysis saves
/// quickly, every area at the latest time; other games write 0. (Approach areas are not
/// computed: the only reference for them is Counter-Strike's own code, outside SDK 2013.)
fn team_analysis(
    bsp: &Bsp,
    game: Game,
    areas: &[areas::Area],
    ways: &[Vec<paths::Way>],
) -> Option<Vec<[f32; 2]>> {
    match game {
        Game::CounterStrike => {
            let spawns = [0, 1].map(|team| spawn_origins(bsp, &game.spawn_classes()[team..=team]));
            Some(occupy::earliest_occupy_times(
                areas,
                ways,
                [&spawns[0], &spawns[1]],
            ))
        }
        Game::CsGo => Some(vec![[occupy::LATEST; 2]; areas.len()]),
        _ => None,
    }
}

/// Areas from the samples: built, jump areas marked, merged, squared up, each node marked with
/// its area; then connected; with SDK 2013's generator, stairs marked and the jump areas
/// stitched over and removed.
fn build_areas(
    space: &sample::Space<'_>,
    game: Game,
    graph: &mut nodes::Graph,
) -> Result<(Vec<areas::Area>, Vec<connect::Links>), NavgenError> {
    let mut areas = areas::build(graph);
    jump::mark(space, &mut areas, game.jump_attributes());
    merge::merge(&mut areas);
    square::square_up(&mut areas, graph);
    merge::renumber(&areas, graph);
    let mut links = connect::connect(space, &areas, graph);
    if game.is_sdk_2013() {
        let connect = |areas: &[areas::Area], graph: &nodes::Graph| connect::connect(space, areas, graph);
        overhang::split_under_overhangs(&mut areas, &mut links, graph, connect);
        stairs::mark(space, &mut areas);
        (areas, links) = jump::stitch_and_remove(areas, links);
    }
    if areas.is_empty() {
        return Err(NavgenError::NoAreas);
    }
    Ok((areas, links))
}

fn check_input(bsp: &Bsp, world: &World) -> Result<(), NavgenError> {
    use srcmap_bsp::state::{LeakState, MapState};
    if matches!(MapState::of(bsp).leak, LeakState::Leaked | LeakState::Unfilled) {
        return Err(NavgenError::Leaked);
    }
    if world.solid_count() == 0 {
        return Err(NavgenError::EmptyWorld);
    }
    Ok(())
}

/// The spawn points on their floor, on the grid, with the floor's normal.
fn seeds(bsp: &Bsp, space: &sample::Space<'_>, game: Game) -> Result<Vec<(Vec3, Vec3)>, NavgenError> {
    let classes = game.spawn_classes();
    let origins = spawn_origins(bsp, classes);
    if origins.is_empty() {
        return Err(NavgenError::NoSpawnPoint {
            classes: classes.join(" or "),
        });
    }
    let seeds: Vec<(Vec3, Vec3)> = origins
        .iter()
        .filter_map(|&o| space.ground_for_seed(o))
        .map(|t| {
            (
                Vec3::new(sample::snap(t.end.x), sample::snap(t.end.y), t.end.z),
                t.normal,
            )
        })
        .collect();
    if seeds.is_empty() {
        return Err(NavgenError::NoGround {
            drop: space.heights.death_drop,
        });
    }
    Ok(seeds)
}

/// The origins of the entities of `classes`.
fn spawn_origins(bsp: &Bsp, classes: &[&str]) -> Vec<Vec3> {
    bsp.entities
        .iter()
        .filter(|e| e.classname().is_some_and(|c| classes.contains(&c)))
        .filter_map(|e| e.get("origin").and_then(srcmap_kv::values::vector))
        .map(|o| Vec3::from(o.map(|v| v as f32)))
        .collect()
}

fn lap(report: &mut Report, clock: &mut Instant, phase: &str, progress: &dyn Progress) {
    report.time(phase, clock.elapsed());
    *clock = Instant::now();
    progress.finish();
}

fn count(report: &mut Report, mesh: &NavMesh) {
    report.set("areas", mesh.areas.len() as f64);
    let spots: usize = mesh.areas.iter().map(|a| a.hiding_spots.len()).sum();
    report.set("hiding_spots", spots as f64);
    let paths: usize = mesh.areas.iter().map(|a| a.encounter_paths.len()).sum();
    report.set("encounter_paths", paths as f64);
    report.set("ladders", mesh.ladders.as_ref().map_or(0, Vec::len) as f64);
    let connections: usize = mesh
        .areas
        .iter()
        .map(|a| a.connections.iter().map(Vec::len).sum::<usize>())
        .sum();
    report.set("connections", connections as f64);
}
