//! `export MAP.bsp -o MAP.glb` and `render MAP.bsp -o MAP.png`: arguments, reading, writing.

use std::path::{Path, PathBuf};

use anyhow::{Context, anyhow};
use srcmap_bsp::Bsp;
use srcmap_content::gameinfo::{GameDir, material_path};
use srcmap_export::props::Props;
use srcmap_export::render::{RenderOptions, Shading, View, entity_view, render_with_props};
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

/// Reads game files (`materials/x.vmt`, `models/x.mdl`) from the pakfile, then the game.
struct GameFiles<'b> {
    pak: Option<srcmap_bsp::pak::Pak<'b>>,
    game: Option<GameDir>,
}

impl<'b> GameFiles<'b> {
    /// The pakfile of `bsp` (when given), then the game directory (when given).
    fn open(bsp: Option<&'b Bsp>, game: Option<&Path>) -> anyhow::Result<GameFiles<'b>> {
        let game = game
            .map(|g| GameDir::open(g).map_err(|e| anyhow!("{}: {e}", g.display())))
            .transpose()?;
        let pak = bsp.and_then(|b| srcmap_bsp::pak::Pak::parse(&b.pakfile, 0).ok());
        Ok(GameFiles { pak, game })
    }

    fn read(&self, path: &str) -> Option<Vec<u8>> {
        if let Some(bytes) = self
            .pak
            .as_ref()
            .and_then(|p| p.find(path).and_then(|e| p.read(e).ok()))
        {
            return Some(bytes);
        }
        self.game.as_ref().and_then(|g| g.read(path).ok().flatten())
    }
}

/// Each material's texture: its VMT's `$basetexture` (or the material name) as a VTF in the
/// pakfile, then in the game. Not found is `Missing` when a game was given (nothing can be
/// said without one); a format not decoded is `Unknown` (flat colour).
fn lookup_textures<'n>(
    files: &GameFiles<'_>,
    names: impl Iterator<Item = &'n str>,
    map: &Path,
) -> Vec<TextureLookup> {
    let mut unreadable = 0;
    let out = names
        .map(|name| {
            let vmt_path = material_path(name, "vmt");
            let base = files
                .read(&vmt_path)
                .and_then(|b| srcmap_content::vmt::Vmt::parse(&b, &vmt_path).ok())
                .and_then(|v| {
                    v.params
                        .iter()
                        .find(|(k, _)| k == "$basetexture")
                        .map(|(_, t)| t.clone())
                })
                .unwrap_or_else(|| name.to_string());
            let vtf_path = material_path(&base, "vtf");
            match files.read(&vtf_path) {
                Some(bytes) => match decode_vtf(&bytes, &vtf_path, TEXTURE_SIDE) {
                    Ok(Some(image)) => TextureLookup::Found(image),
                    Ok(None) => TextureLookup::Unknown,
                    Err(_) => {
                        unreadable += 1;
                        TextureLookup::Unknown
                    }
                },
                None if files.game.is_some() => TextureLookup::Missing,
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
    out
}

/// Everything drawn: the map's mesh, its static props, and both sets of textures.
pub(crate) struct Scene {
    pub(crate) mesh: MapMesh,
    textures: Vec<TextureLookup>,
    props: Props,
    prop_textures: Vec<TextureLookup>,
}

pub(crate) fn scene(bsp: &Bsp, map: &Path, game: Option<&Path>, hdr: bool) -> anyhow::Result<Scene> {
    let mesh = MapMesh::build(bsp, hdr);
    print_notes(map, &mesh);
    let files = GameFiles::open(Some(bsp), game)?;
    let textures = lookup_textures(&files, mesh.materials.iter().map(|m| m.name.as_str()), map);
    let props = Props::load(bsp, |p| files.read(p));
    if let Some(note) = props.note() {
        eprintln!("{}: note: {note}", map.display());
    }
    let prop_textures = lookup_textures(&files, props.materials.iter().map(String::as_str), map);
    Ok(Scene {
        mesh,
        textures,
        props,
        prop_textures,
    })
}

/// The glTF binary `export` writes (and `view` serves) for `scene` of `bsp`.
pub(crate) fn scene_glb(bsp: &Bsp, scene: &Scene, map: &Path) -> anyhow::Result<srcmap_export::glb::Glb> {
    let options = gltf::ExportOptions {
        textures: &scene.textures,
    };
    gltf::to_glb_with_props(bsp, &scene.mesh, &options, &scene.props, &scene.prop_textures)
        .map_err(|e| anyhow!("{}: {e}", map.display()))
}

pub fn export(args: &ExportArgs) -> anyhow::Result<()> {
    let bsp = read_bsp(&args.map)?;
    let scene = scene(&bsp, &args.map, args.game.as_deref(), args.hdr)?;
    let glb = scene_glb(&bsp, &scene, &args.map)?;
    let Scene {
        mesh,
        textures,
        props,
        ..
    } = scene;
    let out = args
        .output
        .clone()
        .unwrap_or_else(|| args.map.with_extension("glb"));
    let bytes = glb.to_bytes();
    srcmap_bytes::write_atomic(&out, &bytes).with_context(|| format!("{}: cannot write", out.display()))?;
    if !args.quiet {
        println!(
            "{}: {} faces, {} triangles, {} materials ({} textures decoded), lightmap atlas {}x{} ({} lit faces), {} static props ({} models), {} bytes",
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
            props.instances.len(),
            props.meshes.len(),
            bytes.len()
        );
    }
    Ok(())
}

/// A VMF's brushes drawn without compiling (no lighting, props or overlays).
fn vmf_scene(path: &Path, game: Option<&Path>) -> anyhow::Result<Scene> {
    let data = std::fs::read(path).map_err(|e| anyhow!("{}: cannot read: {e}", path.display()))?;
    let vmf = srcmap_vmf::Vmf::parse_bytes(&data).map_err(|e| anyhow!("{}: {e}", path.display()))?;
    let mesh = MapMesh::from_vmf(&vmf);
    print_notes(path, &mesh);
    let files = GameFiles::open(None, game)?;
    let textures = lookup_textures(&files, mesh.materials.iter().map(|m| m.name.as_str()), path);
    Ok(Scene {
        mesh,
        textures,
        props: Props::default(),
        prop_textures: Vec::new(),
    })
}

/// Whether `path` holds a BSP (by its magic), rather than a VMF.
fn is_bsp(path: &Path) -> bool {
    use std::io::Read;
    let mut magic = [0u8; 4];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut magic))
        .is_ok_and(|_| &magic == b"VBSP" || &magic == b"PSBV")
}

pub fn render_map(args: &RenderArgs) -> anyhow::Result<()> {
    let vmf = !is_bsp(&args.map)
        && args
            .map
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("vmf"));
    let (bsp, scene) = if vmf {
        (None, vmf_scene(&args.map, args.game.as_deref())?)
    } else {
        let bsp = read_bsp(&args.map)?;
        let scene = scene(&bsp, &args.map, args.game.as_deref(), args.hdr)?;
        (Some(bsp), scene)
    };
    let view = match (&args.from, args.top) {
        (Some(_), _) if bsp.is_none() => {
            return Err(anyhow!(
                "{}: --from needs a BSP (entities of a VMF are not read)",
                args.map.display()
            ));
        }
        (Some(name), _) => entity_view(bsp.as_ref().expect("checked above"), name).ok_or_else(|| {
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
    let image = render_with_props(
        &scene.mesh,
        &scene.textures,
        &scene.props,
        &scene.prop_textures,
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
            scene.mesh.triangles
        );
    }
    Ok(())
}
