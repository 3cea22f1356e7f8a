//! The `srcmap` binary: argument parsing, dispatch and printing only. Every piece of logic lives
//! in the library crates; each `*_cmd` module adapts one of them to the command line.

mod bsp_cmd;
mod compile_cmd;
mod detect;
mod dmx_cmd;
mod export_cmd;
mod materials_cmd;
mod model_cmd;
mod nav_cmd;
mod phys_cmd;
mod progress;
mod rad_cmd;
mod view_cmd;
mod vis_cmd;
mod vmf_cmd;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// srcmap: read, write, inspect and compile Valve Source-engine maps.
#[derive(Debug, Parser)]
#[command(name = "srcmap", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Summarise any supported file (VMF, BSP, NAV, DMX, VMAP, MDL, VVD, VTX), recognised by its content.
    Info(InfoArgs),
    /// Convert between formats and encodings; an untouched round trip is byte-identical.
    Convert(ConvertArgs),
    /// Check a BSP's engine-level invariants (indices in range, record sizes, Valve's limits).
    Check(bsp_cmd::CheckArgs),
    /// Extract or replace one BSP lump as a Valve `.lmp` lump file.
    #[command(subcommand)]
    Lump(bsp_cmd::LumpCommand),
    /// List, extract or add files in a BSP's pakfile (as bspzip does).
    #[command(subcommand)]
    Pak(bsp_cmd::PakCommand),
    /// The material table compiles use without the game: harvest one, or explain a material.
    #[command(subcommand)]
    Materials(materials_cmd::MaterialsCommand),
    /// Navigation mesh commands.
    #[command(subcommand)]
    Nav(nav_cmd::NavCommand),
    /// VPhysics collision of a BSP or `.phy` file.
    #[command(subcommand)]
    Physics(phys_cmd::PhysicsCommand),
    /// Compile stage 1: VMF world geometry to a BSP (tree, portals, faces), with leak detection.
    Vbsp(compile_cmd::VbspArgs),
    /// Compile stage 2: potentially visible sets (PVS/PAS) into a BSP's visibility lump.
    Vvis(vis_cmd::VvisArgs),
    /// Compile stage 3: lightmaps, world lights and ambient cubes into a BSP.
    Vrad(rad_cmd::VradArgs),
    /// Compile a VMF into a BSP, running every stage that exists.
    Compile(compile_cmd::CompileArgs),
    /// Export a BSP's world, brush models, lightmaps and entities as glTF 2.0 binary (`.glb`).
    Export(export_cmd::ExportArgs),
    /// Draw a BSP to a PNG (CPU): lit, fullbright or lightmaps only; top, isometric or from an entity.
    Render(export_cmd::RenderArgs),
    /// Serve a BSP's web viewer (WebGL) on 127.0.0.1: fly camera, lightmaps, PVS, area portals, .lin/.prt.
    View(view_cmd::ViewArgs),
}

#[derive(Debug, clap::Args)]
struct InfoArgs {
    /// The file to summarise.
    file: PathBuf,
    /// Print a JSON report instead of text.
    #[arg(long)]
    json: bool,
}

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
    #[arg(long, value_parser = dmx_cmd::parse_encoding)]
    pub encoding: Option<String>,
}

/// Valve's tools spell long flags with one dash (`-game`, `-fast`); accept those too by
/// rewriting `-name` to `--name` for every multi-letter flag the parser knows.
fn normalise_valve_flags(args: impl Iterator<Item = std::ffi::OsString>) -> Vec<std::ffi::OsString> {
    use clap::CommandFactory;
    let mut long_names = std::collections::HashSet::new();
    fn collect(cmd: &clap::Command, names: &mut std::collections::HashSet<String>) {
        for arg in cmd.get_arguments() {
            if let Some(l) = arg.get_long() {
                names.insert(l.to_string());
            }
        }
        for sub in cmd.get_subcommands() {
            collect(sub, names);
        }
    }
    collect(&Cli::command(), &mut long_names);
    args.map(|a| match a.to_str() {
        Some(s)
            if s.len() > 2 && s.starts_with('-') && !s.starts_with("--") && long_names.contains(&s[1..]) =>
        {
            format!("-{s}").into()
        }
        _ => a,
    })
    .collect()
}

fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Info(args) => {
            let data = std::fs::read(&args.file)
                .map_err(|e| anyhow::anyhow!("{}: cannot read: {e}", args.file.display()))?;
            match detect::detect(&args.file, &data) {
                detect::Kind::Vmf => vmf_cmd::info(&args.file, &data, args.json),
                detect::Kind::Bsp => bsp_cmd::info(&args.file, &data, args.json),
                detect::Kind::Nav => nav_cmd::info(&args.file, &data, args.json),
                detect::Kind::Dmx => dmx_cmd::info(&args.file, &data, args.json),
                detect::Kind::Model(kind) => model_cmd::info(&args.file, &data, kind, args.json),
                detect::Kind::Phy => phys_cmd::info(&args.file, &data, args.json),
                detect::Kind::Other(what) => anyhow::bail!("{}: {what}", args.file.display()),
            }
        }
        Command::Convert(args) => {
            refuse_overwriting(&args.input, &args.output)?;
            let data = std::fs::read(&args.input)
                .map_err(|e| anyhow::anyhow!("{}: cannot read: {e}", args.input.display()))?;
            match detect::detect(&args.input, &data) {
                detect::Kind::Vmf => vmf_cmd::convert(&args, &data),
                detect::Kind::Bsp => bsp_cmd::convert(&args, &data),
                detect::Kind::Nav => nav_cmd::convert(&args, &data),
                detect::Kind::Dmx => dmx_cmd::convert(&args, &data),
                detect::Kind::Model(_) => {
                    anyhow::bail!("{}: convert does not write model files", args.input.display())
                }
                detect::Kind::Phy => {
                    anyhow::bail!("{}: .phy files have nothing to convert", args.input.display())
                }
                detect::Kind::Other(what) => anyhow::bail!("{}: {what}", args.input.display()),
            }
        }
        Command::Check(args) => bsp_cmd::check(&args),
        Command::Lump(cmd) => bsp_cmd::lump(cmd),
        Command::Pak(cmd) => bsp_cmd::pak(cmd),
        Command::Materials(cmd) => materials_cmd::run(cmd),
        Command::Nav(cmd) => nav_cmd::run(cmd),
        Command::Physics(cmd) => phys_cmd::run(cmd),
        Command::Vbsp(args) => compile_cmd::vbsp(&args),
        Command::Vvis(args) => vis_cmd::vvis(&args),
        Command::Vrad(args) => rad_cmd::vrad(&args),
        Command::Compile(args) => compile_cmd::compile(&args),
        Command::Export(args) => export_cmd::export(&args),
        Command::Render(args) => export_cmd::render_map(&args),
        Command::View(args) => view_cmd::view(&args),
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse_from(normalise_valve_flags(std::env::args_os()));
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            // A closed pipe (`srcmap info x | head`) is not an error worth reporting.
            if err.chain().any(|c| {
                c.downcast_ref::<std::io::Error>()
                    .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
            }) {
                return ExitCode::SUCCESS;
            }
            // Messages quote file contents: no raw control characters to the terminal.
            let message = format!("{err:#}");
            let lines: Vec<_> = message.split('\n').map(printable).collect();
            eprintln!("error: {}", lines.join("\n"));
            // Wrong usage exits 2, as clap's own usage errors do.
            if err.downcast_ref::<UsageError>().is_some() {
                return ExitCode::from(2);
            }
            ExitCode::from(1)
        }
    }
}

/// Wrong usage found after parsing (an unknown lump name, an argument naming the input as the
/// output): `main` exits 2 on it, as clap does on its own usage errors.
#[derive(Debug)]
pub struct UsageError(pub String);

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

/// A usage error as an `anyhow::Error` (exit status 2).
pub fn usage_error(message: impl Into<String>) -> anyhow::Error {
    anyhow::Error::new(UsageError(message.into()))
}

/// Refuses a command whose output is one of its inputs, before any work is done: the same file
/// after resolving links (a symlink or a hard link to the input counts), compared by device and
/// inode where the platform has them. Every command that writes a file calls this for each
/// input it reads and must not replace.
pub fn refuse_overwriting(input: &std::path::Path, output: &std::path::Path) -> anyhow::Result<()> {
    if same_file(input, output) {
        return Err(usage_error(format!(
            "{}: the output is the input file {}; name another output",
            output.display(),
            input.display()
        )));
    }
    Ok(())
}

/// Whether two paths name one existing file.
fn same_file(a: &std::path::Path, b: &std::path::Path) -> bool {
    let (Ok(ma), Ok(mb)) = (std::fs::metadata(a), std::fs::metadata(b)) else {
        return false;
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        ma.dev() == mb.dev() && ma.ino() == mb.ino()
    }
    #[cfg(not(unix))]
    {
        let _ = (ma, mb);
        matches!(
            (std::fs::canonicalize(a), std::fs::canonicalize(b)),
            (Ok(x), Ok(y)) if x == y
        )
    }
}

/// A float flag's value: finite numbers only (`nan` and `inf` parse as floats but mean nothing
/// as a radius or a scale).
pub fn finite_f64(s: &str) -> Result<f64, String> {
    let v: f64 = s
        .trim()
        .parse()
        .map_err(|e| format!("`{s}` is not a number: {e}"))?;
    if v.is_finite() {
        Ok(v)
    } else {
        Err(format!("`{s}` is not a finite number"))
    }
}

/// Text from a file made safe for a terminal: control characters (escape sequences, bells,
/// carriage returns) are printed escaped (`\u{1b}`), everything else as it is.
pub fn printable(s: &str) -> std::borrow::Cow<'_, str> {
    if !s.chars().any(char::is_control) {
        return std::borrow::Cow::Borrowed(s);
    }
    std::borrow::Cow::Owned(
        s.chars()
            .map(|c| {
                if c.is_control() {
                    c.escape_default().to_string()
                } else {
                    c.to_string()
                }
            })
            .collect(),
    )
}

/// Writes an output file atomically, naming it in the error.
pub fn write_output(path: &std::path::Path, bytes: &[u8]) -> anyhow::Result<()> {
    srcmap_bytes::write_atomic(path, bytes)
        .map_err(|e| anyhow::anyhow!("{}: cannot write: {e}", path.display()))
}

/// Prints a serialisable report as pretty JSON on stdout.
pub fn print_json<T: serde::Serialize>(report: &T) -> anyhow::Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    serde_json::to_writer_pretty(&mut out, report)?;
    writeln!(out)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// clap checks its definitions (names in `conflicts_with`, duplicate flags) only in debug
    /// builds (or where the release profile turns them on for clap_builder, as ours does), and only
    /// when the command is built: this runs those checks on every subcommand.
    #[test]
    fn cli_definitions_are_consistent() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }

    #[test]
    fn printable_escapes_control_characters() {
        assert_eq!(printable("binary"), "binary");
        assert_eq!(printable("a\u{1b}[2Jb\x07\r"), "a\\u{1b}[2Jb\\u{7}\\r");
        assert!(!printable("\u{9b}x").chars().any(char::is_control));
    }

    #[test]
    fn float_flags_refuse_non_finite_values() {
        assert_eq!(finite_f64("2.5"), Ok(2.5));
        for bad in ["nan", "NaN", "inf", "-inf", "infinity", "x"] {
            assert!(finite_f64(bad).is_err(), "{bad}");
        }
    }
}
