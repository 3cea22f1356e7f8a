//! `materials extract` and `materials show`: the material table that compiles use without the game.

use std::path::{Path, PathBuf};

use srcmap_driver::materials::Explanation;
use srcmap_materials::{Conflict, flags};

use crate::output::{Stderr, print_json, write_output};

#[derive(Debug, clap::Subcommand)]
pub enum MaterialsCommand {
    /// Harvest a material table from compiled BSPs (conflicts between maps are reported).
    Extract {
        /// Compiled maps to learn from.
        #[arg(required = true)]
        bsps: Vec<PathBuf>,
        /// The table to write (JSON).
        #[arg(short, long)]
        output: PathBuf,
        /// The game's detail.vbsp: learn each material's `%detailtype` from the maps' detail
        /// props (the type whose placements Valve's lump holds).
        #[arg(long)]
        detail_file: Option<PathBuf>,
    },
    /// Explain what srcmap believes about a material, and where each fact came from.
    Show {
        name: String,
        /// A material table (from `materials extract`).
        #[arg(long)]
        materials: Option<PathBuf>,
        /// Game directory (with gameinfo.txt) whose materials come first.
        #[arg(long)]
        game: Option<PathBuf>,
        #[arg(long)]
        json: bool,
    },
}

pub fn run(cmd: MaterialsCommand) -> anyhow::Result<()> {
    match cmd {
        MaterialsCommand::Extract {
            bsps,
            output,
            detail_file,
        } => extract(&bsps, &output, detail_file.as_deref()),
        MaterialsCommand::Show {
            name,
            materials,
            game,
            json,
        } => show(&name, materials.as_deref(), game.as_deref(), json),
    }
}

/// `materials extract`: every map's facts merged into one table, conflicts printed.
fn extract(bsps: &[PathBuf], output: &Path, detail_file: Option<&Path>) -> anyhow::Result<()> {
    let table = srcmap_driver::harvest::extract_table(bsps, output, detail_file, &Stderr)?;
    for c in &table.conflicts {
        eprintln!(
            "conflict: {} {}: {}; keeping the value from {}",
            c.material,
            c.field,
            conflict_values(c),
            c.kept
        );
    }
    write_output(output, table.to_json().as_bytes())?;
    eprintln!(
        "{}: {} materials from {} maps, {} conflicts",
        output.display(),
        table.len(),
        bsps.len(),
        table.conflicts.len()
    );
    Ok(())
}

/// A conflict's values, each with the map it came from: `1 in a.bsp vs 2 in b.bsp`.
fn conflict_values(c: &Conflict) -> String {
    let values: Vec<String> = c
        .values
        .iter()
        .map(|v| format!("{} in {}", v.value, v.map))
        .collect();
    values.join(" vs ")
}

/// `materials show`: what the resolver says of one material, and where each fact came from.
fn show(name: &str, materials: Option<&Path>, game: Option<&Path>, json: bool) -> anyhow::Result<()> {
    let e = srcmap_driver::materials::explain(name, materials, game)?;
    if json {
        return print_json(&show_json(&e));
    }
    print_show(&e);
    for w in &e.warnings {
        eprintln!("warning: {w}");
    }
    Ok(())
}

/// `materials show --json`.
fn show_json(e: &Explanation) -> serde_json::Value {
    let r = &e.resolved;
    serde_json::json!({
        "material": e.material,
        "contents": flags::Contents(r.facts.contents).names(),
        "contents_from": r.contents_from.to_string(),
        "surface": flags::SurfaceFlags(r.facts.surface_flags).names(),
        "surface_from": r.surface_from.to_string(),
        "width": r.facts.width,
        "height": r.facts.height,
        "reflectivity": r.facts.reflectivity,
        "size_from": r.size_from.to_string(),
        "emit": e.emit,
        "warnings": e.warnings,
        "conflicts": e.conflicts,
    })
}

/// Flag names joined by ` | `, or `EMPTY`.
fn names_or_empty(v: Vec<String>) -> String {
    if v.is_empty() {
        "EMPTY".to_owned()
    } else {
        v.join(" | ")
    }
}

/// `materials show`'s text: one line per fact, its origin in brackets.
fn print_show(e: &Explanation) {
    let r = &e.resolved;
    let contents = names_or_empty(flags::Contents(r.facts.contents).names());
    let surface = names_or_empty(flags::SurfaceFlags(r.facts.surface_flags).names());
    println!("{}", e.material);
    println!("  contents      {contents}  [from {}]", r.contents_from);
    println!("  surface       {surface}  [from {}]", r.surface_from);
    println!(
        "  size          {}x{}, reflectivity {:?}  [from {}]",
        r.facts.width, r.facts.height, r.facts.reflectivity, r.size_from
    );
    if let Some(emit) = e.emit {
        println!("  texture light {emit:?}  [from the material table]");
    }
    for c in &e.conflicts {
        println!(
            "  conflict      {}: {}; the table keeps {}'s",
            c.field,
            conflict_values(c),
            c.kept
        );
    }
}
