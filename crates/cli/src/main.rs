//! The `srcmap` binary: argument parsing, dispatch and printing only. Every piece of logic lives
//! in the library crates; each `*_cmd` module adapts one of them to the command line.

mod bsp_cmd;
mod compile_cmd;
mod compile_config;
mod convert;
mod decompile_cmd;
mod detect;
mod dmx_cmd;
mod export_cmd;
mod farm_cmd;
mod input;
mod materials_cmd;
mod model_cmd;
mod nav_cmd;
mod output;
mod pack_cmd;
mod phys_cmd;
mod progress;
mod rad_cmd;
mod usage;
mod valve_flags;
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
    Convert(convert::ConvertArgs),
    /// Check a BSP's engine-level invariants (indices in range, record sizes, Valve's limits).
    Check(bsp_cmd::CheckArgs),
    /// Extract or replace one BSP lump as a Valve `.lmp` lump file.
    #[command(subcommand)]
    Lump(bsp_cmd::LumpCommand),
    /// List, extract or add files in a BSP's pakfile (as bspzip does).
    #[command(subcommand)]
    Pak(bsp_cmd::PakCommand),
    /// Pack the map's custom content (from loose folders, not the game's) into its pakfile.
    Pack(pack_cmd::PackArgs),
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
    /// A compile spread over a build farm (Slurm job arrays: vis in shards, merged).
    #[command(subcommand)]
    Farm(farm_cmd::FarmCommand),
    /// Compile a VMF into a BSP, running every stage that exists.
    Compile(compile_cmd::CompileArgs),
    /// Decompile a BSP into a VMF that recompiles to the same map.
    Decompile(decompile_cmd::DecompileArgs),
    /// Export a BSP's world, brush models, lightmaps and entities as glTF 2.0 binary (`.glb`).
    Export(export_cmd::ExportArgs),
    /// Draw a BSP to a PNG (CPU): lit, fullbright or lightmaps only; top, isometric or from an entity.
    Render(export_cmd::RenderArgs),
    /// Serve a BSP's web viewer (WebGL) on 127.0.0.1: fly camera, lightmaps, PVS, area portals, .lin/.prt.
    View(view_cmd::ViewArgs),
    /// Print a shell completion script for srcmap (bash, zsh, fish, elvish, powershell).
    Completions { shell: clap_complete::Shell },
    /// Print srcmap's man page (roff) on stdout: `srcmap man > srcmap.1`.
    Man,
}

#[derive(Debug, clap::Args)]
struct InfoArgs {
    /// The file to summarise.
    file: PathBuf,
    /// Print a JSON report instead of text.
    #[arg(long)]
    json: bool,
}

fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Info(args) => info(&args),
        Command::Convert(args) => convert(&args),
        Command::Check(args) => bsp_cmd::check(&args),
        Command::Lump(cmd) => bsp_cmd::lump(cmd),
        Command::Pak(cmd) => bsp_cmd::pak(cmd),
        Command::Pack(args) => pack_cmd::pack(&args),
        Command::Materials(cmd) => materials_cmd::run(cmd),
        Command::Nav(cmd) => nav_cmd::run(cmd),
        Command::Physics(cmd) => phys_cmd::run(cmd),
        Command::Vbsp(args) => compile_cmd::vbsp(&args),
        Command::Vvis(args) => vis_cmd::vvis(&args),
        Command::Vrad(args) => rad_cmd::vrad(&args),
        Command::Farm(cmd) => farm_cmd::run(cmd),
        Command::Compile(args) => compile_cmd::compile(&compile_config::layered(&args)?),
        Command::Decompile(args) => decompile_cmd::decompile(&args),
        Command::Export(args) => export_cmd::export(&args),
        Command::Render(args) => export_cmd::render_map(&args),
        Command::View(args) => view_cmd::view(&args),
        Command::Completions { shell } => usage::completions(shell),
        Command::Man => usage::man(),
    }
}

/// `srcmap info`: the file's format found by its content, then that format's summary.
fn info(args: &InfoArgs) -> anyhow::Result<()> {
    let data = input::read_file(&args.file)?;
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

/// `srcmap convert`: the input's format found by its content, then that format's converter.
fn convert(args: &convert::ConvertArgs) -> anyhow::Result<()> {
    usage::refuse_overwriting(&args.input, &args.output)?;
    let data = input::read_file(&args.input)?;
    match detect::detect(&args.input, &data) {
        detect::Kind::Vmf => vmf_cmd::convert(args, &data),
        detect::Kind::Bsp if decompile_cmd::wants_vmf(&args.output) => decompile_cmd::convert(args, &data),
        detect::Kind::Bsp => bsp_cmd::convert(args, &data),
        detect::Kind::Nav => nav_cmd::convert(args, &data),
        detect::Kind::Dmx => dmx_cmd::convert(args, &data),
        detect::Kind::Model(_) => {
            anyhow::bail!("{}: convert does not write model files", args.input.display())
        }
        detect::Kind::Phy => {
            anyhow::bail!("{}: .phy files have nothing to convert", args.input.display())
        }
        detect::Kind::Other(what) => anyhow::bail!("{}: {what}", args.input.display()),
    }
}

/// `srcmap pak list MAP | head`: a print to the closed pipe panics inside `println!`. Exit
/// quietly instead, as for a closed pipe reported as an error (see [`failure`]).
fn exit_quietly_on_closed_pipe() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let payload = info.payload();
        let message = (payload.downcast_ref::<String>().map(String::as_str))
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or("");
        if message.starts_with("failed printing to std") && message.contains("Broken pipe") {
            std::process::exit(0);
        }
        default(info);
    }));
}

/// glibc's malloc hands the free top of a heap back to the system once it passes 128 KiB, and
/// the next large allocation faults those pages in again: on subway01's vrad, 76 k page faults
/// and 0.4 s of system time for a 175 MB peak. Keeping 64 MiB free at the top of each heap halves
/// both, the peak unchanged (`docs/vrad-measurements.md`, session 14).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn keep_freed_memory() {
    // SAFETY: sets one of malloc's parameters; no other thread runs yet.
    #[allow(unsafe_code)]
    unsafe {
        libc::mallopt(libc::M_TOP_PAD, 64 << 20);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn keep_freed_memory() {}

fn main() -> ExitCode {
    keep_freed_memory();
    exit_quietly_on_closed_pipe();
    let raw: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let json = output::asks_for_json(&raw);
    let cli = match valve_flags::normalise_valve_flags(raw.into_iter()).and_then(Cli::try_parse_from) {
        Ok(cli) => cli,
        Err(e) => return output::usage_failure(e, json),
    };
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => failure(&err, json),
    }
}

/// A failed run: the error on stderr (and as one JSON document on stdout with `--json`); exit
/// status 2 for wrong usage, as clap's own usage errors, else 1.
fn failure(err: &anyhow::Error, json: bool) -> ExitCode {
    // A closed pipe (`srcmap info x | head`) is not an error worth reporting.
    if err.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
    }) {
        return ExitCode::SUCCESS;
    }
    // Messages quote file contents: no raw control characters to the terminal.
    let message = format!("{err:#}");
    let lines: Vec<_> = message.split('\n').map(output::printable).collect();
    eprintln!("error: {}", lines.join("\n"));
    let usage = usage::is_usage(err);
    if json {
        output::print_error_json(&output::error_report(err, &message, usage));
    }
    ExitCode::from(if usage { 2 } else { 1 })
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
}
