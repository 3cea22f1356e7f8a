//! Every VMF in the corpus (`SRCMAP_CORPUS`): parses, counts agree with an independent count of
//! the text, writes back byte-identical, and survives a typed edit.

use std::path::{Path, PathBuf};

use srcmap_vmf::{EntityRef, SideRef, Vmf};

fn corpus_vmfs() -> Option<Vec<PathBuf>> {
    let root = srcmap_corpus::root("the corpus VMF tests")?;
    let out = srcmap_corpus::files(&root, "vmf", |p| srcmap_corpus::has_extension(p, "vmf"));
    assert!(!out.is_empty(), "no VMF found under the corpus");
    Some(out)
}

fn is_invalid_on_purpose(p: &Path) -> bool {
    p.file_name().is_some_and(|n| n == "invalid.vmf")
}

/// Counts block headers by looking at lines alone: a line holding only `solid`/`side`/... (a
/// keyvalue line always has a value after the key). Independent of the parser.
fn count_lines(text: &str, word: &str) -> usize {
    text.lines()
        .filter(|l| l.trim().trim_matches('"') == word && !l.contains(' '))
        .count()
}

#[test]
fn every_vmf_parses_counts_agree_and_round_trips() {
    let Some(files) = corpus_vmfs() else { return };
    for path in files {
        let bytes = std::fs::read(&path).unwrap();
        if is_invalid_on_purpose(&path) {
            continue;
        }
        let vmf = match Vmf::parse_bytes(&bytes) {
            Ok(vmf) => vmf,
            Err(e) => {
                // A strict parse may refuse a malformed side; the lenient one then keeps the rest
                // of the file and names each dropped side.
                let vmf = Vmf::parse_lenient(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                assert_eq!(vmf.problems.first(), Some(&e), "{}", path.display());
                eprintln!(
                    "{}: strict parse refused ({e}); lenient parse dropped {} side(s)",
                    path.display(),
                    vmf.problems.len()
                );
                assert_eq!(vmf.to_bytes(), bytes);
                continue;
            }
        };
        let text = std::str::from_utf8(&bytes).unwrap();
        let stats = vmf.stats();
        assert_eq!(
            stats.solids,
            count_lines(text, "solid"),
            "{}: solids",
            path.display()
        );
        assert_eq!(
            stats.sides,
            count_lines(text, "side"),
            "{}: sides",
            path.display()
        );
        assert_eq!(
            stats.displacements,
            count_lines(text, "dispinfo"),
            "{}: dispinfo",
            path.display()
        );
        assert_eq!(
            stats.entities,
            count_lines(text, "entity"),
            "{}: entities",
            path.display()
        );
        assert_eq!(
            vmf.to_bytes(),
            bytes,
            "{}: unedited write-back differs",
            path.display()
        );
        // Displacement rows have the size their power says.
        for ent in vmf.all_entities() {
            for solid in &ent.solids {
                for side in &solid.sides {
                    if let Some(d) = &side.dispinfo {
                        let n = d.vertices_per_row();
                        assert!(d.distances.is_empty() || d.distances.len() == n * n);
                        assert!(d.normals.is_empty() || d.normals.len() == n * n);
                    }
                }
            }
        }
    }
}

#[test]
fn invalid_vmf_fails_with_line_and_column() {
    let Some(files) = corpus_vmfs() else { return };
    let path = files
        .iter()
        .find(|p| is_invalid_on_purpose(p))
        .expect("invalid.vmf in the corpus");
    let err = Vmf::parse_bytes(&std::fs::read(path).unwrap()).unwrap_err();
    assert_eq!((err.line, err.column), (4, 16), "{err}");
    assert!(
        err.to_string().starts_with("4:16: unquoted value `8000`"),
        "{err}"
    );
}

#[test]
fn typed_edits_write_back_through_the_document() {
    let Some(files) = corpus_vmfs() else { return };
    for path in files.iter().filter(|p| !is_invalid_on_purpose(p)).take(12) {
        let bytes = std::fs::read(path).unwrap();
        let Ok(mut vmf) = Vmf::parse_bytes(&bytes) else {
            continue;
        };
        vmf.set_value(EntityRef::World, "comment", "edited by srcmap");
        let first_solid = vmf.world.solids.first().map(|_| SideRef {
            entity: EntityRef::World,
            solid: 0,
            side: 0,
        });
        if let Some(at) = first_solid {
            vmf.set_material(at, "DEV/DEV_MEASUREGENERIC01");
            vmf.translate_solid(EntityRef::World, 0, [16.0, 0.0, -8.0]);
        }
        let before = Vmf::parse_bytes(&bytes).unwrap();
        let edited_text = vmf.to_text();
        assert_ne!(edited_text.as_bytes(), bytes);
        let after = Vmf::parse(vmf.to_text()).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(after.world.get("comment"), Some("edited by srcmap"));
        assert_eq!(after.stats().solids, before.stats().solids);
        assert_eq!(after.entities.len(), before.entities.len());
        // Entities are untouched.
        for (ea, eb) in after.entities.iter().zip(&before.entities) {
            assert_eq!((&ea.classname, &ea.keyvalues), (&eb.classname, &eb.keyvalues));
        }
        if first_solid.is_some() {
            let (a, b) = (&after.world.solids[0], &before.world.solids[0]);
            assert_eq!(a.sides[0].material, "DEV/DEV_MEASUREGENERIC01");
            for (sa, sb) in a.sides.iter().zip(&b.sides) {
                for (pa, pb) in sa.plane.iter().zip(&sb.plane) {
                    assert!((pa[0] - pb[0] - 16.0).abs() < 1e-9 && (pa[2] - pb[2] + 8.0).abs() < 1e-9);
                }
            }
        }
    }
}
