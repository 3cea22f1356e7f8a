//! Tests over the real files of the shared corpus (`SRCMAP_CORPUS`, e.g. `../shared/corpus`).
//! Each test prints a message and passes when the variable is unset.

mod common;

use std::path::PathBuf;

use srcmap_bsp::{Bsp, BspDocument, BspError, BspFile, HEADER_LUMPS, lump_name};

fn corpus_bsps() -> Option<Vec<PathBuf>> {
    let Some(root) = common::corpus_root() else {
        eprintln!("SRCMAP_CORPUS is not set: skipping corpus test");
        return None;
    };
    let mut out = Vec::new();
    let dir = root.join("bsp");
    for repo in std::fs::read_dir(&dir).expect("corpus bsp dir") {
        let repo = repo.unwrap().path();
        for f in std::fs::read_dir(&repo).unwrap() {
            let f = f.unwrap().path();
            if f.extension().is_some_and(|e| e == "bsp") {
                out.push(f);
            }
        }
    }
    out.sort();
    assert!(!out.is_empty(), "no BSPs under {}", dir.display());
    Some(out)
}

fn is_source(data: &[u8]) -> bool {
    data.starts_with(b"VBSP") || data.starts_with(b"PSBV")
}

#[test]
fn untouched_round_trip_is_byte_identical() {
    let Some(files) = corpus_bsps() else { return };
    let mut n = 0;
    for path in files {
        let data = std::fs::read(&path).unwrap();
        if !is_source(&data) {
            continue;
        }
        let file = BspFile::parse(&data).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let out = BspDocument::from_file(&file).to_bytes().unwrap();
        assert!(out == data, "{}: untouched write differs", path.display());
        n += 1;
    }
    assert!(n > 20);
}

#[test]
fn typed_parse_and_reserialise_reads_back_equal() {
    let Some(files) = corpus_bsps() else { return };
    for path in files {
        let data = std::fs::read(&path).unwrap();
        if !is_source(&data) {
            continue;
        }
        let bsp = Bsp::parse(&data).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let bytes = bsp
            .to_bytes()
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let back = Bsp::parse(&bytes).unwrap_or_else(|e| panic!("{}: rebuilt file: {e}", path.display()));
        // Compare lump by lump for a readable failure.
        for lump in 0..HEADER_LUMPS {
            assert_eq!(
                bsp.lump_bytes(lump).unwrap(),
                back.lump_bytes(lump).unwrap(),
                "{}: lump {lump} ({}) differs after a typed round trip",
                path.display(),
                lump_name(lump)
            );
        }
        // Typed equality where no NaN can hide (static props carry garbage floats in old maps).
        assert_eq!(bsp.visibility, back.visibility);
        assert_eq!(bsp.entities, back.entities);
        assert_eq!(bsp.leaf_faces, back.leaf_faces);
        assert_eq!(bsp.edges, back.edges);
        assert_eq!(bsp.phys_collide, back.phys_collide);
        assert_eq!(
            bsp.game_lumps
                .static_props()
                .map(|s| (s.layout, s.props.len(), s.models.clone())),
            back.game_lumps
                .static_props()
                .map(|s| (s.layout, s.props.len(), s.models.clone()))
        );
        // Rebuilt again, the bytes are stable.
        assert!(
            back.to_bytes().unwrap() == bytes,
            "{}: second rebuild differs",
            path.display()
        );
    }
}

/// Per lump: typed parse then re-serialise gives the original uncompressed bytes. Not required
/// by the format, but it shows the layouts account for every byte.
#[test]
fn typed_lumps_reserialise_to_original_bytes() {
    let Some(files) = corpus_bsps() else { return };
    let mut report = Vec::new();
    for path in files {
        let data = std::fs::read(&path).unwrap();
        if !is_source(&data) {
            continue;
        }
        let file = BspFile::parse(&data).unwrap();
        let bsp = Bsp::from_file(&file).unwrap();
        // The game lump, when stored uncompressed, re-serialises to its bytes with offsets made
        // relative to the lump.
        let gl = srcmap_bsp::lump::GAME_LUMP;
        let raw = BspDocument::from_file(&file).raw_game_lumps().unwrap();
        if !raw.entries.iter().any(|e| e.is_compressed()) && file.endian() == srcmap_bsp::Endian::Little {
            let mut orig = file.stored(gl).to_vec();
            srcmap_bsp::gamelump::patch_offsets(&mut orig, file.endian(), -(file.entry(gl).offset as i64))
                .unwrap();
            if orig != bsp.lump_bytes(gl).unwrap() {
                report.push(format!("{}: game lump", path.display()));
            }
        }
        for lump in 0..HEADER_LUMPS {
            if lump == gl {
                continue;
            }
            let orig = file.lump(lump).unwrap();
            let new = bsp.lump_bytes(lump).unwrap();
            if *orig != new[..] {
                report.push(format!(
                    "{}: lump {lump} {} ({} vs {} bytes)",
                    path.display(),
                    lump_name(lump),
                    orig.len(),
                    new.len()
                ));
            }
        }
    }
    for r in &report {
        eprintln!("{r}");
    }
    assert!(report.is_empty(), "{} lumps differ", report.len());
}

#[test]
fn non_source_files_are_refused_by_name() {
    let Some(files) = corpus_bsps() else { return };
    let mut n = 0;
    for path in files {
        let data = std::fs::read(&path).unwrap();
        if is_source(&data) {
            continue;
        }
        match Bsp::parse(&data) {
            Err(BspError::NotSource { what }) => {
                eprintln!("{}: {what}", path.display());
                assert!(
                    ["Quake", "GoldSrc", "Titanfall", "Respawn"]
                        .iter()
                        .any(|k| what.contains(k)),
                    "{}: message '{what}' does not name the engine",
                    path.display()
                );
                n += 1;
            }
            other => panic!("{}: expected NotSource, got {other:?}", path.display()),
        }
    }
    assert!(n >= 8);
}

/// Displacement lightmap sample positions decode, per displacement, to one position per luxel
/// of its face; each displacement's stream ends where the next one starts, and re-encodes to the
/// same bytes.
#[test]
fn disp_sample_positions_decode_per_luxel() {
    let Some(files) = corpus_bsps() else { return };
    let mut checked = 0;
    for path in files {
        let data = std::fs::read(&path).unwrap();
        if !is_source(&data) {
            continue;
        }
        let bsp = Bsp::parse(&data).unwrap();
        let faces = if bsp.faces.is_empty() {
            &bsp.faces_hdr
        } else {
            &bsp.faces
        };
        if bsp.disp_lightmap_sample_positions.is_empty() {
            continue; // Console builds drop the lump.
        }
        for d in &bsp.disp_info {
            let Some(face) = faces.get(d.map_face as usize) else {
                continue;
            };
            let start = d.lightmap_sample_position_start as usize;
            let (pos, end) = srcmap_bsp::lighting::decode_disp_sample_positions(
                &bsp.disp_lightmap_sample_positions,
                start,
                face.luxel_count(),
            )
            .unwrap_or_else(|| panic!("{}: disp at {start} runs out", path.display()));
            let next = bsp
                .disp_info
                .iter()
                .map(|n| n.lightmap_sample_position_start as usize)
                .filter(|&n| n > start)
                .min();
            assert_eq!(
                end,
                next.unwrap_or(bsp.disp_lightmap_sample_positions.len()),
                "{}: disp stream at {start}",
                path.display()
            );
            assert_eq!(pos.len(), face.luxel_count());
            let mut again = Vec::new();
            srcmap_bsp::lighting::encode_disp_sample_positions(&pos, &mut again);
            assert_eq!(&again[..], &bsp.disp_lightmap_sample_positions[start..end]);
            checked += 1;
        }
    }
    assert!(checked > 50, "{checked} displacements checked");
}
