#![no_main]
//! KeyValues parser: never panics; whatever parses writes back byte-identical, and survives an edit.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for options in [srcmap_kv::ParseOptions::default(), srcmap_kv::ParseOptions { escapes: true, quote_escapes: false }] {
        if let Ok(mut doc) = srcmap_kv::Document::parse_bytes_with(data, options) {
            assert_eq!(doc.to_bytes(), data);
            doc.append_value(srcmap_kv::NodeId::ROOT, "k", "v w");
            let _ = doc.to_bytes();
        }
    }
});
