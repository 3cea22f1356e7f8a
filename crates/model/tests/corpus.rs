//! Every model file of the corpus (`model` rows of MANIFEST.tsv) reads, and the files of one
//! model agree with each other.

use std::path::{Path, PathBuf};

use srcmap_model::{Mdl, ModelFiles, VTX_SUFFIXES, Vtx, Vvd};

/// The corpus's model files (relative paths), from the manifest.
fn model_rows(root: &Path) -> Vec<String> {
    let manifest = std::fs::read_to_string(root.join("MANIFEST.tsv")).expect("MANIFEST.tsv");
    manifest
        .lines()
        .filter_map(|l| {
            let mut cols = l.split('\t');
            let path = cols.next()?;
            (cols.next()? == "model").then(|| path.to_string())
        })
        .collect()
}

/// `model/<repo>/models/x.mdl` → (`model/<repo>`, `models/x.mdl`).
fn split(rel: &str) -> (PathBuf, String) {
    let mut parts = rel.splitn(3, '/');
    let (kind, repo, rest) = (
        parts.next().unwrap(),
        parts.next().unwrap(),
        parts.next().unwrap(),
    );
    (Path::new(kind).join(repo), rest.to_string())
}

#[test]
fn every_corpus_model_file_reads() {
    let Some(root) = srcmap_corpus::root("corpus model files") else {
        return;
    };
    let rows = model_rows(&root);
    assert!(
        rows.len() >= 100,
        "only {} model rows in the manifest",
        rows.len()
    );
    let mut counts = [0usize; 3];
    for rel in &rows {
        let data = std::fs::read(root.join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"));
        let lower = rel.to_ascii_lowercase();
        if lower.ends_with(".mdl") {
            let mdl = Mdl::parse(&data).unwrap_or_else(|e| panic!("{rel}: {e}"));
            assert_eq!(mdl.length as usize, data.len(), "{rel}: header length");
            assert!(
                mdl.body_parts.iter().all(|p| !p.models.is_empty()),
                "{rel}: empty body part"
            );
            for i in 0..3 {
                assert!(mdl.hull_min[i] <= mdl.hull_max[i], "{rel}: hull box inverted");
            }
            counts[0] += 1;
        } else if lower.ends_with(".vvd") {
            let vvd = Vvd::parse(&data).unwrap_or_else(|e| panic!("{rel}: {e}"));
            assert_eq!(vvd.vertices.len(), vvd.lod_vertex_counts[0] as usize, "{rel}");
            // Without fixups every LOD draws from the whole list; with them, each LOD's list
            // is rebuilt and must have the size the header gives.
            for lod in (0..vvd.lod_count as usize).filter(|_| !vvd.fixups.is_empty()) {
                assert_eq!(
                    vvd.lod_vertex_indices(lod).len(),
                    vvd.lod_vertex_counts[lod] as usize,
                    "{rel}: LOD {lod} fixups rebuild a list of another size"
                );
            }
            counts[1] += 1;
        } else if lower.ends_with(".vtx") {
            Vtx::parse(&data).unwrap_or_else(|e| panic!("{rel}: {e}"));
            counts[2] += 1;
        }
    }
    println!("read {} .mdl, {} .vvd, {} .vtx", counts[0], counts[1], counts[2]);
    assert!(counts.iter().all(|&c| c > 0));
}

#[test]
fn corpus_model_files_agree_with_each_other() {
    let Some(root) = srcmap_corpus::root("corpus model sets") else {
        return;
    };
    let mut checked = 0;
    for rel in model_rows(&root)
        .iter()
        .filter(|r| r.to_ascii_lowercase().ends_with(".mdl"))
    {
        let (dir, game_path) = split(rel);
        let dir = root.join(dir);
        let read = |p: &str| std::fs::read(dir.join(p)).ok();
        if read(&game_path.replace(".mdl", ".vvd")).is_none() {
            continue; // a model without its vertex file in the corpus
        }
        let files = ModelFiles::load(&game_path, read).unwrap_or_else(|e| panic!("{rel}: {e}"));
        let (mdl, vvd) = (&files.mdl, &files.vvd);
        let model_vertices: u64 = mdl
            .body_parts
            .iter()
            .flat_map(|p| &p.models)
            .map(|m| m.vertex_count as u64)
            .sum();
        assert_eq!(
            model_vertices, vvd.lod_vertex_counts[0] as u64,
            "{rel}: model vertex counts vs .vvd"
        );
        for lod in 0..vvd.lod_count as usize {
            assert_eq!(
                mdl.lod_vertex_count(lod),
                vvd.lod_vertex_counts[lod] as u64,
                "{rel}: LOD {lod} vertex count is not the sum over meshes"
            );
        }
        for (model, mesh) in mdl.meshes() {
            assert!(
                mesh.vertex_offset + mesh.vertex_count <= model.vertex_count,
                "{rel}: mesh past its model"
            );
        }
        assert!(
            files.mesh_points().iter().all(|m| !m.is_empty())
                || mdl.meshes().any(|(_, m)| m.vertex_count == 0)
        );
        // Every VTX variant beside the model: same checksum, triangles inside the vertex list.
        let stem = game_path.strip_suffix(".mdl").unwrap();
        let mut variants = 0;
        for suffix in VTX_SUFFIXES {
            let Some(bytes) = read(&format!("{stem}{suffix}")) else {
                continue;
            };
            let vtx = Vtx::parse(&bytes).unwrap_or_else(|e| panic!("{rel}{suffix}: {e}"));
            assert_eq!(vtx.checksum, mdl.checksum, "{rel}{suffix}: checksum");
            for lod in 0..vtx.lod_count as usize {
                let tris = vtx
                    .triangles(mdl, lod)
                    .unwrap_or_else(|e| panic!("{rel}{suffix} LOD {lod}: {e}"));
                assert!(
                    lod > 0 || !tris.is_empty() || model_vertices == 0,
                    "{rel}: no triangles in LOD 0"
                );
                let n = vvd.lod_vertex_counts[0];
                assert!(
                    tris.iter().flatten().all(|&i| i < n),
                    "{rel}{suffix} LOD {lod}: index past {n} vertices"
                );
            }
            variants += 1;
        }
        assert!(variants > 0 || files.vtx.is_none(), "{rel}");
        checked += 1;
    }
    println!("{checked} models checked across .mdl/.vvd/.vtx");
    assert!(checked > 10);
}

/// Every prefix of real model files is an error naming an offset, never a panic.
#[test]
fn truncated_corpus_models_fail_cleanly() {
    let Some(root) = srcmap_corpus::root("truncated corpus models") else {
        return;
    };
    let dir = root.join("model/kane8kki+whohl2mod/models/bluechaire");
    let mdl = std::fs::read(dir.join("bluewoodnchair.mdl")).expect("corpus chair .mdl");
    let vvd = std::fs::read(dir.join("bluewoodnchair.vvd")).expect("corpus chair .vvd");
    let vtx = std::fs::read(dir.join("bluewoodnchair.dx90.vtx")).expect("corpus chair .vtx");
    for n in 0..mdl.len() {
        assert!(Mdl::parse(&mdl[..n]).is_err(), "MDL cut at {n} still reads");
    }
    for n in (0..vvd.len()).step_by(7) {
        assert!(Vvd::parse(&vvd[..n]).is_err(), "VVD cut at {n} still reads");
    }
    for n in (0..vtx.len()).step_by(3) {
        let e = Vtx::parse(&vtx[..n]).expect_err("VTX cut short still reads");
        assert!(e.to_string().contains("byte"), "{e}");
    }
}

/// Real model files with bytes overwritten at random: every parse returns (a value or an
/// error), none panics. A deterministic stand-in for the fuzz targets where cargo-fuzz is absent.
#[test]
fn corrupted_corpus_models_never_panic() {
    let Some(root) = srcmap_corpus::root("corrupted corpus models") else {
        return;
    };
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut parsed = 0;
    for rel in model_rows(&root)
        .iter()
        .filter(|r| !r.ends_with(".phy"))
        .step_by(3)
    {
        let data = std::fs::read(root.join(rel)).unwrap();
        for _ in 0..40 {
            let mut bad = data.clone();
            for _ in 0..1 + next() % 8 {
                // Mostly the headers and tables near the start, where offsets and counts live.
                let span = if next() % 4 == 0 {
                    bad.len()
                } else {
                    bad.len().min(512)
                };
                let at = (next() as usize) % span.max(1);
                if let Some(b) = bad.get_mut(at) {
                    *b = next() as u8;
                }
            }
            let _ = Mdl::parse(&bad);
            let _ = Vvd::parse(&bad);
            if let Ok(vtx) = Vtx::parse(&bad) {
                for g in vtx
                    .body_parts
                    .iter()
                    .flatten()
                    .flatten()
                    .flat_map(|l| &l.meshes)
                    .flat_map(|(_, g)| g)
                {
                    assert!(g.triangles().flatten().all(|i| (i as usize) < g.vertices.len()));
                }
            }
            parsed += 1;
        }
    }
    assert!(parsed > 1000, "{parsed}");
}
