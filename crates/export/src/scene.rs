//! Everything `export`, `render` and `view` draw of a map: its mesh, its static props, and the
//! textures of both, read from the BSP's pakfile, then from the game directory.
//!
//! The notes a person should read (faces left out, textures that could not be read, props
//! without a model) go to a callback as they arise, in order.

use std::path::{Path, PathBuf};

use srcmap_bsp::Bsp;
use srcmap_bsp::pak::Pak;
use srcmap_content::gameinfo::{GameDir, material_path};

use crate::mesh::MapMesh;
use crate::props::Props;
use crate::styles::StyleScales;
use crate::texture::{TextureLookup, decode_vtf};

/// The largest texture side decoded (a smaller mip is taken): renders and exports stay small.
const TEXTURE_SIDE: u32 = 128;

/// The game directory could not be opened.
#[derive(Debug, thiserror::Error)]
#[error("{}: {error}", dir.display())]
pub struct SceneError {
    pub dir: PathBuf,
    pub error: srcmap_content::ContentError,
}

/// Reads game files (`materials/x.vmt`, `models/x.mdl`) from the pakfile, then the game.
struct GameFiles<'b> {
    pak: Option<Pak<'b>>,
    game: Option<GameDir>,
}

impl<'b> GameFiles<'b> {
    /// The pakfile of `bsp` (when given), then the game directory (when given).
    fn open(bsp: Option<&'b Bsp>, game: Option<&Path>) -> Result<GameFiles<'b>, SceneError> {
        let game = game
            .map(|g| {
                GameDir::open(g).map_err(|error| SceneError {
                    dir: g.to_path_buf(),
                    error,
                })
            })
            .transpose()?;
        let pak = bsp.and_then(|b| Pak::parse(&b.pakfile, 0).ok());
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

    /// A material's base texture: its VMT's `$basetexture`, or the material name.
    fn base_texture(&self, name: &str) -> String {
        let vmt_path = material_path(name, "vmt");
        self.read(&vmt_path)
            .and_then(|b| srcmap_content::vmt::Vmt::parse(&b, &vmt_path).ok())
            .and_then(|v| {
                v.params
                    .iter()
                    .find(|(k, _)| k == "$basetexture")
                    .map(|(_, t)| t.clone())
            })
            .unwrap_or_else(|| name.to_string())
    }

    /// A material's texture as a VTF in the pakfile, then in the game. Not found is `Missing`
    /// when a game was given (nothing can be said without one); a format not decoded is
    /// `Unknown` (flat colour); `unreadable` counts VTFs that could not be decoded.
    fn texture(&self, name: &str, unreadable: &mut usize) -> TextureLookup {
        let vtf_path = material_path(&self.base_texture(name), "vtf");
        match self.read(&vtf_path) {
            Some(bytes) => match decode_vtf(&bytes, &vtf_path, TEXTURE_SIDE) {
                Ok(Some(image)) => TextureLookup::Found(image),
                Ok(None) => TextureLookup::Unknown,
                Err(_) => {
                    *unreadable += 1;
                    TextureLookup::Unknown
                }
            },
            None if self.game.is_some() => TextureLookup::Missing,
            None => TextureLookup::Unknown,
        }
    }

    /// Each material's texture, with one note for those that could not be read.
    fn textures<'n>(
        &self,
        names: impl Iterator<Item = &'n str>,
        note: &mut dyn FnMut(&str),
    ) -> Vec<TextureLookup> {
        let mut unreadable = 0;
        let out = names.map(|name| self.texture(name, &mut unreadable)).collect();
        if unreadable > 0 {
            note(&format!("{unreadable} textures could not be read: flat colours"));
        }
        out
    }
}

/// Everything drawn: the map's mesh, its static props, and both sets of textures.
pub struct MapScene {
    pub mesh: MapMesh,
    pub textures: Vec<TextureLookup>,
    pub props: Props,
    pub prop_textures: Vec<TextureLookup>,
}

impl MapScene {
    /// A compiled map's scene, its textures from the pakfile and then `game`, its light
    /// styles as bright as `styles` says.
    pub fn of_bsp(
        bsp: &Bsp,
        game: Option<&Path>,
        hdr: bool,
        styles: &StyleScales,
        note: &mut dyn FnMut(&str),
    ) -> Result<MapScene, SceneError> {
        let mesh = MapMesh::build_lit(bsp, hdr, styles);
        mesh.notes.iter().for_each(|n| note(n));
        let files = GameFiles::open(Some(bsp), game)?;
        let textures = files.textures(mesh.materials.iter().map(|m| m.name.as_str()), note);
        let props = Props::load(bsp, |p| files.read(p));
        if let Some(text) = props.note() {
            note(&text);
        }
        let prop_textures = files.textures(props.materials.iter().map(String::as_str), note);
        Ok(MapScene {
            mesh,
            textures,
            props,
            prop_textures,
        })
    }

    /// A VMF's brushes drawn without compiling (no lighting, props or overlays).
    pub fn of_vmf(
        vmf: &srcmap_vmf::Vmf,
        game: Option<&Path>,
        note: &mut dyn FnMut(&str),
    ) -> Result<MapScene, SceneError> {
        let mesh = MapMesh::from_vmf(vmf);
        mesh.notes.iter().for_each(|n| note(n));
        let files = GameFiles::open(None, game)?;
        let textures = files.textures(mesh.materials.iter().map(|m| m.name.as_str()), note);
        Ok(MapScene {
            mesh,
            textures,
            props: Props::default(),
            prop_textures: Vec::new(),
        })
    }

    /// The glTF binary `export` writes (and `view` serves) of this scene of `bsp`.
    pub fn glb(&self, bsp: &Bsp) -> Result<crate::glb::Glb, crate::ExportError> {
        let options = crate::gltf::ExportOptions {
            textures: &self.textures,
        };
        crate::gltf::to_glb_with_props(bsp, &self.mesh, &options, &self.props, &self.prop_textures)
    }

    /// Textures decoded (found and read) for the map's own materials.
    pub fn textures_decoded(&self) -> usize {
        self.textures
            .iter()
            .filter(|t| matches!(t, TextureLookup::Found(_)))
            .count()
    }
}
