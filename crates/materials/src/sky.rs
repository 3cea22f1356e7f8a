//! The default cube map vbsp writes for a map (`maps/<map>/cubemapdefault.vtf`, its HDR twin,
//! and a copy per cubemap a patched material names), so shiny surfaces show black, not the
//! missing-texture checkerboard, until the engine's `buildcubemaps`. Valve's vbsp makes it
//! from the six sky textures: their format, flags and frame count; its pixels are black.

use serde::{Deserialize, Serialize};
use srcmap_content::GameDir;
use srcmap_content::vtf::{TEXTUREFLAGS_EIGHTBITALPHA, TEXTUREFLAGS_ENVMAP, TEXTUREFLAGS_ONEBITALPHA};

/// What the default cube map of a sky is made of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkyCubemap {
    /// The LDR file's image format: the sky textures' own.
    pub format: i32,
    /// The LDR file's flags.
    pub flags: u32,
    /// The HDR file's flags (RGBA16161616F); `None` when Valve wrote no HDR file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hdr_flags: Option<u32>,
    pub frames: u16,
}

impl SkyCubemap {
    /// The LDR file's bytes; `None` for a format the writer cannot lay out.
    pub fn ldr_vtf(&self) -> Option<Vec<u8>> {
        srcmap_content::vtf::default_cubemap(self.format, self.flags, self.frames)
    }

    /// The HDR file's bytes, when there is one.
    pub fn hdr_vtf(&self) -> Option<Vec<u8>> {
        srcmap_content::vtf::default_cubemap(HDR_FORMAT, self.hdr_flags?, self.frames)
    }
}

/// Valve's order of the sky's faces.
const FACES: [&str; 6] = ["rt", "lf", "bk", "ft", "up", "dn"];

/// `RGBA16161616F`, the HDR file's format.
pub const HDR_FORMAT: i32 = 24;

/// The sky's default cube map from its six materials' base textures, with Valve's checks: the
/// faces share a width (or are 4×4), a height (or are half height, or 4×4) and their flags
/// but for alpha.
pub(crate) fn from_game(game: &GameDir, skyname: &str) -> Result<SkyCubemap, String> {
    let mut headers = Vec::with_capacity(6);
    for face in FACES {
        headers.push(face_header(game, &format!("skybox/{skyname}{face}"))?);
    }
    let first = headers[0];
    let union = faces_flags(&headers)?;
    let flags = srcmap_content::vtf::default_cubemap_flags(first.high_res_format, union)
        .ok_or_else(|| format!("image format {} is not supported", first.high_res_format))?;
    Ok(SkyCubemap {
        format: first.high_res_format,
        flags,
        hdr_flags: Some(union | TEXTUREFLAGS_ENVMAP),
        frames: first.frames,
    })
}

/// The header of a sky face material's base texture.
fn face_header(game: &GameDir, material: &str) -> Result<srcmap_content::VtfHeader, String> {
    let vmt = game
        .material(material)
        .map_err(|e| e.to_string())?
        .ok_or_else(|| format!("{material} not found"))?;
    let texture = vmt
        .base_texture()
        .ok_or_else(|| format!("{material} has no $basetexture"))?
        .to_string();
    game.texture_header(&texture)
        .map_err(|e| e.to_string())?
        .ok_or_else(|| format!("{texture}.vtf not found"))
}

/// The union of the faces' flags, once Valve's checks pass: each face has the first's width
/// (or 4), height (or twice it, or 4) and flags but for alpha.
fn faces_flags(headers: &[srcmap_content::VtfHeader]) -> Result<u32, String> {
    let first = headers[0];
    let no_alpha = |flags: u32| flags & !(TEXTUREFLAGS_EIGHTBITALPHA | TEXTUREFLAGS_ONEBITALPHA);
    let mut union = 0;
    for h in headers {
        union |= h.flags;
        let width_ok = h.width == first.width || h.width == 4;
        let height_ok = h.height == first.height || h.height == first.height * 2 || h.height == 4;
        if !width_ok || !height_ok || no_alpha(h.flags) != no_alpha(first.flags) {
            return Err("its textures differ in size or flags".into());
        }
    }
    Ok(union)
}

/// The header of the pakfile's `materials/maps/<map>/cubemapdefault<suffix>`.
fn default_cubemap_header(pak: &srcmap_bsp::pak::Pak<'_>, suffix: &str) -> Option<srcmap_content::VtfHeader> {
    let entry = pak.entries.iter().find(|e| {
        let name = e.name.to_ascii_lowercase();
        name.starts_with("materials/maps/") && name.ends_with(&format!("/cubemapdefault{suffix}"))
    })?;
    let bytes = pak.read(entry).ok()?;
    srcmap_content::VtfHeader::parse(&bytes, &entry.name).ok()
}

/// What a compiled map's own default cube maps (`materials/maps/<map>/cubemapdefault.vtf`, the
/// map named as when it was compiled) say of its sky: `(skyname, cube map)`.
pub fn harvest(bsp: &srcmap_bsp::Bsp) -> Option<(String, SkyCubemap)> {
    let skyname = bsp
        .entities
        .iter()
        .find(|e| {
            e.classname()
                .is_some_and(|c| c.eq_ignore_ascii_case("worldspawn"))
        })?
        .get("skyname")?
        .to_string();
    let pak = srcmap_bsp::pak::Pak::parse(&bsp.pakfile, 0).ok()?;
    let ldr = default_cubemap_header(&pak, ".vtf")?;
    let hdr = default_cubemap_header(&pak, ".hdr.vtf");
    Some((
        skyname,
        SkyCubemap {
            format: ldr.high_res_format,
            flags: ldr.flags,
            hdr_flags: hdr.map(|h| h.flags),
            frames: ldr.frames,
        },
    ))
}
