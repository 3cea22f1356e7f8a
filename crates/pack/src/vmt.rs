//! What a material needs: textures through every texture parameter (in fallback, `insert`
//! and `replace` blocks too), and other materials through `include`, `$fallbackmaterial`,
//! `$bottommaterial`, `$crackmaterial` and `$underwateroverlay`.

use srcmap_content::kv::{self, KvNode};

use crate::refs::{Ref, plausible_name};

/// Parameters that name another material.
const MATERIAL_KEYS: &[&str] = &[
    "$fallbackmaterial",
    "$bottommaterial",
    "$crackmaterial",
    "$underwateroverlay",
    "$material",
];

/// Texture parameters whose names do not end as most do (in `texture`, `map`, `mask`).
const TEXTURE_KEYS: &[&str] = &[
    "$detail",
    "$detail2",
    "$iris",
    "$compress",
    "$stretch",
    "$bumpcompress",
    "$bumpstretch",
    "$masks1",
    "$masks2",
    "$texture2",
    "$fleshbordertexture1d",
    "$hdrcompressedtexture0",
    "$hdrcompressedtexture1",
    "$hdrcompressedtexture2",
    "$basetexture2",
    "$basetexture3",
    "$basetexture4",
    "$bumpmap2",
    "$envmapmask2",
    "$normalmap2",
];

/// Values that name no file: the cubemap the engine picks, render targets.
fn names_no_file(value: &str) -> bool {
    let v = value.trim().to_ascii_lowercase();
    v == "env_cubemap" || v.starts_with("_rt_") || v.starts_with("engine/") && v.contains("_rt")
}

/// Whether a parameter names a texture.
fn is_texture_key(key: &str) -> bool {
    let k = key.trim_end_matches(|c: char| c.is_ascii_digit());
    key.starts_with('$')
        && (TEXTURE_KEYS.contains(&key) || ["texture", "map", "mask"].iter().any(|s| k.ends_with(s)))
}

/// The references of a material's text; an error when it is not KeyValues.
pub fn refs(text: &[u8], name: &str) -> Result<Vec<Ref>, srcmap_content::ContentError> {
    let nodes = kv::parse(text, name)?;
    let mut out = Vec::new();
    for root in nodes.iter().filter(|n| !n.children().is_empty()) {
        let patch = root.key.eq_ignore_ascii_case("patch");
        for node in root.children() {
            if patch && node.key.eq_ignore_ascii_case("include") {
                if let Some(v) = node.text() {
                    out.push(Ref::to(crate::path::material(v), "include").including());
                }
            } else {
                collect(node, &mut out);
            }
        }
    }
    Ok(out)
}

/// The references of one parameter or block, recursively.
fn collect(node: &KvNode, out: &mut Vec<Ref>) {
    for child in node.children() {
        collect(child, out);
    }
    let Some(value) = node.text() else { return };
    let key = node.key.to_ascii_lowercase();
    if !plausible_name(value) || names_no_file(value) {
        return;
    }
    if MATERIAL_KEYS.contains(&key.as_str()) {
        out.push(Ref::to(crate::path::material(value), key));
    } else if is_texture_key(&key) {
        let tex = crate::path::texture(value);
        if key == "$envmap" {
            let hdr = tex.trim_end_matches(".vtf").to_string() + ".hdr.vtf";
            out.push(Ref::to(hdr, "$envmap (HDR)").optional());
        }
        out.push(Ref::to(tex, key));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(text: &str) -> Vec<(String, String, bool)> {
        refs(text.as_bytes(), "t.vmt")
            .unwrap()
            .into_iter()
            .map(|r| (r.candidates[0].clone(), r.via, r.include))
            .collect()
    }

    #[test]
    fn texture_and_material_keys_are_followed_everywhere() {
        let got = paths(
            r#"VertexLitGeneric {
                $basetexture "Models\A\Body" $bumpmap models/a/body_n
                $envmap env_cubemap $envmapmask models/a/mask $phongexponenttexture models/a/exp
                $basemapalphaphongmask 1 $phongfresnelranges "[1 1 5]" $detailscale 4 $detail detail/noise
                $basetexturetransform "center .5 .5 scale 1 1 rotate 0 translate 0 0"
                $bottommaterial water/bottom
                ">=DX90" { $selfillummask models/a/glow }
            }"#,
        );
        let names: Vec<&str> = got.iter().map(|g| g.0.as_str()).collect();
        assert_eq!(
            names,
            [
                "materials/models/a/body.vtf",
                "materials/models/a/body_n.vtf",
                "materials/models/a/mask.vtf",
                "materials/models/a/exp.vtf",
                "materials/detail/noise.vtf",
                "materials/water/bottom.vmt",
                "materials/models/a/glow.vtf",
            ]
        );
    }

    #[test]
    fn patches_include_their_base_and_envmaps_bring_their_hdr_twin() {
        let got = paths(
            "patch { include materials/brick/a.vmt insert { $envmap maps/m/c1_2_3 } replace { $basetexture x/y } }",
        );
        assert_eq!(got[0], ("materials/brick/a.vmt".into(), "include".into(), true));
        assert_eq!(got[1].0, "materials/maps/m/c1_2_3.hdr.vtf");
        assert_eq!(got[2].0, "materials/maps/m/c1_2_3.vtf");
        assert_eq!(got[3].0, "materials/x/y.vtf");
        assert!(refs(b"a { b", "bad.vmt").is_err());
    }
}
