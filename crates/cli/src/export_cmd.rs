//! `export MAP.bsp -o MAP.glb` and `render MAP.bsp -o MAP.png`: arguments, reading, writing.

use std::path::{Path, PathBuf};

use anyhow::{Context, anyhow};
use srcmap_bsp::Bsp;
use srcmap_content::gameinfo::{GameDir, material_path};
use srcmap_export::render::{RenderOptions, Shading, View, entity_view, render};
use srcmap_export::texture::{TextureLookup, decode_vtf};
use srcmap_export::{MapMesh, gltf};

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
    /// The BSP to draw.
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
    /// Perspective view from an entity (targetname or classname), with its angles.
    #[arg(long)]
    pub from: Option<String>,
    #[arg(long, default_value_t = 1024)]
    pub width: u32,
    #[arg(long, default_value_t = 768)]
    pub height: u32,
    #[arg(long)]
    pub hdr: bool,
    /// Game directory (with `gameinfo.txt`) for textures, as for `export`.
    #[arg(long)]
    pub game: Option<PathBuf>,
    /// Print nothing but notes and errors.
    #[arg(short, long)]
    pub quiet: bool,
}

pub(crate) fn read_bsp(path: &Path) -> anyhow::Result<Bsp> {
    let data = std::fs::read(path).map_err(|e| anyhow!("{}: cannot read: {e}", path.display()))?;
    Bsp::parse(&data).map_err(|e| anyhow!("{}: {e}", path.display()))
}

pub(crate) fn print_notes(path: &Path, mesh: &MapMesh) {
    for n in &mesh.notes {
        eprintln!("{}: note: {n}", path.display());
    }
}

/// The largest texture side decoded (a smaller mip is taken): renders and exports stay small.
const TEXTURE_SIDE: u32 = 128;

/// Each material's texture: its VMT's `$basetexture` (or the material name) as a VTF in the
/// pakfile, then in the game. Not found is `Missing` when a game was given (nothing can be
/// said without one); a format not decoded is `Unknown` (flat colour).
pub(crate) fn textures(
    bsp: &Bsp,
    mesh: &MapMesh,
    game: Option<&Path>,
    map: &Path,
) -> anyhow::Result<Vec<TextureLookup>> {
    let game = game
        .map(|g| GameDir::open(g).map_err(|e| anyhow!("{}: {e}", g.display())))
        .transpose()?;
    let pak = srcmap_bsp::pak::Pak::parse(&bsp.pakfile, 0).ok();
    let read = |path: &str| -> Option<Vec<u8>> {
        if let Some(bytes) = pak
            .as_ref()
            .and_then(|p| p.find(path).and_then(|e| p.read(e).ok()))
        {
            return Some(bytes);
        }
        game.as_ref().and_then(|g| g.read(path).ok().flatten())
    };
    let mut unreadable = 0;
    let out = mesh
        .materials
        .iter()
        .map(|m| {
            let vmt_path = material_path(&m.name, "vmt");
            let base = read(&vmt_path)
                .and_then(|b| srcmap_content::vmt::Vmt::parse(&b, &vmt_path).ok())
                .and_then(|v| {
                    v.params
                        .iter()
                        .find(|(k, _)| k == "$basetexture")
                        .map(|(_, t)| t.clone())
                })
                .unwrap_or_else(|| m.name.clone());
            let vtf_path = material_path(&base, "vtf");
            match read(&vtf_path) {
                Some(bytes) => match decode_vtf(&bytes, &vtf_path, TEXTURE_SIDE) {
                    Ok(Some(image)) => TextureLookup::Found(image),
                    Ok(None) => TextureLookup::Unknown,
                    Err(_) => {
                        unreadable += 1;
                        TextureLookup::Unknown
                    }
                },
                None if game.is_some() => TextureLookup::Missing,
                None => TextureLookup::Unknown,
            }
        })
        .collect();
    if unreadable > 0 {
        eprintln!(
            "{}: note: {unreadable} textures could not be read: flat colours",
            map.display()
        );
    }
    Ok(out)
}

pub fn export(args: &ExportArgs) -> anyhow::Result<()> {
    let bsp = read_bsp(&args.map)?;
    let mesh = MapMesh::build(&bsp, args.hdr);
    print_notes(&args.map, &mesh);
    let textures = textures(&bsp, &mesh, args.game.as_deref(), &args.map)?;
    let options = gltf::ExportOptions { textures: &textures };
    let glb = gltf::to_glb(&bsp, &mesh, &options).map_err(|e| anyhow!("{}: {e}", args.map.display()))?;
    let out = args
        .output
        .clone()
        .unwrap_or_else(|| args.map.with_extension("glb"));
    let bytes = glb.to_bytes();
    srcmap_bytes::write_atomic(&out, &bytes).with_context(|| format!("{}: cannot write", out.display()))?;
    if !args.quiet {
        println!(
            "{}: {} faces, {} triangles, {} materials ({} textures decoded), lightmap atlas {}x{} ({} lit faces), {} bytes",
            out.display(),
            mesh.faces_drawn,
            mesh.triangles,
            mesh.materials.len(),
            textures
                .iter()
                .filter(|t| matches!(t, TextureLookup::Found(_)))
                .count(),
            mesh.atlas.width,
            mesh.atlas.height,
            mesh.atlas.lit_faces(),
            bytes.len()
        );
    }
    Ok(())
}

pub fn render_map(args: &RenderArgs) -> anyhow::Result<()> {
    let bsp = read_bsp(&args.map)?;
    let mesh = MapMesh::build(&bsp, args.hdr);
    print_notes(&args.map, &mesh);
    let view = match (&args.from, args.top) {
        (Some(name), _) => entity_view(&bsp, name).ok_or_else(|| {
            anyhow!(
                "{}: no entity named or of class '{name}' with an origin",
                args.map.display()
            )
        })?,
        (None, true) => View::Top,
        (None, false) => View::Isometric,
    };
    let shading = match args.shading {
        ShadingArg::Lit => Shading::Lit,
        ShadingArg::Fullbright => Shading::Fullbright,
        ShadingArg::Lightmap => Shading::Lightmap,
    };
    let textures = textures(&bsp, &mesh, args.game.as_deref(), &args.map)?;
    let image = render(
        &mesh,
        &textures,
        &RenderOptions {
            width: args.width,
            height: args.height,
            shading,
            view,
        },
    );
    let png = image.to_png().map_err(|e| anyhow!("{e}"))?;
    let out = args
        .output
        .clone()
        .unwrap_or_else(|| args.map.with_extension("png"));
    srcmap_bytes::write_atomic(&out, &png).with_context(|| format!("{}: cannot write", out.display()))?;
    if !args.quiet {
        println!(
            "{}: {}x{}, {} triangles",
            out.display(),
            image.width,
            image.height,
            mesh.triangles
        );
    }
    Ok(())
}
