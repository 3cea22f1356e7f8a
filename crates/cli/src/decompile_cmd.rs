//! `srcmap decompile MAP.bsp [-o MAP.vmf]`, and `convert X.bsp X.vmf`, which is the same.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::output::{print_json, write_output};

#[derive(Debug, clap::Args)]
pub struct DecompileArgs {
    /// The BSP to decompile.
    pub bsp: PathBuf,
    /// The VMF to write (default: the BSP's name with `.vmf`).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
    /// Print nothing but errors.
    #[arg(short, long)]
    pub quiet: bool,
    /// Write repeated instance copies as `func_instance`s, their files under `instances/`
    /// beside the VMF.
    #[arg(long)]
    pub instances: bool,
}

/// `srcmap decompile`.
pub fn decompile(args: &DecompileArgs) -> anyhow::Result<()> {
    let out = args
        .output
        .clone()
        .unwrap_or_else(|| args.bsp.with_extension("vmf"));
    crate::usage::refuse_overwriting(&args.bsp, &out)?;
    let data = crate::input::read_file(&args.bsp)?;
    let report = run(&args.bsp, &data, &out, args.instances)?;
    if args.json {
        print_json(&report)
    } else if !args.quiet {
        print_report(&args.bsp, &out, &report)
    } else {
        Ok(())
    }
}

/// `srcmap convert MAP.bsp MAP.vmf`: a decompile with the report's notes on stderr.
pub fn convert(args: &crate::convert::ConvertArgs, data: &[u8]) -> anyhow::Result<()> {
    let report = run(&args.input, data, &args.output, false)?;
    for note in &report.notes {
        eprintln!("{}: note: {note}", args.input.display());
    }
    Ok(())
}

/// Whether `convert` is asked for a VMF (the BSP → VMF route).
pub fn wants_vmf(output: &Path) -> bool {
    output.extension().is_some_and(|e| e.eq_ignore_ascii_case("vmf"))
}

fn run(input: &Path, data: &[u8], out: &Path, instances: bool) -> anyhow::Result<srcmap_decompile::Report> {
    let name = out.file_stem().map(|s| s.to_string_lossy().into_owned());
    let options = srcmap_decompile::Options {
        instances,
        name: name.unwrap_or_default(),
    };
    let decompiled = srcmap_decompile::decompile_bytes_with(data, &options)
        .map_err(|e| anyhow::anyhow!("{}: {e}", input.display()))?;
    let dir = out.parent().unwrap_or(Path::new(""));
    for file in &decompiled.instances {
        let path = dir.join(&file.path);
        std::fs::create_dir_all(path.parent().unwrap_or(dir))?;
        write_output(&path, file.text.as_bytes())?;
    }
    write_output(out, decompiled.text.as_bytes())?;
    Ok(decompiled.report)
}

fn print_report(bsp: &Path, out: &Path, r: &srcmap_decompile::Report) -> anyhow::Result<()> {
    let mut o = std::io::stdout().lock();
    writeln!(o, "{} -> {}", bsp.display(), out.display())?;
    writeln!(
        o,
        "  solids {}, sides {}, displacements {}",
        r.solids, r.sides, r.displacements
    )?;
    writeln!(
        o,
        "  entities {} (static props {}, overlays {}, cubemaps {})",
        r.entities, r.static_props, r.overlays, r.cubemaps
    )?;
    for note in &r.notes {
        writeln!(o, "  note: {note}")?;
    }
    Ok(())
}
