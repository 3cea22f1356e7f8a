#![no_main]
//! DMX binary decoder (versions 1-9): arbitrary bodies behind each real header. Never panics;
//! whatever parses writes back byte-identical and converts to keyvalues2 and back.
use libfuzzer_sys::fuzz_target;

const HEADERS: [&[u8]; 7] = [
    b"<!-- dmx encoding binary 1 format dmx 1 -->\n\0",
    b"<!-- dmx encoding binary 2 format dmx 1 -->\n\0",
    b"<!-- dmx encoding binary 3 format dmx 1 -->\n\0",
    b"<!-- dmx encoding binary 4 format dmx 1 -->\n\0",
    b"<!-- dmx encoding binary 5 format dmx 1 -->\n\0",
    b"<!-- dmx encoding binary 7 format vmap 16 -->\n\0",
    b"<!-- dmx encoding binary 9 format vmap 35 -->\n\0",
];

fuzz_target!(|data: &[u8]| {
    let Some((&pick, body)) = data.split_first() else {
        return;
    };
    let mut file = HEADERS[pick as usize % HEADERS.len()].to_vec();
    file.extend_from_slice(body);
    if let Ok(doc) = srcmap_dmx::Dmx::read(&file) {
        let out = doc.write().expect("a parsed document must encode");
        // Byte-exact unless the string table repeats a string (each string is written with its
        // first index) or an external reference spells its GUID in a non-canonical way.
        let table = doc
            .binary_layout
            .as_ref()
            .map(|b| &b.string_table[..])
            .unwrap_or(&[]);
        let unique = table.iter().collect::<std::collections::HashSet<_>>().len() == table.len();
        let external = doc.elements.iter().flat_map(|e| &e.attrs).any(|a| {
            let mut ext = false;
            a.value
                .for_each_ref(|r| ext |= matches!(r, srcmap_dmx::ElemRef::External(_)));
            ext
        });
        if unique && !external {
            assert_eq!(out, file);
        }
        if let Ok(text) = doc.write_as(false, None) {
            let back = srcmap_dmx::Dmx::read(&text).expect("our keyvalues2 must parse");
            srcmap_dmx::compare(&doc, &back).expect("conversion keeps elements");
        }
    }
});
