//! `vrad`: lighting for a BSP (ours or Valve's), rewritten in place or to `--output`;
//! `--shard I/N --pass direct -o PART` lights one shard's faces, `vrad merge` joins the parts.

use std::path::PathBuf;

use srcmap_driver::{RadMergeJob, RadSettings, RadShardJob, RadSources, VradJob};
use srcmap_shard::Shard;
use srcmap_stage::total_line;
use srcmap_vrad::{AmbientOcclusion, Report, counts};

use crate::output::{Stderr, print_json, print_warnings};
use crate::progress::{Bar, print_line};

#[derive(Debug, clap::Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct VradArgs {
    #[command(subcommand)]
    pub merge: Option<VradCommand>,
    /// The BSP to light (rewritten in place unless --output is given).
    #[arg(required = true)]
    pub bsp: Option<PathBuf>,
    /// Write the lit BSP here instead (with --shard: the partial file).
    #[arg(long, short)]
    pub output: Option<PathBuf>,
    /// Light only shard I of N (0-based) of the faces and write a partial file (--output
    /// PART) for `srcmap vrad merge`; the shards of a run need not run at the same time.
    #[arg(long, requires = "output", value_parser = parse_shard)]
    pub shard: Option<Shard>,
    /// With --shard: the pass the shard computes. `direct` (the only sharded pass): direct
    /// light and the bounce gather rays of the shard's faces; the merge runs the rest.
    #[arg(long, requires = "shard", value_enum, default_value_t = RadPass::Direct)]
    pub pass: RadPass,
    #[command(flatten)]
    pub run: VradRunArgs,
}

/// The sharded passes of lighting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum RadPass {
    /// Direct light and the bounce gather rays, by faces.
    Direct,
}

/// `srcmap vrad merge`.
#[derive(Debug, clap::Subcommand)]
pub enum VradCommand {
    /// Joins the partial files of a sharded lighting (`srcmap vrad --shard I/N -o PART`) and
    /// finishes it (bounce passes, ambient cubes, lightmaps): the BSP `srcmap vrad` writes,
    /// byte for byte. Give the same lighting flags as the shards had; a part missing, damaged
    /// or of another run is refused by name.
    Merge(VradMergeArgs),
}

#[derive(Debug, clap::Args)]
pub struct VradMergeArgs {
    /// The BSP the shards read (rewritten in place unless --output is given).
    pub bsp: PathBuf,
    /// Every shard's partial file.
    #[arg(required = true)]
    pub parts: Vec<PathBuf>,
    /// Write the lit BSP here instead.
    #[arg(long, short)]
    pub output: Option<PathBuf>,
    /// The pass the parts hold (see `srcmap vrad --pass`).
    #[arg(long, value_enum, default_value_t = RadPass::Direct)]
    pub pass: RadPass,
    #[command(flatten)]
    pub run: VradRunArgs,
}

/// The flags of a lighting run, the same for `srcmap vrad`, its shards and `vrad merge`.
#[derive(Debug, clap::Args)]
pub struct VradRunArgs {
    /// Quick preview: fewer sky and bounce rays.
    #[arg(long, conflicts_with = "final_")]
    pub fast: bool,
    /// Release quality: more sky, bounce and ambient rays.
    #[arg(long = "final")]
    pub final_: bool,
    /// Worker threads (0 = all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Game directory: materials (reflectivity, bump maps, see-through brushes), lights.rad,
    /// and the static props' models, which cast shadows (Valve's -game, -vproject).
    #[arg(long, alias = "vproject")]
    pub game: Option<PathBuf>,
    /// A material table (`srcmap materials extract`): its `emit` facts are texture lights,
    /// overridden by any lights.rad file.
    #[arg(long)]
    pub materials: Option<PathBuf>,
    #[command(flatten)]
    pub light: RadFlags,
    /// No progress output.
    #[arg(long, short)]
    pub quiet: bool,
    /// Print the run's report as JSON.
    #[arg(long)]
    pub json: bool,
    /// Check the invariants each lighting pass relies on between passes (always on in debug
    /// builds).
    #[arg(long)]
    pub verify: bool,
}

/// Lighting's own flags, shared by `srcmap vrad` and `srcmap compile`. Each is unset unless
/// given (so a compile's preset and config file can be laid under them).
#[derive(Debug, Default, Clone, clap::Args, serde::Serialize, serde::Deserialize)]
pub struct RadFlags {
    /// Maximum number of light bounces (default 100; stops early, as VRAD, once a bounce adds
    /// under one unit of light summed over patches).
    #[arg(long)]
    pub bounce: Option<u32>,
    /// Write only LDR lighting (by default LDR, plus HDR when the map already has HDR lighting;
    /// HDR for BSP v21 and v25, whose games draw no LDR lightmaps).
    #[arg(long, conflicts_with_all = ["hdr", "both"])]
    pub ldr: bool,
    /// Write only HDR lighting.
    #[arg(long, conflicts_with = "both")]
    pub hdr: bool,
    /// Write LDR and HDR lighting.
    #[arg(long)]
    pub both: bool,
    /// Static props cast the shadow of their render triangles, not their collision model
    /// (VRAD's -StaticPropPolys).
    #[arg(long = "StaticPropPolys")]
    pub static_prop_polys: bool,
    /// With -StaticPropPolys: props built with $casttextureshadows whose materials are
    /// $translucent or $alphatest let light through where their base texture is clear
    /// (VRAD's -textureshadows).
    #[arg(long = "textureshadows")]
    pub texture_shadows: bool,
    /// Per-vertex static-prop lighting: sp_N.vhv / sp_hdr_N.vhv files in the pakfile, from
    /// the models in --game, and texelslighting_N.ppl for props with generatelightmaps (VRAD's
    /// -StaticPropLighting; skipped with --fast).
    #[arg(long = "StaticPropLighting")]
    pub static_prop_lighting: bool,
    /// With -StaticPropLighting: no prop shadows its own vertices (VRAD's -nossprops,
    /// -disablepropselfshadowing).
    #[arg(long = "disablepropselfshadowing")]
    pub disable_prop_self_shadowing: bool,
    /// Ambient occlusion (off by default): darken luxels and prop vertices by the share of
    /// short hemisphere rays that hit geometry within -aoradius (as CS:GO-derived VRADs).
    #[arg(long = "ambientocclusion")]
    pub ambient_occlusion: bool,
    /// With -ambientocclusion: how far (units) geometry darkens a point (default 40).
    #[arg(long = "aoradius", value_parser = positive_f32)]
    pub ao_radius: Option<f32>,
    /// With -ambientocclusion: hemisphere rays per luxel or vertex (default 32).
    #[arg(long = "aosamples", value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub ao_samples: Option<u32>,
    /// With -ambientocclusion: light is multiplied by 1 - aoscale × (share of rays that hit)
    /// (default 1).
    #[arg(long = "aoscale", value_parser = positive_f32)]
    pub ao_scale: Option<f32>,
    /// No supersampling of direct light where it changes sharply (VRAD's -noextra).
    #[arg(long = "noextra")]
    pub no_extra: bool,
    /// Sky-ambient rays: 162 × N per sample (VRAD's -extrasky N; -final is 4 here).
    #[arg(long = "extrasky", value_parser = clap::value_parser!(u32).range(1..=64))]
    pub extra_sky: Option<u32>,
    /// Bounce patch size in luxels (VRAD's -chop; default 4, 2 with -final).
    #[arg(long = "chop", value_parser = clap::value_parser!(u32).range(1..=64))]
    pub chop: Option<u32>,
    /// Texture lights in Valve's lights.rad syntax, read after -game's lights.rad and before
    /// MAP.rad beside the map (repeatable; later files override earlier ones).
    #[arg(long = "lights", value_name = "FILE.rad")]
    pub lights: Vec<PathBuf>,
    /// Do not recover texture lights from the emit_surface world lights already in the BSP.
    #[arg(long)]
    pub no_texlight_harvest: bool,
    /// Skip the per-leaf ambient cubes.
    #[arg(long)]
    pub noambient: bool,
}

/// What a run's quality and machine flags are, besides lighting's own.
pub struct RunFlags {
    pub fast: bool,
    pub final_: bool,
    pub threads: Option<usize>,
    pub verify: bool,
}

impl RadFlags {
    /// The driver's settings for these flags and the run's.
    pub fn settings(&self, run: &RunFlags) -> RadSettings {
        RadSettings {
            fast: run.fast,
            final_: run.final_,
            bounce: self.bounce,
            hdr: self.hdr,
            both: self.both,
            ldr_only: self.ldr,
            threads: run.threads.unwrap_or(0),
            verify: run.verify,
            no_ambient: self.noambient,
            no_texlight_harvest: self.no_texlight_harvest,
            static_prop_polys: self.static_prop_polys,
            texture_shadows: self.texture_shadows,
            static_prop_lighting: self.static_prop_lighting,
            disable_prop_self_shadowing: self.disable_prop_self_shadowing,
            ambient_occlusion: self.ambient_occlusion.then_some(AmbientOcclusion {
                radius: self.ao_radius.unwrap_or(40.0),
                samples: self.ao_samples.unwrap_or(32) as usize,
                scale: self.ao_scale.unwrap_or(1.0),
            }),
            no_extra: self.no_extra,
            extra_sky: self.extra_sky,
            chop: self.chop,
        }
    }
}

/// A finite number above zero (`-aoradius`, `-aoscale`).
fn positive_f32(s: &str) -> Result<f32, String> {
    match s.parse::<f32>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
        _ => Err(format!("'{s}' is not a number above zero")),
    }
}

/// `I/N` as a shard.
fn parse_shard(text: &str) -> Result<Shard, String> {
    Shard::parse(text).map_err(|e| e.to_string())
}

impl VradRunArgs {
    /// The job these flags ask for, on `bsp` into `output`.
    fn job(&self, bsp: PathBuf, output: Option<PathBuf>) -> VradJob {
        let run = RunFlags {
            fast: self.fast,
            final_: self.final_,
            threads: self.threads,
            verify: self.verify,
        };
        VradJob {
            bsp,
            output,
            settings: self.light.settings(&run),
            sources: RadSources {
                game: self.game.clone(),
                materials: self.materials.clone(),
                lights: self.light.lights.clone(),
            },
            quiet: self.quiet || self.json,
        }
    }
}

/// `srcmap vrad`: the BSP lit, then the report printed (JSON, or lines for a person); or one
/// shard's part, or the merge of the parts.
pub fn vrad(args: &VradArgs) -> anyhow::Result<()> {
    if let Some(VradCommand::Merge(merge)) = &args.merge {
        return vrad_merge(merge);
    }
    let bsp = args.bsp.clone().unwrap_or_default();
    if let Some(shard) = args.shard {
        return vrad_shard(args, bsp, shard);
    }
    let run_args = &args.run;
    let progress = Bar::new(run_args.quiet);
    let run = srcmap_driver::vrad(&run_args.job(bsp, args.output.clone()), &progress, &Stderr)?;
    if run_args.json {
        print_json(&json_report(&run.report, run.seconds)?)?;
    } else if !run_args.quiet {
        print_summary(run_args, &run.output, &run.report);
    }
    if !run_args.quiet {
        print_line(&total_line("vrad", &run.output, run.seconds));
    }
    Ok(())
}

/// `srcmap vrad MAP.bsp --shard I/N --pass direct -o PART`.
fn vrad_shard(args: &VradArgs, bsp: PathBuf, shard: Shard) -> anyhow::Result<()> {
    let progress = Bar::new(args.run.quiet);
    let job = RadShardJob {
        job: args.run.job(bsp, None),
        shard,
        part: args.output.clone().unwrap_or_default(),
    };
    let run = srcmap_driver::rad_shard(&job, &progress, &Stderr)?;
    if args.run.json {
        print_json(&json_report(&run.report, run.seconds)?)?;
    } else if !args.run.quiet {
        eprintln!("{}: shard {shard} of the faces lit", run.output.display());
        print_line(&total_line("vrad", &run.output, run.seconds));
    }
    Ok(())
}

/// `srcmap vrad merge MAP.bsp PART...`.
fn vrad_merge(args: &VradMergeArgs) -> anyhow::Result<()> {
    let progress = Bar::new(args.run.quiet);
    let job = RadMergeJob {
        job: args.run.job(args.bsp.clone(), args.output.clone()),
        parts: args.parts.clone(),
    };
    let run = srcmap_driver::rad_merge(&job, &progress, &Stderr)?;
    if args.run.json {
        print_json(&json_report(&run.report, run.seconds)?)?;
    } else if !args.run.quiet {
        print_summary(&args.run, &run.output, &run.report);
        print_line(&total_line("vrad merge", &run.output, run.seconds));
    }
    Ok(())
}

/// What the run did, for a person: material and prop sources, files packed, counts and speed.
fn print_summary(args: &VradRunArgs, out: &std::path::Path, report: &Report) {
    print_warnings(report);
    if args.game.is_some() || args.materials.is_some() {
        eprintln!(
            "materials: {} reflectivities and {} bump flags taken from game content or the table; {} brushes see-through (no shadow)",
            report.count(counts::MATERIALS_REFLECTIVITY),
            report.count(counts::MATERIALS_BUMP_CHANGED),
            report.count(counts::SEE_THROUGH_BRUSHES)
        );
    }
    print_props(report);
    print_totals(out, report);
}

/// The lines of what was done to and for props (each only when something was): static prop
/// shadows, prop lighting files, texture shadows, ambient occlusion, detail props.
fn print_props(report: &Report) {
    let props = report.count(counts::STATIC_PROPS);
    if props > 0 {
        eprintln!(
            "static props: {props}, {} casting shadows ({} triangles), {} without a model",
            report.count(counts::PROP_SHADOW_CASTERS),
            report.count(counts::PROP_SHADOW_TRIANGLES),
            report.count(counts::PROPS_WITHOUT_MODEL)
        );
    }
    print_prop_files(report);
    let detail = report.count(counts::DETAIL_PROPS_LIT);
    if detail > 0 {
        eprintln!(
            "detail props lit: {detail}, {} light-style entries",
            report.count(counts::DETAIL_STYLE_ENTRIES)
        );
    }
}

/// Lines for what the run packed or shaded for props, each only when it did something.
fn print_prop_files(report: &Report) {
    print_if_any(report, counts::VHV_FILES, |n| {
        format!("packed {n} per-vertex prop lighting files (sp_*.vhv)")
    });
    print_if_any(report, counts::PPL_FILES, |n| {
        format!("packed {n} per-texel prop lighting files (texelslighting_*.ppl)")
    });
    print_if_any(report, counts::TEXTURE_SHADOW_TRIANGLES, |n| {
        format!("texture shadows: {n} prop triangles let light through their clear texels")
    });
    print_if_any(report, counts::OCCLUDED_LUXELS, |n| {
        format!("ambient occlusion darkened {n} luxels")
    });
}

/// The line for a count, when the count is above zero.
fn print_if_any(report: &Report, count: &str, line: impl FnOnce(u64) -> String) {
    let n = report.count(count);
    if n > 0 {
        eprintln!("{}", line(n));
    }
}

/// The run's counts and speed.
fn print_totals(out: &std::path::Path, report: &Report) {
    let harvested = report.count(counts::TEXLIGHTS_HARVESTED);
    let harvested = if harvested > 0 {
        format!("; {harvested} texture lights recovered from the map's world lights")
    } else {
        String::new()
    };
    eprintln!(
        "{}: {} lit faces, {} luxels, {} lights ({} texture-light patches{harvested}), {} bounces, {} leaves with ambient cubes",
        out.display(),
        report.count(counts::LIT_FACES),
        report.count(counts::LUXELS),
        report.count(counts::LIGHTS),
        report.count(counts::SURFACE_LIGHTS),
        report.count(counts::BOUNCES_DONE),
        report.count(counts::LEAVES_WITH_AMBIENT)
    );
    eprintln!(
        "{} rays, {:.2} Mrays/s",
        report.count(counts::RAYS),
        srcmap_vrad::rays_per_second(report) / 1e6,
    );
}

/// The shared stage report (`seconds`: the stage, as its end line says), plus the run's total
/// seconds (to the BSP written) and its rays per second.
fn json_report(r: &Report, total: f64) -> anyhow::Result<serde_json::Value> {
    let mut value = serde_json::to_value(r)?;
    value["total_seconds"] = total.into();
    value["rays_per_second"] = srcmap_vrad::rays_per_second(r).into();
    Ok(value)
}
