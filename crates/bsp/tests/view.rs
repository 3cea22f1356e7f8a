//! The borrowed view ([`BspView`]) against decoding: on every corpus file, the view over the
//! file's (aligned) bytes, where records are cast in place, gives the same lumps as the view
//! over a misaligned copy (where every multi-byte record is decoded field by field) and as the
//! owned [`Bsp`].

mod common;

use std::borrow::Cow;

use srcmap_bsp::{Bsp, BspFile, BspView, Endian, HEADER_LUMPS, lump, lump_name};

fn corpus_files() -> Vec<(String, Vec<u8>)> {
    let Some(root) = common::corpus_root() else {
        eprintln!("SRCMAP_CORPUS is not set: skipping corpus test");
        return Vec::new();
    };
    let mut out = Vec::new();
    for repo in std::fs::read_dir(root.join("bsp")).expect("corpus bsp dir") {
        for f in std::fs::read_dir(repo.unwrap().path()).unwrap() {
            let path = f.unwrap().path();
            let data = std::fs::read(&path).unwrap();
            if data.starts_with(b"VBSP") || data.starts_with(b"PSBV") {
                out.push((path.display().to_string(), data));
            }
        }
    }
    out.sort();
    assert!(out.len() > 20);
    out
}

/// `data` copied to a 4-aligned buffer at byte offset `shift`.
fn placed(data: &[u8], shift: usize) -> (Vec<u32>, usize) {
    let mut words = vec![0u32; (data.len() + shift).div_ceil(4) + 1];
    bytemuck::cast_slice_mut::<u32, u8>(&mut words)[shift..shift + data.len()].copy_from_slice(data);
    (words, shift)
}

#[allow(clippy::ptr_arg)] // Which variant it is, is the point.
fn is_borrowed<T: Clone>(c: &Cow<'_, [T]>) -> bool {
    matches!(c, Cow::Borrowed(_))
}

#[test]
fn view_in_place_equals_decoded_and_owned() {
    let mut borrowed_lumps = 0;
    for (path, data) in corpus_files() {
        let (aligned_buf, _) = placed(&data, 0);
        let aligned = &bytemuck::cast_slice::<u32, u8>(&aligned_buf)[..data.len()];
        let (shifted_buf, shift) = placed(&data, 1);
        let shifted = &bytemuck::cast_slice::<u32, u8>(&shifted_buf)[shift..shift + data.len()];

        let view = BspView::parse(aligned).unwrap_or_else(|e| panic!("{path}: {e}"));
        // Decoding into an arena gives the same view, with every typed lump borrowed.
        let file = BspFile::parse(aligned).unwrap();
        let arena = srcmap_bsp::Bump::with_capacity(BspView::arena_hint(&file));
        let in_arena = BspView::from_file_in(&file, &arena).unwrap();
        {
            // Compared as bytes: static props carry NaN floats in some maps.
            let (a, b) = (in_arena.clone().into_owned(), view.clone().into_owned());
            for l in 0..HEADER_LUMPS {
                assert!(
                    a.lump_bytes(l).unwrap() == b.lump_bytes(l).unwrap(),
                    "{path}: lump {l} ({}) differs in the arena",
                    lump_name(l)
                );
            }
        }
        for (name, borrowed) in [
            ("faces", is_borrowed(&in_arena.faces)),
            ("nodes", is_borrowed(&in_arena.nodes)),
            ("leafs", is_borrowed(&in_arena.leafs)),
            ("edges", is_borrowed(&in_arena.edges)),
            ("leaf_faces", is_borrowed(&in_arena.leaf_faces)),
            ("planes", is_borrowed(&in_arena.planes)),
        ] {
            assert!(borrowed, "{path}: {name} not in the arena");
        }
        let decoded = BspView::parse(shifted).unwrap_or_else(|e| panic!("{path}: shifted: {e}"));
        let owned = Bsp::parse(&data).unwrap();

        let little = file.endian() == Endian::Little;
        let aligned_lump = |l: usize| file.entry(l).offset.is_multiple_of(4) && !file.is_compressed(l);
        // In place exactly where the bytes allow it; decoded in the misaligned copy.
        for (l, view_borrowed, decoded_borrowed, len) in [
            (
                lump::PLANES,
                is_borrowed(&view.planes),
                is_borrowed(&decoded.planes),
                view.planes.len(),
            ),
            (
                lump::VERTEXES,
                is_borrowed(&view.vertexes),
                is_borrowed(&decoded.vertexes),
                view.vertexes.len(),
            ),
            (
                lump::TEXINFO,
                is_borrowed(&view.texinfo),
                is_borrowed(&decoded.texinfo),
                view.texinfo.len(),
            ),
            (
                lump::MODELS,
                is_borrowed(&view.models),
                is_borrowed(&decoded.models),
                view.models.len(),
            ),
            (
                lump::SURFEDGES,
                is_borrowed(&view.surfedges),
                is_borrowed(&decoded.surfedges),
                view.surfedges.len(),
            ),
            (
                lump::DISP_TRIS,
                is_borrowed(&view.disp_tris),
                is_borrowed(&decoded.disp_tris),
                view.disp_tris.len(),
            ),
        ] {
            if len == 0 {
                continue;
            }
            assert_eq!(
                view_borrowed,
                little && aligned_lump(l),
                "{path}: lump {l} ({})",
                lump_name(l)
            );
            assert!(!decoded_borrowed, "{path}: lump {l} cast from misaligned bytes");
            borrowed_lumps += view_borrowed as usize;
        }
        // Faces and other widened records are never cast.
        assert!(!is_borrowed(&view.faces) || view.faces.is_empty());
        if little && !view.lighting.is_empty() && !file.is_compressed(lump::LIGHTING) {
            assert!(is_borrowed(&view.lighting), "{path}: lighting copied");
        }

        // The same entities, key by key, as the owned parse.
        assert_eq!(view.entities.len(), owned.entities.len(), "{path}");
        for (v, o) in view.entities.iter().zip(&owned.entities) {
            assert!(
                v.pairs()
                    .eq(o.pairs.iter().map(|(k, v)| (k.as_str(), v.as_str()))),
                "{path}: entity differs"
            );
        }
        assert_eq!(view.entities.latin1(), owned.entities_latin1, "{path}");

        // Every lump: in place, decoded and owned serialise to the same bytes.
        let view = view.into_owned();
        let decoded = decoded.into_owned();
        assert_eq!(
            view.raw.keys().collect::<Vec<_>>(),
            owned.raw.keys().collect::<Vec<_>>()
        );
        for l in 0..HEADER_LUMPS {
            let a = view.lump_bytes(l).unwrap();
            assert!(
                a == decoded.lump_bytes(l).unwrap(),
                "{path}: lump {l} ({}) in place vs decoded",
                lump_name(l)
            );
            assert!(
                a == owned.lump_bytes(l).unwrap(),
                "{path}: lump {l} ({}) view vs owned",
                lump_name(l)
            );
        }
        assert_eq!(view.visibility, owned.visibility, "{path}");
        assert_eq!(view.phys_collide, owned.phys_collide, "{path}");
    }
    if common::corpus_root().is_some() {
        assert!(borrowed_lumps > 50, "only {borrowed_lumps} lumps viewed in place");
    }
}

#[test]
fn view_of_a_built_file_round_trips() {
    let mut bsp = Bsp::new(20);
    bsp.planes.push(srcmap_bsp::Plane {
        normal: [0.0, 0.0, 1.0],
        dist: 16.0,
        kind: 2,
    });
    let mut e = srcmap_bsp::Entity::default();
    e.set("classname", "worldspawn");
    e.set("message", "caf\u{e9}");
    bsp.entities.push(e);
    bsp.lighting.push(srcmap_bsp::ColorRgbExp32 {
        r: 1,
        g: 2,
        b: 3,
        exponent: -4,
    });
    let bytes = bsp.to_bytes().unwrap();
    let view = BspView::parse(&bytes).unwrap();
    assert_eq!(view.planes[0].dist, 16.0);
    assert_eq!(view.lighting[0].exponent, -4);
    let world = view.entities.get(0).unwrap();
    assert_eq!(world.classname(), Some("worldspawn"));
    assert_eq!(world.get("message"), Some("caf\u{e9}"));
    assert_eq!(view.into_owned().to_bytes().unwrap(), bytes);
}
