//! Recognises a file's format by its content (the extension only breaks ties).

use std::path::Path;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    Vmf,
    Bsp,
    Nav,
    /// DMX in any encoding, VMAP included (a VMAP is a DMX file).
    Dmx,
    /// A game model file: `.mdl`, `.vvd` or `.vtx`.
    Model(srcmap_model::ModelKind),
    /// A model's collision (`.phy`).
    Phy,
    /// Recognised as something srcmap does not handle, or not recognised; the text says which.
    Other(String),
}

pub fn detect(path: &Path, data: &[u8]) -> Kind {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .unwrap_or_default();
    if let Some(kind) = by_magic(data) {
        return kind;
    }
    // The BSP reader also names Quake/GoldSrc files (version 29/30 as the first word).
    if ext == "bsp" {
        return Kind::Bsp;
    }
    by_text_or_extension(data, &ext).unwrap_or_else(|| {
        Kind::Other("unrecognised file format (expected VMF, BSP, NAV, DMX, VMAP, MDL, VVD or VTX)".into())
    })
}

/// The binary formats, told by their first bytes.
fn by_magic(data: &[u8]) -> Option<Kind> {
    match data.get(..4) {
        Some(b"VBSP") | Some(b"PSBV") => return Some(Kind::Bsp),
        Some(b"IBSP") | Some(b"rBSP") | Some(b"BSP2") | Some(b"2PSB") => return Some(Kind::Bsp),
        Some([0xCE, 0xFA, 0xED, 0xFE]) => return Some(Kind::Nav),
        _ => {}
    }
    if let Some(model) = srcmap_model::detect(data) {
        return Some(Kind::Model(model));
    }
    is_phy(data).then_some(Kind::Phy)
}

/// DMX (text header or extension), an old NAV without its magic, VMF-like KeyValues text.
fn by_text_or_extension(data: &[u8], ext: &str) -> Option<Kind> {
    let head = &data[..data.len().min(64)];
    let trimmed = trim_bom(head);
    if trimmed.starts_with(b"<!-- dmx") || ext == "dmx" || ext == "vmap" {
        return Some(Kind::Dmx);
    }
    if data.starts_with(b"\x00\x00\x00\x00") && ext == "nav" {
        return Some(Kind::Nav);
    }
    if ext == "vmf" || ext == "vmx" || ext == "vmm" || looks_like_keyvalues(trimmed) {
        return Some(Kind::Vmf);
    }
    None
}

fn trim_bom(b: &[u8]) -> &[u8] {
    b.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(b)
}

fn looks_like_keyvalues(head: &[u8]) -> bool {
    let first = head.iter().find(|b| !b.is_ascii_whitespace());
    matches!(first, Some(b'"') | Some(b'/')) || head.first().is_some_and(|b| b.is_ascii_alphabetic())
}

/// A `.phy` file: `phyheader_t.size` of 16 and a first solid that is `VPHY` or an IVP surface.
pub fn is_phy(data: &[u8]) -> bool {
    data.len() >= 24
        && data[..4] == 16i32.to_le_bytes()
        && (&data[20..24] == b"VPHY" || data.get(64..68) == Some(b"IVPS"))
}
