//! Exports of the corpus's Source BSPs, checked against the maps' own data: triangle counts,
//! accessor bounds, lightmap coordinates inside each face's atlas rectangle, the GLB container
//! round trip; and the bad-input rules (no lighting, missing textures).

use std::path::PathBuf;

use serde_json::Value;
use srcmap_bsp::Bsp;
use srcmap_export::gltf::{ExportOptions, to_glb, to_glb_with_props};
use srcmap_export::mesh::{face_triangle_count, is_drawn};
use srcmap_export::props::Props;
use srcmap_export::render::{RenderOptions, Shading, View, render};
use srcmap_export::texture::TextureLookup;
use srcmap_export::{Glb, MapMesh};

/// The corpus's Source BSPs with their parsed maps (other engines' maps fail to parse).
fn source_maps() -> Option<Vec<(PathBuf, Bsp)>> {
    let root = srcmap_corpus::root("export corpus tests")?;
    let maps: Vec<(PathBuf, Bsp)> =
        srcmap_corpus::files(&root, "bsp", |p| srcmap_corpus::has_extension(p, "bsp"))
            .into_iter()
            .filter_map(|p| {
                let data = std::fs::read(&p).unwrap();
                Bsp::parse(&data).ok().map(|b| (p, b))
            })
            .collect();
    assert!(
        maps.len() >= 30,
        "expected the corpus's Source BSPs, found {}",
        maps.len()
    );
    Some(maps)
}

const NO_TEXTURES: ExportOptions<'static> = ExportOptions { textures: &[] };

/// Reads accessor `index` of `doc` as `N`-component floats from the GLB buffer.
fn read_floats<const N: usize>(doc: &Value, bin: &[u8], index: usize) -> Vec<[f32; N]> {
    let acc = &doc["accessors"][index];
    let view = &doc["bufferViews"][acc["bufferView"].as_u64().unwrap() as usize];
    let start = view["byteOffset"].as_u64().unwrap() as usize;
    let count = acc["count"].as_u64().unwrap() as usize;
    (0..count)
        .map(|i| {
            std::array::from_fn(|k| {
                let o = start + (i * N + k) * 4;
                f32::from_le_bytes(bin[o..o + 4].try_into().unwrap())
            })
        })
        .collect()
}

#[test]
fn triangles_are_the_sum_of_the_drawn_faces_triangles() {
    let Some(maps) = source_maps() else { return };
    let mut drawn_maps = 0;
    for (path, bsp) in &maps {
        let mesh = MapMesh::build(bsp, false);
        let mut expected = 0;
        for m in bsp.models.iter() {
            let first = m.first_face.max(0) as usize;
            for f in
                first..(first + m.num_faces.max(0) as usize).min(srcmap_export::mesh::faces_of(bsp).len())
            {
                if is_drawn(bsp, srcmap_export::mesh::faces_of(bsp)[f].texinfo) {
                    expected += face_triangle_count(bsp, f);
                }
            }
        }
        let indices: usize = mesh
            .primitives
            .iter()
            .filter(|p| !p.overlay)
            .map(|p| p.indices.len())
            .sum();
        assert_eq!(mesh.triangles, expected, "{}", path.display());
        assert_eq!(indices, 3 * expected, "{}", path.display());
        drawn_maps += usize::from(mesh.triangles > 0);
        assert!(
            mesh.primitives
                .iter()
                .all(|p| p.indices.iter().all(|&i| (i as usize) < mesh.vertices.len())),
            "{}: index out of range",
            path.display()
        );
    }
    // One corpus map (srctools' rot_main) holds props only, no faces.
    assert!(
        drawn_maps + 1 >= maps.len(),
        "{drawn_maps} of {} maps drew something",
        maps.len()
    );
}

#[test]
fn lightmap_coordinates_stay_inside_each_faces_rectangle() {
    let Some(maps) = source_maps() else { return };
    let mut lit_maps = 0;
    for (path, bsp) in &maps {
        let mesh = MapMesh::build(bsp, false);
        let atlas = &mesh.atlas;
        assert_eq!(atlas.pixels.len(), (atlas.width * atlas.height * 3) as usize);
        let mut checked = 0;
        for (face, range) in &mesh.face_vertices {
            let Some(r) = atlas.rect(*face) else { continue };
            assert!(
                r.x + r.w < atlas.width && r.y + r.h < atlas.height,
                "{}: face {face}",
                path.display()
            );
            for v in &mesh.vertices[range.start as usize..range.end as usize] {
                let px = v.light_uv.x * atlas.width as f32;
                let py = v.light_uv.y * atlas.height as f32;
                let eps = 1e-2;
                assert!(
                    px >= r.x as f32 - eps
                        && px <= (r.x + r.w) as f32 + eps
                        && py >= r.y as f32 - eps
                        && py <= (r.y + r.h) as f32 + eps,
                    "{}: face {face} luxel ({px}, {py}) outside {r:?}",
                    path.display()
                );
                checked += 1;
            }
        }
        if atlas.lit_faces() > 0 {
            lit_maps += 1;
            assert!(checked > 0, "{}", path.display());
        }
    }
    assert!(lit_maps >= 20, "only {lit_maps} lit maps");
}

#[test]
fn glb_accessor_bounds_agree_with_the_buffer_and_the_container_round_trips() {
    let Some(maps) = source_maps() else { return };
    for (path, bsp) in &maps {
        let mesh = MapMesh::build(bsp, false);
        let glb = to_glb(bsp, &mesh, &NO_TEXTURES).unwrap();
        let bytes = glb.to_bytes();
        assert_eq!(bytes.len() % 4, 0);
        let back = Glb::parse(&bytes).unwrap();
        assert_eq!(back, glb, "{}", path.display());
        assert_eq!(back.to_bytes(), bytes);

        let doc: Value = serde_json::from_str(&back.json).unwrap();
        if mesh.vertices.is_empty() {
            assert!(doc.get("meshes").is_none() && doc.get("accessors").is_none());
            continue;
        }
        assert_eq!(
            doc["buffers"][0]["byteLength"].as_u64().unwrap() as usize,
            back.bin.len()
        );
        let prim = &doc["meshes"][0]["primitives"][0];
        let pos_index = prim["attributes"]["POSITION"].as_u64().unwrap() as usize;
        let positions = read_floats::<3>(&doc, &back.bin, pos_index);
        assert_eq!(positions.len(), mesh.vertices.len());
        for k in 0..3 {
            let lo = positions.iter().map(|p| p[k]).fold(f32::MAX, f32::min);
            let hi = positions.iter().map(|p| p[k]).fold(f32::MIN, f32::max);
            let acc = &doc["accessors"][pos_index];
            assert_eq!(acc["min"][k].as_f64().unwrap() as f32, lo, "{}", path.display());
            assert_eq!(acc["max"][k].as_f64().unwrap() as f32, hi, "{}", path.display());
        }
        let normals = read_floats::<3>(
            &doc,
            &back.bin,
            prim["attributes"]["NORMAL"].as_u64().unwrap() as usize,
        );
        assert!(
            normals
                .iter()
                .all(|n| ((n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt() - 1.0).abs() < 1e-3),
            "{}: a normal is not unit length",
            path.display()
        );
        let light = read_floats::<2>(
            &doc,
            &back.bin,
            prim["attributes"]["TEXCOORD_1"].as_u64().unwrap() as usize,
        );
        assert!(
            light
                .iter()
                .all(|uv| (0.0..=1.0).contains(&uv[0]) && (0.0..=1.0).contains(&uv[1]))
        );
        // Every entity is a node under the root, with its key/values.
        assert!(doc["nodes"][0]["children"].as_array().map_or(0, Vec::len) >= bsp.entities.len());
        let world = &doc["nodes"][1];
        assert_eq!(world["extras"]["classname"], "worldspawn", "{}", path.display());
    }
}

#[test]
fn a_map_without_lighting_exports_fullbright_with_a_note() {
    let Some(maps) = source_maps() else { return };
    let (path, lit) = maps
        .iter()
        .find(|(_, b)| !b.lighting.is_empty())
        .expect("a lit corpus map");
    let mut bsp = lit.clone();
    bsp.lighting.clear();
    bsp.lighting_hdr.clear();
    let mesh = MapMesh::build(&bsp, false);
    assert!(
        mesh.notes.iter().any(|n| n.contains("no lighting")),
        "{}: {:?}",
        path.display(),
        mesh.notes
    );
    assert_eq!(mesh.atlas.lit_faces(), 0);
    let white = mesh.atlas.white_uv();
    assert!(mesh.vertices.iter().all(|v| v.light_uv == white));
    assert_eq!(mesh.atlas.sample(white), [1.0; 3]);
    let glb = to_glb(&bsp, &mesh, &NO_TEXTURES).unwrap();
    let doc: Value = serde_json::from_str(&glb.json).unwrap();
    assert!(doc["extras"]["notes"].to_string().contains("no lighting"));
    assert_eq!(mesh.triangles, MapMesh::build(lit, false).triangles);
}

#[test]
fn missing_textures_become_a_checkerboard() {
    let Some(maps) = source_maps() else { return };
    let (_, bsp) = &maps[0];
    let mesh = MapMesh::build(bsp, false);
    let nothing_exists = vec![TextureLookup::Missing; mesh.materials.len()];
    let glb = to_glb(
        bsp,
        &mesh,
        &ExportOptions {
            textures: &nothing_exists,
        },
    )
    .unwrap();
    let doc: Value = serde_json::from_str(&glb.json).unwrap();
    let checker = doc["textures"]
        .as_array()
        .unwrap()
        .iter()
        .position(|t| t["name"] == "missing texture")
        .expect("a checkerboard texture");
    for m in doc["materials"].as_array().unwrap() {
        assert_eq!(m["pbrMetallicRoughness"]["baseColorTexture"]["index"], checker);
        assert_eq!(m["extras"]["texture_missing"], true);
    }
    // Without a place to look, materials are flat colours from their reflectivity.
    let flat: Value = serde_json::from_str(&to_glb(bsp, &mesh, &NO_TEXTURES).unwrap().json).unwrap();
    for (m, mat) in flat["materials"].as_array().unwrap().iter().zip(&mesh.materials) {
        let c = &m["pbrMetallicRoughness"]["baseColorFactor"];
        assert_eq!(c[0].as_f64().unwrap() as f32, mat.reflectivity[0].clamp(0.0, 1.0));
    }

    // A face whose texinfo names a texdata out of range is drawn with the checkerboard too.
    let mut broken = bsp.clone();
    let t = broken.faces[broken.models[0].first_face as usize].texinfo as usize;
    broken.texinfo[t].texdata = 1_000_000;
    let mesh = MapMesh::build(&broken, false);
    assert!(
        mesh.notes.iter().any(|n| n.contains("checkerboard")),
        "{:?}",
        mesh.notes
    );
    let last = mesh.materials.len() - 1;
    assert!(mesh.materials[last].name.is_empty());
    assert!(mesh.primitives.iter().any(|p| p.material == last));
}

#[test]
fn truncated_and_corrupted_glb_is_an_error() {
    let glb = Glb {
        json: "{\"asset\":{\"version\":\"2.0\"}}".into(),
        bin: vec![1, 2, 3, 4, 5],
    };
    let bytes = glb.to_bytes();
    for n in 0..bytes.len() {
        assert!(Glb::parse(&bytes[..n]).is_err(), "prefix of {n} bytes accepted");
    }
    let mut bad = bytes.clone();
    bad[12] = 0xff; // JSON chunk length past the end
    assert!(Glb::parse(&bad).is_err());
    let back = Glb::parse(&bytes).unwrap();
    assert_eq!(back.json, glb.json);
    assert_eq!(&back.bin[..5], &glb.bin[..]);
}

#[test]
fn damaged_face_records_export_and_render_without_a_panic() {
    let Some(maps) = source_maps() else { return };
    let (_, bsp) = maps
        .iter()
        .find(|(_, b)| !b.disp_info.is_empty() && !b.lighting.is_empty())
        .expect("a lit corpus map with displacements");
    let mut next = srcmap_corpus::unit_random(23);
    let mut damaged = bsp.clone();
    let extremes = [i32::MIN, -1, 0, 1, 1 << 20, i32::MAX];
    let n = damaged.faces.len();
    for _ in 0..n.min(400) {
        let f = &mut damaged.faces[(next() * n as f64) as usize % n];
        let which = (next() * 7.0) as usize;
        let mut pick = || extremes[(next() * extremes.len() as f64) as usize % extremes.len()];
        match which {
            0 => f.lightmap_size = [pick(), pick()],
            1 => f.first_edge = pick(),
            2 => f.num_edges = pick(),
            3 => f.texinfo = pick(),
            4 => f.dispinfo = pick(),
            5 => f.light_offset = pick(),
            _ => f.lightmap_mins = [pick(), pick()],
        }
    }
    damaged.vertexes[0] = [f32::NAN, f32::INFINITY, 1e30];
    let mesh = MapMesh::build(&damaged, false);
    to_glb(&damaged, &mesh, &NO_TEXTURES).unwrap();
    for view in [View::Top, View::Isometric] {
        render(
            &mesh,
            &[],
            &RenderOptions {
                width: 64,
                height: 48,
                shading: Shading::Lit,
                view,
            },
        );
    }
}

#[test]
fn pakfile_textures_decode() {
    let Some(maps) = source_maps() else { return };
    let (mut decoded, mut skipped) = (0, 0);
    for (path, bsp) in &maps {
        let Ok(pak) = srcmap_bsp::pak::Pak::parse(&bsp.pakfile, 0) else {
            continue;
        };
        for e in pak
            .entries
            .iter()
            .filter(|e| e.name.to_ascii_lowercase().ends_with(".vtf"))
        {
            let bytes = pak.read(e).unwrap();
            match srcmap_export::texture::decode_vtf(&bytes, &e.name, 64) {
                Ok(Some(img)) => {
                    assert!(
                        img.width <= 64 && img.height <= 64,
                        "{}: {}",
                        path.display(),
                        e.name
                    );
                    assert_eq!(img.pixels.len(), (img.width * img.height * 3) as usize);
                    decoded += 1;
                }
                Ok(None) => skipped += 1,
                // Console textures (`.360.vtf`, big-endian `VTFX`) are refused with an error.
                Err(_) if e.name.to_ascii_lowercase().ends_with(".360.vtf") => skipped += 1,
                Err(err) => panic!("{}: {}: {err}", path.display(), e.name),
            }
        }
    }
    eprintln!("{decoded} pakfile textures decoded, {skipped} in formats not decoded");
    assert!(decoded >= 20, "{decoded} decoded, {skipped} skipped");
}

#[test]
fn brush_models_are_placed_at_their_entities_origins() {
    let Some(maps) = source_maps() else { return };
    let mut checked = 0;
    for (path, bsp) in &maps {
        let mesh = MapMesh::build(bsp, false);
        for e in &bsp.entities {
            let Some(m) = e.brush_model() else {
                continue;
            };
            let angles = e
                .get("angles")
                .and_then(srcmap_export::gltf::parse_vec3)
                .unwrap_or([0.0; 3]);
            let Some(origin) = e.get("origin").and_then(srcmap_export::gltf::parse_vec3) else {
                continue;
            };
            if m == 0 || m >= bsp.models.len() || angles != [0.0; 3] {
                continue;
            }
            let model = &bsp.models[m];
            for p in mesh.primitives.iter().filter(|p| p.model == m) {
                for &i in &p.indices {
                    let w = mesh.world_positions[i as usize].to_array();
                    for k in 0..3 {
                        let (lo, hi) = (model.mins[k] + origin[k] - 1.0, model.maxs[k] + origin[k] + 1.0);
                        assert!(
                            (lo..=hi).contains(&w[k]),
                            "{}: model *{m} vertex {w:?} outside {:?}..{:?} + {origin:?}",
                            path.display(),
                            model.mins,
                            model.maxs
                        );
                    }
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 1000, "only {checked} vertices of placed brush models");
}

#[test]
fn every_lit_corpus_map_renders_lit_not_black() {
    let Some(maps) = source_maps() else { return };
    let mut black = Vec::new();
    for (path, bsp) in &maps {
        if bsp.lighting.is_empty() && bsp.lighting_hdr.is_empty() {
            continue;
        }
        let mesh = MapMesh::build(bsp, false);
        if mesh.faces_drawn == 0 {
            continue;
        }
        let image = render(
            &mesh,
            &[],
            &RenderOptions {
                width: 96,
                height: 72,
                shading: Shading::Lit,
                view: View::Isometric,
            },
        );
        // The background is one dark grey; a drawn pixel is black when no channel reaches
        // 16 (the tone-mapped value of a luxel of 1/255 times a dull material is above it).
        let background = image.pixels[..3].to_vec();
        let drawn: Vec<&[u8]> = image
            .pixels
            .chunks_exact(3)
            .filter(|p| *p != &background[..])
            .collect();
        let bright = drawn.iter().filter(|p| p.iter().any(|&c| c >= 16)).count();
        let share = bright as f64 / drawn.len().max(1) as f64;
        eprintln!(
            "{}: {} pixels drawn, {:.1}% of them not black",
            path.display(),
            drawn.len(),
            share * 100.0
        );
        if drawn.is_empty() || share < 0.25 {
            black.push(path.display().to_string());
        }
    }
    assert!(black.is_empty(), "maps rendered black though lit: {black:?}");
}

#[test]
fn static_props_are_instances_of_their_models() {
    let Some(root) = srcmap_corpus::root("export static props") else {
        return;
    };
    let data = std::fs::read(root.join("bsp/kane8kki+whohl2mod/test_chapter1.bsp")).unwrap();
    let bsp = Bsp::parse(&data).unwrap();
    let models = root.join("model/kane8kki+whohl2mod");
    let read = |p: &str| std::fs::read(models.join(p)).ok();
    let props = Props::load(&bsp, read);
    let lump = bsp.game_lumps.static_props().unwrap();
    assert_eq!(props.instances.len(), lump.props.len());
    assert_eq!(
        (props.meshes.len(), props.without_mesh(), props.note()),
        (1, 0, None)
    );
    // The mesh has every LOD 0 triangle of the model.
    let files = srcmap_model::ModelFiles::load("models/bluechaire/bluewoodnchair.mdl", read).unwrap();
    let expected = files
        .vtx
        .as_ref()
        .unwrap()
        .triangles(&files.mdl, 0)
        .unwrap()
        .len();
    let made: usize = props.meshes[0]
        .primitives
        .iter()
        .map(|p| p.indices.len() / 3)
        .sum();
    assert_eq!(made, expected);
    // Placed in the map, the chair stands on the room's floor (z = 64 in the VMF).
    let prop = &props.instances[0];
    let rotation = prop.rotation();
    let lowest = props.meshes[0]
        .vertices
        .iter()
        .map(|v| (rotation * (v.position * prop.scale) + prop.origin).z)
        .fold(f32::MAX, f32::min);
    assert!(
        (lowest - 64.0).abs() < 2.0,
        "the chair's lowest point is at z = {lowest}"
    );

    // The GLB: a node per prop carrying the model's mesh, its record in extras.
    let mesh = MapMesh::build(&bsp, false);
    let glb = to_glb_with_props(&bsp, &mesh, &NO_TEXTURES, &props, &[]).unwrap();
    let doc: Value = serde_json::from_str(&glb.json).unwrap();
    let nodes = doc["nodes"].as_array().unwrap();
    let prop_nodes: Vec<&Value> = nodes
        .iter()
        .filter(|n| n["extras"]["classname"] == "prop_static")
        .collect();
    assert_eq!(prop_nodes.len(), 1);
    let node = prop_nodes[0];
    assert_eq!(node["extras"]["model"], "models/bluechaire/bluewoodnchair.mdl");
    let m = node["mesh"].as_u64().unwrap() as usize;
    let prim = &doc["meshes"][m]["primitives"][0];
    let count = doc["accessors"][prim["attributes"]["POSITION"].as_u64().unwrap() as usize]["count"].as_u64();
    assert_eq!(count, Some(props.meshes[0].vertices.len() as u64));

    // Without the models the prop is an empty node, counted in a note.
    let none = Props::load(&bsp, |_| None);
    assert_eq!((none.instances.len(), none.without_mesh()), (1, 1));
    let glb = to_glb_with_props(&bsp, &mesh, &NO_TEXTURES, &none, &[]).unwrap();
    let doc: Value = serde_json::from_str(&glb.json).unwrap();
    assert!(
        doc["extras"]["notes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n.as_str().unwrap().contains("1 of 1 static props have no model"))
    );
    let node = doc["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["extras"]["classname"] == "prop_static")
        .unwrap();
    assert!(node.get("mesh").is_none());
}

#[test]
fn overlays_lie_on_the_faces_they_name_and_water_is_translucent() {
    let Some(maps) = source_maps() else { return };
    let (mut overlays, mut apart, mut water_maps) = (0, 0, 0);
    for (path, bsp) in &maps {
        let mesh = MapMesh::build(bsp, false);
        assert_eq!(mesh.overlays_drawn, mesh.overlay_vertices.len());
        for (oi, range) in &mesh.overlay_vertices {
            let o = &bsp.overlays[*oi];
            // The quad overlaps the faces it names: its box meets theirs (the engine clips it
            // to them; the quad is lifted off them by less than 2 units). A wrong basis
            // (U, V or the flip) or UV points would throw most quads off their faces.
            let corners: Vec<glam::Vec3> = mesh.vertices[range.start as usize..range.end as usize]
                .iter()
                .map(|v| v.position)
                .collect();
            let centre = corners.iter().copied().sum::<glam::Vec3>() / corners.len() as f32;
            let named: Vec<glam::Vec3> = o.faces[..o.face_count().min(o.faces.len())]
                .iter()
                .filter_map(|&f| srcmap_export::mesh::faces_of(bsp).get(usize::try_from(f).ok()?))
                .filter_map(|f| bsp.face_vertices(f))
                .flatten()
                .map(glam::Vec3::from)
                .collect();
            let Some((lo, hi)) = srcmap_export::render::bounds_of(named.into_iter()) else {
                continue;
            };
            let slack = glam::Vec3::splat(2.0);
            let (qlo, qhi) = srcmap_export::render::bounds_of(corners.iter().copied()).unwrap();
            if !(qhi.cmpge(lo - slack).all() && qlo.cmple(hi + slack).all()) {
                eprintln!(
                    "{}: overlay {oi} centred at {centre}, its faces span {lo}..{hi}",
                    path.display()
                );
                apart += 1;
            }
            overlays += 1;
        }
        // Water (SURF_WARP) faces drawn use a translucent material, exported as BLEND.
        let warp = mesh.face_vertices.iter().any(|(f, _)| {
            let ti = &bsp.texinfo[srcmap_export::mesh::faces_of(bsp)[*f].texinfo as usize];
            ti.flags & srcmap_bsp::flags::SurfaceFlags::WARP.bits() as i32 != 0
        });
        if warp {
            water_maps += 1;
            let glb = to_glb(bsp, &mesh, &NO_TEXTURES).unwrap();
            let doc: Value = serde_json::from_str(&glb.json).unwrap();
            let blend = doc["materials"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|m| m["alphaMode"] == "BLEND")
                .count();
            assert!(blend > 0, "{}: water but no BLEND material", path.display());
        }
    }
    assert!(overlays >= 100, "only {overlays} overlays checked");
    // test_speakers has two overlays hanging beside the faces they name (249 of 251 meet).
    assert!(
        apart * 50 <= overlays,
        "{apart} of {overlays} overlays miss their faces"
    );
    assert!(water_maps >= 3, "only {water_maps} maps with water");
}

/// Whether `p` lies within 2 units of face `f`'s plane and inside its polygon (either winding).
fn face_under(bsp: &Bsp, f: &srcmap_bsp::Face, p: glam::Vec3) -> bool {
    let (Some(plane), Some(poly)) = (bsp.planes.get(f.plane as usize), bsp.face_vertices(f)) else {
        return false;
    };
    let n = glam::Vec3::from(plane.normal);
    let pts: Vec<glam::Vec3> = poly.into_iter().map(glam::Vec3::from).collect();
    let sides: Vec<f32> = (0..pts.len())
        .map(|k| (pts[(k + 1) % pts.len()] - pts[k]).cross(p - pts[k]).dot(n))
        .collect();
    (n.dot(p) - plane.dist).abs() < 2.0
        && pts.len() >= 3
        && (sides.iter().all(|&s| s >= -0.5) || sides.iter().all(|&s| s <= 0.5))
}

#[test]
fn an_overlay_is_lit_by_the_face_under_it() {
    // The engine lights each piece of an overlay by the face beneath; an overlay may name faces
    // far from it (testmap's stain names the whole floor), whose lightmaps would paint it with
    // light from elsewhere.
    let Some(maps) = source_maps() else { return };
    let (mut checked, mut elsewhere) = (0, Vec::new());
    for (path, bsp) in &maps {
        let mesh = MapMesh::build(bsp, false);
        for (oi, range) in &mesh.overlay_vertices {
            let corners = &mesh.vertices[range.start as usize..range.end as usize];
            let centre = corners.iter().map(|v| v.position).sum::<glam::Vec3>() / corners.len() as f32;
            let light = corners.iter().map(|v| v.light_uv).sum::<glam::Vec2>() / corners.len() as f32;
            let o = &bsp.overlays[*oi];
            let faces = srcmap_export::mesh::faces_of(bsp);
            let under = o.faces[..o.face_count().min(o.faces.len())]
                .iter()
                .find_map(|&fi| {
                    let f = faces.get(usize::try_from(fi).ok()?)?;
                    face_under(bsp, f, centre).then_some(mesh.atlas.rect(fi as usize)?)
                });
            let Some(r) = under else { continue };
            let (px, py) = (
                light.x * mesh.atlas.width as f32,
                light.y * mesh.atlas.height as f32,
            );
            let inside = |v: f32, lo: u32, len: u32| v >= lo as f32 - 0.01 && v <= (lo + len) as f32 + 0.01;
            if !(inside(px, r.x, r.w) && inside(py, r.y, r.h)) {
                elsewhere.push(format!("{}: overlay {oi}", path.display()));
            }
            checked += 1;
        }
    }
    assert!(checked >= 100, "only {checked} overlays over a lit face");
    assert!(
        elsewhere.is_empty(),
        "lit by another face's lightmap: {elsewhere:?}"
    );
}

#[test]
fn vmf_brushes_enclose_what_valve_compiled_from_them() {
    let Some(root) = srcmap_corpus::root("export VMF drawing") else {
        return;
    };
    let manifest = std::fs::read_to_string(root.join("MANIFEST.tsv")).unwrap();
    let mut compared = 0;
    let mut apart = Vec::new();
    for line in manifest.lines() {
        let cols: Vec<&str> = line.split('\t').collect();
        if cols.len() < 10 || cols[1] != "vmf" {
            continue;
        }
        let Some(bsp_rel) = cols[9].strip_prefix("pair: ").and_then(|p| p.split(" |").next()) else {
            continue;
        };
        let (Ok(vmf_bytes), Ok(bsp_bytes)) = (
            std::fs::read(root.join(cols[0])),
            std::fs::read(root.join(bsp_rel.trim())),
        ) else {
            continue;
        };
        let (Ok(vmf), Ok(bsp)) = (srcmap_vmf::Vmf::parse_bytes(&vmf_bytes), Bsp::parse(&bsp_bytes)) else {
            continue;
        };
        if !vmf
            .world
            .solids
            .iter()
            .all(|s| s.sides.iter().all(|d| d.dispinfo.is_none()))
        {
            continue; // displacements are drawn flat: their bounds differ
        }
        let ours = MapMesh::from_vmf(&vmf);
        let valve = MapMesh::build(&bsp, false);
        let (Some((lo, hi)), Some((vlo, vhi))) = (ours.bounds(), valve.bounds()) else {
            continue;
        };
        compared += 1;
        // Valve's drawn faces are pieces of the brushes' sides (VBSP removes the outside
        // ones, which the VMF drawing keeps): its bounds lie inside ours, and the sides
        // facing the player reach Valve's extent, so ours are not empty.
        eprintln!("{}: bounds {lo}..{hi}, Valve's {vlo}..{vhi}", cols[0]);
        let slack = glam::Vec3::splat(1.0);
        if !(lo.cmple(vlo + slack).all() && hi.cmpge(vhi - slack).all()) || ours.triangles == 0 {
            apart.push(format!("{}: {lo}..{hi} vs {vlo}..{vhi}", cols[0]));
        }
    }
    assert!(compared >= 3, "only {compared} VMF/BSP pairs compared");
    assert!(apart.is_empty(), "{apart:#?}");
}

#[test]
fn extra_light_styles_come_from_the_maps_lights() {
    let Some(maps) = source_maps() else { return };
    let mut styled = 0;
    for (path, bsp) in &maps {
        let mesh = MapMesh::build(bsp, false);
        let glb = to_glb(bsp, &mesh, &NO_TEXTURES).unwrap();
        let doc: Value = serde_json::from_str(&glb.json).unwrap();
        let lights: Vec<_> = bsp
            .entities
            .iter()
            .filter(|e| e.classname().is_some_and(|c| c.starts_with("light")))
            .collect();
        for (style, faces) in doc["extras"]["light_styles"].as_object().unwrap() {
            let style: u32 = style.parse().unwrap();
            assert!(!faces.as_array().unwrap().is_empty());
            // VRAD gives a light its `style` key's preset (1-31), or a style of its own
            // from 32 up when it has a targetname (a switchable light).
            let explained = if style == 0 {
                true // the normal light, after a face's switchable one
            } else if style < 32 {
                lights
                    .iter()
                    .any(|e| e.get("style").and_then(|s| s.trim().parse::<u32>().ok()) == Some(style))
            } else {
                lights.iter().any(|e| e.get("targetname").is_some())
            };
            assert!(explained, "{}: style {style} matches no light", path.display());
            styled += 1;
        }
    }
    assert!(styled > 0, "no corpus map has a second light style");
}
