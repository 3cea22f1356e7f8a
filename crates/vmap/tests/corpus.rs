//! Every VMAP in `$SRCMAP_CORPUS/vmap`: byte-exact rewrite, typed view, half-edge topology.

use std::path::PathBuf;

use srcmap_vmap::Vmap;

fn corpus_files() -> Option<Vec<PathBuf>> {
    let root = srcmap_corpus::root("the VMAP corpus tests")?;
    let out = srcmap_corpus::files(&root, "vmap", |_| true);
    assert!(out.len() >= 10);
    Some(out)
}

#[test]
fn every_vmap_reads_writes_back_and_has_a_world() {
    let Some(files) = corpus_files() else { return };
    for path in files {
        let data = std::fs::read(&path).unwrap();
        let map = Vmap::read(&data).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(
            map.write().unwrap() == data,
            "{}: not byte-identical",
            path.display()
        );
        let world = map
            .world()
            .unwrap_or_else(|| panic!("{}: no world", path.display()));
        let nodes = map.nodes();
        assert_eq!(nodes[0].element, world);
        // Every entity has a class name, except the tiny hand-made test file.
        for ent in map.entities() {
            if map.element(ent.node.element).unwrap().class == "CMapEntity" {
                assert!(
                    ent.classname().is_some(),
                    "{}: entity without classname",
                    path.display()
                );
            }
            for c in ent.connections() {
                assert!(!c.output.is_empty());
            }
        }
        let _ = map.selection_sets();
        let _ = map.map_variables();
    }
}

#[test]
fn every_corpus_mesh_passes_the_half_edge_checks() {
    let Some(files) = corpus_files() else { return };
    let mut meshes = 0;
    for path in files {
        let map = Vmap::read(&std::fs::read(&path).unwrap()).unwrap();
        for el in map.polygon_mesh_elements() {
            let mesh = map.polygon_mesh(el).unwrap();
            let stats = mesh
                .check()
                .unwrap_or_else(|e| panic!("{}: mesh {el}: {:?}", path.display(), &e[..e.len().min(5)]));
            assert_eq!(stats.half_edges % 2, 0);
            // Walk every face: corners have positions and per-corner rows.
            for f in 0..mesh.face_count() {
                let corners = mesh.face_corners(f);
                assert!(
                    corners.len() >= 3,
                    "{}: face {f} has {} corners",
                    path.display(),
                    corners.len()
                );
                assert_eq!(mesh.face_polygon(f).len(), corners.len());
                for c in &corners {
                    if mesh.face_vertex_data_array.stream("texcoord:0").is_some() {
                        assert!(mesh.corner_value("texcoord:0", c).is_some());
                    }
                }
            }
            meshes += 1;
        }
    }
    assert!(meshes > 400, "expected the corpus meshes, found {meshes}");
}

#[test]
fn moving_an_entity_and_editing_a_key_value_read_back() {
    let Some(files) = corpus_files() else { return };
    for path in files {
        let data = std::fs::read(&path).unwrap();
        let mut map = Vmap::read(&data).unwrap();
        let Some(ent) = map
            .entities()
            .into_iter()
            .find(|e| map.element(e.node.element).unwrap().class == "CMapEntity")
        else {
            continue;
        };
        let el = ent.node.element;
        map.set_origin(el, [1.5, -2.0, 64.0]).unwrap();
        map.set_key_value(el, "targetname", "srcmap_edit").unwrap();
        let back = Vmap::read(&map.write().unwrap()).unwrap();
        let e = back
            .entities()
            .into_iter()
            .find(|e| e.node.element == el)
            .unwrap();
        assert_eq!(e.transform().0, [1.5, -2.0, 64.0], "{}", path.display());
        assert_eq!(e.get("targetname").as_deref(), Some("srcmap_edit"));
    }
}

fn corpus_file(rel: &str) -> Option<Vec<u8>> {
    srcmap_corpus::read(std::path::Path::new("vmap").join(rel))
}

/// The CS2 sample map: one cube mesh (V=8, H=24, F=6, per vmap.md), three props, and faces
/// wound counter-clockwise seen from outside.
#[test]
fn cs2_sample_cube_has_the_documented_shape_and_outward_faces() {
    let Some(data) = corpus_file("kristiker+Datamodel.NET/cs2_map.vmap") else {
        eprintln!("SRCMAP_CORPUS is not set: skipping");
        return;
    };
    let map = Vmap::read(&data).unwrap();
    assert_eq!(map.format_version(), 35);
    let info = map.root_info();
    assert_eq!((info.editor_build, info.is_prefab), (Some(9916), Some(false)));
    assert!(info.default_camera.is_some());
    let props = map
        .entities()
        .iter()
        .filter(|e| e.classname().as_deref() == Some("prop_static"))
        .count();
    assert_eq!(props, 3);
    let (node, mesh_el) = map.meshes()[0];
    assert_eq!(map.element(node.element).unwrap().class, "CMapMesh");
    let mesh = map.polygon_mesh(mesh_el).unwrap();
    let s = mesh.check().unwrap();
    assert_eq!(
        (s.vertices, s.half_edges, s.faces, s.quads, s.boundary_half_edges),
        (8, 24, 6, 6, 0)
    );
    assert_eq!(mesh.edge_data_array.size, 12);
    assert_eq!(mesh.face_vertex_data_array.size, 24);
    let pos = mesh.positions().unwrap();
    let centre = pos.iter().fold([0.0f32; 3], |c, p| {
        [c[0] + p[0] / 8.0, c[1] + p[1] / 8.0, c[2] + p[2] / 8.0]
    });
    for f in 0..mesh.face_count() {
        let poly = mesh.face_polygon(f);
        let fc = poly.iter().fold([0.0f32; 3], |c, p| {
            [c[0] + p[0] / 4.0, c[1] + p[1] / 4.0, c[2] + p[2] / 4.0]
        });
        let n = mesh.face_normal(f);
        let out: f32 = (0..3).map(|i| n[i] * (fc[i] - centre[i])).sum();
        assert!(out > 0.0, "face {f} faces inward");
        assert!(mesh.face_material(f).is_some_and(|m| m.ends_with(".vmat")));
        for c in mesh.face_corners(f) {
            assert!(matches!(
                mesh.corner_value("normal:0", &c),
                Some(srcmap_vmap::Value::Vector3(_))
            ));
            assert!(matches!(
                mesh.corner_value("tangent:0", &c),
                Some(srcmap_vmap::Value::Vector4(_))
            ));
        }
    }
}

#[test]
fn moving_mesh_vertices_reads_back_with_the_same_topology() {
    let Some(data) = corpus_file("leops+dmxparser/test.vmap") else {
        eprintln!("SRCMAP_CORPUS is not set: skipping");
        return;
    };
    let mut map = Vmap::read(&data).unwrap();
    let (_, el) = map.meshes()[0];
    let mesh = map.polygon_mesh(el).unwrap();
    let moved: Vec<[f32; 3]> = mesh
        .positions()
        .unwrap()
        .iter()
        .map(|p| [p[0] + 16.0, p[1], p[2] - 8.0])
        .collect();
    map.set_mesh_positions(el, &moved).unwrap();
    assert!(map.set_mesh_positions(el, &moved[1..]).is_err());
    let back = Vmap::read(&map.write().unwrap()).unwrap();
    let again = back.polygon_mesh(el).unwrap();
    assert_eq!(again.positions().unwrap(), &moved[..]);
    assert_eq!(again.check().unwrap(), mesh.check().unwrap());
}

#[test]
fn entity_connections_are_read() {
    let Some(data) = corpus_file("FrostSource+akimbo/test.vmap") else {
        eprintln!("SRCMAP_CORPUS is not set: skipping");
        return;
    };
    let map = Vmap::read(&data).unwrap();
    let conns: Vec<_> = map.entities().iter().flat_map(|e| e.connections()).collect();
    assert_eq!(conns.len(), 2);
    for c in conns {
        assert!(
            !c.output.is_empty() && !c.input.is_empty() && !c.target.is_empty(),
            "{c:?}"
        );
    }
}
