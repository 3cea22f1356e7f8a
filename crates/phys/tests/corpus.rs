//! Every corpus BSP's physcollide lump and every corpus `.phy` file: read completely, written
//! back byte for byte, and their structure checked (skipped when `SRCMAP_CORPUS` is unset).

use std::path::{Path, PathBuf};

use srcmap_bsp::{
    BspFile, PhysCollide, PhysDisp,
    lump::{DISPINFO, PHYSCOLLIDE, PHYSDISP},
};
use srcmap_phys::{ModelCollision, PhyFile, Solid, SolidBody};

/// IVP units are metres; Valve's spheres and hulls hold to well under a millimetre.
const TOLERANCE: f32 = 1e-3;

fn walk(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            walk(&p, ext, out);
        } else if srcmap_corpus::has_extension(&p, ext) {
            out.push(p);
        }
    }
}

/// Checks a solid's invariants and round trip; returns (surfaces read, triangles).
fn check_solid(where_: &str, blob: &[u8], solid: &Solid) -> (usize, usize) {
    assert!(solid.to_bytes() == blob, "{where_}: solid round trip differs");
    let SolidBody::Surface(s) = &solid.body else {
        return (0, 0);
    };
    let bad = s.verify(TOLERANCE);
    assert!(bad.is_empty(), "{where_}: {bad:?}");
    assert!(
        s.ledges.iter().all(|l| !l.triangles.is_empty()),
        "{where_}: an empty ledge"
    );
    if s.is_mopp() {
        // Polysoup: a flat ledge per triangle (two faces), then the points, then the Havok MOPP
        // code, the one run of bytes kept unread.
        assert!(
            s.ledges.iter().all(|l| l.triangles.len() == 2),
            "{where_}: a MOPP ledge not a triangle"
        );
        assert!(
            s.gaps.len() == 1 && s.gaps[0].offset as i32 == s.header.offset_ledgetree_root,
            "{where_}: MOPP surface bytes {:?}",
            s.gaps
                .iter()
                .map(|g| (g.offset, g.bytes.len()))
                .collect::<Vec<_>>()
        );
        return (1, s.triangle_count());
    }
    assert!(s.terminal_ledges().count() > 0, "{where_}: no terminal ledge");
    // Every byte of Valve's surfaces belongs to a record: nothing is carried as unread bytes.
    assert!(
        s.gaps.is_empty(),
        "{where_}: unclaimed bytes {:?}",
        s.gaps
            .iter()
            .map(|g| (g.offset, g.bytes.len()))
            .collect::<Vec<_>>()
    );
    (1, s.triangle_count())
}

#[test]
fn every_bsp_physcollide_reads_completely_and_round_trips() {
    let Some(root) = srcmap_corpus::root("the physcollide corpus test") else {
        return;
    };
    let files = srcmap_corpus::files(&root, "bsp", |p| srcmap_corpus::has_extension(p, "bsp"));
    let (mut maps, mut models, mut surfaces, mut tris, mut unread, mut mopp) = (0, 0, 0, 0, 0, 0);
    for path in files {
        let data = std::fs::read(&path).unwrap();
        let Ok(file) = BspFile::parse(&data) else { continue }; // not a Source BSP
        let lump = file.lump(PHYSCOLLIDE).unwrap();
        if lump.is_empty() || file.endian() == srcmap_bsp::Endian::Big {
            continue; // big-endian (console) collision is not read: see the crate's limits
        }
        let base = file.entry(PHYSCOLLIDE).offset as u64;
        let pc = PhysCollide::parse(&lump, file.endian(), base).unwrap();
        let mut at = base;
        let mut rebuilt = pc.clone();
        for (mi, m) in pc.models.iter().enumerate() {
            let mc = ModelCollision::parse(m.model_index, &m.solids, &m.key_data, at)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            for (i, (blob, solid)) in m.solids.iter().zip(&mc.solids).enumerate() {
                let (s, t) = check_solid(
                    &format!("{} model {} solid {i}", path.display(), m.model_index),
                    blob,
                    solid,
                );
                surfaces += s;
                tris += t;
                unread += 1 - s;
                mopp += solid.surface().is_some_and(|s| s.is_mopp()) as usize;
            }
            // Every solid block of the key data names a solid of the model.
            for b in mc.key_data.solids() {
                let i: usize = b.get("index").and_then(|v| v.parse().ok()).expect("solid index");
                assert!(i < m.solids.len(), "{}: key data names solid {i}", path.display());
            }
            rebuilt.models[mi].solids = mc.solid_blobs();
            rebuilt.models[mi].key_data = mc.key_data.to_bytes().to_vec();
            at = ModelCollision::next_base(at, m.solids.iter().map(Vec::len), m.key_data.len());
            models += 1;
        }
        assert!(
            rebuilt.to_bytes(file.endian()) == *lump,
            "{}: lump round trip differs",
            path.display()
        );
        maps += 1;
    }
    eprintln!(
        "{maps} maps, {models} models, {surfaces} surfaces ({mopp} MOPP polysoups, {tris} triangles), \
         {unread} solids not read"
    );
    assert!(maps >= 20 && surfaces >= 900, "expected the corpus maps");
    // gg_aim_shotty's power-4 terrain, the corpus's only polysoup.
    assert!(mopp >= 3, "the corpus's MOPP polysoup solids were not read");
}

/// Every corpus BSP's physdisp lump: one entry per displacement, each packed hull read into
/// records, closed over the displacement's vertices, and the lump written back byte for byte.
#[test]
fn every_bsp_physdisp_reads_completely_and_round_trips() {
    let Some(root) = srcmap_corpus::root("the physdisp corpus test") else {
        return;
    };
    let files = srcmap_corpus::files(&root, "bsp", |p| srcmap_corpus::has_extension(p, "bsp"));
    let (mut maps, mut hulls, mut without, mut tris) = (0, 0, 0, 0);
    for path in files {
        let data = std::fs::read(&path).unwrap();
        let Ok(file) = BspFile::parse(&data) else { continue }; // not a Source BSP
        let lump = file.lump(PHYSDISP).unwrap();
        if lump.is_empty() || file.endian() == srcmap_bsp::Endian::Big {
            continue;
        }
        let base = file.entry(PHYSDISP).offset as u64;
        let pd =
            PhysDisp::parse(&lump, file.endian(), base).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let bsp = srcmap_bsp::Bsp::parse(&data).unwrap();
        assert_eq!(
            pd.blobs.len(),
            bsp.disp_info.len(),
            "{}: one entry per displacement (lump {DISPINFO})",
            path.display()
        );
        let read = pd
            .read_hulls(base)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        for (i, h) in read.iter().enumerate() {
            let Some(h) = h else {
                without += 1;
                continue;
            };
            let bad = h.verify(bsp.disp_info[i].vert_count());
            assert!(bad.is_empty(), "{} displacement {i}: {bad:?}", path.display());
            // Euler: a closed hull of triangles has 3F = 2E.
            assert_eq!(
                3 * h.triangles.len(),
                2 * h.edges.len(),
                "{} displacement {i}",
                path.display()
            );
            hulls += 1;
            tris += h.triangles.len();
        }
        let rebuilt = PhysDisp {
            blobs: read.iter().map(|h| h.as_ref().map(|h| h.to_bytes())).collect(),
            tail: pd.tail.clone(),
        };
        assert!(
            rebuilt.to_bytes(file.endian()).unwrap() == *lump,
            "{}: physdisp round trip differs",
            path.display()
        );
        maps += 1;
    }
    eprintln!(
        "{maps} maps with physdisp, {hulls} packed hulls ({tris} triangles), {without} without collision"
    );
    assert!(maps >= 10 && hulls >= 900, "expected the corpus maps");
}

#[test]
fn every_phy_file_reads_completely_and_round_trips() {
    let Some(root) = srcmap_corpus::root("the .phy corpus test") else {
        return;
    };
    let mut files = Vec::new();
    walk(&root.join("model"), "phy", &mut files);
    let mut surfaces = 0;
    for path in &files {
        let data = std::fs::read(path).unwrap();
        let phy = PhyFile::parse(&data).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(phy.to_bytes() == data, "{}: round trip differs", path.display());
        let mut at = phy.header_size as usize;
        for (i, solid) in phy.solids.iter().enumerate() {
            let size = i32::from_le_bytes(data[at..at + 4].try_into().unwrap()) as usize;
            surfaces += check_solid(
                &format!("{} solid {i}", path.display()),
                &data[at + 4..at + 4 + size],
                solid,
            )
            .0;
            at += 4 + size;
        }
        assert_eq!(
            phy.key_data.solids().count(),
            phy.solids.len(),
            "{}",
            path.display()
        );
    }
    eprintln!("{} .phy files, {surfaces} surfaces", files.len());
    assert!(files.len() >= 20);
}
