//! Fuzz the BSP reader: header, every typed lump, game lumps, pakfile listing, check, and both
//! writers. Any input must give a value or an error, never a panic or a huge allocation.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(file) = srcmap_bsp::BspFile::parse(data) else { return };
    let doc = srcmap_bsp::BspDocument::from_file(&file);
    // Untouched, the document writes the input back exactly.
    if let Ok(out) = doc.to_bytes() {
        assert_eq!(out, data);
    }
    if let Ok(bsp) = srcmap_bsp::Bsp::from_file(&file) {
        let _ = srcmap_bsp::check::check(&bsp);
        let _ = srcmap_bsp::pak::Pak::parse(&bsp.pakfile, 0).map(|p| p.entries.len());
        if let Ok(bytes) = bsp.to_bytes() {
            // What we write, we read.
            let back = srcmap_bsp::Bsp::parse(&bytes).expect("re-serialised BSP must parse");
            assert_eq!(back.planes.len(), bsp.planes.len());
        }
    }
});
