//! The viewer's scene against the corpus maps' own data, and the server's answers.

use std::path::PathBuf;

use srcmap_bsp::Bsp;
use srcmap_export::MapMesh;
use srcmap_view::{Scene, Site};

fn corpus_maps() -> Option<Vec<(PathBuf, Bsp)>> {
    let root = srcmap_corpus::root("view scene corpus tests")?;
    let maps: Vec<_> = srcmap_corpus::files(&root, "bsp", |p| srcmap_corpus::has_extension(p, "bsp"))
        .into_iter()
        .filter_map(|p| Bsp::parse(&std::fs::read(&p).unwrap()).ok().map(|b| (p, b)))
        .collect();
    assert!(
        maps.len() >= 30,
        "expected the corpus's Source BSPs, found {}",
        maps.len()
    );
    Some(maps)
}

/// Every drawn face gets the clusters of the leaves that list it; the PVS rows are the
/// visibility lump's; the tree and leaves are the BSP's.
#[test]
fn scenes_agree_with_the_maps() {
    let Some(maps) = corpus_maps() else {
        return;
    };
    for (path, bsp) in &maps {
        let mesh = MapMesh::build(bsp, false);
        let scene = Scene::build(bsp, &mesh, None, None, &[]);
        let name = path.display();
        let faces = scene.json["faces"].as_array().unwrap();
        assert_eq!(faces.len(), mesh.face_vertices.len(), "{name}");
        for (entry, (face, range)) in faces.iter().zip(&mesh.face_vertices) {
            assert_eq!(entry[0], range.start, "{name}");
            assert_eq!(entry[1], range.end, "{name}");
            let clusters: Vec<i32> = serde_json::from_value(entry[2].clone()).unwrap();
            let listed: Vec<i32> = bsp
                .leafs
                .iter()
                .filter(|l| l.cluster >= 0)
                .filter(|l| {
                    let first = l.first_leaf_face as usize;
                    bsp.leaf_faces
                        .get(first..first + l.num_leaf_faces as usize)
                        .is_some_and(|fs| fs.contains(&(*face as u32)))
                })
                .map(|l| l.cluster)
                .collect();
            for c in &listed {
                assert!(clusters.contains(c), "{name}: face {face} is in cluster {c}");
            }
            assert!(clusters.windows(2).all(|w| w[0] < w[1]), "{name}: sorted, unique");
        }
        assert_eq!(
            scene.json["leafs"].as_array().unwrap().len(),
            bsp.leafs.len(),
            "{name}"
        );
        assert_eq!(
            scene.json["nodes"].as_array().unwrap().len(),
            bsp.nodes.len(),
            "{name}"
        );
        match bsp.visibility.as_ref().filter(|v| v.num_clusters > 0) {
            Some(vis) => {
                assert_eq!(
                    scene.pvs.len(),
                    vis.num_clusters as usize * vis.row_len(),
                    "{name}"
                );
                for (i, row) in scene.pvs.chunks_exact(vis.row_len()).enumerate() {
                    for j in 0..vis.num_clusters as usize {
                        assert_eq!(
                            row[j / 8] & (1 << (j % 8)) != 0,
                            vis.can_see(i, j),
                            "{name}: {i} sees {j}"
                        );
                    }
                }
            }
            None => assert!(scene.pvs.is_empty(), "{name}"),
        }
        // Area portals with polygons, each key once.
        let keys: Vec<u64> = scene.json["area_portals"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| {
                assert!(p["points"].as_array().unwrap().len() >= 9, "{name}");
                p["key"].as_u64().unwrap()
            })
            .collect();
        let mut unique = keys.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), keys.len(), "{name}");
    }
}

/// A map stripped of visibility and lighting still makes a scene, with notes for the page.
#[test]
fn map_without_vis_or_light_views_with_notes() {
    let Some(maps) = corpus_maps() else {
        return;
    };
    let (_, bsp) = maps
        .iter()
        .find(|(_, b)| b.visibility.as_ref().is_some_and(|v| v.num_clusters > 1))
        .expect("a corpus map with vis");
    let mut bsp = bsp.clone();
    bsp.visibility = None;
    bsp.lighting.clear();
    bsp.lighting_hdr.clear();
    let mesh = MapMesh::build(&bsp, false);
    let scene = Scene::build(&bsp, &mesh, None, None, &[]);
    assert!(scene.pvs.is_empty());
    assert_eq!(scene.json["num_clusters"], 0);
    assert_eq!(scene.json["lit"], false);
    let notes = scene.json["notes"].to_string();
    assert!(
        notes.contains("no visibility") && notes.contains("no lighting"),
        "{notes}"
    );
}

#[test]
fn server_answers_known_paths_and_refuses_the_rest() {
    let site = Site {
        glb: b"glb".to_vec(),
        scene_json: b"{}".to_vec(),
        pvs: vec![1, 2],
    };
    let answer = |head: &[u8]| {
        let (r, body) = site.respond(head);
        (r.status, r.body.to_vec(), body)
    };
    assert_eq!(
        answer(b"GET /map.glb HTTP/1.1\r\n\r\n"),
        (200, b"glb".to_vec(), true)
    );
    assert_eq!(
        answer(b"HEAD /pvs.bin?x HTTP/1.0\r\n\r\n"),
        (200, vec![1, 2], false)
    );
    assert_eq!(answer(b"GET /scene.json HTTP/1.1\r\n\r\n").1, b"{}");
    assert_eq!(answer(b"GET / HTTP/1.1\r\n\r\n").0, 200);
    assert_eq!(answer(b"GET /viewer.js HTTP/1.1\r\n\r\n").0, 200);
    assert_eq!(answer(b"GET /etc/passwd HTTP/1.1\r\n\r\n").0, 404);
    assert_eq!(answer(b"GET /../map.glb HTTP/1.1\r\n\r\n").0, 404);
    assert_eq!(answer(b"DELETE / HTTP/1.1\r\n\r\n").0, 405);
    assert_eq!(answer(b"GET /\r\n\r\n").0, 400);
    assert_eq!(answer(b"GET / FTP/1\r\n\r\n").0, 400);
    assert_eq!(answer(b"\xff\xfe\r\n\r\n").0, 400);
    assert_eq!(answer(b"").0, 400);
}

#[test]
fn server_answers_only_local_host_names() {
    let site = Site {
        glb: b"glb".to_vec(),
        scene_json: b"{}".to_vec(),
        pvs: vec![],
    };
    let status = |host: &str| {
        site.respond(format!("GET /map.glb HTTP/1.1\r\nHost: {host}\r\n\r\n").as_bytes())
            .0
            .status
    };
    for local in [
        "localhost:8080",
        "LOCALHOST",
        "127.0.0.1:51234",
        "[::1]:80",
        "192.168.1.5",
    ] {
        assert_eq!(status(local), 200, "{local}");
    }
    // A DNS-rebinding page sends its own domain.
    for foreign in ["evil.example:8080", "evil.example", "localhost.evil.example", ""] {
        assert_eq!(status(foreign), 421, "{foreign:?}");
    }
}

#[test]
fn server_answers_while_a_crowd_of_idle_connections_stays_open() {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind(("127.0.0.1", 0)).unwrap();
    let addr = listener.local_addr().unwrap();
    let site = std::sync::Arc::new(Site {
        glb: b"glb".to_vec(),
        scene_json: b"{}".to_vec(),
        pvs: vec![],
    });
    std::thread::spawn(move || srcmap_view::serve(listener, site));
    // Far more idle connections than the cap, kept open (slowloris, or an exhausted thread
    // budget): each new one closes the oldest still waiting for its request head.
    let crowd: Vec<_> = (0..3 * srcmap_view::server::MAX_CONNECTIONS)
        .filter_map(|_| std::net::TcpStream::connect(addr).ok())
        .collect();
    assert!(crowd.len() > srcmap_view::server::MAX_CONNECTIONS);
    // A request is answered at once while they are still open.
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(std::time::Duration::from_secs(5)))
        .unwrap();
    s.write_all(b"GET /map.glb HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        .unwrap();
    let mut out = String::new();
    let _ = s.read_to_string(&mut out);
    let answered = out.starts_with("HTTP/1.1 200") && out.ends_with("glb");
    drop(crowd);
    assert!(answered);
}
