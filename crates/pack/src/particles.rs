//! Particles: the map's manifest (`maps/<map>_particles.txt`) names the `.pcf` files the
//! engine loads for it; each `.pcf` (binary DMX) names the materials and models its effects
//! draw with.

use srcmap_content::kv;
use srcmap_dmx::{Dmx, DmxError, Value};

use crate::refs::{Ref, by_extension};

/// A particle manifest's `file` entries (a leading `!` asks for preloading).
pub fn manifest_refs(text: &[u8], path: &str) -> Result<Vec<Ref>, srcmap_content::ContentError> {
    let nodes = kv::parse(text, path)?;
    let mut out = Vec::new();
    crate::kvfiles::each_text(&nodes, &mut |k, v| {
        if k == "file" {
            let file = v.trim().trim_start_matches('!');
            out.push(Ref::to(
                crate::path::under("particles", file, ""),
                "particle manifest",
            ));
        }
    });
    Ok(out)
}

/// The files a `.pcf`'s elements name: each definition's `material`, and any string attribute
/// that ends in a model, material or sound extension.
pub fn pcf_refs(bytes: &[u8]) -> Result<Vec<Ref>, DmxError> {
    let dmx = Dmx::read(bytes)?;
    let mut out = Vec::new();
    for element in &dmx.elements {
        for attr in &element.attrs {
            let via = format!("particle '{}' {}", element.name, attr.name);
            match &attr.value {
                Value::String(s) => out.extend(string_ref(&attr.name, s, via)),
                Value::StringArray(list) => {
                    out.extend(list.iter().filter_map(|s| string_ref(&attr.name, s, via.clone())))
                }
                _ => {}
            }
        }
    }
    Ok(out)
}

fn string_ref(attr: &str, value: &str, via: String) -> Option<Ref> {
    if attr.eq_ignore_ascii_case("material") && crate::refs::plausible_name(value) {
        return Some(Ref::to(crate::path::material(value), via));
    }
    by_extension(value, &via)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manifest_files_and_pcf_materials() {
        let m = br#"particles_manifest { "file" "!particles/a.pcf" "file" "particles\b.pcf" }"#;
        let got: Vec<String> = manifest_refs(m, "maps/x_particles.txt")
            .unwrap()
            .into_iter()
            .map(|r| r.candidates[0].clone())
            .collect();
        assert_eq!(got, ["particles/a.pcf", "particles/b.pcf"]);
        let mut root = srcmap_dmx::Element::new("DmElement", "root", srcmap_dmx::Guid([1; 16]));
        root.set("material", Value::String("effects\\glow.vmt".into()));
        root.set(
            "model",
            Value::StringArray(vec!["models/a.mdl".into(), "none".into()]),
        );
        root.set("name", Value::String("not_a_file".into()));
        let header = srcmap_dmx::Header::new("binary", 2, "pcf", 1);
        let dmx = Dmx::new(header, root);
        let bytes = dmx.write().unwrap();
        let got: Vec<String> = pcf_refs(&bytes)
            .unwrap()
            .into_iter()
            .map(|r| r.candidates[0].clone())
            .collect();
        assert_eq!(got, ["materials/effects/glow.vmt", "models/a.mdl"]);
        assert!(pcf_refs(b"<!-- dmx encoding binary 2 format pcf 1 -->\n\0\x01").is_err());
    }
}
