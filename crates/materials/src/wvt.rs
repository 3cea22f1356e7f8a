//! The `_wvt_patch` material vbsp writes for a WorldVertexTransition (blend) material on a
//! brush side, built from the game's VMT as Valve's vbsp builds it: the material's own
//! KeyValues (the file as it is, a `patch` one not expanded), renamed to `LightmappedGeneric`,
//! without the second texture's keys, and without `$envmap` when the first texture asks for
//! none; saved as Valve's KeyValues saves.

use srcmap_content::kv::{self, KvNode, KvValue};
use srcmap_content::kv_save;

/// Keys of the blend's second texture, which a single-texture brush face has no use for.
const SECOND_TEXTURE_KEYS: [&str; 7] = [
    "$basetexture2",
    "$bumpmap2",
    "$bumpframe2",
    "$basetexture2noenvmap",
    "$blendmodulatetexture",
    "$maskedblending",
    "$surfaceprop2",
];

/// The patch VMT's text from the original VMT's bytes; `path` names it in errors.
pub fn wvt_patch_text(vmt: &[u8], path: &str) -> Result<String, srcmap_content::ContentError> {
    let nodes = kv_save::evaluate_conditions(&kv::parse(vmt, path)?);
    let Some(root) = nodes.into_iter().find(|n| matches!(n.value, KvValue::Block(_))) else {
        return Err(srcmap_content::ContentError::Syntax {
            path: path.to_string(),
            line: 1,
            message: "no shader block".into(),
        });
    };
    let KvValue::Block(mut children) = root.value else {
        unreachable!("found as a block")
    };
    for key in SECOND_TEXTURE_KEYS {
        remove_first(&mut children, key);
    }
    let no_envmap = children
        .iter()
        .find(|n| n.key.eq_ignore_ascii_case("$basetexturenoenvmap"))
        .and_then(KvNode::text)
        .is_some_and(|t| kv_save::typed_value(t).as_int() != 0);
    if no_envmap {
        remove_first(&mut children, "$envmap");
    }
    Ok(kv_save::saved_text(&KvNode {
        key: "LightmappedGeneric".into(),
        value: KvValue::Block(children),
        condition: None,
    }))
}

/// Valve's `RemoveKey`: the first entry of that name (case-insensitive), if any.
fn remove_first(children: &mut Vec<KvNode>, key: &str) {
    if let Some(i) = children.iter().position(|n| n.key.eq_ignore_ascii_case(key)) {
        children.remove(i);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blend_becomes_a_single_texture_material() {
        let vmt = b"WorldVertexTransition\n{\n\t$basetexture Nature/Rock01\n\t$basetexture2 nature/grass01\n\
                    \t$BumpMap2 nature/grass01_normal\n\t$envmap env_cubemap\n\t$surfaceprop2 grass\n\
                    \t$seamless_scale .005\n\t$basetexture2 second/copy\n}\n";
        assert_eq!(
            wvt_patch_text(vmt, "materials/nature/blend.vmt").unwrap(),
            "\"LightmappedGeneric\"\r\n{\r\n\t\"$basetexture\"\t\t\"Nature/Rock01\"\r\n\
             \t\"$envmap\"\t\t\"env_cubemap\"\r\n\t\"$seamless_scale\"\t\t\"0.005000\"\r\n\
             \t\"$basetexture2\"\t\t\"second/copy\"\r\n}\r\n"
        );
        let no_envmap =
            b"WorldVertexTransition { $basetexture a $envmap env_cubemap $basetexturenoenvmap 1 }";
        let text = wvt_patch_text(no_envmap, "b.vmt").unwrap();
        assert!(!text.contains("$envmap") && text.contains("\"$basetexturenoenvmap\"\t\t\"1\""));
        assert!(wvt_patch_text(b"// nothing", "c.vmt").is_err());
    }
}
