//! `check` passes on every real map and catches broken indices.

mod common;

use std::path::PathBuf;

use srcmap_bsp::{Bsp, check::check};

fn corpus_bsps() -> Option<Vec<PathBuf>> {
    let Some(root) = common::corpus_root() else {
        eprintln!("SRCMAP_CORPUS is not set: skipping corpus test");
        return None;
    };
    let mut out = Vec::new();
    for repo in std::fs::read_dir(root.join("bsp")).unwrap() {
        for f in std::fs::read_dir(repo.unwrap().path()).unwrap() {
            let f = f.unwrap().path();
            let data = std::fs::read(&f).unwrap();
            if data.starts_with(b"VBSP") || data.starts_with(b"PSBV") {
                out.push(f);
            }
        }
    }
    out.sort();
    Some(out)
}

#[test]
fn check_passes_on_every_corpus_bsp() {
    let Some(files) = corpus_bsps() else { return };
    let mut failures = Vec::new();
    for path in files {
        let bsp = Bsp::parse(&std::fs::read(&path).unwrap()).unwrap();
        for v in check(&bsp).iter().take(3) {
            failures.push(format!("{}: {v}", path.display()));
        }
    }
    for f in &failures {
        eprintln!("{f}");
    }
    assert!(failures.is_empty());
}

#[test]
fn check_names_a_broken_index() {
    let mut bsp = Bsp::new(20);
    bsp.vertexes = vec![[0.0; 3]; 3];
    bsp.edges = vec![srcmap_bsp::Edge([0, 1]), srcmap_bsp::Edge([1, 7])];
    let v = check(&bsp);
    assert_eq!(v.len(), 1, "{v:?}");
    let text = v[0].to_string();
    assert!(
        text.contains("EDGES") && text.contains("record 1") && text.contains("vertex 7"),
        "{text}"
    );
}

#[test]
fn check_names_broken_physics_collision() {
    let Some(files) = corpus_bsps() else { return };
    let path = files
        .iter()
        .find(|p| p.ends_with("boxinaroom.bsp"))
        .expect("boxinaroom.bsp in the corpus");
    let mut bsp = Bsp::parse(&std::fs::read(path).unwrap()).unwrap();
    assert!(srcmap_bsp::check::physics(&bsp).is_empty());
    let pc = bsp.phys_collide.as_mut().unwrap();
    // The surface's ledge-tree root offset (28 bytes of VPHY headers, then byte 32 of the surface).
    pc.models[0].solids[0][60..64].copy_from_slice(&i32::MAX.to_le_bytes());
    pc.models[1].model_index = 0;
    let v = srcmap_bsp::check::physics(&bsp);
    let text: Vec<String> = v.iter().map(|v| v.to_string()).collect();
    assert!(
        text.iter()
            .any(|t| t.contains("model 0: solid 0: compact surface header at byte 48")),
        "{text:?}"
    );
    assert!(
        text.iter().any(|t| t.contains("model index 0 is out of order")),
        "{text:?}"
    );
}
