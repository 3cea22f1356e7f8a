//! Round trips over every DMX and VMAP file in `$SRCMAP_CORPUS` (skipped when unset).

use std::path::PathBuf;

use srcmap_dmx::{Dmx, compare};

fn corpus_files() -> Option<Vec<PathBuf>> {
    let root = srcmap_corpus::root("the DMX corpus tests")?;
    let mut out = srcmap_corpus::files(&root, "dmx", |_| true);
    out.extend(srcmap_corpus::files(&root, "vmap", |_| true));
    out.sort();
    assert!(out.len() >= 20, "expected the corpus DMX/VMAP files");
    Some(out)
}

fn first_difference(a: &[u8], b: &[u8]) -> String {
    let i = a
        .iter()
        .zip(b)
        .position(|(x, y)| x != y)
        .unwrap_or(a.len().min(b.len()));
    let ctx =
        |d: &[u8]| String::from_utf8_lossy(&d[i.saturating_sub(40)..(i + 40).min(d.len())]).into_owned();
    format!(
        "lengths {} vs {}, first difference at byte {i}:\n  original: {:?}\n  written:  {:?}",
        a.len(),
        b.len(),
        ctx(a),
        ctx(b)
    )
}

#[test]
fn every_file_round_trips_byte_exact_in_its_own_encoding() {
    let Some(files) = corpus_files() else { return };
    let mut failures = Vec::new();
    for path in &files {
        let data = std::fs::read(path).unwrap();
        let doc = match Dmx::read(&data) {
            Ok(d) => d,
            Err(e) => {
                failures.push(format!("{}: read: {e}", path.display()));
                continue;
            }
        };
        match doc.write() {
            Ok(out) if out == data => {}
            Ok(out) => failures.push(format!("{}: {}", path.display(), first_difference(&data, &out))),
            Err(e) => failures.push(format!("{}: write: {e}", path.display())),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} files failed:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}

#[test]
fn text_and_binary_convert_both_ways_preserving_elements() {
    let Some(files) = corpus_files() else { return };
    let mut failures = Vec::new();
    for path in &files {
        let data = std::fs::read(path).unwrap();
        let Ok(doc) = Dmx::read(&data) else { continue };
        let to_binary = !doc.header.is_binary();
        let result = (|| -> Result<(), String> {
            let other = doc
                .write_as(to_binary, None)
                .map_err(|e| format!("convert: {e}"))?;
            let back = Dmx::read(&other).map_err(|e| format!("read converted: {e}"))?;
            compare(&doc, &back).map_err(|e| format!("converted differs: {e}"))?;
            // And back to the original encoding.
            let again = back
                .write_as(!to_binary, Some(doc.header.encoding_version))
                .map_err(|e| format!("convert back: {e}"))?;
            let again = Dmx::read(&again).map_err(|e| format!("read twice-converted: {e}"))?;
            compare(&doc, &again).map_err(|e| format!("twice-converted differs: {e}"))
        })();
        if let Err(e) = result {
            failures.push(format!("{}: {e}", path.display()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn truncated_and_corrupted_copies_give_errors_not_panics() {
    let Some(files) = corpus_files() else { return };
    for path in &files {
        let data = std::fs::read(path).unwrap();
        let Ok(doc) = Dmx::read(&data) else { continue };
        let n = data.len();
        for cut in [10, doc.header.raw.len() + 3, n / 4, n / 2, n - 2] {
            if cut < n {
                let _ = Dmx::read(&data[..cut]);
            }
        }
        if doc.header.is_binary() {
            // A binary file cut anywhere must fail: the format has no optional tail.
            assert!(Dmx::read(&data[..n / 2]).is_err(), "{}", path.display());
            let mut bad = data.clone();
            let at = doc.header.raw.len();
            for b in bad.iter_mut().skip(at).take(12) {
                *b = 0xFF;
            }
            let _ = Dmx::read(&bad);
        }
    }
}

/// Deterministic pseudo-random byte mutations of small corpus files: every mutated copy either
/// fails with an error or parses and writes back byte for byte.
#[test]
fn mutated_copies_error_or_round_trip() {
    let Some(files) = corpus_files() else { return };
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let mut rand = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for path in &files {
        let data = std::fs::read(path).unwrap();
        if data.len() > 150_000 {
            continue;
        }
        for _ in 0..60 {
            let mut bad = data.clone();
            for _ in 0..1 + rand() % 3 {
                let at = (rand() % bad.len() as u64) as usize;
                bad[at] = rand() as u8;
            }
            if let Ok(doc) = Dmx::read(&bad) {
                let has_external = doc.elements.iter().any(|e| {
                    e.attrs.iter().any(|a| {
                        let mut ext = false;
                        a.value
                            .for_each_ref(|r| ext |= matches!(r, srcmap_dmx::ElemRef::External(_)));
                        ext
                    })
                });
                let out = doc
                    .write()
                    .unwrap_or_else(|e| panic!("{}: parsed but cannot write: {e}", path.display()));
                if !has_external {
                    assert!(
                        out == bad,
                        "{}: mutated copy parses but does not round-trip",
                        path.display()
                    );
                }
            }
        }
    }
}
