//! The body of every fuzz target, one function per parser. `fuzz/` wraps each in libFuzzer's
//! `fuzz_target!`; this crate's `tests/regressions.rs` runs each on the crash inputs kept under
//! `fuzz/regressions/<target>/`, so a fixed crash stays fixed under `cargo test` on stable.
//!
//! Each body returns normally for any input: a value or an error from the library, never a
//! panic, and (under the fuzzer's limits) no runaway time or memory.

mod compile;

pub use compile::{hostile_vmf, vmf_compile};

/// A target's body: any bytes in, a return (never a panic).
pub type Body = fn(&[u8]);

/// Every target: its name (the `fuzz/` binary and the regression folder) and its body.
pub const TARGETS: &[(&str, Body)] = &[
    ("kv", kv),
    ("vmf", vmf),
    ("vmf_compile", vmf_compile),
    ("nav", nav),
    ("dmx_binary", dmx_binary),
    ("dmx_text", dmx_text),
    ("vmap", vmap),
    ("bsp", bsp),
    ("bsp_view", bsp_view),
    ("decompile", decompile),
    ("content_vpk", content_vpk),
    ("prt", prt),
    ("texlights", texlights),
    ("material_table", material_table),
    ("model_mdl", model_mdl),
    ("model_vvd", model_vvd),
    ("model_vtx", model_vtx),
    ("model_ppl", model_ppl),
    ("phys_solid", phys_solid),
    ("phys_phy", phys_phy),
    ("content_detail_vbsp", content_detail_vbsp),
    ("export_glb", export_glb),
    ("export_bsp", export_bsp),
    ("export_vtf", export_vtf),
    ("view_lin", view_lin),
    ("view_request", view_request),
    ("pack_refs", pack_refs),
    ("vmap_to_vmf", vmap_to_vmf),
    ("shard_part", shard_part),
];

/// KeyValues1 text, both escape modes; an unedited parse writes back byte-identical.
pub fn kv(data: &[u8]) {
    for options in [
        srcmap_kv::ParseOptions::default(),
        srcmap_kv::ParseOptions {
            escapes: true,
            quote_escapes: false,
        },
    ] {
        if let Ok(mut doc) = srcmap_kv::Document::parse_bytes_with(data, options) {
            assert_eq!(doc.to_bytes(), data);
            doc.append_value(srcmap_kv::NodeId::ROOT, "k", "v w");
            let _ = doc.to_bytes();
        }
    }
    // The owned trees materials and gameinfo.txt are read into (built and dropped by recursion).
    let _ = srcmap_content::kv::parse(data, "fuzz.vmt");
}

/// VMF typed view, strict or lenient; an unedited parse writes back byte-identical.
pub fn vmf(data: &[u8]) {
    if let Ok(vmf) = srcmap_vmf::Vmf::parse_bytes(data) {
        assert_eq!(vmf.to_bytes(), data);
        let _ = vmf.stats();
    }
    let _ = srcmap_vmf::Vmf::parse_lenient(data);
}

/// NAV meshes: a parsed mesh encodes back to the input.
pub fn nav(data: &[u8]) {
    if let Ok(mesh) = srcmap_nav::NavMesh::read(data) {
        let out = mesh.write().expect("a parsed mesh must encode");
        assert_eq!(out, data);
        let _ = mesh.stats();
    }
}

const DMX_BINARY_HEADERS: [&[u8]; 7] = [
    b"<!-- dmx encoding binary 1 format dmx 1 -->\n\0",
    b"<!-- dmx encoding binary 2 format dmx 1 -->\n\0",
    b"<!-- dmx encoding binary 3 format dmx 1 -->\n\0",
    b"<!-- dmx encoding binary 4 format dmx 1 -->\n\0",
    b"<!-- dmx encoding binary 5 format dmx 1 -->\n\0",
    b"<!-- dmx encoding binary 7 format vmap 16 -->\n\0",
    b"<!-- dmx encoding binary 9 format vmap 35 -->\n\0",
];

/// Binary DMX: the first byte picks an encoding version's header, the rest is the body.
pub fn dmx_binary(data: &[u8]) {
    let Some((&pick, body)) = data.split_first() else {
        return;
    };
    let mut file = DMX_BINARY_HEADERS[pick as usize % DMX_BINARY_HEADERS.len()].to_vec();
    file.extend_from_slice(body);
    if let Ok(doc) = srcmap_dmx::Dmx::read(&file) {
        let out = doc.write().expect("a parsed document must encode");
        if writes_back_exactly(&doc) {
            assert_eq!(out, file);
        }
        if let Ok(text) = doc.write_as(false, None) {
            let back = srcmap_dmx::Dmx::read(&text).expect("our keyvalues2 must parse");
            srcmap_dmx::compare(&doc, &back).expect("conversion keeps elements");
        }
    }
}

/// Whether a binary document's writing must give its bytes back: not when its string table
/// repeats a string (each string is written with its first index) or an external reference
/// spells its GUID in a non-canonical way.
fn writes_back_exactly(doc: &srcmap_dmx::Dmx) -> bool {
    let table = doc
        .binary_layout
        .as_ref()
        .map(|b| &b.string_table[..])
        .unwrap_or(&[]);
    let unique = table.iter().collect::<std::collections::HashSet<_>>().len() == table.len();
    let external = doc.elements.iter().flat_map(|e| &e.attrs).any(|a| {
        let mut ext = false;
        a.value
            .for_each_ref(|r| ext |= matches!(r, srcmap_dmx::ElemRef::External(_)));
        ext
    });
    unique && !external
}

/// keyvalues2 DMX behind a fixed header, and the raw input as any DMX.
pub fn dmx_text(data: &[u8]) {
    let mut file = b"<!-- dmx encoding keyvalues2 4 format dmx 1 -->\n".to_vec();
    file.extend_from_slice(data);
    if let Ok(doc) = srcmap_dmx::Dmx::read(&file) {
        assert_eq!(doc.write().expect("a parsed document must encode"), file);
    }
    if let Ok(doc) = srcmap_dmx::Dmx::read(data) {
        let _ = doc.write();
    }
}

/// The typed VMAP view over any DMX: every query a reader makes.
pub fn vmap(data: &[u8]) {
    let Ok(map) = srcmap_vmap::Vmap::read(data) else {
        return;
    };
    let _ = map.format_version();
    let _ = map.root_info();
    let _ = map.world();
    for node in map.nodes() {
        let _ = map.transform(node.element);
    }
    let _ = map.entities().len();
    let _ = (map.groups(), map.instances(), map.prefabs(), map.meshes());
    let _ = (map.selection_sets(), map.map_variables());
    for m in map.polygon_mesh_elements() {
        if let Ok(mesh) = map.polygon_mesh(m) {
            let _ = mesh.check();
            for f in 0..mesh.face_count() {
                let _ = mesh.face_corners(f);
            }
        }
    }
    let _ = map.write();
}

/// The BSP reader: header, every typed lump, game lumps, pakfile listing, check, both writers.
pub fn bsp(data: &[u8]) {
    let Ok(file) = srcmap_bsp::BspFile::parse(data) else {
        return;
    };
    let doc = srcmap_bsp::BspDocument::from_file(&file);
    // Untouched, the document writes the input back exactly.
    if let Ok(out) = doc.to_bytes() {
        assert_eq!(out, data);
    }
    if let Ok(bsp) = srcmap_bsp::Bsp::from_file(&file) {
        let _ = srcmap_bsp::check::check(&bsp);
        let _ = srcmap_bsp::check::quirks(&bsp);
        // `srcmap info`'s map state: never a panic, whatever the tree and the rows.
        let _ = srcmap_bsp::state::MapState::of(&bsp);
        let _ = srcmap_bsp::pak::Pak::parse(&bsp.pakfile, 0).map(|p| p.entries.len());
        if let Ok(bytes) = bsp.to_bytes() {
            // What we write, we read.
            let back = srcmap_bsp::Bsp::parse(&bytes).expect("re-serialised BSP must parse");
            assert_eq!(back.planes.len(), bsp.planes.len());
        }
    }
}

/// The borrowing view (`BspView`), in place and into an arena: it fails exactly where the owned
/// parse does, and its owned copy is the owned parse.
pub fn bsp_view(data: &[u8]) {
    let Ok(file) = srcmap_bsp::BspFile::parse(data) else {
        return;
    };
    let view = srcmap_bsp::BspView::from_file(&file);
    let arena = srcmap_bsp::Bump::with_capacity(srcmap_bsp::BspView::arena_hint(&file).min(64 << 20));
    let in_arena = srcmap_bsp::BspView::from_file_in(&file, &arena);
    let owned = srcmap_bsp::Bsp::from_file(&file);
    assert_eq!(view.as_ref().err(), owned.as_ref().err());
    assert_eq!(in_arena.as_ref().err(), owned.as_ref().err());
    if let (Ok(view), Ok(in_arena), Ok(owned)) = (view, in_arena, owned) {
        // Compared as written bytes: a NaN in a record is unequal to itself as a value.
        let bytes = owned.to_bytes().ok();
        assert!(view.into_owned().to_bytes().ok() == bytes);
        assert!(in_arena.into_owned().to_bytes().ok() == bytes);
    }
}

/// VPK archives, VMT materials and VTF headers.
pub fn content_vpk(data: &[u8]) {
    if let Ok(vpk) = srcmap_content::Vpk::parse(data.to_vec(), "fuzz.vpk") {
        for e in vpk.entries.iter().take(64) {
            let _ = vpk.read(e);
        }
    }
    let _ = srcmap_content::Vmt::parse(data, "fuzz.vmt").map(|v| v.compile_flags());
    let _ = srcmap_content::VtfHeader::parse(data, "fuzz.vtf");
    let _ = srcmap_content::vtf_decode::decode_alpha(data, "fuzz.vtf");
}

/// PRT1 portal files: a parsed file checks, writes back in Valve's form, and that text parses
/// to the same portals; small ones run through vis (counts bound the work).
pub fn prt(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let Ok(portals) = srcmap_vvis::Portals::parse_prt(&text) else {
        return;
    };
    let _ = portals.verify();
    let again = srcmap_vvis::Portals::parse_prt(&portals.to_prt()).expect("our PRT must parse");
    assert_eq!(again.num_clusters, portals.num_clusters);
    assert_eq!(again.portals.len(), portals.portals.len());
    if portals.num_clusters <= 64 && portals.portals.len() <= 64 {
        for fast in [true, false] {
            let options = srcmap_vvis::Options {
                fast,
                threads: srcmap_stage::Threads(1),
                verify: true,
                ..Default::default()
            };
            let _ = srcmap_vvis::compute(&portals, true, None, &options, &srcmap_vvis::NoProgress);
        }
    }
}

/// `lights.rad` texture-light files, any bytes as text.
pub fn texlights(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let (lights, warnings) = srcmap_vrad::TexLights::parse(&text);
    assert!(warnings.len() <= text.lines().count());
    for range in [srcmap_vrad::Range::Ldr, srcmap_vrad::Range::Hdr] {
        let _ = lights.iter(range).count();
    }
}

/// The material table JSON: a parsed table writes JSON that reads back to the same JSON.
pub fn material_table(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(table) = srcmap_materials::MaterialTable::from_json(text) else {
        return;
    };
    let json = table.to_json();
    let again = srcmap_materials::MaterialTable::from_json(&json).expect("our table JSON must parse");
    assert_eq!(again.to_json(), json);
}

/// The game's surface properties (manifest and property files, through the KeyValues reader):
/// any input gives the weights or an error.
pub fn surface_properties(data: &[u8]) {
    let _ = srcmap_materials::surfaceprops::manifest_files(Some(data));
    if let Ok(masses) = srcmap_materials::surfaceprops::surface_masses(&[data]) {
        for mass in masses.values() {
            let _ = format!("{mass:?}");
        }
    }
}

/// The MDL reader and what callers ask of it: any input gives a value or an error.
pub fn model_mdl(data: &[u8]) {
    if let Ok(mdl) = srcmap_model::Mdl::parse(data) {
        let _ = mdl.static_use();
        let _ = mdl.lod_vertex_count(0);
    }
}

/// The VVD reader: every LOD's vertex indices lie within the file's vertices.
pub fn model_vvd(data: &[u8]) {
    if let Ok(vvd) = srcmap_model::Vvd::parse(data) {
        for lod in 0..vvd.lod_count as usize {
            assert!(
                vvd.lod_vertex_indices(lod)
                    .iter()
                    .all(|&i| (i as usize) < vvd.vertices.len())
            );
        }
    }
}

/// The `.ppl` reader: what it reads writes back and reads again as the same headers, the
/// same mesh sizes and, where meshes do not overlap, the same texels.
pub fn model_ppl(data: &[u8]) {
    if let Ok(ppl) = srcmap_model::Ppl::parse(data) {
        let back = srcmap_model::Ppl::parse(&ppl.to_bytes()).expect("a written .ppl reads");
        assert_eq!(back.meshes.len(), ppl.meshes.len());
        assert_eq!(
            (back.checksum, back.texel_format, back.len),
            (ppl.checksum, ppl.texel_format, ppl.len)
        );
        let mut spans: Vec<(u32, usize)> = ppl.meshes.iter().map(|m| (m.offset, m.texels.len())).collect();
        spans.sort();
        let apart = spans
            .windows(2)
            .all(|w| w[0].0 as usize + w[0].1 <= w[1].0 as usize);
        for (a, b) in ppl.meshes.iter().zip(&back.meshes) {
            assert_eq!(
                (a.lod, a.offset, a.width, a.height),
                (b.lod, b.offset, b.width, b.height)
            );
            assert_eq!(a.texels.len(), b.texels.len());
            assert!(!apart || a.texels == b.texels);
        }
    }
}

/// The VTX reader: every strip group's triangles index its own vertices.
pub fn model_vtx(data: &[u8]) {
    if let Ok(vtx) = srcmap_model::Vtx::parse(data) {
        for lod in vtx.body_parts.iter().flatten().flatten() {
            for (_, groups) in &lod.meshes {
                for g in groups {
                    assert!(g.triangles().flatten().all(|i| (i as usize) < g.vertices.len()));
                }
            }
        }
    }
}

/// One collision solid (IVP compact surface) or one displacement's packed hull (physdisp):
/// a parsed solid or hull writes back byte-identical, and its structure check returns.
pub fn phys_solid(data: &[u8]) {
    if let Ok(solid) = srcmap_phys::Solid::parse(data, 0) {
        assert_eq!(solid.to_bytes(), data);
        if let Some(s) = solid.surface() {
            let _ = s.verify(1e-3);
        }
    }
    if let Ok(hull) = srcmap_phys::PackedHull::parse(data, 0) {
        assert_eq!(hull.to_bytes(), data);
        let _ = hull.verify(289);
        for t in 0..hull.triangles.len() {
            let _ = hull.triangle_corners(t);
        }
    }
}

/// A `.phy` file: a parsed file writes back byte-identical.
pub fn phys_phy(data: &[u8]) {
    if let Ok(phy) = srcmap_phys::PhyFile::parse(data) {
        assert_eq!(phy.to_bytes(), data);
    }
}

/// A `detail.vbsp` file: any input gives detail types or an error naming the place.
pub fn content_detail_vbsp(data: &[u8]) {
    let _ = srcmap_content::detail_vbsp::DetailTypes::parse(data, "fuzz.vbsp");
}

/// The GLB container: what parses writes back and parses to the same chunks.
pub fn export_glb(data: &[u8]) {
    if let Ok(glb) = srcmap_export::Glb::parse(data) {
        let again = srcmap_export::Glb::parse(&glb.to_bytes()).expect("a written GLB parses");
        assert_eq!(again.json, glb.json.trim_end_matches(' '));
    }
}

/// VTF pixels (the one decoder, `srcmap_content::vtf_decode`, and export's RGB of it):
/// decoding ends in an image of the size it says or an error.
pub fn export_vtf(data: &[u8]) {
    if let Ok(img) = srcmap_content::vtf_decode::decode_rgba(data, "fuzz.vtf", 64) {
        assert_eq!(img.pixels.len(), (img.width * img.height * 4) as usize);
    }
    if let Ok(Some(img)) = srcmap_export::texture::decode_vtf(data, "fuzz.vtf", 64) {
        assert_eq!(img.pixels.len(), (img.width * img.height * 3) as usize);
    }
}

/// Any BSP that parses exports to GLB and renders (small) without a panic.
pub fn export_bsp(data: &[u8]) {
    if let Ok(bsp) = srcmap_bsp::Bsp::parse(data) {
        let mesh = srcmap_export::MapMesh::build(&bsp, false);
        let _ =
            srcmap_export::gltf::to_glb(&bsp, &mesh, &srcmap_export::gltf::ExportOptions { textures: &[] });
        let _ = srcmap_export::render::render(
            &mesh,
            &[],
            &srcmap_export::render::RenderOptions {
                width: 32,
                height: 24,
                shading: srcmap_export::render::Shading::Lit,
                view: srcmap_export::render::View::Isometric,
            },
        );
    }
}

/// A pointfile (`.lin`): every point read is finite, and writing them back reads the same.
pub fn view_lin(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let Ok(points) = srcmap_view::parse_lin(&text) else {
        return;
    };
    assert!(points.iter().flatten().all(|c| c.is_finite()));
    let written: String = points
        .iter()
        .map(|p| format!("{} {} {}\n", p[0], p[1], p[2]))
        .collect();
    assert_eq!(srcmap_view::parse_lin(&written), Ok(points));
}

/// The viewer's server on any request head: an answer with a known status (421 for a Host that
/// is not localhost or an address), a body only for GET, never a panic.
pub fn view_request(data: &[u8]) {
    let site = srcmap_view::Site {
        glb: b"glb".to_vec(),
        scene_json: b"{}".to_vec(),
        pvs: Vec::new(),
    };
    let (response, _) = site.respond(data);
    assert!([200, 400, 404, 405, 421].contains(&response.status));
}

/// Any bytes: a decompile gives a VMF that re-reads, or an error; never a panic.
pub fn decompile(data: &[u8]) {
    if let Ok(out) = srcmap_decompile::decompile_bytes(data) {
        out.vmf().expect("a decompiled VMF re-reads");
    }
}

/// The packer's reference readers (materials, models, `.phy`, particle files and manifests,
/// VScripts, `.res`, `.pop`, soundscripts, overviews) on the same bytes: references or an
/// error, never a panic.
pub fn pack_refs(data: &[u8]) {
    const PATHS: &[&str] = &[
        "materials/a.vmt",
        "models/a.mdl",
        "models/a.phy",
        "particles/a.pcf",
        "scripts/vscripts/a.nut",
        "maps/a.res",
        "scripts/population/a.pop",
        "maps/a_particles.txt",
        "maps/a_level_sounds.txt",
        "resource/overviews/a.txt",
    ];
    for path in PATHS {
        if let Ok(refs) = srcmap_pack::kinds::references(path, data, &None) {
            for r in refs {
                for c in &r.candidates {
                    let _ = srcmap_pack::path::normalise(c);
                }
            }
        }
    }
}

/// Any bytes read as a VMAP: converted to VMF text that Hammer's reader takes, or an error;
/// never a panic.
pub fn vmap_to_vmf(data: &[u8]) {
    let Ok(map) = srcmap_vmap::Vmap::read(data) else {
        return;
    };
    if let Ok((text, _)) = srcmap_mapconv::vmap_to_vmf(&map) {
        srcmap_vmf::Vmf::parse(text).expect("a converted VMF re-reads");
    }
}

/// Partial files of a sharded run (`srcmap_shard::Part`) and the vis or lighting payload inside: a part
/// that parses writes back byte-identical, and so does a payload that parses.
pub fn shard_part(data: &[u8]) {
    let Ok(part) = srcmap_shard::Part::parse(data) else {
        return;
    };
    assert_eq!(part.to_bytes(), data);
    if let Ok((portals, words, records)) = srcmap_vvis::part::read_payload(&part.payload) {
        let again = srcmap_vvis::part::payload(portals as usize, words as usize, &records);
        assert_eq!(again, part.payload);
    }
    if let Ok(faces) = srcmap_vrad::shard::ShardPayload::parse(&part.payload) {
        assert_eq!(faces.to_bytes(), part.payload);
    }
}
