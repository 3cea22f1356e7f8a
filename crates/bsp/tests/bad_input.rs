//! Truncated and corrupted files give errors naming the lump (or header) and a byte offset,
//! never a panic or a huge allocation.

mod common;

use srcmap_bsp::{Bsp, BspDocument, BspError, BspFile};

/// A small BSP built here: a few planes, vertexes, texdata and entities.
fn fixture() -> Vec<u8> {
    let mut bsp = Bsp::new(20);
    bsp.planes = (0..6)
        .map(|i| srcmap_bsp::Plane {
            normal: [0.0, 0.0, 1.0],
            dist: i as f32,
            kind: 2,
        })
        .collect();
    bsp.vertexes = (0..8).map(|i| [i as f32, 0.0, 1.0]).collect();
    bsp.edges = vec![srcmap_bsp::Edge([0, 1]), srcmap_bsp::Edge([1, 2])];
    bsp.surfedges = vec![0, 1, -1];
    let name = bsp.add_texdata_name("TOOLS/TOOLSNODRAW");
    bsp.texdata.push(srcmap_bsp::TexData {
        name_id: name,
        width: 64,
        height: 64,
        view_width: 64,
        view_height: 64,
        ..Default::default()
    });
    let mut world = srcmap_bsp::Entity::default();
    world.set("classname", "worldspawn");
    bsp.entities.push(world);
    bsp.visibility = Some(srcmap_bsp::Visibility {
        num_clusters: 3,
        pvs: vec![vec![7]; 3],
        pas: vec![vec![7]; 3],
    });
    bsp.to_bytes().unwrap()
}

fn samples() -> Vec<(String, Vec<u8>)> {
    let mut out = vec![("fixture".to_string(), fixture())];
    if let Some(root) = common::corpus_root() {
        for name in [
            "snake-biscuits+bsp_tool/shack.360.bsp",
            "snake-biscuits+bsp_tool/tf2_test_physcollide.bsp",
            "bouletmarc+css_maps_content/test_speakers.bsp",
            "snake-biscuits+bsp_tool/momentum_mp_lobby.bsp",
        ] {
            let p = std::path::Path::new(&root).join("bsp").join(name);
            if let Ok(d) = std::fs::read(&p) {
                out.push((name.to_string(), d));
            }
        }
    } else {
        eprintln!("SRCMAP_CORPUS is not set: bad-input test runs on the built fixture only");
    }
    out
}

/// Every operation a reader might do; must return, never panic.
fn exercise(data: &[u8]) -> Result<(), BspError> {
    let file = BspFile::parse(data)?;
    let doc = BspDocument::from_file(&file);
    let _ = doc.to_bytes();
    // The view into an arena fails exactly where the owned parse does.
    let arena = srcmap_bsp::Bump::with_capacity(srcmap_bsp::BspView::arena_hint(&file));
    let in_arena = srcmap_bsp::BspView::from_file_in(&file, &arena).map(|_| ());
    let bsp = Bsp::from_file(&file);
    assert_eq!(in_arena.as_ref().err(), bsp.as_ref().err());
    let bsp = bsp?;
    let _ = srcmap_bsp::check::check(&bsp);
    let _ = bsp.to_bytes();
    Ok(())
}

#[test]
fn truncated_files_error_with_lump_and_offset() {
    for (name, data) in samples() {
        let len = data.len();
        for cut in [
            0,
            3,
            4,
            100,
            1035,
            1036,
            1037,
            len / 3,
            len / 2,
            len - 17,
            len - 1,
        ] {
            match exercise(&data[..cut]) {
                Ok(()) => {}
                Err(e) => {
                    let text = e.to_string();
                    assert!(
                        e.offset().is_some() || matches!(e, BspError::NotSource { .. }),
                        "{name} cut at {cut}: error without offset: {text}"
                    );
                    assert!(
                        text.contains("byte") || text.contains("not a Source BSP"),
                        "{name} cut at {cut}: {text}"
                    );
                }
            }
        }
        // The header of a truncated file names the first lump past the end.
        if len > 2000 {
            let text = exercise(&data[..len / 2]).unwrap_err().to_string();
            assert!(
                text.contains("lump") && text.contains("past the end"),
                "{name}: {text}"
            );
        }
    }
}

/// Deterministic xorshift, so failures reproduce.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

#[test]
fn corrupted_files_never_panic() {
    let mut rng = Rng(0x5eed_1234_abcd_ef01);
    for (name, data) in samples() {
        for round in 0..300 {
            let mut d = data.clone();
            // Corrupt a directory entry or a few bytes anywhere, sometimes with huge values.
            let flips = 1 + (rng.next() % 4) as usize;
            for _ in 0..flips {
                let at = if round % 3 == 0 {
                    8 + (rng.next() as usize % (64 * 16))
                } else {
                    rng.next() as usize % d.len()
                };
                d[at] = if round % 2 == 0 { 0xff } else { rng.next() as u8 };
            }
            if let Err(e) = exercise(&d) {
                let text = e.to_string();
                assert!(!text.is_empty(), "{name} round {round}");
            }
        }
    }
}

#[test]
fn hostile_counts_do_not_allocate() {
    // A visibility lump claiming 2^31 clusters in 12 bytes.
    let mut bsp = Bsp::new(20);
    bsp.raw.insert(
        srcmap_bsp::lump::VISIBILITY,
        vec![0, 0, 0, 0x80, 0, 0, 0, 0, 0, 0, 0, 0],
    );
    let bytes = bsp.to_bytes().unwrap();
    let err = Bsp::parse(&bytes).unwrap_err().to_string();
    assert!(err.contains("VISIBILITY") && err.contains("byte"), "{err}");
    // A game lump directory claiming 2^32-1 entries.
    let mut bytes = Bsp::new(20).to_bytes().unwrap();
    let gl = BspFile::parse(&bytes)
        .unwrap()
        .entry(srcmap_bsp::lump::GAME_LUMP)
        .offset as usize;
    bytes[gl..gl + 4].copy_from_slice(&[0xff; 4]);
    let err = Bsp::parse(&bytes).unwrap_err().to_string();
    assert!(err.contains("GAME_LUMP") && err.contains("byte"), "{err}");
}

#[test]
fn foreign_magic_is_named() {
    let q3 = b"IBSP\x2e\0\0\0 rest of a quake 3 file";
    assert!(Bsp::parse(q3).unwrap_err().to_string().contains("Quake 3"));
    let gold = [30u8, 0, 0, 0, 1, 2, 3, 4];
    assert!(Bsp::parse(&gold).unwrap_err().to_string().contains("GoldSrc"));
    let tf = b"rBSP\x25\0\0\0";
    assert!(Bsp::parse(tf).unwrap_err().to_string().contains("Titanfall"));
}

#[test]
fn unknown_branch_keeps_odd_lumps_as_bytes() {
    // A v27 (Contagion) file whose planes lump does not fit the standard record stays readable,
    // the odd lump kept as bytes; the same file labelled v20 is an error naming the lump.
    let mut bsp = Bsp::new(27);
    bsp.raw.insert(srcmap_bsp::lump::PLANES, vec![1u8; 30]);
    let bytes = bsp.to_bytes().unwrap();
    let back = Bsp::parse(&bytes).unwrap();
    assert_eq!(back.raw.get(&srcmap_bsp::lump::PLANES).map(Vec::len), Some(30));
    let mut v20 = bytes.clone();
    v20[4] = 20;
    let err = Bsp::parse(&v20).unwrap_err().to_string();
    assert!(err.contains("PLANES") && err.contains("not a multiple"), "{err}");
}

/// Regression: a small file whose LZMA lumps each claim the per-lump cap (255 MiB) made `info`
/// use 3.9 GB. The claimed sizes are summed from the headers before anything is decoded, and
/// a file over the budget is refused at its first compressed lump, reading and converting alike.
#[test]
fn lzma_bombs_are_refused_before_decoding() {
    use srcmap_bsp::lzma;
    let mut bomb_block = lzma::encode(&[0u8; 64]).unwrap();
    bomb_block[4..8].copy_from_slice(&(lzma::MAX_UNCOMPRESSED - 1).to_le_bytes());
    let file = fixture();
    let mut doc = BspDocument::from_file(&BspFile::parse(&file).unwrap());
    for lump in [
        srcmap_bsp::lump::PLANES,
        srcmap_bsp::lump::VERTEXES,
        srcmap_bsp::lump::EDGES,
    ] {
        doc.set_lump_stored(lump, bomb_block.clone(), 0, 64);
    }
    let bomb = doc.to_bytes().unwrap();
    assert!(bomb.len() < 64 * 1024, "{}", bomb.len());
    let message = Bsp::parse(&bomb).unwrap_err().to_string();
    assert!(message.contains("decompression bomb"), "{message}");
    let mut doc = BspDocument::from_file(&BspFile::parse(&bomb).unwrap());
    let message = doc.decompress().unwrap_err().to_string();
    assert!(message.contains("decompression bomb"), "{message}");
    // Within the budget, a block claiming more than its stream holds is still a clean error.
    let mut doc = BspDocument::from_file(&BspFile::parse(&file).unwrap());
    doc.set_lump_stored(srcmap_bsp::lump::PLANES, bomb_block, 0, 64);
    let message = Bsp::parse(&doc.to_bytes().unwrap()).unwrap_err().to_string();
    assert!(message.contains("LZMA"), "{message}");
}

/// The same bomb through the game lump: each compressed entry is capped, but a directory of
/// many entries each claiming just under the cap is refused as a whole before any is decoded,
/// reading and converting alike.
#[test]
fn game_lump_lzma_bombs_are_refused_before_decoding() {
    use srcmap_bsp::gamelump::{GAMELUMPFLAG_COMPRESSED, RawGameLump, RawGameLumps};
    use srcmap_bsp::lzma;
    let claim = lzma::MAX_GAME_LUMP_UNCOMPRESSED - 1;
    let mut block = lzma::encode(&[0u8; 64]).unwrap();
    block[4..8].copy_from_slice(&claim.to_le_bytes());
    let entries = (0..12u32)
        .map(|i| RawGameLump {
            id: u32::from_be_bytes(*b"zz00") + i,
            flags: GAMELUMPFLAG_COMPRESSED,
            version: 1,
            len: claim,
            data: block.clone(),
        })
        .collect();
    let raw = RawGameLumps {
        entries,
        offsets: Vec::new(),
    };
    let file = fixture();
    let mut doc = BspDocument::from_file(&BspFile::parse(&file).unwrap());
    doc.set_lump(
        srcmap_bsp::lump::GAME_LUMP,
        raw.to_bytes(srcmap_bytes::Endian::Little),
        0,
    );
    let bomb = doc.to_bytes().unwrap();
    let message = Bsp::parse(&bomb).unwrap_err().to_string();
    assert!(message.contains("decompression bomb"), "{message}");
    let mut doc = BspDocument::from_file(&BspFile::parse(&bomb).unwrap());
    let message = doc.decompress().unwrap_err().to_string();
    assert!(message.contains("decompression bomb"), "{message}");
}
