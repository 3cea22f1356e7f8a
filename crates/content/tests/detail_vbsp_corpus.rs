//! Every `detail.vbsp` in the corpus reads, with the type count its manifest row states.

use srcmap_content::detail_vbsp::{DetailKind, DetailTypes};

#[test]
fn corpus_detail_files_read_with_their_stated_types() {
    let Some(root) = srcmap_corpus::root("detail.vbsp corpus") else {
        return;
    };
    let manifest = std::fs::read_to_string(root.join("MANIFEST.tsv")).expect("MANIFEST.tsv");
    let mut checked = 0;
    for row in manifest
        .lines()
        .filter(|l| l.split('\t').nth(1) == Some("detailvbsp"))
    {
        let cols: Vec<&str> = row.split('\t').collect();
        let bytes = std::fs::read(root.join(cols[0])).expect(cols[0]);
        let d = DetailTypes::parse(&bytes, cols[0]).unwrap_or_else(|e| panic!("{e}"));
        // The manifest's summary: "types=N model-entries=M sprite-entries=S".
        let stated = |key: &str| -> usize {
            let field = cols[4]
                .split_whitespace()
                .find_map(|w| w.strip_prefix(key))
                .expect(key);
            field.parse().expect(key)
        };
        let entries = d.types.iter().flat_map(|t| &t.groups).flat_map(|g| &g.models);
        let models = entries.clone().filter(|m| m.kind == DetailKind::Model).count();
        let sprites = entries.clone().filter(|m| m.kind != DetailKind::Model).count();
        assert_eq!(d.types.len(), stated("types="), "{}", cols[0]);
        // The manifest counts `model` keys in the text; a file with an unclosed block (one
        // has: an entry nested in the one before it) has fewer entries as Valve reads it.
        let balanced =
            bytes.iter().filter(|&&b| b == b'{').count() == bytes.iter().filter(|&&b| b == b'}').count();
        if balanced {
            assert_eq!(models, stated("model-entries="), "{}", cols[0]);
        } else {
            assert!(models < stated("model-entries="), "{}", cols[0]);
        }
        assert_eq!(sprites, stated("sprite-entries="), "{}", cols[0]);
        for m in entries {
            assert!(
                m.cumulative_amount <= 1.0 + 1e-6,
                "{}: amount sums above 1",
                cols[0]
            );
        }
        checked += 1;
    }
    assert!(checked > 0, "no detailvbsp rows in the manifest");
}
