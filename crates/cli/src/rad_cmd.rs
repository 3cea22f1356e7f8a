//! `vrad`: lighting for a BSP (ours or Valve's), rewritten in place or to `--output`.

use std::path::PathBuf;
use std::time::Instant;

use srcmap_vrad::{Options, Quality, Report, Threads, counts};

#[derive(Debug, clap::Args)]
pub struct VradArgs {
    /// The BSP to light (rewritten in place unless --output is given).
    pub bsp: PathBuf,
    /// Write the lit BSP here instead.
    #[arg(long, short)]
    pub output: Option<PathBuf>,
    /// Quick preview: fewer sky and bounce rays.
    #[arg(long, conflicts_with = "final_")]
    pub fast: bool,
    /// Release quality: more sky, bounce and ambient rays.
    #[arg(long = "final")]
    pub final_: bool,
    /// Maximum number of light bounces (stops early, as VRAD, once a bounce adds under one
    /// unit of light summed over patches).
    #[arg(long, default_value_t = 100)]
    pub bounce: u32,
    /// Write only LDR lighting (by default LDR, plus HDR when the map already has HDR lighting).
    #[arg(long, conflicts_with_all = ["hdr", "both"])]
    pub ldr: bool,
    /// Write only HDR lighting.
    #[arg(long, conflicts_with = "both")]
    pub hdr: bool,
    /// Write LDR and HDR lighting.
    #[arg(long)]
    pub both: bool,
    /// Worker threads (0 = all cores).
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// Game directory: materials (reflectivity, bump maps, see-through brushes), lights.rad,
    /// and the static props' models, which cast shadows.
    #[arg(long)]
    pub game: Option<PathBuf>,
    /// Static props cast the shadow of their render triangles, not their collision model
    /// (VRAD's -StaticPropPolys).
    #[arg(long = "StaticPropPolys", alias = "staticproppolys")]
    pub static_prop_polys: bool,
    /// With -StaticPropPolys: props built with $casttextureshadows whose materials are
    /// $translucent or $alphatest let light through where their base texture is clear
    /// (VRAD's -textureshadows).
    #[arg(long = "textureshadows", alias = "TextureShadows")]
    pub texture_shadows: bool,
    /// Per-vertex static-prop lighting: sp_N.vhv / sp_hdr_N.vhv files in the pakfile, from
    /// the models in --game, and texelslighting_N.ppl for props with generatelightmaps (VRAD's
    /// -StaticPropLighting; skipped with --fast).
    #[arg(long = "StaticPropLighting", alias = "staticproplighting")]
    pub static_prop_lighting: bool,
    /// With -StaticPropLighting: no prop shadows its own vertices (VRAD's
    /// -disablepropselfshadowing).
    #[arg(long = "disablepropselfshadowing")]
    pub disable_prop_self_shadowing: bool,
    /// Ambient occlusion (off by default): darken luxels and prop vertices by the share of
    /// short hemisphere rays that hit geometry within -aoradius (as CS:GO-derived VRADs).
    #[arg(long = "ambientocclusion")]
    pub ambient_occlusion: bool,
    /// With -ambientocclusion: how far (units) geometry darkens a point.
    #[arg(long = "aoradius", default_value_t = 40.0, value_parser = positive_f32)]
    pub ao_radius: f32,
    /// With -ambientocclusion: hemisphere rays per luxel or vertex.
    #[arg(long = "aosamples", default_value_t = 32, value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub ao_samples: u32,
    /// With -ambientocclusion: light is multiplied by 1 - aoscale × (share of rays that hit).
    #[arg(long = "aoscale", default_value_t = 1.0, value_parser = positive_f32)]
    pub ao_scale: f32,
    /// Texture lights in Valve's lights.rad syntax, read after -game's lights.rad and before
    /// MAP.rad beside the map (repeatable; later files override earlier ones).
    #[arg(long = "lights", value_name = "FILE.rad")]
    pub lights: Vec<PathBuf>,
    /// A material table (`srcmap materials extract`): its `emit` facts are texture lights,
    /// overridden by any lights.rad file.
    #[arg(long)]
    pub materials: Option<PathBuf>,
    /// Do not recover texture lights from the emit_surface world lights already in the BSP.
    #[arg(long)]
    pub no_texlight_harvest: bool,
    /// Skip the per-leaf ambient cubes.
    #[arg(long)]
    pub noambient: bool,
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

/// A finite number above zero (`-aoradius`, `-aoscale`).
fn positive_f32(s: &str) -> Result<f32, String> {
    match s.parse::<f32>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
        _ => Err(format!("'{s}' is not a number above zero")),
    }
}

/// Options of a lighting run in the form `srcmap compile` can build them.
#[derive(Debug, Clone, Default)]
pub struct RadOptions {
    pub fast: bool,
    pub final_: bool,
    pub bounce: Option<u32>,
    pub hdr: bool,
    pub both: bool,
    pub threads: usize,
    /// `-ldr` given: do not relight HDR even if the map has it.
    pub ldr_only: bool,
    /// Texture lights (`lights.rad` files).
    pub texlights: srcmap_vrad::TexLights,
    /// Check invariants between passes (`--verify`).
    pub verify: bool,
    /// The game's files for static props (their shadows), from `-game`.
    pub models: Option<srcmap_vrad::ModelSource>,
}

impl RadOptions {
    /// The library options these stand for (what `srcmap_vrad::light` takes).
    pub fn to_options(&self) -> Options {
        Options {
            quality: if self.fast {
                Quality::Fast
            } else if self.final_ {
                Quality::Final
            } else {
                Quality::Normal
            },
            bounces: self.bounce.unwrap_or(100),
            ldr: !self.hdr || self.both,
            hdr: self.hdr || self.both,
            threads: Threads(self.threads),
            ambient_cubes: true,
            hdr_if_present: !self.ldr_only,
            texlights: self.texlights.clone(),
            harvest_texlights: true,
            materials: None,
            models: self.models.clone(),
            static_prop_polys: false,
            texture_shadows: false,
            static_prop_lighting: false,
            disable_prop_self_shadowing: false,
            ambient_occlusion: None,
            verify: self.verify,
        }
    }
}

/// The `emit` facts of a material table as texture lights (both ranges).
pub fn table_texlights(table: &srcmap_materials::MaterialTable) -> srcmap_vrad::TexLights {
    let mut out = srcmap_vrad::TexLights::new();
    for (name, entry) in table.iter() {
        if let Some(v) = entry.emit {
            out.set_rgb(name, None, v);
        }
    }
    out
}

/// Texture lights as VRAD reads them, later sources overriding earlier ones: the `emit` facts
/// of a `--materials` table, `GAME/lights.rad` (when present), each `--lights` file (which
/// must exist), then `MAP.rad` beside the map (when present). Bad lines are warnings naming
/// the file and line.
pub fn load_texlights(
    table: Option<&std::path::Path>,
    game: Option<&std::path::Path>,
    lights: &[PathBuf],
    map: Option<&std::path::Path>,
    quiet: bool,
) -> anyhow::Result<srcmap_vrad::TexLights> {
    let mut files: Vec<(PathBuf, bool)> = Vec::new();
    if let Some(g) = game {
        files.push((g.join("lights.rad"), false));
    }
    files.extend(lights.iter().map(|l| (l.clone(), true)));
    if let Some(m) = map {
        files.push((m.with_extension("rad"), false));
    }
    let mut out = match table {
        Some(path) => table_texlights(&crate::materials_cmd::load_table(path)?.1),
        None => srcmap_vrad::TexLights::new(),
    };
    for (path, required) in files {
        let text = match std::fs::read(&path) {
            Ok(b) => String::from_utf8_lossy(&b).into_owned(),
            Err(e) if required => anyhow::bail!("{}: cannot read: {e}", path.display()),
            Err(_) => continue,
        };
        for w in out.parse_into(&text) {
            if !quiet {
                eprintln!("warning: {}: {w}", path.display());
            }
        }
    }
    Ok(out)
}

pub fn vrad(args: &VradArgs) -> anyhow::Result<()> {
    // The BSP is lit in place by default; the light and material files are only read.
    let out = args.output.as_ref().unwrap_or(&args.bsp);
    for read_only in args.lights.iter().chain(&args.materials) {
        crate::refuse_overwriting(read_only, out)?;
    }
    let input =
        std::fs::read(&args.bsp).map_err(|e| anyhow::anyhow!("{}: cannot read: {e}", args.bsp.display()))?;
    let options = vrad_options(args)?;
    let progress = crate::progress::Bar::new(args.quiet || args.json);
    let start = Instant::now();
    let (bytes, report) = srcmap_vrad::relight(&input, &options, &progress)
        .map_err(|e| anyhow::anyhow!("{}: {e}", args.bsp.display()))?;
    crate::write_output(out, &bytes)?;
    let total = start.elapsed().as_secs_f64();
    if args.json {
        crate::print_json(&json_report(&report, total)?)?;
    } else if !args.quiet {
        print_summary(args, out, &report, total);
    }
    Ok(())
}

/// The relight options `srcmap vrad`'s flags ask for (texture lights, materials and models
/// read here).
fn vrad_options(args: &VradArgs) -> anyhow::Result<srcmap_vrad::Options> {
    let rad = RadOptions {
        fast: args.fast,
        final_: args.final_,
        bounce: Some(args.bounce),
        hdr: args.hdr,
        both: args.both,
        threads: args.threads,
        verify: args.verify,
        ldr_only: args.ldr,
        texlights: load_texlights(
            args.materials.as_deref(),
            args.game.as_deref(),
            &args.lights,
            Some(&args.bsp),
            args.quiet || args.json,
        )?,
        models: args.game.as_deref().map(model_source).transpose()?,
    };
    let mut options = rad.to_options();
    options.ambient_cubes = !args.noambient;
    options.harvest_texlights = !args.no_texlight_harvest;
    if args.game.is_some() || args.materials.is_some() {
        let resolver = crate::materials_cmd::resolver(args.game.as_deref(), args.materials.as_deref())?;
        options.materials = Some(srcmap_vrad::MaterialSource(std::sync::Arc::new(resolver)));
    }
    options.static_prop_polys = args.static_prop_polys;
    options.texture_shadows = args.texture_shadows;
    options.static_prop_lighting = args.static_prop_lighting;
    options.disable_prop_self_shadowing = args.disable_prop_self_shadowing;
    options.ambient_occlusion = args.ambient_occlusion.then_some(srcmap_vrad::AmbientOcclusion {
        radius: args.ao_radius,
        samples: args.ao_samples as usize,
        scale: args.ao_scale,
    });
    Ok(options)
}

/// What the run did, for a person: material and prop sources, files packed, counts and speed.
fn print_summary(args: &VradArgs, out: &std::path::Path, report: &Report, total: f64) {
    for w in &report.warnings {
        eprintln!("warning: {w}");
    }
    if args.game.is_some() || args.materials.is_some() {
        eprintln!(
            "materials: {} reflectivities and {} bump flags taken from game content or the table; {} brushes see-through (no shadow)",
            report.count(counts::MATERIALS_REFLECTIVITY),
            report.count(counts::MATERIALS_BUMP_CHANGED),
            report.count(counts::SEE_THROUGH_BRUSHES)
        );
    }
    let props = report.count(counts::STATIC_PROPS);
    if props > 0 {
        eprintln!(
            "static props: {props}, {} casting shadows ({} triangles), {} without a model",
            report.count(counts::PROP_SHADOW_CASTERS),
            report.count(counts::PROP_SHADOW_TRIANGLES),
            report.count(counts::PROPS_WITHOUT_MODEL)
        );
    }
    let vhv = report.count(counts::VHV_FILES);
    if vhv > 0 {
        eprintln!("packed {vhv} per-vertex prop lighting files (sp_*.vhv)");
    }
    let ppl = report.count(counts::PPL_FILES);
    if ppl > 0 {
        eprintln!("packed {ppl} per-texel prop lighting files (texelslighting_*.ppl)");
    }
    let textured = report.count(counts::TEXTURE_SHADOW_TRIANGLES);
    if textured > 0 {
        eprintln!("texture shadows: {textured} prop triangles let light through their clear texels");
    }
    let occluded = report.count(counts::OCCLUDED_LUXELS);
    if occluded > 0 {
        eprintln!("ambient occlusion darkened {occluded} luxels");
    }
    let detail = report.count(counts::DETAIL_PROPS_LIT);
    if detail > 0 {
        eprintln!(
            "detail props lit: {detail}, {} light-style entries",
            report.count(counts::DETAIL_STYLE_ENTRIES)
        );
    }
    let harvested = report.count(counts::TEXLIGHTS_HARVESTED);
    eprintln!(
        "{}: {} lit faces, {} luxels, {} lights ({} texture-light patches{}), {} bounces, {} leaves with ambient cubes",
        out.display(),
        report.count(counts::LIT_FACES),
        report.count(counts::LUXELS),
        report.count(counts::LIGHTS),
        report.count(counts::SURFACE_LIGHTS),
        if harvested > 0 {
            format!("; {harvested} texture lights recovered from the map's world lights")
        } else {
            String::new()
        },
        report.count(counts::BOUNCES_DONE),
        report.count(counts::LEAVES_WITH_AMBIENT)
    );
    eprintln!(
        "{} rays, {:.2} Mrays/s, {:.2} s total",
        report.count(counts::RAYS),
        srcmap_vrad::rays_per_second(report) / 1e6,
        total
    );
}

/// The static props' model files, read through `dir`'s search paths.
pub fn model_source(dir: &std::path::Path) -> anyhow::Result<srcmap_vrad::ModelSource> {
    let game = srcmap_content::GameDir::open(dir)?;
    Ok(srcmap_vrad::ModelSource(std::sync::Arc::new(
        move |path: &str| game.read(path).ok().flatten(),
    )))
}

/// The shared stage report, plus the run's total seconds and its rays per second.
fn json_report(r: &Report, total: f64) -> anyhow::Result<serde_json::Value> {
    let mut value = serde_json::to_value(r)?;
    value["seconds"] = total.into();
    value["rays_per_second"] = srcmap_vrad::rays_per_second(r).into();
    Ok(value)
}
