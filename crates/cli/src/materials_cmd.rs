//! `materials extract` and `materials show`: the material table that compiles use without the game.

use std::path::{Path, PathBuf};

use anyhow::Context as _;
use srcmap_materials::{MaterialTable, Resolver, flags};

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

/// Loads a material table, naming the file and place on error.
pub fn load_table(path: &Path) -> anyhow::Result<(String, MaterialTable)> {
    let text = std::fs::read_to_string(path).with_context(|| format!("{}: cannot read", path.display()))?;
    let table = MaterialTable::from_json(&text).map_err(|e| anyhow::anyhow!("{}:{e}", path.display()))?;
    Ok((path.display().to_string(), table))
}

/// The resolver every stage uses: `-game` content, then `--materials`, then built-in rules.
pub fn resolver(game: Option<&Path>, materials: Option<&Path>) -> anyhow::Result<Resolver> {
    let game = game
        .map(|g| srcmap_content::GameDir::open(g).map_err(|e| anyhow::anyhow!("{e}")))
        .transpose()?;
    let table = materials.map(load_table).transpose()?;
    Ok(Resolver::new(game, table))
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
fn extract(bsps: &[std::path::PathBuf], output: &Path, detail_file: Option<&Path>) -> anyhow::Result<()> {
    let detail_types = detail_file
        .map(crate::compile_cmd::load_detail_file)
        .transpose()?;
    for path in bsps.iter().map(|p| p.as_path()).chain(detail_file) {
        crate::refuse_overwriting(path, output)?;
    }
    let mut table = MaterialTable::new();
    for path in bsps {
        let data = std::fs::read(path).with_context(|| format!("{}: cannot read", path.display()))?;
        let bsp = srcmap_bsp::Bsp::parse(&data).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        learn_map(&mut table, path, &name, &bsp, detail_types.as_ref());
    }
    for c in &table.conflicts {
        let values: Vec<String> = c
            .values
            .iter()
            .map(|v| format!("{} in {}", v.value, v.map))
            .collect();
        eprintln!(
            "conflict: {} {}: {}; keeping the value from {}",
            c.material,
            c.field,
            values.join(" vs "),
            c.kept
        );
    }
    crate::write_output(output, table.to_json().as_bytes())?;
    eprintln!(
        "{}: {} materials from {} maps, {} conflicts",
        output.display(),
        table.len(),
        bsps.len(),
        table.conflicts.len()
    );
    Ok(())
}

/// What one compiled map teaches the table: its materials' facts with the texture-light values
/// Valve's VRAD used, its patched materials and sky, and (given the detail file) detail types.
fn learn_map(
    table: &mut MaterialTable,
    path: &Path,
    name: &str,
    bsp: &srcmap_bsp::Bsp,
    detail_types: Option<&srcmap_content::detail_vbsp::DetailTypes>,
) {
    let mut entries = srcmap_materials::harvest_bsp(name, bsp);
    // Texture lights: the values Valve's VRAD used, recovered from the map's
    // emit_surface world lights (LDR lump, else HDR).
    let faces = srcmap_vrad::faces::build_faces(bsp);
    let mut emits = srcmap_vrad::texlights::harvest_bsp(bsp, &faces, srcmap_vrad::Range::Ldr);
    if emits.is_empty() {
        emits = srcmap_vrad::texlights::harvest_bsp(bsp, &faces, srcmap_vrad::Range::Hdr);
    }
    for (material, entry) in entries.iter_mut() {
        entry.emit = emits
            .get(material, srcmap_vrad::Range::Ldr)
            .or_else(|| emits.get(material, srcmap_vrad::Range::Hdr))
            .map(|v| v.to_array());
    }
    table.merge(entries);
    table.learn_patches(name, bsp);
    if let Some(types) = detail_types {
        let stem = path
            .file_stem()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        for (material, ty) in srcmap_vbsp::detail_props::infer_detail_types(bsp, types, &stem) {
            if !table.set_detail_type(&material, &ty) {
                eprintln!("{name}: {material} has detail type {ty} but is not in the table");
            }
        }
    }
}

/// `materials show`: what the resolver says of one material, and where each fact came from.
fn show(name: &str, materials: Option<&Path>, game: Option<&Path>, json: bool) -> anyhow::Result<()> {
    let resolver = resolver(game, materials)?;
    let key = srcmap_materials::normalise_name(name);
    let table = materials.map(load_table).transpose()?;
    let conflicts: Vec<_> = table
        .as_ref()
        .map(|(_, t)| {
            t.conflicts
                .iter()
                .filter(|c| c.material == key)
                .cloned()
                .collect()
        })
        .unwrap_or_default();
    // Texture light: the table's emit fact (lights.rad files are vrad's, not shown here).
    let emit = table.as_ref().and_then(|(_, t)| t.get(&key)).and_then(|e| e.emit);
    let r = resolver.resolve(name);
    let contents = flags::Contents(r.facts.contents).names();
    let surface = flags::SurfaceFlags(r.facts.surface_flags).names();
    if json {
        return crate::print_json(&serde_json::json!({
            "material": srcmap_materials::normalise_name(name),
            "contents": contents,
            "contents_from": r.contents_from.to_string(),
            "surface": surface,
            "surface_from": r.surface_from.to_string(),
            "width": r.facts.width,
            "height": r.facts.height,
            "reflectivity": r.facts.reflectivity,
            "size_from": r.size_from.to_string(),
            "emit": emit,
            "warnings": resolver.warnings(),
            "conflicts": conflicts,
        }));
    }
    let empty = |v: Vec<String>| {
        if v.is_empty() {
            "EMPTY".to_owned()
        } else {
            v.join(" | ")
        }
    };
    println!("{}", srcmap_materials::normalise_name(name));
    println!("  contents      {}  [from {}]", empty(contents), r.contents_from);
    println!("  surface       {}  [from {}]", empty(surface), r.surface_from);
    println!(
        "  size          {}x{}, reflectivity {:?}  [from {}]",
        r.facts.width, r.facts.height, r.facts.reflectivity, r.size_from
    );
    if let Some(e) = emit {
        println!("  texture light {e:?}  [from the material table]");
    }
    for c in &conflicts {
        let values: Vec<String> = c
            .values
            .iter()
            .map(|v| format!("{} in {}", v.value, v.map))
            .collect();
        println!(
            "  conflict      {}: {}; the table keeps {}'s",
            c.field,
            values.join(" vs "),
            c.kept
        );
    }
    for w in resolver.warnings() {
        eprintln!("warning: {w}");
    }
    Ok(())
}
