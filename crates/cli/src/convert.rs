//! `srcmap convert`'s arguments, shared by each format's converter.

use std::path::PathBuf;

use srcmap_dmx::Encoding;

#[derive(Debug, clap::Args)]
pub struct ConvertArgs {
    /// Input file.
    pub input: PathBuf,
    /// Output file (written atomically).
    pub output: PathBuf,
    /// BSP: LZMA-compress every lump on write.
    #[arg(long, conflicts_with = "decompress")]
    pub compress: bool,
    /// BSP: write every lump uncompressed.
    #[arg(long)]
    pub decompress: bool,
    /// DMX: the output encoding (`binary9`, `keyvalues2`, ...); default keeps the input's.
    #[arg(long, value_parser = parse_encoding)]
    pub encoding: Option<String>,
    /// VMF to VMAP: rename classes as a game's Source 2 version names them (`cs2`: both teams'
    /// spawns become `info_player_spawn`).
    #[arg(long, value_parser = ["cs2"])]
    pub game_classes: Option<String>,
    /// VMF to VMAP: a game directory (with gameinfo.txt) whose materials give each texture's
    /// size, for texture coordinates (Valve's -game); without it or --materials, 512 × 512.
    #[arg(long)]
    pub game: Option<PathBuf>,
    /// VMF to VMAP: a material table (`srcmap materials extract`) for texture sizes, consulted
    /// after --game.
    #[arg(long)]
    pub materials: Option<PathBuf>,
    /// VMF to VMAP: leave out the world's faces no playable space sees (our vbsp floods the
    /// map, which must be sealed; as Valve's importer's -usebsp).
    #[arg(long)]
    pub cull: bool,
    /// VMF ↔ VMAP: print the conversion's report (counts, areas per material, warnings) as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Whether the output's extension is `ext` (any case).
pub fn output_is(args: &ConvertArgs, ext: &str) -> bool {
    args.output
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case(ext))
}

/// A VMF ↔ VMAP conversion (the job's direction chosen by the caller), its warnings on stderr.
pub fn convert_map(
    args: &ConvertArgs,
    run: fn(&srcmap_driver::MapconvJob) -> Result<srcmap_driver::MapconvReport, srcmap_driver::DriverError>,
    binary: bool,
) -> anyhow::Result<()> {
    let job = srcmap_driver::MapconvJob {
        input: args.input.clone(),
        output: args.output.clone(),
        binary,
        renames: match args.game_classes.as_deref() {
            Some("cs2") => srcmap_mapconv::ClassRenames::Cs2,
            _ => srcmap_mapconv::ClassRenames::None,
        },
        game: args.game.clone(),
        materials: args.materials.clone(),
        cull: args.cull,
    };
    let report = run(&job)?;
    if args.json {
        return crate::output::print_json(&report);
    }
    for w in report.warnings() {
        eprintln!("{}: warning: {w}", args.input.display());
    }
    Ok(())
}

/// `--encoding`'s value parser: a name [`Encoding::parse`] knows, so a misspelt one is a usage
/// error before any file is read.
pub fn parse_encoding(name: &str) -> Result<String, String> {
    match Encoding::parse(name) {
        Some(_) => Ok(name.to_string()),
        None => Err(format!(
            "unknown DMX encoding `{name}` (expected binary, binary1-5, binary9, keyvalues2, keyvalues2_1-4)"
        )),
    }
}

/// Refuses an output whose extension names another format than the one `format` converts to
/// (`extensions`, lower case; no extension is allowed): `convert x.bsp x.vmf` would otherwise
/// write a BSP under a VMF's name. `instead` says what to use for that job.
pub fn require_extension(
    args: &ConvertArgs,
    format: &str,
    extensions: &[&str],
    instead: &str,
) -> anyhow::Result<()> {
    let ext = args
        .output
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or_default()
        .to_ascii_lowercase();
    if ext.is_empty() || extensions.contains(&ext.as_str()) {
        return Ok(());
    }
    let allowed = extensions
        .iter()
        .map(|e| format!(".{e}"))
        .collect::<Vec<_>>()
        .join(", ");
    Err(crate::usage::usage_error(format!(
        "{}: convert rewrites a {format} as {allowed} only; {instead}",
        args.output.display()
    )))
}
