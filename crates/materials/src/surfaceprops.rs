//! How a game's surface properties weigh, from its `scripts/surfaceproperties*.txt` (the files
//! `scripts/surfaceproperties_manifest.txt` lists): each top-level block is one property, which
//! starts as a copy of its `base` (else of `default`) and sets `density` (kg/m³) and
//! `thickness` (inches; non-zero makes it a hollow shell).

use std::collections::BTreeMap;

use srcmap_kv::{Document, KvError, NodeId};

use crate::SurfaceMass;

/// One property's physical values as the files set them.
#[derive(Debug, Clone, Copy, Default)]
struct Physics {
    density: f64,
    thickness: f64,
}

/// The weight of every property the files define (names lower case), later files and blocks
/// overriding earlier ones. Unparsable numbers count as 0, as `atof` reads them.
pub fn surface_masses(files: &[&[u8]]) -> Result<BTreeMap<String, SurfaceMass>, KvError> {
    let mut props: BTreeMap<String, Physics> = BTreeMap::new();
    for bytes in files {
        let doc = Document::parse_bytes(bytes)?;
        for block in doc.children(NodeId::ROOT).filter(|&c| doc.is_block(c)) {
            let name = doc.key(block).to_ascii_lowercase();
            let physics = block_physics(&doc, block, &props);
            props.insert(name, physics);
        }
    }
    Ok(props
        .into_iter()
        .map(|(name, p)| {
            let mass = if p.thickness != 0.0 {
                SurfaceMass::Shell(p.density * p.thickness)
            } else {
                SurfaceMass::Density(p.density)
            };
            (name, mass)
        })
        .collect())
}

/// A property block's values: its base's (else `default`'s), with those it sets itself.
fn block_physics(doc: &Document, block: NodeId, props: &BTreeMap<String, Physics>) -> Physics {
    let base = doc
        .value_of(block, "base")
        .map(str::to_ascii_lowercase)
        .unwrap_or_else(|| "default".to_string());
    let mut physics = props.get(&base).copied().unwrap_or_default();
    let number = |key: &str| {
        doc.value_of(block, key)
            .map(|v| v.trim().parse::<f64>().unwrap_or(0.0))
    };
    if let Some(d) = number("density") {
        physics.density = d;
    }
    if let Some(t) = number("thickness") {
        physics.thickness = t;
    }
    physics
}

/// The files a game's manifest lists (`file` keys, in order), or the single
/// `scripts/surfaceproperties.txt` when there is no manifest.
pub fn manifest_files(manifest: Option<&[u8]>) -> Result<Vec<String>, KvError> {
    let Some(bytes) = manifest else {
        return Ok(vec!["scripts/surfaceproperties.txt".to_string()]);
    };
    let doc = Document::parse_bytes(bytes)?;
    let mut out = Vec::new();
    for top in doc.children(NodeId::ROOT).filter(|&c| doc.is_block(c)) {
        for c in doc.children(top) {
            if !doc.is_block(c) && doc.key(c).eq_ignore_ascii_case("file") {
                out.extend(doc.value(c).map(str::to_owned));
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bases_inherit_and_thickness_makes_a_shell() {
        let first = b"\"default\"\n{\n\t\"density\" \"2000\"\n\t\"elasticity\" \"0.25\"\n}\n\
            \"wood\"\n{\n\t\"density\" \"700\"\n}\n\
            \"glass\"\n{\n\t\"base\" \"wood\"\n\t\"density\" \"2700\"\n\t\"thickness\" \"0.5\"\n}\n";
        let second = b"\"wood_crate\" { \"base\" \"wood\" }\n\"Paper\" { \"thickness\" \"x\" }\n";
        let m = surface_masses(&[first, second]).unwrap();
        assert_eq!(m["default"], SurfaceMass::Density(2000.0));
        assert_eq!(m["wood_crate"], SurfaceMass::Density(700.0));
        assert_eq!(m["glass"], SurfaceMass::Shell(1350.0));
        // No base: a copy of `default`; an unreadable thickness is 0 (solid).
        assert_eq!(m["paper"], SurfaceMass::Density(2000.0));
    }

    #[test]
    fn the_manifest_lists_its_files_in_order() {
        let text = b"surfaceproperties_manifest\n{\n\t\"file\" \"scripts/surfaceproperties.txt\"\n\
            \t\"file\" \"scripts/surfaceproperties_hl2.txt\"\n}\n";
        assert_eq!(
            manifest_files(Some(text)).unwrap(),
            [
                "scripts/surfaceproperties.txt",
                "scripts/surfaceproperties_hl2.txt"
            ]
        );
        assert_eq!(manifest_files(None).unwrap(), ["scripts/surfaceproperties.txt"]);
        assert!(surface_masses(&[b"\"a\" {"]).is_err());
    }
}
