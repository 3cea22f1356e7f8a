//! `info`, `convert` and `nav` subcommands for NAV files.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::json;
use srcmap_nav::{NavError, NavMesh, NavStats};

#[derive(Debug, clap::Subcommand)]
pub enum NavCommand {
    /// Per-place and per-attribute counts and bounds of a NAV file.
    Info {
        file: PathBuf,
        /// Print a JSON report instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Generate the bots' navigation mesh of a BSP, offline (as the game's nav_generate).
    Generate(GenerateArgs),
}

#[derive(Debug, clap::Args)]
pub struct GenerateArgs {
    pub bsp: PathBuf,
    /// Where to write the mesh (default: MAP.nav beside the BSP).
    #[arg(long, short)]
    pub output: Option<PathBuf>,
    /// Game directory (Valve's -game): its gameinfo.txt names the game.
    #[arg(long)]
    pub game: Option<PathBuf>,
    /// The game to generate for: cstrike (NAV v9), csgo (v16/1), tf (v16/2), gmod (v16/0).
    #[arg(long)]
    pub target: Option<String>,
    /// Also analyse the mesh: hiding spots (and sniper spots for cstrike), as nav_analyze does.
    #[arg(long)]
    pub analyze: bool,
    /// With --analyze: each area corner's light intensity from the map's lightmaps (default
    /// 1.0, as the game's servers write).
    #[arg(long)]
    pub lightmaps: bool,
    /// No progress output.
    #[arg(long, short)]
    pub quiet: bool,
    /// Print the run's report as JSON.
    #[arg(long)]
    pub json: bool,
}

/// `nav generate`: the job run, then its summary (or the JSON report).
fn generate(args: GenerateArgs) -> anyhow::Result<()> {
    let job = srcmap_driver::NavgenJob {
        bsp: args.bsp,
        output: args.output,
        game_dir: args.game,
        target: args.target,
        analyze: args.analyze,
        lightmaps: args.lightmaps,
    };
    let progress = crate::progress::Bar::new(args.quiet || args.json);
    let run = srcmap_driver::navgen(&job, &progress)?;
    if args.json {
        return crate::output::print_json(&run.report);
    }
    if !args.quiet {
        let r = &run.report;
        for w in &r.warnings {
            eprintln!("warning: {}", w.message);
        }
        eprintln!(
            "{}: {} areas, {} ladders, {} connections ({}, {} nodes) in {:.2} s",
            run.output.display(),
            r.count("areas"),
            r.count("ladders"),
            r.count("connections"),
            run.game.name(),
            r.count("nodes"),
            run.seconds
        );
    }
    Ok(())
}

/// Reads a NAV file, naming the file and the byte offset in any error.
fn load(path: &Path, data: &[u8]) -> anyhow::Result<NavMesh> {
    // NAV errors already say "at byte N" where there is an offset.
    NavMesh::read(data).map_err(|e: NavError| anyhow::anyhow!("{}: {e}", path.display()))
}

fn fmt3(v: [f32; 3]) -> String {
    format!("({} {} {})", v[0], v[1], v[2])
}

fn summary_json(path: &Path, mesh: &NavMesh, s: &NavStats, detail: bool) -> serde_json::Value {
    let bounds = s.bounds.map(|(lo, hi)| json!({ "min": lo, "max": hi }));
    let mut v = json!({
        "file": path.display().to_string(),
        "format": "nav",
        "version": mesh.version,
        "sub_version": mesh.sub_version,
        "layout": mesh.layout.name(),
        "bsp_size": mesh.bsp_size,
        "is_analyzed": mesh.is_analyzed,
        "areas": s.areas,
        "ladders": s.ladders,
        "places": s.places,
        "connections": s.connections,
        "hiding_spots": s.hiding_spots,
        "encounter_paths": s.encounter_paths,
        "approaches": s.approaches,
        "visible_area_entries": s.visible_area_entries,
        "bounds": bounds,
        "post_mesh_bytes": mesh.post_mesh_data.len(),
    });
    if detail {
        add_detail_json(&mut v, s);
    }
    v
}

/// `nav stats`' per-place and per-attribute lists in the JSON report.
fn add_detail_json(v: &mut serde_json::Value, s: &NavStats) {
    v["per_place"] = s
        .per_place
        .iter()
        .map(|p| json!({ "place": p.place, "areas": p.areas, "min": p.min, "max": p.max }))
        .collect();
    v["per_attribute"] = s
        .per_attribute
        .iter()
        .map(|a| json!({ "bit": a.bit, "name": a.name, "areas": a.areas }))
        .collect();
    v["per_game_attribute"] = s
        .per_game_attribute
        .iter()
        .map(|a| json!({ "bit": a.bit, "name": a.name, "areas": a.areas }))
        .collect();
}

fn print_text(path: &Path, mesh: &NavMesh, s: &NavStats, detail: bool) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    writeln!(out, "{}: NAV version {}", path.display(), mesh.version)?;
    print_header(&mut out, mesh)?;
    print_counts(&mut out, mesh, s)?;
    if detail {
        print_detail(&mut out, mesh, s)?;
    }
    Ok(())
}

/// The header fields the file's version has.
fn print_header(out: &mut impl Write, mesh: &NavMesh) -> std::io::Result<()> {
    if let Some(sub) = mesh.sub_version {
        writeln!(out, "  sub-version      {sub} (layout: {})", mesh.layout.name())?;
    }
    if let Some(b) = mesh.bsp_size {
        writeln!(out, "  bsp size         {b}")?;
    }
    if let Some(a) = mesh.is_analyzed {
        writeln!(out, "  analyzed         {}", a != 0)?;
    }
    Ok(())
}

/// The record counts, the bounds and any trailing data.
fn print_counts(out: &mut impl Write, mesh: &NavMesh, s: &NavStats) -> std::io::Result<()> {
    writeln!(out, "  areas            {}", s.areas)?;
    writeln!(out, "  ladders          {}", s.ladders)?;
    writeln!(out, "  places           {}", s.places)?;
    writeln!(out, "  connections      {}", s.connections)?;
    writeln!(out, "  hiding spots     {}", s.hiding_spots)?;
    writeln!(out, "  encounter paths  {}", s.encounter_paths)?;
    if s.approaches > 0 {
        writeln!(out, "  approach spots   {}", s.approaches)?;
    }
    if s.visible_area_entries > 0 {
        writeln!(out, "  visibility       {} entries", s.visible_area_entries)?;
    }
    if let Some((lo, hi)) = s.bounds {
        writeln!(out, "  bounds           {} .. {}", fmt3(lo), fmt3(hi))?;
    }
    if !mesh.post_mesh_data.is_empty() {
        writeln!(
            out,
            "  trailing data    {} bytes (kept verbatim)",
            mesh.post_mesh_data.len()
        )?;
    }
    Ok(())
}

/// Areas per place and per attribute flag.
fn print_detail(out: &mut impl Write, mesh: &NavMesh, s: &NavStats) -> std::io::Result<()> {
    writeln!(out, "  per place:")?;
    for p in &s.per_place {
        writeln!(
            out,
            "    {:<24} {:>6} areas  {} .. {}",
            p.place.as_deref().unwrap_or("(no place)"),
            p.areas,
            fmt3(p.min),
            fmt3(p.max)
        )?;
    }
    writeln!(out, "  per attribute:")?;
    if s.per_attribute.is_empty() {
        writeln!(out, "    (no area has attribute flags)")?;
    }
    for a in &s.per_attribute {
        writeln!(out, "    {:<24} {:#010x} {:>6} areas", a.name, a.bit, a.areas)?;
    }
    if !s.per_game_attribute.is_empty() {
        writeln!(out, "  per game attribute ({}):", mesh.layout.name())?;
        for a in &s.per_game_attribute {
            writeln!(out, "    {:<28} {:#010x} {:>6} areas", a.name, a.bit, a.areas)?;
        }
    }
    Ok(())
}

/// `srcmap info FILE.nav`.
pub fn info(path: &Path, data: &[u8], json: bool) -> anyhow::Result<()> {
    let mesh = load(path, data)?;
    let s = mesh.stats();
    if json {
        crate::output::print_json(&summary_json(path, &mesh, &s, false))
    } else {
        Ok(print_text(path, &mesh, &s, false)?)
    }
}

/// `srcmap convert in.nav out.nav`: rewrites the mesh in its own version (byte-identical).
pub fn convert(args: &crate::convert::ConvertArgs, data: &[u8]) -> anyhow::Result<()> {
    if args.encoding.is_some() || args.compress || args.decompress {
        anyhow::bail!(
            "{}: NAV files have no encodings or compression to choose",
            args.input.display()
        );
    }
    crate::convert::require_extension(args, "NAV file", &["nav"], "use `srcmap nav` for other outputs")?;
    let mesh = load(&args.input, data)?;
    let out = mesh
        .write()
        .map_err(|e| anyhow::anyhow!("{}: {e}", args.input.display()))?;
    crate::output::write_output(&args.output, &out)
}

pub fn run(cmd: NavCommand) -> anyhow::Result<()> {
    match cmd {
        NavCommand::Info { file, json } => {
            let data = crate::input::read_file(&file)?;
            let mesh = load(&file, &data)?;
            let s = mesh.stats();
            if json {
                crate::output::print_json(&summary_json(&file, &mesh, &s, true))
            } else {
                Ok(print_text(&file, &mesh, &s, true)?)
            }
        }
        NavCommand::Generate(args) => generate(args),
    }
}
