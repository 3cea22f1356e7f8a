//! `vbsp` and `compile`: the map compiler's stages.

use std::path::{Path, PathBuf};

use anyhow::Context;
use srcmap_vbsp::{Severity, VbspError};

#[derive(Debug, clap::Args)]
pub struct VbspArgs {
    /// The map source.
    pub map: PathBuf,
    /// Output BSP (default: the map's path with `.bsp`).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Game directory (with gameinfo.txt): materials' compile flags, texture sizes and
    /// reflectivity from its VPKs and loose files.
    #[arg(long)]
    pub game: Option<PathBuf>,
    /// A material table (`srcmap materials extract`), consulted after -game content and before
    /// the built-in tool-texture rules.
    #[arg(long)]
    pub materials: Option<PathBuf>,
    /// Leave out func_detail brushes.
    #[arg(long)]
    pub nodetail: bool,
    /// A detail.vbsp to place detail props with, instead of the one the map names among the
    /// game's files (with a material table that knows `%detailtype`, detail props without -game)
    #[arg(long)]
    pub detail_file: Option<PathBuf>,
    /// On a leak, write the pointfile and still write the BSP (unfilled, no portal file),
    /// as Valve's VBSP does; the exit status is 0.
    #[arg(long)]
    pub allowleak: bool,
    /// Check the compiler's invariants between its passes (always on in debug builds).
    #[arg(long)]
    pub verify: bool,
    /// Worker threads for every stage (0 = all cores), Valve's -threads.
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// Print each stage's report (counts, times, warnings) as JSON on stdout.
    #[arg(long)]
    pub json: bool,
    /// Print nothing but errors.
    #[arg(long, short)]
    pub quiet: bool,
    /// List every unknown material (by default the warning names the first few).
    #[arg(long)]
    pub verbose: bool,
}

#[derive(Debug, clap::Args)]
pub struct CompileArgs {
    #[command(flatten)]
    pub vbsp: VbspArgs,
    /// Skip visibility (every cluster then sees every other).
    #[arg(long)]
    pub no_vis: bool,
    /// Skip lighting.
    #[arg(long)]
    pub no_rad: bool,
    /// Quick vis and light (vvis -fast, vrad -fast).
    #[arg(long, conflicts_with = "final_")]
    pub fast: bool,
    /// Release-quality light (vrad -final).
    #[arg(long = "final")]
    pub final_: bool,
    /// Maximum light bounces.
    #[arg(long)]
    pub bounce: Option<u32>,
}

/// What stage 1 produced: the map in memory and the file `srcmap vbsp` writes of it.
struct Stage1 {
    bsp: srcmap_bsp::Bsp,
    /// The BSP as `srcmap vbsp` writes it; later stages' lumps are laid out over it.
    file: Vec<u8>,
    out_path: PathBuf,
    /// The map is sealed (a portal file was written): vis can run.
    sealed: bool,
    report: srcmap_stage::Report,
}

/// Reads a map; one whose sides or displacements are damaged is read leniently, the
/// damaged parts left out with a warning each (the rest still compiles).
fn read_map(path: &Path) -> anyhow::Result<srcmap_vmf::Vmf> {
    let bytes = std::fs::read(path).with_context(|| format!("{}: cannot read", path.display()))?;
    match srcmap_vmf::Vmf::parse_bytes(&bytes) {
        Ok(vmf) => Ok(vmf),
        Err(strict) => {
            let vmf = srcmap_vmf::Vmf::parse_lenient(&bytes)
                .map_err(|_| anyhow::anyhow!("{}:{strict}", path.display()))?;
            // The first few in full; a damaged map can have hundreds.
            const SHOWN: usize = 20;
            for problem in vmf.problems.iter().take(SHOWN) {
                eprintln!("{}:{problem} (left out)", path.display());
            }
            if vmf.problems.len() > SHOWN {
                eprintln!(
                    "{}: warning: {} more damaged parts left out",
                    path.display(),
                    vmf.problems.len() - SHOWN
                );
            }
            Ok(vmf)
        }
    }
}

/// Runs stage 1 and writes its side files (`.prt`, or `.lin` on a leak); the BSP itself is
/// returned for the caller to finish and write.
fn run_vbsp(args: &VbspArgs) -> anyhow::Result<Stage1> {
    let out_path = args
        .output
        .clone()
        .unwrap_or_else(|| args.map.with_extension("bsp"));
    // The BSP and its side files (.prt, .lin) must not replace the map.
    for written in [
        out_path.clone(),
        out_path.with_extension("prt"),
        out_path.with_extension("lin"),
    ] {
        crate::refuse_overwriting(&args.map, &written)?;
    }
    let vmf = read_map(&args.map)?;
    let mut input = srcmap_vbsp::input_from_vmf(&vmf);
    let loader = |name: &str| -> Option<srcmap_vbsp::MapInput> {
        let path = find_instance(&args.map, args.game.as_deref(), name)?;
        read_map(&path).ok().map(|v| srcmap_vbsp::input_from_vmf(&v))
    };
    let problems = srcmap_vbsp::instances::collapse(&mut input, &loader)
        .map_err(|e| anyhow::anyhow!("{}: {e}", args.map.display()))?;
    for problem in problems {
        eprintln!("{}: warning: {problem}", args.map.display());
    }
    let materials = crate::materials_cmd::resolver(args.game.as_deref(), args.materials.as_deref())?;
    // Static props read their models through the game's search paths.
    let game = match args.game.as_deref() {
        Some(dir) => Some(srcmap_content::GameDir::open(dir)?),
        None => None,
    };
    let read_model = |path: &str| game.as_ref().and_then(|g| g.read(path).ok().flatten());
    let detail_types = args.detail_file.as_deref().map(load_detail_file).transpose()?;
    let opts = srcmap_vbsp::Options {
        materials: &materials,
        no_detail: args.nodetail,
        allow_leak: args.allowleak,
        verify: args.verify,
        dump: false,
        map_revision: vmf
            .version_info
            .as_ref()
            .map(|v| v.map_version as i32)
            .unwrap_or(0),
        // Valve names the map's patched materials after the BSP it writes.
        map_name: out_path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default(),
        threads: srcmap_stage::Threads(args.threads),
        models: game
            .is_some()
            .then_some(&read_model as srcmap_vbsp::props::ModelReader<'_>),
        detail_types: detail_types.as_ref(),
    };
    let result = srcmap_vbsp::compile(&input, &opts, &crate::progress::Bar::steps("vbsp", args.quiet));
    let mut out = match result {
        Ok(o) => o,
        Err(leak @ VbspError::Leak { .. }) => return Err(leak_error(args, &vmf, &out_path, leak)),
        Err(e) => anyhow::bail!("{}: {e}", args.map.display()),
    };
    // Unknown materials: one line, the first few names (all of them with --verbose).
    if let Some(line) = materials.unknown_summary((!args.verbose).then_some(5))
        && !args.quiet
    {
        eprintln!("{}: warning: {line}", args.map.display());
    }
    for w in materials.warnings() {
        out.report.warn(w.to_string());
    }
    for d in &out.diagnostics {
        if !args.quiet || d.severity == Severity::Error {
            eprintln!("{}: {d}", args.map.display());
        }
    }
    let file = out
        .bsp
        .to_bytes()
        .map_err(|e| anyhow::anyhow!("{}: writing the BSP: {e}", args.map.display()))?;
    let sealed = out.leak.is_none();
    write_side_files(&out_path, &out)?;
    if !args.quiet {
        print_summary(&out_path, &out.report);
    }
    Ok(Stage1 {
        bsp: out.bsp,
        file,
        out_path,
        sealed,
        report: out.report,
    })
}

/// The portal file of a sealed map, or the pointfile of a leaked one (written with
/// `--allowleak`); the other one, stale from an earlier compile, is removed.
fn write_side_files(out_path: &Path, out: &srcmap_vbsp::Output) -> anyhow::Result<()> {
    if let Some(VbspError::Leak { pointfile, .. }) = &out.leak {
        // Valve writes no portal file for a leaked map: vis cannot run on it.
        crate::write_output(&out_path.with_extension("lin"), pointfile.as_bytes())?;
        let _ = std::fs::remove_file(out_path.with_extension("prt"));
    } else {
        crate::write_output(&out_path.with_extension("prt"), out.prt.as_bytes())?;
        // A stale pointfile from an earlier leak would mislead.
        let _ = std::fs::remove_file(out_path.with_extension("lin"));
    }
    Ok(())
}

/// One line of what stage 1 built.
fn print_summary(out_path: &Path, r: &srcmap_stage::Report) {
    eprintln!(
        "vbsp: {} ({} brushes, {} models, {} faces, {} leaves, {} clusters, {} portals)",
        out_path.display(),
        r.count("brushes"),
        r.count("models"),
        r.count("faces"),
        r.count("world_leaves"),
        r.count("clusters"),
        r.count("portals")
    );
}

/// A leak: the pointfile is written beside the BSP, and the error names the entity that
/// reached the void and what was left out before the flood (often the hole itself).
fn leak_error(args: &VbspArgs, vmf: &srcmap_vmf::Vmf, out_path: &Path, leak: VbspError) -> anyhow::Error {
    let VbspError::Leak {
        entity_id,
        classname,
        origin,
        pointfile,
        skipped_brushes,
    } = leak
    else {
        return anyhow::anyhow!("{}: {leak}", args.map.display());
    };
    let lin = out_path.with_extension("lin");
    if let Err(e) = crate::write_output(&lin, pointfile.as_bytes()) {
        return e;
    }
    // Whatever was left out before the flood may be the hole: say so here, where the
    // mapper looks, not only in the lines printed before.
    for d in &skipped_brushes {
        eprintln!("{}: {d}", args.map.display());
    }
    let mut hint = String::new();
    if let Some(first) = vmf.problems.first() {
        hint += &format!(
            "; {} damaged part{} of the map left out ({first})",
            vmf.problems.len(),
            if vmf.problems.len() == 1 { "" } else { "s" }
        );
    }
    if let Some(first) = skipped_brushes.first() {
        hint += &format!(
            "; {} brush{} left out before the flood ({}: {})",
            skipped_brushes.len(),
            if skipped_brushes.len() == 1 { "" } else { "es" },
            first.at,
            first.message
        );
    }
    if !hint.is_empty() {
        hint += ": that may be the hole";
    }
    anyhow::anyhow!(
        "{}: leak: entity {entity_id} '{classname}' at ({} {} {}) can reach the void; pointfile {}{hint}",
        args.map.display(),
        origin.x,
        origin.y,
        origin.z,
        lin.display()
    )
}

/// Reads a `detail.vbsp` (`--detail-file`).
pub fn load_detail_file(path: &Path) -> anyhow::Result<srcmap_content::detail_vbsp::DetailTypes> {
    let bytes = std::fs::read(path).with_context(|| format!("{}: cannot read", path.display()))?;
    Ok(srcmap_content::detail_vbsp::DetailTypes::parse(
        &bytes,
        &path.display().to_string(),
    )?)
}

pub fn vbsp(args: &VbspArgs) -> anyhow::Result<()> {
    let stage1 = run_vbsp(args)?;
    crate::write_output(&stage1.out_path, &stage1.file)?;
    if args.json {
        crate::print_json(&stage1.report)?;
    }
    Ok(())
}

/// An instance file: relative to the map's folder, then under `-game`'s `maps/` and
/// `mapsrc/` (as Hammer and VBSP look for them).
fn find_instance(map: &Path, game: Option<&Path>, name: &str) -> Option<PathBuf> {
    let name = name.replace('\\', "/");
    let mut roots = vec![map.parent().unwrap_or(Path::new(".")).to_path_buf()];
    if let Some(g) = game {
        roots.push(g.join("maps"));
        roots.push(g.join("mapsrc"));
        roots.push(g.join("../sdk_content/maps"));
        roots.push(g.to_path_buf());
    }
    let base = Path::new(&name).file_name()?.to_owned();
    let found = roots.iter().map(|r| r.join(&name)).find(|p| p.is_file());
    // Instances copied flat beside the map (their folder dropped) are found too.
    found.or_else(|| roots.iter().map(|r| r.join(&base)).find(|p| p.is_file()))
}

/// vbsp, then vvis, then vrad, in one process on one map in memory; the BSP is written once,
/// at the end.
pub fn compile(args: &CompileArgs) -> anyhow::Result<()> {
    let Stage1 {
        mut bsp,
        file,
        out_path,
        sealed,
        report,
    } = run_vbsp(&args.vbsp)?;
    let name = args.vbsp.map.display();
    let quiet = args.vbsp.quiet;
    let mut reports = vec![report];
    if args.no_vis {
    } else if sealed {
        let options = srcmap_vvis::Options {
            fast: args.fast,
            threads: srcmap_stage::Threads(args.vbsp.threads),
            verify: args.vbsp.verify,
            ..Default::default()
        };
        // Portals are rebuilt from the BSP's own tree rather than read from the .prt: they
        // give the same PVS on sealed maps, and stay right where our portal file's outer box
        // is too small (maps whose brushes reach far beyond the world model).
        let report = srcmap_vvis::vis(&mut bsp, None, &options, &crate::progress::Bar::new(quiet))
            .map_err(|e| anyhow::anyhow!("{name}: vvis: {:#}", anyhow::Error::from(e)))?;
        reports.push(report);
    } else if !quiet {
        eprintln!("{name}: warning: the map leaked, so vis was skipped (every cluster sees every other)")
    }
    if !args.no_rad {
        let options = crate::rad_cmd::RadOptions {
            fast: args.fast,
            final_: args.final_,
            bounce: args.bounce,
            threads: args.vbsp.threads,
            verify: args.vbsp.verify,
            texlights: crate::rad_cmd::load_texlights(
                args.vbsp.materials.as_deref(),
                args.vbsp.game.as_deref(),
                &[],
                Some(&args.vbsp.map),
                quiet,
            )?,
            models: args
                .vbsp
                .game
                .as_deref()
                .map(crate::rad_cmd::model_source)
                .transpose()?,
            ..Default::default()
        };
        let report = srcmap_vrad::light(&mut bsp, &options.to_options(), &crate::progress::Bar::new(quiet))
            .map_err(|e| anyhow::anyhow!("{name}: vrad: {:#}", anyhow::Error::from(e)))?;
        reports.push(report);
    }
    let bytes = bsp
        .to_bytes_over(&file)
        .map_err(|e| anyhow::anyhow!("{name}: writing the BSP: {e}"))?;
    crate::write_output(&out_path, &bytes)?;
    if !quiet {
        eprintln!("compile: wrote {}", out_path.display());
    }
    if args.vbsp.json {
        crate::print_json(&reports)?;
    }
    Ok(())
}
