//! Damaged BSPs: a compiled map cut short or with bytes overwritten decompiles what it can or
//! fails with an error; it never panics.

use srcmap_vbsp::{NoProgress, Options};

/// A small compiled map: a box room with a brush inside.
fn compiled() -> Vec<u8> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/box_room.vmf");
    let vmf = srcmap_vmf::Vmf::parse(std::fs::read_to_string(path).unwrap()).unwrap();
    let input = srcmap_vbsp::input_from_vmf(&vmf);
    let opts = Options {
        allow_leak: true,
        ..Default::default()
    };
    let out = srcmap_vbsp::compile(&input, &opts, &NoProgress).unwrap();
    out.bsp.to_bytes().unwrap()
}

#[test]
fn damaged_files_never_panic() {
    let data = compiled();
    let whole = srcmap_decompile::decompile_bytes(&data).unwrap();
    assert!(whole.report.solids > 0 && whole.report.notes.is_empty());
    for len in (0..data.len()).step_by(97) {
        let _ = srcmap_decompile::decompile_bytes(&data[..len]);
    }
    let mut rng = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..400 {
        let mut bad = data.clone();
        for _ in 0..8 {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            let at = (rng % bad.len() as u64) as usize;
            bad[at] = (rng >> 32) as u8;
        }
        if let Ok(out) = srcmap_decompile::decompile_bytes(&bad) {
            out.vmf().expect("what is written re-reads");
        }
    }
}

#[test]
fn a_stripped_lump_is_named_and_the_rest_decompiles() {
    let data = compiled();
    let file = srcmap_bsp::BspFile::parse(&data).unwrap();
    let mut doc = srcmap_bsp::BspDocument::from_file(&file);
    // Texdata that does not parse (an odd length): the brushes still come back.
    doc.set_lump(srcmap_bsp::lump::TEXDATA, vec![1, 2, 3], 0);
    let out = srcmap_decompile::decompile_bytes(&doc.to_bytes().unwrap()).unwrap();
    assert!(
        out.report.notes.iter().any(|n| n.contains("TEXDATA")),
        "{:?}",
        out.report.notes
    );
    assert!(out.report.solids > 0);
}
