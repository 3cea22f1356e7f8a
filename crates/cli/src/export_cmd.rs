//! `export MAP.bsp -o MAP.glb` and `render MAP.bsp -o MAP.png`: arguments, reading, writing.

use std::path::{Path, PathBuf};

use anyhow::anyhow;
use srcmap_bsp::Bsp;
use srcmap_export::render::{RenderOptions, Shading, View, entity_view, render_with_props};
use srcmap_export::scene::MapScene;
use srcmap_export::{LightSwitch, StyleScales};

use crate::input::{print_note, read_bsp, read_file};

#[derive(Debug, clap::Args)]
pub struct ExportArgs {
    /// The BSP to export.
    pub map: PathBuf,
    /// Output `.glb` (default: the map's name with `.glb`).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Game directory (with `gameinfo.txt`): textures are read from the pakfile, then from the
    /// game; missing ones become a checkerboard. Without it, textures not in the pakfile are
    /// flat colours from their reflectivity.
    #[arg(long)]
    pub game: Option<PathBuf>,
    /// Use the HDR lightmaps (tone-mapped) when the map has both.
    #[arg(long)]
    pub hdr: bool,
    /// Show a named (switchable) light on or off instead of as it is when the map starts
    /// (repeatable).
    #[arg(long = "light", value_name = "NAME=on|off")]
    pub lights: Vec<LightSwitch>,
    /// Print nothing but notes and errors.
    #[arg(short, long)]
    pub quiet: bool,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum ShadingArg {
    Lit,
    Fullbright,
    Lightmap,
}

#[derive(Debug, clap::Args)]
pub struct RenderArgs {
    /// The BSP to draw, or a VMF (its brushes, without compiling: flat shaded, tool textures hidden).
    pub map: PathBuf,
    /// Output `.png` (default: the map's name with `.png`).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Lit (material colour times lightmap), fullbright, or lightmaps only.
    #[arg(long, value_enum, default_value = "lit")]
    pub shading: ShadingArg,
    /// Orthographic view from above.
    #[arg(long, conflicts_with_all = ["iso", "from"])]
    pub top: bool,
    /// Orthographic view from above a corner (the default).
    #[arg(long, conflicts_with = "from")]
    pub iso: bool,
    /// Perspective view from an entity (targetname or classname), with its angles; `NAME#N`
    /// picks the N-th of several (e.g. `info_player_start#2`).
    #[arg(long)]
    pub from: Option<String>,
    /// Picture width in pixels (1-8192).
    #[arg(long, default_value_t = 1024, value_parser = picture_side())]
    pub width: u32,
    /// Picture height in pixels (1-8192).
    #[arg(long, default_value_t = 768, value_parser = picture_side())]
    pub height: u32,
    #[arg(long)]
    pub hdr: bool,
    /// Show a named (switchable) light on or off instead of as it is when the map starts
    /// (repeatable).
    #[arg(long = "light", value_name = "NAME=on|off")]
    pub lights: Vec<LightSwitch>,
    /// Game directory (with `gameinfo.txt`) for textures, as for `export`.
    #[arg(long)]
    pub game: Option<PathBuf>,
    /// Print nothing but notes and errors.
    #[arg(short, long)]
    pub quiet: bool,
}

/// How a compiled map's scene is lit: HDR or LDR lightmaps, named lights switched.
pub struct SceneLighting<'a> {
    pub hdr: bool,
    pub lights: &'a [LightSwitch],
}

/// The scene of a compiled map, its notes printed as they arise.
pub fn bsp_scene(
    bsp: &Bsp,
    map: &Path,
    game: Option<&Path>,
    lit: SceneLighting<'_>,
) -> anyhow::Result<MapScene> {
    let styles =
        StyleScales::with_switches(bsp, lit.lights).map_err(|e| anyhow!("{}: {e}", map.display()))?;
    Ok(MapScene::of_bsp(bsp, game, lit.hdr, &styles, &mut |n| {
        print_note(map, n)
    })?)
}

/// `srcmap export`: the map's scene as a glTF binary.
pub fn export(args: &ExportArgs) -> anyhow::Result<()> {
    let out = args
        .output
        .clone()
        .unwrap_or_else(|| args.map.with_extension("glb"));
    crate::usage::refuse_overwriting(&args.map, &out)?;
    let bsp = read_bsp(&args.map)?;
    let lit = SceneLighting {
        hdr: args.hdr,
        lights: &args.lights,
    };
    let scene = bsp_scene(&bsp, &args.map, args.game.as_deref(), lit)?;
    let glb = scene
        .glb(&bsp)
        .map_err(|e| anyhow!("{}: {e}", args.map.display()))?;
    let bytes = glb.to_bytes();
    crate::output::write_output(&out, &bytes)?;
    if !args.quiet {
        print_export_summary(&out, &scene, bytes.len());
    }
    Ok(())
}

/// `export`'s one line: what was drawn and how big the file is.
fn print_export_summary(out: &Path, scene: &MapScene, bytes: usize) {
    let mesh = &scene.mesh;
    println!(
        "{}: {} faces, {} triangles, {} materials ({} textures decoded), lightmap atlas {}x{} ({} lit faces), {} static props ({} models), {} bytes",
        out.display(),
        mesh.faces_drawn,
        mesh.triangles,
        mesh.materials.len(),
        scene.textures_decoded(),
        mesh.atlas.width,
        mesh.atlas.height,
        mesh.atlas.lit_faces(),
        scene.props.instances.len(),
        scene.props.meshes.len(),
        bytes
    );
}

/// A VMF's brushes drawn without compiling (no lighting, props or overlays).
fn vmf_scene(path: &Path, game: Option<&Path>) -> anyhow::Result<MapScene> {
    let data = read_file(path)?;
    let vmf = srcmap_vmf::Vmf::parse_bytes(&data).map_err(|e| anyhow!("{}: {e}", path.display()))?;
    Ok(MapScene::of_vmf(&vmf, game, &mut |n| print_note(path, n))?)
}
/// Whether `path` holds a BSP (by its magic), rather than a VMF.
fn is_bsp(path: &Path) -> bool {
    use std::io::Read;
    let mut magic = [0u8; 4];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut magic))
        .is_ok_and(|_| &magic == b"VBSP" || &magic == b"PSBV")
}

/// `srcmap render`: the map drawn to a PNG.
pub fn render_map(args: &RenderArgs) -> anyhow::Result<()> {
    crate::usage::refuse_overwriting(&args.map, &png_path(args))?;
    let (bsp, scene) = render_scene(args)?;
    let view = render_view(args, bsp.as_ref())?;
    let image = render_with_props(
        &scene.mesh,
        &scene.textures,
        &scene.props,
        &scene.prop_textures,
        &RenderOptions {
            width: args.width,
            height: args.height,
            shading: args.shading.into(),
            view,
        },
    );
    write_png(args, &image, scene.mesh.triangles)
}

/// Where the picture goes: `--output`, or MAP.png.
fn png_path(args: &RenderArgs) -> PathBuf {
    args.output
        .clone()
        .unwrap_or_else(|| args.map.with_extension("png"))
}

/// The image written as `--output` (default MAP.png), with one line of what was drawn.
fn write_png(args: &RenderArgs, image: &srcmap_export::Rgb8, triangles: usize) -> anyhow::Result<()> {
    let png = image.to_png().map_err(|e| anyhow!("{e}"))?;
    let out = png_path(args);
    crate::output::write_output(&out, &png)?;
    if !args.quiet {
        println!(
            "{}: {}x{}, {} triangles",
            out.display(),
            image.width,
            image.height,
            triangles
        );
    }
    Ok(())
}

/// What `render` draws: a VMF's brushes (a `.vmf` that is not a BSP), or a BSP's scene.
fn render_scene(args: &RenderArgs) -> anyhow::Result<(Option<Bsp>, MapScene)> {
    let vmf = !is_bsp(&args.map)
        && args
            .map
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("vmf"));
    if vmf {
        if !args.lights.is_empty() {
            return Err(anyhow!(
                "{}: --light needs a BSP (a VMF is drawn unlit)",
                args.map.display()
            ));
        }
        return Ok((None, vmf_scene(&args.map, args.game.as_deref())?));
    }
    let bsp = read_bsp(&args.map)?;
    let lit = SceneLighting {
        hdr: args.hdr,
        lights: &args.lights,
    };
    let scene = bsp_scene(&bsp, &args.map, args.game.as_deref(), lit)?;
    Ok((Some(bsp), scene))
}

/// The camera: from an entity of the BSP (`--from`), from above (`--top`), or isometric.
fn render_view(args: &RenderArgs, bsp: Option<&Bsp>) -> anyhow::Result<View> {
    Ok(match (&args.from, args.top) {
        (Some(_), _) if bsp.is_none() => {
            return Err(anyhow!(
                "{}: --from needs a BSP (entities of a VMF are not read)",
                args.map.display()
            ));
        }
        (Some(name), _) => entity_view(bsp.expect("checked above"), name).ok_or_else(|| {
            anyhow!(
                "{}: no entity named or of class '{name}' with an origin (NAME#N counts from 1)",
                args.map.display()
            )
        })?,
        (None, true) => View::Top,
        (None, false) => View::Isometric,
    })
}

impl From<ShadingArg> for Shading {
    fn from(arg: ShadingArg) -> Shading {
        match arg {
            ShadingArg::Lit => Shading::Lit,
            ShadingArg::Fullbright => Shading::Fullbright,
            ShadingArg::Lightmap => Shading::Lightmap,
        }
    }
}

/// A picture side: refused outside 1..=MAX_SIDE (0 was drawn as 1, 65536 overflowed).
fn picture_side() -> clap::builder::RangedI64ValueParser<u32> {
    clap::value_parser!(u32).range(1..=i64::from(srcmap_export::render::MAX_SIDE))
}
