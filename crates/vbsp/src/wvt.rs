//! WorldVertexTransition (blend) materials on brushes: a brush side shows only the first of the
//! two textures, so Valve's vbsp moves every non-displacement side of such a material to a copy
//! `maps/<map>/<material>_wvt_patch`, a single-texture `LightmappedGeneric` VMT it writes into
//! the pakfile. The VMT's text comes from the material resolver: built from the game's VMT
//! under `-game`, else the text a table harvested from Valve's maps holds; a material whose
//! text is unknown is left as it is.

/// Valve's `TEXTURE_NAME_LENGTH`: a texdata name must stay shorter.
const MAX_NAME_LEN: usize = 128;

const SUFFIX: &str = "_wvt_patch";

/// Whether a material is itself a `_wvt_patch` copy (Valve never patches one again).
pub(crate) fn is_patched(material: &str) -> bool {
    material.to_ascii_lowercase().contains(SUFFIX)
}

/// The patched material's name, lower case with forward slashes as Valve writes it; `None`
/// when it would not fit a texdata name.
pub(crate) fn patched_name(map: &str, material: &str) -> Option<String> {
    let name = format!("maps/{map}/{material}{SUFFIX}")
        .replace('\\', "/")
        .to_ascii_lowercase();
    (name.len() < MAX_NAME_LEN - 1).then_some(name)
}

/// The pakfile path and content of a patched material.
pub(crate) fn patch_file(patched: &str, text: String) -> (String, Vec<u8>) {
    (format!("materials/{patched}.vmt"), text.into_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        let name = patched_name("Box", "Nature\\BlendRock").unwrap();
        assert_eq!(name, "maps/box/nature/blendrock_wvt_patch");
        assert!(is_patched(&name) && !is_patched("nature/blendrock"));
        assert_eq!(
            patch_file(&name, "x".into()).0,
            "materials/maps/box/nature/blendrock_wvt_patch.vmt"
        );
        assert!(patched_name("m", &"x".repeat(120)).is_none());
    }
}
