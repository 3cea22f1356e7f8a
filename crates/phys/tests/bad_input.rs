//! Truncated and corrupted collision data fails with an error naming the place, never a panic.
//! The solid is one this test builds by hand: a unit cube ledge (12 triangles, 8 points) under
//! one tree node.

use srcmap_phys::{PhysError, Solid};

/// A VPHY solid holding one cube ledge; returns its bytes.
fn cube_solid() -> Vec<u8> {
    let corners: Vec<[f32; 3]> = (0..8)
        .map(|i| [(i & 1) as f32, (i >> 1 & 1) as f32, (i >> 2 & 1) as f32])
        .collect();
    // Two triangles per face, wound outwards.
    let faces = [
        [0, 2, 3, 1],
        [4, 5, 7, 6],
        [0, 1, 5, 4],
        [2, 6, 7, 3],
        [0, 4, 6, 2],
        [1, 3, 7, 5],
    ];
    let mut tris: Vec<[u16; 3]> = Vec::new();
    for f in faces {
        tris.push([f[0], f[1], f[2]]);
        tris.push([f[0], f[2], f[3]]);
    }
    let ledge_at = 48usize;
    let points_at = ledge_at + 16 * 13;
    let node_at = points_at + 16 * 8;
    let len = node_at + 28;
    let mut s = vec![0u8; len];
    let put = |s: &mut Vec<u8>, p: usize, b: &[u8]| s[p..p + b.len()].copy_from_slice(b);
    put(&mut s, 24, &1.0f32.to_le_bytes());
    put(&mut s, 28, &((len as u32) << 8).to_le_bytes());
    put(&mut s, 32, &(node_at as i32).to_le_bytes());
    put(&mut s, 44, b"IVPS");
    put(&mut s, ledge_at, &((points_at - ledge_at) as i32).to_le_bytes());
    put(&mut s, ledge_at + 8, &(4u32 | 21 << 8).to_le_bytes());
    put(&mut s, ledge_at + 12, &12i16.to_le_bytes());
    for (t, tri) in tris.iter().enumerate() {
        let p = ledge_at + 16 * (1 + t);
        put(&mut s, p, &(t as u32).to_le_bytes());
        for e in 0..3 {
            let (a, b) = (tri[e], tri[(e + 1) % 3]);
            // The twin: the edge b -> a in another triangle.
            let (tt, ee) = tris
                .iter()
                .enumerate()
                .find_map(|(j, o)| (0..3).find(|&k| o[k] == b && o[(k + 1) % 3] == a).map(|k| (j, k)))
                .expect("closed cube");
            let rel = (4 * tt + 1 + ee) as i32 - (4 * t + 1 + e) as i32;
            put(
                &mut s,
                p + 4 + 4 * e,
                &(a as u32 | ((rel as u32) & 0x7fff) << 16).to_le_bytes(),
            );
        }
    }
    for (i, c) in corners.iter().enumerate() {
        for (k, v) in c.iter().enumerate() {
            put(&mut s, points_at + 16 * i + 4 * k, &v.to_le_bytes());
        }
    }
    put(
        &mut s,
        node_at + 4,
        &(ledge_at as i32 - node_at as i32).to_le_bytes(),
    );
    for k in 0..3 {
        put(&mut s, node_at + 8 + 4 * k, &0.5f32.to_le_bytes());
    }
    put(&mut s, node_at + 20, &0.87f32.to_le_bytes());
    let mut out = b"VPHY".to_vec();
    out.extend_from_slice(&0x100i16.to_le_bytes());
    out.extend_from_slice(&0i16.to_le_bytes());
    out.extend_from_slice(&(len as i32).to_le_bytes());
    out.extend_from_slice(&[0; 16]);
    out.extend_from_slice(&s);
    out
}

#[test]
fn the_hand_made_cube_reads_verifies_and_round_trips() {
    let data = cube_solid();
    let solid = Solid::parse(&data, 0).unwrap();
    let s = solid.surface().unwrap();
    assert_eq!(s.ledges.len(), 1);
    assert_eq!(s.triangle_count(), 12);
    assert!(s.gaps.is_empty());
    assert_eq!(s.verify(1e-4), Vec::<String>::new());
    assert_eq!(solid.to_bytes(), data);
}

#[test]
fn every_truncation_is_an_error_with_an_offset() {
    let data = cube_solid();
    for n in 0..data.len() {
        let e: PhysError = Solid::parse(&data[..n], 1000).expect_err("truncated solid must fail");
        assert!(
            e.offset >= 1000 && e.offset <= 1000 + data.len() as u64,
            "{n}: {e}"
        );
    }
}

#[test]
fn corrupted_words_never_panic_and_broken_twins_are_reported() {
    let data = cube_solid();
    for at in (0..data.len()).step_by(2) {
        for v in [0u8, 0x7f, 0x80, 0xff] {
            let mut d = data.clone();
            d[at] = v;
            if let Ok(s) = Solid::parse(&d, 0) {
                assert_eq!(s.to_bytes(), d);
                let _ = s.surface().map(|s| s.verify(1e-4));
            }
        }
    }
    // Point an edge's twin at the wrong edge: the check names it.
    let mut d = data.clone();
    let first_edge = 28 + 48 + 16 + 4;
    d[first_edge + 2] ^= 1;
    let s = Solid::parse(&d, 0).unwrap();
    assert!(
        s.surface()
            .unwrap()
            .verify(1e-4)
            .iter()
            .any(|m| m.contains("twin"))
    );
}

#[test]
fn a_right_child_before_its_parent_is_refused() {
    let mut d = cube_solid();
    let node = 28 + 48 + 16 * 13 + 16 * 8;
    d[node..node + 4].copy_from_slice(&(-100i32).to_le_bytes());
    let e = Solid::parse(&d, 0).unwrap_err();
    assert_eq!(e.structure, "ledge tree node");
    assert_eq!(e.offset, node as u64);
}

/// A displacement's packed hull (a tetrahedron over vertices 0, 4, 20, 24 of a 5×5 grid):
/// every truncation is an error at the blob's end, and every corrupted byte reads (the counts
/// then no longer fit: an error) or reads into records whose check names the fault, never a
/// panic.
#[test]
fn truncated_or_corrupted_packed_hulls_fail_cleanly() {
    let mut hull = vec![1, 0, 0, 0, 4, 4, 6, 6];
    hull.extend_from_slice(&[0, 0, 1, 2, 3, 2, 3, 4, 2, 4, 5, 0, 1, 1, 5, 3, 0]);
    hull.extend_from_slice(&[24, 0, 0, 20, 20, 24, 20, 4, 4, 24, 4, 0]);
    let good = srcmap_phys::PackedHull::parse(&hull, 1000).unwrap();
    assert!(good.verify(25).is_empty());
    for n in 0..hull.len() {
        let e = srcmap_phys::PackedHull::parse(&hull[..n], 1000).unwrap_err();
        assert_eq!(e.structure, "packed hull");
        assert!(e.offset >= 1000, "{e}");
    }
    let mut faults = 0;
    for at in 4..hull.len() {
        let mut bad = hull.clone();
        bad[at] = bad[at].wrapping_add(1);
        match srcmap_phys::PackedHull::parse(&bad, 0) {
            Err(_) => faults += 1,
            Ok(h) => {
                assert_eq!(h.to_bytes(), bad);
                // A changed edge index or vertex breaks the closed hull; the pierce and
                // unknown bytes are not checked beyond their range.
                faults += usize::from(!h.verify(25).is_empty());
            }
        }
    }
    assert!(faults >= 20, "{faults} faults found");
}

/// A MOPP polysoup solid by hand: a 12-byte VPHY header, the 48-byte surface header ending in
/// `MOPP`, one triangle ledge (two faces), its three shared points and 4 bytes standing for the
/// MOPP code.
fn mopp_solid() -> Vec<u8> {
    let ledge_at = 48usize;
    let points_at = ledge_at + 16 * 3;
    let code_at = points_at + 16 * 3;
    let len = code_at + 4;
    let mut s = vec![0u8; len];
    let put = |s: &mut Vec<u8>, at: usize, b: &[u8]| s[at..at + b.len()].copy_from_slice(b);
    put(&mut s, 28, &((len as u32) << 8 | 249).to_le_bytes());
    put(&mut s, 32, &(code_at as i32).to_le_bytes());
    put(&mut s, 36, &(ledge_at as i32).to_le_bytes());
    put(&mut s, 44, b"MOPP");
    put(&mut s, ledge_at, &((points_at - ledge_at) as i32).to_le_bytes());
    put(&mut s, ledge_at + 8, &(3u32 << 8).to_le_bytes());
    put(&mut s, ledge_at + 12, &2i16.to_le_bytes());
    // Faces (0, 1, 2) and (1, 0, 2); each edge's twin 4, 5, 3 slots on (and back).
    let faces: [([u16; 3], [i16; 3]); 2] = [([0, 1, 2], [4, 5, 3]), ([1, 0, 2], [-4, -3, -5])];
    for (t, (pts, opp)) in faces.iter().enumerate() {
        let at = ledge_at + 16 * (1 + t);
        put(&mut s, at, &((t as u32) | (1 - t as u32) << 12).to_le_bytes());
        for e in 0..3 {
            let w = pts[e] as u32 | ((opp[e] as u32) & 0x7fff) << 16;
            put(&mut s, at + 4 + 4 * e, &w.to_le_bytes());
        }
    }
    for (i, p) in [[0.0f32, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]
        .iter()
        .enumerate()
    {
        for (k, v) in p.iter().enumerate() {
            put(&mut s, points_at + 16 * i + 4 * k, &v.to_le_bytes());
        }
    }
    put(&mut s, code_at, &[1, 2, 3, 4]);
    let mut out = b"VPHY".to_vec();
    out.extend_from_slice(&0x100i16.to_le_bytes());
    out.extend_from_slice(&1i16.to_le_bytes());
    out.extend_from_slice(&(len as i32).to_le_bytes());
    out.extend(s);
    out
}

#[test]
fn a_mopp_solid_reads_and_damaged_ones_are_kept_as_bytes_or_refused() {
    let blob = mopp_solid();
    let solid = Solid::parse(&blob, 0).expect("reads");
    let s = solid.surface().expect("the MOPP surface is read");
    assert!(s.is_mopp());
    assert_eq!((s.ledges.len(), s.triangle_count()), (1, 2));
    assert_eq!(s.verify(1e-3), Vec::<String>::new());
    assert_eq!(s.gaps.len(), 1, "the MOPP code is the one unread run");
    assert_eq!(solid.to_bytes(), blob);
    // Truncated or with any byte changed: read back exactly, kept as bytes, or an error —
    // never a panic.
    for cut in 0..blob.len() {
        if let Ok(s) = Solid::parse(&blob[..cut], 0) {
            assert_eq!(s.to_bytes(), blob[..cut]);
        }
    }
    for i in 0..blob.len() {
        let mut bad = blob.clone();
        bad[i] ^= 0xa5;
        if let Ok(s) = Solid::parse(&bad, 0) {
            assert_eq!(s.to_bytes(), bad, "byte {i} corrupted");
        }
    }
}

#[test]
fn a_negative_solid_size_is_refused_by_name() {
    let mut phy = Vec::new();
    for v in [16i32, 0, 1, 0, -8] {
        phy.extend_from_slice(&v.to_le_bytes());
    }
    phy.extend_from_slice(&[0; 16]);
    let e = srcmap_phys::PhyFile::parse(&phy).unwrap_err().to_string();
    assert!(e.contains("solid size") && e.contains("-8"), "{e}");
}
