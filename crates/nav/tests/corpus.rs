//! Round trips over every NAV file in `$SRCMAP_CORPUS/nav` (skipped when the variable is unset).

use std::path::PathBuf;

use srcmap_nav::{NavError, NavMesh};

fn corpus_files() -> Option<Vec<PathBuf>> {
    let root = srcmap_corpus::root("the NAV corpus tests")?;
    let out = srcmap_corpus::files(&root, "nav", |p| srcmap_corpus::has_extension(p, "nav"));
    assert!(out.len() >= 10, "expected the corpus NAV files");
    Some(out)
}

#[test]
fn every_source1_nav_round_trips_byte_exact() {
    let Some(files) = corpus_files() else { return };
    let mut source1 = 0;
    for path in files {
        let data = std::fs::read(&path).unwrap();
        match NavMesh::read(&data) {
            Ok(mesh) => {
                let out = mesh
                    .write()
                    .unwrap_or_else(|e| panic!("{}: write: {e}", path.display()));
                assert!(
                    out == data,
                    "{}: round trip differs (layout {:?})",
                    path.display(),
                    mesh.layout
                );
                assert!(!mesh.areas.is_empty());
                source1 += 1;
            }
            Err(NavError::Source2 { version, .. }) => assert!(version >= 30),
            Err(e) => panic!("{}: {e}", path.display()),
        }
    }
    assert!(source1 >= 10);
}

#[test]
fn moving_an_area_reads_back() {
    let Some(files) = corpus_files() else { return };
    for path in files {
        let data = std::fs::read(&path).unwrap();
        let Ok(mut mesh) = NavMesh::read(&data) else {
            continue;
        };
        let before = mesh.areas[0].clone();
        mesh.areas[0].translate([64.0, -32.0, 8.0]);
        mesh.areas[0].attributes |= 0x1;
        mesh.areas[0].connections[0].push(before.id);
        let out = mesh.write().unwrap();
        let back = NavMesh::read(&out).unwrap();
        assert_eq!(
            back.areas[0].nw_corner,
            [
                before.nw_corner[0] + 64.0,
                before.nw_corner[1] - 32.0,
                before.nw_corner[2] + 8.0
            ]
        );
        assert_eq!(back.areas[0].attributes & 1, 1);
        assert_eq!(back.areas[0].connections[0].last(), Some(&before.id));
        assert_eq!(back, mesh, "{}", path.display());
    }
}

#[test]
fn truncated_and_corrupted_copies_fail_cleanly() {
    let Some(files) = corpus_files() else { return };
    for path in files {
        let data = std::fs::read(&path).unwrap();
        let Ok(mesh) = NavMesh::read(&data) else { continue };
        // Truncations at several points must be errors carrying an offset, never panics. (Bytes
        // after the ladders are opaque, e.g. fy_iceworld's stale tail, so cuts stay before them.)
        let end = data.len() - mesh.post_mesh_data.len();
        for cut in [5, 9, end / 3, end / 2, end - 1] {
            match NavMesh::read(&data[..cut]) {
                Ok(_) => panic!("{}: truncated at {cut} still parses", path.display()),
                Err(err) => assert!(err.offset().is_some(), "{}: {err}", path.display()),
            }
        }
        // Huge counts: overwrite the area count region with 0xFF bytes.
        let mut bad = data.clone();
        for b in bad.iter_mut().skip(data.len() / 2).take(16) {
            *b = 0xFF;
        }
        let _ = NavMesh::read(&bad);
    }
}

/// Deterministic random byte mutations: each copy errors or round-trips byte for byte.
#[test]
fn mutated_copies_error_or_round_trip() {
    let Some(files) = corpus_files() else { return };
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut rand = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for path in files {
        let data = std::fs::read(&path).unwrap();
        if data.len() > 60_000 {
            continue;
        }
        for _ in 0..40 {
            let mut bad = data.clone();
            let at = (rand() % bad.len() as u64) as usize;
            bad[at] = rand() as u8;
            if let Ok(mesh) = NavMesh::read(&bad) {
                assert!(
                    mesh.write().unwrap() == bad,
                    "{}: mutated copy does not round-trip",
                    path.display()
                );
            }
        }
    }
}
