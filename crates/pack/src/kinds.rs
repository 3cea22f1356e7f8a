//! Which reader a file's references come from, by its name.

use crate::error::PackError;
use crate::model::Skins;
use crate::refs::Ref;
use crate::{kvfiles, model, particles, scripts, vmt};

/// Files read for their references but never packed: population files are the server's.
pub fn is_read_only(path: &str) -> bool {
    crate::path::extension(path) == "pop"
}

/// The references of the file at game path `path` (`skins`: a model's skins in use).
pub fn references(path: &str, bytes: &[u8], skins: &Skins) -> Result<Vec<Ref>, PackError> {
    let fail = |message: String| PackError::Unreadable {
        path: path.to_string(),
        message,
    };
    let text = |r: Result<Vec<Ref>, srcmap_content::ContentError>| r.map_err(|e| fail(e.to_string()));
    match crate::path::extension(path) {
        "vmt" => text(vmt::refs(bytes, path)),
        "mdl" => model::mdl_refs(bytes, path, skins).map_err(|e| fail(e.to_string())),
        "phy" => model::phy_refs(bytes).map_err(|e| fail(e.to_string())),
        "pcf" => particles::pcf_refs(bytes).map_err(|e| fail(e.to_string())),
        "nut" => Ok(scripts::refs(bytes)),
        "res" => text(kvfiles::res_refs(bytes, path)),
        "pop" => text(kvfiles::pop_refs(bytes, path)),
        "txt" => text(text_file_refs(path, bytes)),
        _ => Ok(Vec::new()),
    }
}

/// `.txt` files by their place: particle manifests, soundscripts and soundscapes, overviews.
fn text_file_refs(path: &str, bytes: &[u8]) -> Result<Vec<Ref>, srcmap_content::ContentError> {
    let file = path.rsplit('/').next().unwrap_or(path);
    if file.ends_with("_particles.txt") || file == "particles_manifest.txt" {
        particles::manifest_refs(bytes, path)
    } else if file.ends_with("_level_sounds.txt")
        || file.starts_with("soundscapes_")
        || file.starts_with("game_sounds")
    {
        kvfiles::wave_refs(bytes, path)
    } else if path.starts_with("resource/overviews/") {
        overview_refs(bytes, path)
    } else {
        Ok(Vec::new())
    }
}

/// A radar overview's `material`.
fn overview_refs(bytes: &[u8], path: &str) -> Result<Vec<Ref>, srcmap_content::ContentError> {
    let nodes = srcmap_content::kv::parse(bytes, path)?;
    let mut out = Vec::new();
    kvfiles::each_text(&nodes, &mut |k, v| {
        if k == "material" && crate::refs::plausible_name(v) {
            out.push(Ref::to(crate::path::material(v), "overview material"));
        }
    });
    Ok(out)
}
