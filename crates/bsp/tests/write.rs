//! Writing: LZMA compression both ways, editing through the typed view, building from scratch.

mod common;

use srcmap_bsp::{Bsp, BspDocument, BspFile, HEADER_LUMPS, lump};

fn corpus(name: &str) -> Option<Vec<u8>> {
    let Some(root) = common::corpus_root() else {
        eprintln!("SRCMAP_CORPUS is not set: skipping corpus test");
        return None;
    };
    Some(std::fs::read(root.join("bsp").join(name)).expect("corpus file"))
}

fn assert_same_content(a: &Bsp, b: &Bsp, what: &str) {
    for l in 0..HEADER_LUMPS {
        if l == lump::GAME_LUMP {
            continue;
        }
        assert!(
            a.lump_bytes(l).unwrap() == b.lump_bytes(l).unwrap(),
            "{what}: lump {l} ({}) differs",
            srcmap_bsp::lump_name(l)
        );
    }
    let ctx = a.ctx(lump::GAME_LUMP);
    assert_eq!(
        a.game_lumps.to_bytes(&ctx).unwrap(),
        b.game_lumps.to_bytes(&ctx).unwrap(),
        "{what}: game lumps differ"
    );
}

#[test]
fn compress_then_decompress_keeps_content() {
    let Some(data) = corpus("snake-biscuits+bsp_tool/tf2_test2.bsp") else {
        return;
    };
    let original = Bsp::parse(&data).unwrap();
    let file = BspFile::parse(&data).unwrap();
    let mut doc = BspDocument::from_file(&file);
    doc.compress().unwrap();
    let packed = doc.to_bytes().unwrap();
    assert!(packed.len() < data.len());
    let pf = BspFile::parse(&packed).unwrap();
    assert!(pf.is_compressed(lump::PLANES) && !pf.is_compressed(lump::PAKFILE));
    assert_eq!(
        pf.entry(lump::PLANES).fourcc as usize,
        original.planes.len() * 20,
        "fourCC holds the uncompressed size"
    );
    let raw = BspDocument::from_file(&pf).raw_game_lumps().unwrap();
    assert!(
        raw.entries.iter().any(|e| e.is_compressed()),
        "game lumps compressed one by one"
    );
    assert_eq!(
        raw.entries.last().unwrap().id,
        0,
        "compressed game lumps end with a dummy entry"
    );
    let back = Bsp::parse(&packed).unwrap();
    assert_same_content(&original, &back, "compressed");
    // And back to plain: same content, and the same bytes as the original file's lumps.
    let mut doc = BspDocument::from_file(&pf);
    doc.decompress().unwrap();
    let plain = doc.to_bytes().unwrap();
    let pl = BspFile::parse(&plain).unwrap();
    for l in 0..HEADER_LUMPS {
        assert!(!pl.is_compressed(l));
        if l != lump::GAME_LUMP {
            assert!(pl.stored(l) == file.stored(l), "lump {l}");
        }
    }
    assert_same_content(&original, &Bsp::parse(&plain).unwrap(), "decompressed");
}

#[test]
fn console_file_decompresses() {
    let Some(data) = corpus("snake-biscuits+bsp_tool/shack.360.bsp") else {
        return;
    };
    let original = Bsp::parse(&data).unwrap();
    assert_eq!(original.endian, srcmap_bsp::Endian::Big);
    assert!(
        original
            .game_lumps
            .static_props()
            .is_some_and(|s| !s.props.is_empty())
    );
    let mut doc = BspDocument::from_file(&BspFile::parse(&data).unwrap());
    doc.decompress().unwrap();
    let plain = doc.to_bytes().unwrap();
    let back = Bsp::parse(&plain).unwrap();
    assert_same_content(&original, &back, "shack decompressed");
    // Its game lump directory stays relative to the lump, as console files have it.
    let pf = BspFile::parse(&plain).unwrap();
    let gl = pf.stored(lump::GAME_LUMP);
    let first = u32::from_be_bytes([gl[12], gl[13], gl[14], gl[15]]);
    assert!(
        first < pf.entry(lump::GAME_LUMP).offset && first as usize <= gl.len(),
        "offset {first}"
    );
    assert!(srcmap_bsp::check::check(&back).is_empty());
}

#[test]
fn editing_one_lump_keeps_the_others_stored_bytes() {
    for name in [
        "snake-biscuits+bsp_tool/shack.360.bsp",
        "ata4+bspsrc/l4d2_tooltextures.bsp",
        "snake-biscuits+bsp_tool/tf2_test2.bsp",
    ] {
        let Some(data) = corpus(name) else { return };
        let file = BspFile::parse(&data).unwrap();
        let mut bsp = Bsp::from_file(&file).unwrap();
        let mut doc = BspDocument::from_file(&file);
        // Nothing changed: nothing rewritten, file identical.
        assert_eq!(
            bsp.update_document(&mut doc).unwrap(),
            Vec::<usize>::new(),
            "{name}"
        );
        assert!(doc.to_bytes().unwrap() == data, "{name}");
        // Change one entity key.
        bsp.entities[0].set("skyname", "sky_srcmap_test");
        let changed = bsp.update_document(&mut doc).unwrap();
        assert_eq!(changed, vec![lump::ENTITIES], "{name}");
        let out = doc.to_bytes().unwrap();
        let of = BspFile::parse(&out).unwrap();
        for l in 0..HEADER_LUMPS {
            if l != lump::ENTITIES && l != lump::GAME_LUMP {
                assert!(
                    of.stored(l) == file.stored(l),
                    "{name}: lump {l} stored bytes changed"
                );
            }
        }
        let back = Bsp::parse(&out).unwrap();
        assert_eq!(back.entities[0].get("skyname"), Some("sky_srcmap_test"));
        assert_eq!(back.header_order(), bsp.header_order());
    }
}

trait Order {
    fn header_order(&self) -> srcmap_bsp::LumpOrder;
}
impl Order for Bsp {
    fn header_order(&self) -> srcmap_bsp::LumpOrder {
        self.order
    }
}

#[test]
fn build_from_scratch_in_valve_layout() {
    use srcmap_bsp::*;
    let mut bsp = Bsp::new(20);
    bsp.planes = vec![
        Plane {
            normal: [0.0, 0.0, 1.0],
            dist: 0.0,
            kind: 2,
        },
        Plane {
            normal: [0.0, 0.0, -1.0],
            dist: 0.0,
            kind: 2,
        },
    ];
    let name = bsp.add_texdata_name("DEV/DEV_MEASUREGENERIC01");
    assert_eq!(
        bsp.add_texdata_name("dev/dev_measuregeneric01"),
        name,
        "names are shared case-insensitively"
    );
    bsp.texdata.push(TexData {
        reflectivity: [0.5; 3],
        name_id: name,
        width: 512,
        height: 512,
        view_width: 512,
        view_height: 512,
    });
    bsp.texinfo.push(TexInfo {
        texture_vecs: [[1.0, 0.0, 0.0, 0.0], [0.0, -1.0, 0.0, 0.0]],
        lightmap_vecs: [[0.0625, 0.0, 0.0, 0.0], [0.0, -0.0625, 0.0, 0.0]],
        flags: 0,
        texdata: 0,
    });
    bsp.vertexes = vec![[0.0, 0.0, 0.0], [64.0, 0.0, 0.0], [64.0, 64.0, 0.0]];
    bsp.edges = vec![Edge([0, 0]), Edge([0, 1]), Edge([1, 2]), Edge([2, 0])];
    bsp.surfedges = vec![1, 2, 3];
    bsp.faces.push(Face {
        plane: 0,
        first_edge: 0,
        num_edges: 3,
        texinfo: 0,
        dispinfo: -1,
        styles: [0, 255, 255, 255],
        light_offset: -1,
        orig_face: 0,
        ..Default::default()
    });
    bsp.original_faces = bsp.faces.clone();
    bsp.leafs = vec![
        Leaf {
            contents: 1,
            cluster: -1,
            leaf_water_data: -1,
            ..Default::default()
        },
        Leaf {
            contents: 0,
            cluster: 0,
            first_leaf_face: 0,
            num_leaf_faces: 1,
            leaf_water_data: -1,
            ..Default::default()
        },
    ];
    bsp.leaf_faces = vec![0];
    bsp.nodes.push(Node {
        plane: 0,
        children: [-2, -1],
        first_face: 0,
        num_faces: 1,
        area: 0,
        ..Default::default()
    });
    bsp.models.push(Model {
        head_node: 0,
        first_face: 0,
        num_faces: 1,
        ..Default::default()
    });
    bsp.brushes.push(Brush {
        first_side: 0,
        num_sides: 2,
        contents: 1,
    });
    bsp.brush_sides = vec![
        BrushSide {
            plane: 0,
            texinfo: 0,
            dispinfo: 0,
            ..Default::default()
        },
        BrushSide {
            plane: 1,
            texinfo: 0,
            dispinfo: 0,
            ..Default::default()
        },
    ];
    bsp.leaf_brushes = vec![0];
    bsp.areas = vec![Area::default(), Area::default()];
    let mut world = Entity::default();
    world.set("classname", "worldspawn");
    bsp.entities.push(world);
    assert!(check::check(&bsp).is_empty(), "{:?}", check::check(&bsp));
    let bytes = bsp.to_bytes().unwrap();
    let file = BspFile::parse(&bytes).unwrap();
    assert_eq!(&bytes[..4], b"VBSP");
    assert_eq!(file.version(), 20);
    // Valve's order: planes right after the header, the pakfile last.
    assert_eq!(file.entry(lump::PLANES).offset, 1036);
    let last = (0..HEADER_LUMPS)
        .max_by_key(|&l| file.entry(l).offset + file.entry(l).len)
        .unwrap();
    assert_eq!(last, lump::PAKFILE);
    for l in 0..HEADER_LUMPS {
        assert_eq!(file.entry(l).offset % 4, 0, "lump {l} aligned");
    }
    let back = Bsp::parse(&bytes).unwrap();
    assert_eq!(back, bsp);
    assert_eq!(back.texdata_name(0), Some("DEV/DEV_MEASUREGENERIC01"));
    let sp = back.game_lumps.static_props().unwrap();
    assert!(sp.props.is_empty() && sp.models.is_empty());
    assert!(
        srcmap_bsp::pak::Pak::parse(&back.pakfile, 0)
            .unwrap()
            .entries
            .is_empty()
    );
    // Narrow fields are checked on write.
    let mut wide = bsp.clone();
    wide.edges.push(Edge([70000, 0]));
    let err = wide.to_bytes().unwrap_err().to_string();
    assert!(err.contains("EDGES") && err.contains("70000"), "{err}");
}

#[test]
fn lighting_samples_and_averages() {
    let Some(data) = corpus("snake-biscuits+bsp_tool/tf2_test2.bsp") else {
        return;
    };
    let bsp = Bsp::parse(&data).unwrap();
    let mut lit = 0;
    for i in 0..bsp.faces.len() {
        if let Some(fl) = bsp.face_lighting(i, false) {
            let f = &bsp.faces[i];
            assert_eq!(fl.averages.len(), f.style_count());
            assert!(fl.styles[0].len() == f.luxel_count() || fl.styles[0].len() == 4 * f.luxel_count());
            lit += 1;
        }
    }
    assert!(lit > 10, "{lit} lit faces");
    assert!(bsp.face_lighting(0, true).is_some() || bsp.lighting_hdr.is_empty());
}
