//! Engine-level invariants of a parsed BSP: every index across lumps in range, counts that must
//! agree, and Valve's `MAX_MAP_*` limits (Source 2013's, or Strata's raised ones for v25).
//! Record sizes are checked by parsing itself.

use crate::bsp::Bsp;
use crate::gamelump::GameLumpData;
use crate::lump::*;
use crate::records::{AreaPortal, DispInfo, Face, Leaf, LeafAmbientIndex, Overlay};

/// One broken invariant: the lump, the record index (if one) and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    pub lump: usize,
    pub record: Option<usize>,
    pub message: String,
}

/// [`Violation::lump`] of a problem in the file header rather than in a lump.
pub const HEADER: usize = usize::MAX;

impl std::fmt::Display for Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.lump == HEADER {
            f.write_str("header")?;
        } else {
            write!(f, "lump {} ({})", self.lump, lump_name(self.lump))?;
        }
        if let Some(r) = self.record {
            write!(f, " record {r}")?;
        }
        write!(f, ": {}", self.message)
    }
}

/// `MAX_MAP_*` limits for a BSP version: (lump, limit on record count, name).
pub fn limits(version: i32) -> Vec<(usize, usize, &'static str)> {
    if version == 25 {
        return strata_limits();
    }
    let mut limits = source_world_limits(version);
    limits.extend(source_detail_limits(version));
    limits
}

/// Strata Source raised most limits (momentum-mod 0.9.2 changelog).
fn strata_limits() -> Vec<(usize, usize, &'static str)> {
    vec![
        (MODELS, 65536, "MAX_MAP_MODELS"),
        (BRUSHES, 131072, "MAX_MAP_BRUSHES"),
        (BRUSHSIDES, 655360, "MAX_MAP_BRUSHSIDES"),
        (PLANES, 1048576, "MAX_MAP_PLANES"),
        (VERTEXES, 1048576, "MAX_MAP_VERTS"),
        (NODES, 1048576, "MAX_MAP_NODES"),
        (TEXDATA, 16384, "MAX_MAP_TEXDATA"),
        (FACES, 1048576, "MAX_MAP_FACES"),
        (ORIGINALFACES, 1048576, "MAX_MAP_ORIGINALFACES"),
        (LEAFS, 1048576, "MAX_MAP_LEAFS"),
        (LEAFFACES, 1048576, "MAX_MAP_LEAFFACES"),
        (LEAFBRUSHES, 1048576, "MAX_MAP_LEAFBRUSHES"),
        (AREAS, 65536, "MAX_MAP_AREAS"),
        (SURFEDGES, 8192000, "MAX_MAP_SURFEDGES"),
        (EDGES, 4096000, "MAX_MAP_EDGES"),
        (CUBEMAPS, 16384, "MAX_MAP_CUBEMAPSAMPLES"),
        (OVERLAYS, 16384, "MAX_MAP_OVERLAYS"),
        (DISPINFO, 262144, "MAX_MAP_DISPINFO"),
    ]
}

/// Source 2013's limits on entities, brushes, the tree, faces and displacements.
fn source_world_limits(version: i32) -> Vec<(usize, usize, &'static str)> {
    // Source 2013's entity limit; later branches (Left 4 Dead on) allow twice as many.
    let entities = if version >= 21 { 16384 } else { 8192 };
    vec![
        (ENTITIES, entities, "MAX_MAP_ENTITIES"),
        (MODELS, 1024, "MAX_MAP_MODELS"),
        (BRUSHES, 8192, "MAX_MAP_BRUSHES"),
        (BRUSHSIDES, 65536, "MAX_MAP_BRUSHSIDES"),
        (PLANES, 65536, "MAX_MAP_PLANES"),
        (VERTEXES, 65536, "MAX_MAP_VERTS"),
        (NODES, 65536, "MAX_MAP_NODES"),
        (TEXINFO, 12288, "MAX_MAP_TEXINFO"),
        (TEXDATA, 2048, "MAX_MAP_TEXDATA"),
        (DISPINFO, 2048, "MAX_MAP_DISPINFO"),
        (DISP_VERTS, 2048 * 17 * 17, "MAX_MAP_DISP_VERTS"),
        (DISP_TRIS, 2048 * 2 * 16 * 16, "MAX_MAP_DISP_TRIS"),
        (FACES, 65536, "MAX_MAP_FACES"),
        (ORIGINALFACES, 65536, "MAX_MAP_ORIGINALFACES"),
        (LEAFS, 65536, "MAX_MAP_LEAFS"),
        (LEAFFACES, 65536, "MAX_MAP_LEAFFACES"),
        (LEAFBRUSHES, 65536, "MAX_MAP_LEAFBRUSHES"),
        (AREAS, 256, "MAX_MAP_AREAS"),
        (AREAPORTALS, 1024, "MAX_MAP_AREAPORTALS"),
        (EDGES, 256000, "MAX_MAP_EDGES"),
        (SURFEDGES, 512000, "MAX_MAP_SURFEDGES"),
    ]
}

/// Source 2013's limits on lights, cubemaps, overlays, water, primitives, vertex normals,
/// portal vertices and material names.
fn source_detail_limits(version: i32) -> Vec<(usize, usize, &'static str)> {
    let overlays = if version >= 21 { 1024 } else { 512 };
    vec![
        (WORLDLIGHTS, 8192, "MAX_MAP_WORLDLIGHTS"),
        (CUBEMAPS, 1024, "MAX_MAP_CUBEMAPSAMPLES"),
        (OVERLAYS, overlays, "MAX_MAP_OVERLAYS"),
        (WATEROVERLAYS, 16384, "MAX_MAP_WATEROVERLAYS"),
        (LEAFWATERDATA, 32768, "MAX_MAP_LEAFWATERDATA"),
        (PRIMITIVES, 32768, "MAX_MAP_PRIMITIVES"),
        (PRIMVERTS, 65536, "MAX_MAP_PRIMVERTS"),
        (PRIMINDICES, 65536, "MAX_MAP_PRIMINDICES"),
        (VERTNORMALS, 256000, "MAX_MAP_VERTNORMALS"),
        (VERTNORMALINDICES, 256000, "MAX_MAP_VERTNORMALINDICES"),
        (CLIPPORTALVERTS, 65536, "MAX_MAP_PORTALVERTS"),
        (TEXDATA_STRING_TABLE, 65536, "MAX_MAP_TEXDATA_STRING_TABLE"),
    ]
}

/// Byte-size limits: (lump, bytes, name).
fn byte_limits(version: i32) -> Vec<(usize, usize, &'static str)> {
    if version == 25 {
        return Vec::new();
    }
    vec![
        (LIGHTING, 0x100_0000, "MAX_MAP_LIGHTING"),
        (LIGHTING_HDR, 0x100_0000, "MAX_MAP_LIGHTING"),
        (VISIBILITY, 0x100_0000, "MAX_MAP_VISIBILITY"),
        (TEXDATA_STRING_DATA, 256000, "MAX_MAP_TEXDATA_STRING_DATA"),
    ]
}

/// Number of typed records in `lump` (0 for lumps that are not record arrays).
pub fn count(bsp: &Bsp, lump: usize) -> usize {
    match subject(lump) {
        Subject::Geometry => geometry_count(bsp, lump),
        Subject::Tree => tree_count(bsp, lump),
        Subject::Texture => texture_count(bsp, lump),
        Subject::Displacement => displacement_count(bsp, lump),
        Subject::Lighting => lighting_count(bsp, lump),
        Subject::Overlay => overlay_count(bsp, lump),
        Subject::OwnFormat => own_format_count(bsp, lump),
    }
}

fn geometry_count(bsp: &Bsp, lump: usize) -> usize {
    match lump {
        PLANES => bsp.planes.len(),
        VERTEXES => bsp.vertexes.len(),
        EDGES => bsp.edges.len(),
        SURFEDGES => bsp.surfedges.len(),
        FACES => bsp.faces.len(),
        ORIGINALFACES => bsp.original_faces.len(),
        FACES_HDR => bsp.faces_hdr.len(),
        FACEIDS => bsp.face_ids.len(),
        VERTNORMALS => bsp.vert_normals.len(),
        VERTNORMALINDICES => bsp.vert_normal_indices.len(),
        CLIPPORTALVERTS => bsp.clip_portal_verts.len(),
        PRIMITIVES => bsp.primitives.len(),
        PRIMVERTS => bsp.prim_verts.len(),
        PRIMINDICES => bsp.prim_indices.len(),
        _ => 0,
    }
}

fn tree_count(bsp: &Bsp, lump: usize) -> usize {
    match lump {
        NODES => bsp.nodes.len(),
        LEAFS => bsp.leafs.len(),
        MODELS => bsp.models.len(),
        LEAFFACES => bsp.leaf_faces.len(),
        LEAFBRUSHES => bsp.leaf_brushes.len(),
        BRUSHES => bsp.brushes.len(),
        BRUSHSIDES => bsp.brush_sides.len(),
        AREAS => bsp.areas.len(),
        AREAPORTALS => bsp.area_portals.len(),
        LEAFWATERDATA => bsp.leaf_water_data.len(),
        LEAFMINDISTTOWATER => bsp.leaf_min_dist_to_water.len(),
        _ => 0,
    }
}

/// The string data is bytes, not records: 0.
fn texture_count(bsp: &Bsp, lump: usize) -> usize {
    match lump {
        TEXDATA => bsp.texdata.len(),
        TEXINFO => bsp.texinfo.len(),
        TEXDATA_STRING_TABLE => bsp.texdata_string_table.len(),
        FACE_MACRO_TEXTURE_INFO => bsp.face_macro_texture_info.len(),
        _ => 0,
    }
}

/// The sample positions are a byte stream, not records: 0.
fn displacement_count(bsp: &Bsp, lump: usize) -> usize {
    match lump {
        DISPINFO => bsp.disp_info.len(),
        DISP_VERTS => bsp.disp_verts.len(),
        DISP_TRIS => bsp.disp_tris.len(),
        _ => 0,
    }
}

fn lighting_count(bsp: &Bsp, lump: usize) -> usize {
    match lump {
        LIGHTING => bsp.lighting.len(),
        LIGHTING_HDR => bsp.lighting_hdr.len(),
        WORLDLIGHTS => bsp.world_lights.len(),
        WORLDLIGHTS_HDR => bsp.world_lights_hdr.len(),
        LEAF_AMBIENT_INDEX_HDR => bsp.leaf_ambient_index_hdr.len(),
        LEAF_AMBIENT_INDEX => bsp.leaf_ambient_index.len(),
        LEAF_AMBIENT_LIGHTING_HDR => bsp.leaf_ambient_lighting_hdr.len(),
        LEAF_AMBIENT_LIGHTING => bsp.leaf_ambient_lighting.len(),
        CUBEMAPS => bsp.cubemaps.len(),
        _ => 0,
    }
}

fn overlay_count(bsp: &Bsp, lump: usize) -> usize {
    match lump {
        OVERLAYS => bsp.overlays.len(),
        WATEROVERLAYS => bsp.water_overlays.len(),
        OVERLAY_FADES => bsp.overlay_fades.len(),
        OVERLAY_SYSTEM_LEVELS => bsp.overlay_system_levels.len(),
        _ => 0,
    }
}

/// Entities, game lumps, visibility clusters, collision models and displacements, occluders;
/// the pakfile and map flags are no record arrays: 0.
fn own_format_count(bsp: &Bsp, lump: usize) -> usize {
    match lump {
        ENTITIES => bsp.entities.len(),
        GAME_LUMP => bsp.game_lumps.lumps.len(),
        VISIBILITY => bsp.visibility.as_ref().map_or(0, |v| v.num_clusters as usize),
        PHYSCOLLIDE => bsp.phys_collide.as_ref().map_or(0, |p| p.models.len()),
        PHYSDISP => bsp.phys_disp.as_ref().map_or(0, |p| p.blobs.len()),
        OCCLUSION => bsp.occlusion.as_ref().map_or(0, |o| o.occluders.len()),
        _ => 0,
    }
}

struct Checker {
    out: Vec<Violation>,
}

impl Checker {
    fn fail(&mut self, lump: usize, record: Option<usize>, message: String) {
        self.out.push(Violation {
            lump,
            record,
            message,
        });
    }
    /// `index` must be below `len` (the size of `target`).
    fn index(&mut self, lump: usize, rec: usize, what: &str, index: i64, len: usize, target: usize) {
        if index < 0 || index as u64 >= len as u64 {
            self.fail(
                lump,
                Some(rec),
                format!("{what} {index} is out of range ({} has {len})", lump_name(target)),
            );
        }
    }
    /// -1 allowed.
    fn opt_index(&mut self, lump: usize, rec: usize, what: &str, index: i64, len: usize, target: usize) {
        if index != -1 {
            self.index(lump, rec, what, index, len, target);
        }
    }
    /// `first .. first + n` must lie within `len`.
    #[allow(clippy::too_many_arguments)]
    fn range(&mut self, lump: usize, rec: usize, what: &str, first: i64, n: i64, len: usize, target: usize) {
        if n == 0 {
            return;
        }
        if first < 0 || n < 0 || (first + n) as u64 > len as u64 {
            self.fail(
                lump,
                Some(rec),
                format!(
                    "{what} {first}..{} is out of range ({} has {len})",
                    first + n,
                    lump_name(target)
                ),
            );
        }
    }
}

/// Quirks of a file that the engine accepts but that this crate keeps as bytes rather than
/// typed: warnings, not errors (`srcmap check` prints them as such).
pub fn quirks(bsp: &Bsp) -> Vec<Violation> {
    let mut out = legacy_leaf_ambient_quirks(bsp);
    out.extend(zero_texture_size_quirks(bsp));
    for (&lump, tail) in &bsp.tails {
        out.push(Violation {
            lump,
            record: None,
            message: format!(
                "{} byte(s) past the last whole record, kept as bytes (the engine reads the lump \
                 as one block)",
                tail.len()
            ),
        });
    }
    out
}

/// Per-leaf light cubes of the legacy layout, kept as bytes.
fn legacy_leaf_ambient_quirks(bsp: &Bsp) -> Vec<Violation> {
    let mut out = Vec::new();
    for lump in [LEAF_AMBIENT_LIGHTING_HDR, LEAF_AMBIENT_LIGHTING] {
        let version = bsp.lump_versions[lump];
        if let Some(bytes) = bsp.raw.get(&lump)
            && crate::records::leaf_ambient_is_legacy(version, bytes.len())
        {
            out.push(Violation {
                lump,
                record: None,
                message: format!(
                    "legacy layout (lump version {version}): {} per-leaf light cubes of {} bytes, \
                     kept as bytes",
                    bytes.len() / crate::records::LEGACY_LEAF_AMBIENT_SIZE,
                    crate::records::LEGACY_LEAF_AMBIENT_SIZE
                ),
            });
        }
    }
    out
}

/// Texture sizes with a zero side (a tool that found no texture).
fn zero_texture_size_quirks(bsp: &Bsp) -> Vec<Violation> {
    let mut out = Vec::new();
    for (i, t) in bsp.texdata.iter().enumerate() {
        if t.width == 0 || t.height == 0 || t.view_width == 0 || t.view_height == 0 {
            out.push(Violation {
                lump: TEXDATA,
                record: Some(i),
                message: format!(
                    "'{}' texture size {}x{} (view {}x{}) has a zero side: lightmap and \
                     texture-coordinate scaling by it is undefined",
                    bsp.texdata_name(i).unwrap_or("?"),
                    t.width,
                    t.height,
                    t.view_width,
                    t.view_height
                ),
            });
        }
    }
    out
}

/// BSP versions the engine branches load: Valve's 17 to 29 (Vampire: Bloodlines' 17 to
/// Contagion's 27 and Strata's 25), Desolation's 42, and Dark Messiah's 0x00040014.
pub fn known_version(version: i32) -> bool {
    matches!(version, 17..=29 | 42 | 0x0004_0014)
}

/// What no writer may put into a BSP, as it would mislead every reader: a header version no
/// engine loads, NaN or infinite floats (planes, vertices, texture vectors, reflectivity, world
/// lights, entity origins), and negative texture sizes (zero is only a [`quirks`] warning). [`check`] reports these
/// too; [`Bsp::to_bytes`] refuses them.
pub fn unwritable(bsp: &Bsp) -> Vec<Violation> {
    let mut c = Checker { out: Vec::new() };
    if !known_version(bsp.version) {
        c.fail(
            HEADER,
            None,
            format!(
                "BSP version {} is not one any engine loads (17-29, 42 or 0x40014)",
                bsp.version
            ),
        );
    }
    non_finite_geometry(bsp, &mut c);
    unwritable_texdata(bsp, &mut c);
    non_finite_world_lights(bsp, &mut c);
    non_finite_origins(bsp, &mut c);
    non_finite_props(bsp, &mut c);
    c.out
}

/// The farthest coordinate a vertex may have: 16 times Source's ±16384 world, so that only
/// absurd values (1e37, which make lighting and physics crawl) are refused.
const MAX_COORD: f32 = 262_144.0;

fn finite(v: &[f32]) -> bool {
    v.iter().all(|x| x.is_finite())
}

/// NaN or infinite planes, vertices and texture vectors.
fn non_finite_geometry(bsp: &Bsp, c: &mut Checker) {
    for (i, p) in bsp.planes.iter().enumerate() {
        if !finite(&p.normal) || !p.dist.is_finite() {
            c.fail(PLANES, Some(i), "plane is not finite (NaN or infinite)".into());
        }
    }
    for (i, v) in bsp.vertexes.iter().enumerate() {
        if !finite(v) {
            c.fail(VERTEXES, Some(i), "vertex is not finite (NaN or infinite)".into());
        } else if v.iter().any(|x| x.abs() > MAX_COORD) {
            c.fail(
                VERTEXES,
                Some(i),
                format!("vertex {v:?} lies beyond ±{MAX_COORD} (no engine's world reaches it)"),
            );
        }
    }
    for (i, d) in bsp.disp_verts.iter().enumerate() {
        if !finite(&d.vec) || !d.dist.is_finite() || !d.alpha.is_finite() {
            c.fail(
                DISP_VERTS,
                Some(i),
                "displacement vertex is not finite (NaN or infinite)".into(),
            );
        }
    }
    for (i, t) in bsp.texinfo.iter().enumerate() {
        if !t.texture_vecs.iter().chain(&t.lightmap_vecs).all(|v| finite(v)) {
            c.fail(
                TEXINFO,
                Some(i),
                "texture vectors are not finite (NaN or infinite)".into(),
            );
        }
    }
}

/// Texdata with a reflectivity that is not finite or a negative texture size.
fn unwritable_texdata(bsp: &Bsp, c: &mut Checker) {
    for (i, t) in bsp.texdata.iter().enumerate() {
        let name = bsp.texdata_name(i).unwrap_or("?");
        if !finite(&t.reflectivity) {
            c.fail(
                TEXDATA,
                Some(i),
                format!("'{name}' reflectivity {:?} is not finite", t.reflectivity),
            );
        }
        // Zero is a quirk (a tool that found no texture), negative only ever an overflow.
        if t.width < 0 || t.height < 0 || t.view_width < 0 || t.view_height < 0 {
            c.fail(
                TEXDATA,
                Some(i),
                format!(
                    "'{name}' texture size {}x{} (view {}x{}) is negative",
                    t.width, t.height, t.view_width, t.view_height
                ),
            );
        }
    }
}

fn non_finite_world_lights(bsp: &Bsp, c: &mut Checker) {
    for (lump, lights) in [
        (WORLDLIGHTS, &bsp.world_lights),
        (WORLDLIGHTS_HDR, &bsp.world_lights_hdr),
    ] {
        for (i, l) in lights.iter().enumerate() {
            if !finite(&l.origin) || !finite(&l.intensity) || !finite(&l.normal) {
                c.fail(
                    lump,
                    Some(i),
                    "world light is not finite (NaN or infinite)".into(),
                );
            }
        }
    }
}

/// Entity origins and angles with a NaN or infinite number.
fn non_finite_origins(bsp: &Bsp, c: &mut Checker) {
    for (i, e) in bsp.entities.iter().enumerate() {
        for key in ["origin", "angles"] {
            let Some(value) = e.get(key) else {
                continue;
            };
            // Only numbers that parse are judged: the engine reads others as 0.
            if value
                .split_whitespace()
                .filter_map(|t| t.parse::<f32>().ok())
                .any(|x| !x.is_finite())
            {
                c.fail(
                    ENTITIES,
                    Some(i),
                    format!(
                        "'{}' {key} {} is not finite",
                        e.classname().unwrap_or("?"),
                        srcmap_bytes::excerpt(value)
                    ),
                );
            }
        }
    }
}

/// Static props whose origin or angles are NaN or infinite. Their lighting origin and scale are
/// not judged: 17 real maps of the corpus hold non-finite values there, and export reads a
/// non-finite scale as 1.
fn non_finite_props(bsp: &Bsp, c: &mut Checker) {
    let Some(sp) = bsp.game_lumps.static_props() else {
        return;
    };
    for (i, p) in sp.props.iter().enumerate() {
        if !finite(&p.origin) || !finite(&p.angles) {
            c.fail(
                GAME_LUMP,
                Some(i),
                "static prop origin or angles are not finite (NaN or infinite)".into(),
            );
        }
    }
}

/// Pakfile materials nested deeper than KeyValues allows (`srcmap_kv::MAX_DEPTH`): the engine
/// reads a VMT by recursion, and one thousands of levels deep crashes whatever loads the map.
fn pakfile_materials(bsp: &Bsp, c: &mut Checker) {
    let Ok(pak) = crate::pak::Pak::parse(&bsp.pakfile, 0) else {
        return;
    };
    let materials = pak
        .entries
        .iter()
        .filter(|e| e.name.to_ascii_lowercase().ends_with(".vmt"));
    for e in materials {
        let Ok(bytes) = pak.read(e) else {
            continue;
        };
        match srcmap_kv::Document::parse_bytes(&bytes) {
            Err(err) if err.is_too_deep() => c.fail(
                PAKFILE,
                None,
                format!("'{}' {}:{}: {}", e.name, err.line, err.column, err.message),
            ),
            _ => {}
        }
    }
}

/// Checks every invariant; returns all violations (empty: the map passes).
pub fn check(bsp: &Bsp) -> Vec<Violation> {
    let mut c = Checker { out: unwritable(bsp) };
    if let Err(e) = crate::pak::Pak::parse(&bsp.pakfile, 0) {
        // `info` lists the pakfile: a directory it cannot read fails here too.
        c.fail(PAKFILE, None, format!("{e} (byte offset within the lump)"));
    }
    pakfile_materials(bsp, &mut c);
    record_limits(bsp, &mut c);
    texture_references(bsp, &mut c);
    face_references(bsp, &mut c);
    tree_references(bsp, &mut c);
    brush_references(bsp, &mut c);
    area_references(bsp, &mut c);
    c.out.extend(displacements(bsp));
    c.out.extend(water(bsp));
    primitive_references(bsp, &mut c);
    c.out.extend(overlays(bsp));
    lighting_references(bsp, &mut c);
    c.out.extend(occlusion(bsp));
    c.out.extend(physics(bsp));
    visibility_rows(bsp, &mut c);
    entity_references(bsp, &mut c);
    c.out
}

/// HDR-only maps (console builds) have no LDR faces; the engine draws the HDR ones.
fn drawn_face_count(bsp: &Bsp) -> usize {
    if bsp.faces.is_empty() {
        bsp.faces_hdr.len()
    } else {
        bsp.faces.len()
    }
}

/// Record and byte counts within Valve's limits for this BSP version.
/// The limits of this BSP version the map exceeds (records and bytes per lump): what a
/// compiler must refuse to write, and a reader may refuse to load.
pub fn limit_violations(bsp: &Bsp) -> Vec<Violation> {
    let mut c = Checker { out: Vec::new() };
    record_limits(bsp, &mut c);
    c.out
}

fn record_limits(bsp: &Bsp, c: &mut Checker) {
    for (lump, max, name) in limits(bsp.version) {
        let n = count(bsp, lump);
        if n > max {
            c.fail(lump, None, format!("{n} records exceed {name} ({max})"));
        }
    }
    for (lump, max, name) in byte_limits(bsp.version) {
        let n = match lump {
            LIGHTING => bsp.lighting.len() * 4,
            LIGHTING_HDR => bsp.lighting_hdr.len() * 4,
            VISIBILITY => bsp.lump_bytes(VISIBILITY).map(|b| b.len()).unwrap_or(0),
            TEXDATA_STRING_DATA => bsp.texdata_string_data.len(),
            _ => 0,
        };
        if n > max {
            c.fail(lump, None, format!("{n} bytes exceed {name} ({max})"));
        }
    }
}

/// Texinfo → texdata → name string table → string data.
fn texture_references(bsp: &Bsp, c: &mut Checker) {
    for (i, t) in bsp.texinfo.iter().enumerate() {
        c.opt_index(
            TEXINFO,
            i,
            "texdata",
            t.texdata as i64,
            bsp.texdata.len(),
            TEXDATA,
        );
    }
    texture_name_references(bsp, c);
}

/// Texdata → name string table → string data.
fn texture_name_references(bsp: &Bsp, c: &mut Checker) {
    for (i, t) in bsp.texdata.iter().enumerate() {
        c.index(
            TEXDATA,
            i,
            "name string id",
            t.name_id as i64,
            bsp.texdata_string_table.len(),
            TEXDATA_STRING_TABLE,
        );
    }
    for (i, &ofs) in bsp.texdata_string_table.iter().enumerate() {
        c.index(
            TEXDATA_STRING_TABLE,
            i,
            "string offset",
            ofs as i64,
            bsp.texdata_string_data.len(),
            TEXDATA_STRING_DATA,
        );
    }
}

/// Faces (drawn, original, HDR) into planes, surfedges, texinfo, dispinfo, primitives and
/// lighting; surfedges into edges, edges into vertices.
fn face_references(bsp: &Bsp, c: &mut Checker) {
    let face_lumps: [(usize, &Vec<Face>); 3] = [
        (FACES, &bsp.faces),
        (ORIGINALFACES, &bsp.original_faces),
        (FACES_HDR, &bsp.faces_hdr),
    ];
    for (lump, faces) in face_lumps {
        for (i, f) in faces.iter().enumerate() {
            c.index(lump, i, "plane", f.plane as i64, bsp.planes.len(), PLANES);
            c.range(
                lump,
                i,
                "surfedges",
                f.first_edge as i64,
                f.num_edges as i64,
                bsp.surfedges.len(),
                SURFEDGES,
            );
            if lump != ORIGINALFACES {
                // vbsp writes original faces before it compacts texinfo, so their texinfo and
                // dispinfo indices are stale; the engine never reads them.
                drawn_face_references(bsp, lump, i, f, c);
            }
            face_light_offset(bsp, lump, i, f, c);
        }
    }
    edge_references(bsp, c);
}

/// A drawn (or HDR) face's texinfo, dispinfo, original face and primitives.
fn drawn_face_references(bsp: &Bsp, lump: usize, i: usize, f: &Face, c: &mut Checker) {
    c.opt_index(lump, i, "texinfo", f.texinfo as i64, bsp.texinfo.len(), TEXINFO);
    c.opt_index(
        lump,
        i,
        "dispinfo",
        f.dispinfo as i64,
        bsp.disp_info.len(),
        DISPINFO,
    );
    // Console builds strip the original faces.
    if !bsp.original_faces.is_empty() {
        c.opt_index(
            lump,
            i,
            "original face",
            f.orig_face as i64,
            bsp.original_faces.len(),
            ORIGINALFACES,
        );
    }
    face_primitives(bsp, lump, i, f, c);
}

/// A face's primitives in range.
fn face_primitives(bsp: &Bsp, lump: usize, i: usize, f: &Face, c: &mut Checker) {
    // Strata keeps the dynamic-shadows flag in bit 0, the count above it.
    let prims = if bsp.version == 25 {
        f.num_prims >> 1
    } else {
        f.num_prims & 0x7fff
    } as i64;
    c.range(
        lump,
        i,
        "primitives",
        f.first_prim as i64,
        prims,
        bsp.primitives.len(),
        PRIMITIVES,
    );
}

/// A face's light offset inside its lighting lump (HDR faces in the HDR one).
fn face_light_offset(bsp: &Bsp, lump: usize, i: usize, f: &Face, c: &mut Checker) {
    let lighting = if lump == FACES_HDR {
        bsp.lighting_hdr.len()
    } else {
        bsp.lighting.len()
    };
    if f.light_offset != -1 && lighting > 0 && (f.light_offset < 0 || f.light_offset as usize / 4 > lighting)
    {
        c.fail(
            lump,
            Some(i),
            format!(
                "light offset {} is past the lighting lump ({} bytes)",
                f.light_offset,
                lighting * 4
            ),
        );
    } else if f.light_offset >= 0 && lighting > 0 {
        face_light_extent(bsp, lump, i, f, lighting as u128 * 4, c);
    }
}

/// A lit face's samples (luxels × styles × 4 for bump-mapped faces, 4 bytes each) end inside
/// the lighting lump: a lightmap size of 2³¹ luxels passes the offset test but not this one.
fn face_light_extent(bsp: &Bsp, lump: usize, i: usize, f: &Face, lighting_bytes: u128, c: &mut Checker) {
    let bumped = usize::try_from(f.texinfo)
        .ok()
        .and_then(|t| bsp.texinfo.get(t))
        .is_some_and(|t| {
            crate::flags::SurfaceFlags::from_record(t.flags).contains(crate::flags::SurfaceFlags::BUMPLIGHT)
        });
    let side = |n: i32| u128::from((n.max(-1) + 1) as u32);
    let luxels = side(f.lightmap_size[0]) * side(f.lightmap_size[1]);
    let bytes = luxels * f.style_count() as u128 * if bumped { 4 } else { 1 } * 4;
    if f.light_offset as u128 + bytes > lighting_bytes {
        let [w, h] = f.lightmap_size.map(|n| i64::from(n) + 1);
        c.fail(
            lump,
            Some(i),
            format!(
                "lightmap {w}x{h} at offset {} runs past the lighting lump ({lighting_bytes} bytes)",
                f.light_offset
            ),
        );
    }
}

/// Surfedges into edges, edges into vertices.
fn edge_references(bsp: &Bsp, c: &mut Checker) {
    for (i, &e) in bsp.surfedges.iter().enumerate() {
        c.index(SURFEDGES, i, "edge", (e as i64).abs(), bsp.edges.len(), EDGES);
    }
    for (i, e) in bsp.edges.iter().enumerate() {
        for v in e.0 {
            c.index(EDGES, i, "vertex", v as i64, bsp.vertexes.len(), VERTEXES);
        }
    }
}

/// Nodes, leaves, leaf faces, leaf brushes and models into the tree and what it indexes.
fn tree_references(bsp: &Bsp, c: &mut Checker) {
    let faces_len = drawn_face_count(bsp);
    node_references(bsp, faces_len, c);
    tree_shape(bsp, c);
    model_bounds(bsp, c);
    leaf_references(bsp, c);
    for (i, &f) in bsp.leaf_faces.iter().enumerate() {
        c.index(LEAFFACES, i, "face", f as i64, faces_len, FACES);
    }
    for (i, &b) in bsp.leaf_brushes.iter().enumerate() {
        c.index(LEAFBRUSHES, i, "brush", b as i64, bsp.brushes.len(), BRUSHES);
    }
    for (i, m) in bsp.models.iter().enumerate() {
        if !bsp.nodes.is_empty() {
            c.index(MODELS, i, "head node", m.head_node as i64, bsp.nodes.len(), NODES);
        }
        c.range(
            MODELS,
            i,
            "faces",
            m.first_face as i64,
            m.num_faces as i64,
            faces_len,
            FACES,
        );
    }
}

/// Each model's tree is a tree: from its head node no node is reached twice (a cycle would
/// send every tree walk round for ever; vvis caught it, `check` did not).
fn tree_shape(bsp: &Bsp, c: &mut Checker) {
    let mut seen = vec![false; bsp.nodes.len()];
    for (m, model) in bsp.models.iter().enumerate() {
        let mut stack = vec![model.head_node];
        while let Some(n) = stack.pop() {
            let Some(node) = usize::try_from(n).ok().and_then(|n| bsp.nodes.get(n)) else {
                continue; // a leaf, or an index `tree_references` reports
            };
            if std::mem::replace(&mut seen[n as usize], true) {
                c.fail(
                    NODES,
                    Some(n as usize),
                    format!(
                        "reached twice from model {m}'s head node: the tree has a cycle or a shared subtree"
                    ),
                );
                return;
            }
            stack.extend(node.children);
        }
    }
}

/// Model bounds and origins that are finite.
fn model_bounds(bsp: &Bsp, c: &mut Checker) {
    for (i, m) in bsp.models.iter().enumerate() {
        if !finite(&m.mins) || !finite(&m.maxs) || !finite(&m.origin) {
            c.fail(
                MODELS,
                Some(i),
                "bounds or origin are not finite (NaN or infinite)".into(),
            );
        }
    }
}

/// Nodes into planes, child nodes and leaves, and their faces.
fn node_references(bsp: &Bsp, faces_len: usize, c: &mut Checker) {
    for (i, n) in bsp.nodes.iter().enumerate() {
        c.index(NODES, i, "plane", n.plane as i64, bsp.planes.len(), PLANES);
        for ch in n.children {
            if ch >= 0 {
                c.index(NODES, i, "child node", ch as i64, bsp.nodes.len(), NODES);
            } else {
                c.index(NODES, i, "child leaf", -1 - ch as i64, bsp.leafs.len(), LEAFS);
            }
        }
        c.range(
            NODES,
            i,
            "faces",
            n.first_face as i64,
            n.num_faces as i64,
            faces_len,
            FACES,
        );
    }
}

/// Leaves into their leaf faces and leaf brushes, visibility clusters and areas.
fn leaf_references(bsp: &Bsp, c: &mut Checker) {
    let clusters = bsp.visibility.as_ref().map(|v| v.num_clusters as i64);
    for (i, l) in bsp.leafs.iter().enumerate() {
        c.range(
            LEAFS,
            i,
            "leaf faces",
            l.first_leaf_face as i64,
            l.num_leaf_faces as i64,
            bsp.leaf_faces.len(),
            LEAFFACES,
        );
        c.range(
            LEAFS,
            i,
            "leaf brushes",
            l.first_leaf_brush as i64,
            l.num_leaf_brushes as i64,
            bsp.leaf_brushes.len(),
            LEAFBRUSHES,
        );
        leaf_cluster_and_area(bsp, clusters, i, l, c);
    }
}

/// Leaf `i`'s visibility cluster (when there is visibility) and area (when there are areas).
fn leaf_cluster_and_area(bsp: &Bsp, clusters: Option<i64>, i: usize, l: &Leaf, c: &mut Checker) {
    if let Some(n) = clusters
        && l.cluster != -1
    {
        c.index(LEAFS, i, "cluster", l.cluster as i64, n as usize, VISIBILITY);
    }
    if !bsp.areas.is_empty() {
        c.index(
            LEAFS,
            i,
            "area",
            l.area(bsp.version) as i64,
            bsp.areas.len(),
            AREAS,
        );
    }
}

/// Brushes into their sides, sides into planes, texinfo and dispinfo.
fn brush_references(bsp: &Bsp, c: &mut Checker) {
    for (i, b) in bsp.brushes.iter().enumerate() {
        c.range(
            BRUSHES,
            i,
            "sides",
            b.first_side as i64,
            b.num_sides as i64,
            bsp.brush_sides.len(),
            BRUSHSIDES,
        );
        if b.num_sides > 128 && bsp.version != 25 {
            c.fail(
                BRUSHES,
                Some(i),
                format!("{} sides exceed MAX_BRUSH_SIDES (128)", b.num_sides),
            );
        }
    }
    brush_side_references(bsp, c);
}

/// Brush sides into planes, texinfo and dispinfo.
fn brush_side_references(bsp: &Bsp, c: &mut Checker) {
    for (i, s) in bsp.brush_sides.iter().enumerate() {
        c.index(BRUSHSIDES, i, "plane", s.plane as i64, bsp.planes.len(), PLANES);
        c.opt_index(
            BRUSHSIDES,
            i,
            "texinfo",
            s.texinfo as i64,
            bsp.texinfo.len(),
            TEXINFO,
        );
        // vbsp leaves 0 (not -1) in sides of brushes without displacements.
        if s.dispinfo != 0 {
            c.opt_index(
                BRUSHSIDES,
                i,
                "dispinfo",
                s.dispinfo as i64,
                bsp.disp_info.len(),
                DISPINFO,
            );
        }
    }
}

/// Areas into area portals, area portals into areas, clip vertices and planes.
fn area_references(bsp: &Bsp, c: &mut Checker) {
    for (i, a) in bsp.areas.iter().enumerate() {
        c.range(
            AREAS,
            i,
            "area portals",
            a.first_area_portal as i64,
            a.num_area_portals as i64,
            bsp.area_portals.len(),
            AREAPORTALS,
        );
    }
    for (i, p) in bsp.area_portals.iter().enumerate() {
        area_portal_references(bsp, i, p, c);
    }
}

/// Area portal `i` into its other area, clip vertices and plane.
fn area_portal_references(bsp: &Bsp, i: usize, p: &AreaPortal, c: &mut Checker) {
    c.index(
        AREAPORTALS,
        i,
        "other area",
        p.other_area as i64,
        bsp.areas.len(),
        AREAS,
    );
    c.range(
        AREAPORTALS,
        i,
        "clip portal verts",
        p.first_clip_portal_vert as i64,
        p.num_clip_portal_verts as i64,
        bsp.clip_portal_verts.len(),
        CLIPPORTALVERTS,
    );
    c.index(AREAPORTALS, i, "plane", p.plane as i64, bsp.planes.len(), PLANES);
}

/// Primitives into their indices and vertices; vertex normal indices into normals.
fn primitive_references(bsp: &Bsp, c: &mut Checker) {
    for (i, p) in bsp.primitives.iter().enumerate() {
        c.range(
            PRIMITIVES,
            i,
            "indices",
            p.first_index as i64,
            p.num_indices as i64,
            bsp.prim_indices.len(),
            PRIMINDICES,
        );
        c.range(
            PRIMITIVES,
            i,
            "verts",
            p.first_vert as i64,
            p.num_verts as i64,
            bsp.prim_verts.len(),
            PRIMVERTS,
        );
    }
    for (i, &v) in bsp.vert_normal_indices.iter().enumerate() {
        let normals = bsp.vert_normals.len();
        c.index(VERTNORMALINDICES, i, "normal", v as i64, normals, VERTNORMALS);
    }
}

/// Leaf ambient indices (one per leaf) into their samples; world lights into clusters.
fn lighting_references(bsp: &Bsp, c: &mut Checker) {
    for (idx_lump, index, amb_lump, samples) in [
        (
            LEAF_AMBIENT_INDEX,
            &bsp.leaf_ambient_index,
            LEAF_AMBIENT_LIGHTING,
            bsp.leaf_ambient_lighting.len(),
        ),
        (
            LEAF_AMBIENT_INDEX_HDR,
            &bsp.leaf_ambient_index_hdr,
            LEAF_AMBIENT_LIGHTING_HDR,
            bsp.leaf_ambient_lighting_hdr.len(),
        ),
    ] {
        ambient_index_references(bsp, idx_lump, index, (amb_lump, samples), c);
    }
    world_light_clusters(bsp, c);
}

/// One ambient index per leaf (or none), each into the `samples` of `amb_lump`.
fn ambient_index_references(
    bsp: &Bsp,
    idx_lump: usize,
    index: &[LeafAmbientIndex],
    (amb_lump, samples): (usize, usize),
    c: &mut Checker,
) {
    if !index.is_empty() && index.len() != bsp.leafs.len() {
        c.fail(
            idx_lump,
            None,
            format!("{} entries for {} leafs", index.len(), bsp.leafs.len()),
        );
    }
    for (i, a) in index.iter().enumerate() {
        c.range(
            idx_lump,
            i,
            "ambient samples",
            a.first_sample as i64,
            a.sample_count as i64,
            samples,
            amb_lump,
        );
    }
}

/// World lights (LDR and HDR) into visibility clusters.
fn world_light_clusters(bsp: &Bsp, c: &mut Checker) {
    let clusters = bsp.visibility.as_ref().map(|v| v.num_clusters as i64);
    for (lump, lights) in [
        (WORLDLIGHTS, &bsp.world_lights),
        (WORLDLIGHTS_HDR, &bsp.world_lights_hdr),
    ] {
        for (i, l) in lights.iter().enumerate() {
            if let Some(n) = clusters {
                c.opt_index(lump, i, "cluster", l.cluster as i64, n as usize, VISIBILITY);
            }
        }
    }
}

/// One PVS row per cluster.
fn visibility_rows(bsp: &Bsp, c: &mut Checker) {
    if let Some(v) = &bsp.visibility
        && v.pvs.len() != v.num_clusters as usize
    {
        c.fail(
            VISIBILITY,
            None,
            format!("{} PVS rows for {} clusters", v.pvs.len(), v.num_clusters),
        );
    }
}

/// Entities' brush models, worldspawn first, and static props into their models and leaves.
fn entity_references(bsp: &Bsp, c: &mut Checker) {
    for (i, e) in bsp.entities.iter().enumerate() {
        if let Some(m) = e.get("model").and_then(|m| m.strip_prefix('*')) {
            match m.parse::<i64>() {
                Ok(n) => c.index(ENTITIES, i, "brush model", n, bsp.models.len(), MODELS),
                Err(_) => c.fail(ENTITIES, Some(i), format!("model '*{m}' is not a number")),
            }
        }
    }
    if bsp
        .entities
        .first()
        .is_some_and(|e| e.classname() != Some("worldspawn"))
    {
        c.fail(ENTITIES, Some(0), "the first entity is not worldspawn".into());
    }
    for gl in &bsp.game_lumps.lumps {
        if let GameLumpData::StaticProps(sp) = &gl.data {
            static_prop_references(bsp, sp, c);
        }
    }
}

/// Static props into their model names and leaf lists, leaf lists into leaves.
fn static_prop_references(bsp: &Bsp, sp: &crate::gamelump::StaticProps, c: &mut Checker) {
    for (i, p) in sp.props.iter().enumerate() {
        c.index(
            GAME_LUMP,
            i,
            "static prop model",
            p.prop_type as i64,
            sp.models.len(),
            GAME_LUMP,
        );
        c.range(
            GAME_LUMP,
            i,
            "static prop leaves",
            p.first_leaf as i64,
            p.leaf_count as i64,
            sp.leaves.len(),
            GAME_LUMP,
        );
    }
    for (i, &l) in sp.leaves.iter().enumerate() {
        c.index(GAME_LUMP, i, "static prop leaf", l as i64, bsp.leafs.len(), LEAFS);
    }
}

/// The displacement records' consistency: power, vertex and triangle ranges, the base face
/// pointing back with four edges, neighbour indices in range and listed both ways, and the
/// lightmap sample-position start inside its lump. Each message names the dispinfo's byte
/// offset in DISPINFO.
pub fn displacements(bsp: &Bsp) -> Vec<Violation> {
    let mut out = Vec::new();
    // Strata widened the record and its indices; "no neighbour" widened with them.
    let wide = bsp.ctx(DISPINFO).strata(1);
    let (stride, none) = if wide { (232, u32::MAX) } else { (176, 0xFFFF) };
    // Console builds keep only the HDR faces.
    let faces = if bsp.faces.is_empty() {
        &bsp.faces_hdr
    } else {
        &bsp.faces
    };
    for (i, d) in bsp.disp_info.iter().enumerate() {
        let mut faults = Vec::new();
        disp_ranges(bsp, d, &mut faults);
        disp_base_face(faces, d, i, &mut faults);
        disp_neighbours(&bsp.disp_info, d, i, none, &mut faults);
        disp_sample_start(bsp, d, &mut faults);
        let at = i * stride;
        out.extend(faults.into_iter().map(|message| Violation {
            lump: DISPINFO,
            record: Some(i),
            message: format!("dispinfo {i} (byte {at}): {message}"),
        }));
    }
    out
}

/// A displacement's lightmap sample positions start inside their lump.
fn disp_sample_start(bsp: &Bsp, d: &DispInfo, faults: &mut Vec<String>) {
    let samples = bsp.disp_lightmap_sample_positions.len();
    // Console builds strip the sample positions but keep the starts.
    let start = d.lightmap_sample_position_start;
    if samples > 0 && (start < 0 || start as usize >= samples) {
        faults.push(format!(
            "lightmap sample positions start at byte {start}, past DISP_LIGHTMAP_SAMPLE_POSITIONS ({samples} bytes)"
        ));
    }
}

/// A displacement's power, and its vertices and triangles inside their lumps.
fn disp_ranges(bsp: &Bsp, d: &DispInfo, faults: &mut Vec<String>) {
    if !(2..=4).contains(&d.power) {
        faults.push(format!("power {} is not 2, 3 or 4", d.power));
        return;
    }
    let span = |first: i32, n: usize, len: usize| {
        first >= 0 && (first as usize).checked_add(n).is_some_and(|end| end <= len)
    };
    let (verts, tris) = (d.vert_count(), d.tri_count());
    if !span(d.disp_vert_start, verts, bsp.disp_verts.len()) {
        faults.push(format!(
            "vertices {}..+{verts} are past DISP_VERTS ({} vertices)",
            d.disp_vert_start,
            bsp.disp_verts.len()
        ));
    }
    if !span(d.disp_tri_start, tris, bsp.disp_tris.len()) {
        faults.push(format!(
            "triangles {}..+{tris} are past DISP_TRIS ({} triangles)",
            d.disp_tri_start,
            bsp.disp_tris.len()
        ));
    }
}

/// Displacement `i`'s base face: in range, pointing back at it, a quad.
fn disp_base_face(faces: &[Face], d: &DispInfo, i: usize, faults: &mut Vec<String>) {
    let Some(f) = faces.get(d.map_face as usize) else {
        faults.push(format!(
            "map face {} is out of range (FACES has {})",
            d.map_face,
            faces.len()
        ));
        return;
    };
    if f.dispinfo as i64 != i as i64 {
        faults.push(format!(
            "map face {} points at dispinfo {}, not back at this one",
            d.map_face, f.dispinfo
        ));
    }
    if f.num_edges != 4 {
        faults.push(format!(
            "map face {} has {} edges, not 4",
            d.map_face, f.num_edges
        ));
    }
}

/// Displacement `i`'s edge and corner neighbours: in range and listing `i` back (`none`
/// marks an empty edge slot).
fn disp_neighbours(infos: &[DispInfo], d: &DispInfo, i: usize, none: u32, faults: &mut Vec<String>) {
    disp_edge_neighbours(infos, d, i, none, faults);
    disp_corner_neighbours(infos, d, i, faults);
}

fn disp_edge_neighbours(infos: &[DispInfo], d: &DispInfo, i: usize, none: u32, faults: &mut Vec<String>) {
    let count = infos.len();
    for (edge, subs) in d.edge_neighbors.iter().enumerate() {
        for (half, sub) in subs.iter().enumerate() {
            let n = sub.neighbor;
            if n == none {
                continue;
            }
            if n as usize >= count {
                faults.push(format!(
                    "edge {edge} neighbour {half} is dispinfo {n}, out of range ({count} dispinfos)"
                ));
            } else if !edge_lists(&infos[n as usize], i) {
                faults.push(format!(
                    "edge {edge} lists dispinfo {n} as a neighbour, but no edge of {n} lists {i}"
                ));
            }
        }
    }
}

fn disp_corner_neighbours(infos: &[DispInfo], d: &DispInfo, i: usize, faults: &mut Vec<String>) {
    let count = infos.len();
    for (corner, c) in d.corner_neighbors.iter().enumerate() {
        if c.count as usize > c.neighbors.len() {
            faults.push(format!(
                "corner {corner} claims {} neighbours, at most {} fit",
                c.count,
                c.neighbors.len()
            ));
        }
        for &n in c.neighbors.iter().take(c.count as usize) {
            if n as usize >= count {
                faults.push(format!(
                    "corner {corner} neighbour is dispinfo {n}, out of range ({count} dispinfos)"
                ));
            } else if !corner_lists(&infos[n as usize], i) {
                faults.push(format!(
                    "corner {corner} lists dispinfo {n} as a neighbour, but no corner of {n} lists {i}"
                ));
            }
        }
    }
}

/// Whether an edge of `d` lists displacement `i` as a neighbour.
fn edge_lists(d: &DispInfo, i: usize) -> bool {
    d.edge_neighbors
        .iter()
        .flatten()
        .any(|sub| sub.neighbor as usize == i)
}

/// Whether a corner of `d` lists displacement `i` as a neighbour.
fn corner_lists(d: &DispInfo, i: usize) -> bool {
    d.corner_neighbors.iter().any(|c| {
        c.neighbors
            .iter()
            .take(c.count as usize)
            .any(|&n| n as usize == i)
    })
}

/// Valve's `OVERLAY_BSP_FACE_COUNT`: the face slots of one overlay record.
pub const OVERLAY_BSP_FACE_COUNT: usize = 64;
/// Valve's `WATEROVERLAY_BSP_FACE_COUNT`: the face slots of one water overlay record.
pub const WATEROVERLAY_BSP_FACE_COUNT: usize = 256;

/// Collects the violations of one lump's records, each message opening with the record's
/// name, index and byte offset in the lump (records `stride` bytes apart from `start`).
struct RecordFaults<'a> {
    out: &'a mut Vec<Violation>,
    lump: usize,
    name: &'static str,
    start: usize,
    stride: usize,
}

impl RecordFaults<'_> {
    fn fail(&mut self, i: usize, message: String) {
        let at = self.start + i * self.stride;
        self.out.push(Violation {
            lump: self.lump,
            record: Some(i),
            message: format!("{} {i} (byte {at}): {message}", self.name),
        });
    }
    /// `index` must name one of the `len` records of `target` (-1 too when `none_allowed`).
    fn index(&mut self, i: usize, what: &str, index: i64, none_allowed: bool, len: usize, target: usize) {
        let none = none_allowed && index == -1;
        if !none && !(0..len as i64).contains(&index) {
            self.fail(
                i,
                format!("{what} {index} is out of range ({} has {len})", lump_name(target)),
            );
        }
    }
    /// `first .. first + n` must lie within the `len` entries of `target`.
    fn span(&mut self, i: usize, what: &str, first: i64, n: i64, len: usize, target: &str) {
        if n != 0 && (first < 0 || n < 0 || first + n > len as i64) {
            self.fail(
                i,
                format!(
                    "{what} {first}..{} are out of range ({target} has {len})",
                    first + n
                ),
            );
        }
    }
}

/// The overlay and water overlay records: texinfo in range, a face count within Valve's
/// per-record limit and every listed face in range; OVERLAY_FADES, when present, has one
/// record per overlay. Each message names the record's byte offset in its lump.
pub fn overlays(bsp: &Bsp) -> Vec<Violation> {
    use crate::codec::Record;
    use crate::records::{OverlayRecord, WaterOverlayRecord};
    let mut out = Vec::new();
    let lists = [
        OverlayList {
            lump: OVERLAYS,
            overlays: &bsp.overlays,
            name: "overlay",
            stride: OverlayRecord::size(&bsp.ctx(OVERLAYS)),
            limit: (OVERLAY_BSP_FACE_COUNT, "OVERLAY_BSP_FACE_COUNT"),
        },
        OverlayList {
            lump: WATEROVERLAYS,
            overlays: &bsp.water_overlays,
            name: "water overlay",
            stride: WaterOverlayRecord::size(&bsp.ctx(WATEROVERLAYS)),
            limit: (WATEROVERLAY_BSP_FACE_COUNT, "WATEROVERLAY_BSP_FACE_COUNT"),
        },
    ];
    for list in lists {
        list.check(bsp, &mut out);
    }
    out.extend(overlay_fade_count(bsp));
    out
}

/// OVERLAY_FADES, when present, has one record per overlay.
fn overlay_fade_count(bsp: &Bsp) -> Option<Violation> {
    if bsp.overlay_fades.is_empty() || bsp.overlay_fades.len() == bsp.overlays.len() {
        return None;
    }
    Some(Violation {
        lump: OVERLAY_FADES,
        record: None,
        message: format!(
            "{} fades for {} overlays (OVERLAYS): there must be one per overlay",
            bsp.overlay_fades.len(),
            bsp.overlays.len()
        ),
    })
}

/// One overlay lump for [`overlays`]: its records, their name and size, and Valve's limit on
/// the faces of one record.
struct OverlayList<'a> {
    lump: usize,
    overlays: &'a [Overlay],
    name: &'static str,
    stride: Option<usize>,
    limit: (usize, &'static str),
}

impl OverlayList<'_> {
    fn check(&self, bsp: &Bsp, out: &mut Vec<Violation>) {
        let (limit, limit_name) = self.limit;
        // Console builds keep only the HDR faces.
        let faces = drawn_face_count(bsp);
        let mut faults = RecordFaults {
            out,
            lump: self.lump,
            name: self.name,
            start: 0,
            stride: self.stride.unwrap_or(0),
        };
        for (i, o) in self.overlays.iter().enumerate() {
            // vbsp creates a texinfo for every overlay, so -1 is no "none" here.
            faults.index(i, "texinfo", o.texinfo as i64, false, bsp.texinfo.len(), TEXINFO);
            let count = o.face_count();
            if count > limit.min(o.faces.len()) {
                faults.fail(i, format!("face count {count} exceeds {limit_name} ({limit})"));
            }
            for &f in o.faces.iter().take(count.min(limit)) {
                faults.index(i, "listed face", f as i64, false, faces, FACES);
            }
        }
    }
}

/// The occlusion lump's three lists: each occluder's polygons inside the polygon list, each
/// polygon's vertex indices inside the index list and its plane in range, each vertex index
/// naming a vertex of VERTEXES. Each message names the entry's byte offset in OCCLUSION.
pub fn occlusion(bsp: &Bsp) -> Vec<Violation> {
    let mut out = Vec::new();
    let Some(o) = &bsp.occlusion else {
        return out;
    };
    let with_area = bsp.ctx(OCCLUSION).lump_version >= crate::versions::OCCLUSION_VERSION;
    // Three counted lists, each after its 4-byte count.
    let occluders_at = 4;
    let polys_at = occluders_at + o.occluders.len() * if with_area { 40 } else { 36 } + 4;
    let indices_at = polys_at + o.polys.len() * 12 + 4;
    let mut faults = occlusion_list(
        &mut out,
        "occluder",
        occluders_at,
        if with_area { 40 } else { 36 },
    );
    for (i, d) in o.occluders.iter().enumerate() {
        let (first, n) = (d.first_poly as i64, d.poly_count as i64);
        faults.span(i, "polygons", first, n, o.polys.len(), "the polygon list");
    }
    occluder_poly_references(bsp, o, occlusion_list(&mut out, "occluder polygon", polys_at, 12));
    let mut faults = occlusion_list(&mut out, "occluder vertex index", indices_at, 4);
    for (i, &v) in o.vertex_indices.iter().enumerate() {
        faults.index(i, "vertex", v as i64, false, bsp.vertexes.len(), VERTEXES);
    }
    out
}

/// The faults of one of the occlusion lump's lists, entries `stride` bytes apart from `start`.
fn occlusion_list<'a>(
    out: &'a mut Vec<Violation>,
    name: &'static str,
    start: usize,
    stride: usize,
) -> RecordFaults<'a> {
    RecordFaults {
        out,
        lump: OCCLUSION,
        name,
        start,
        stride,
    }
}

/// Occluder polygons' vertex indices inside the index list, their planes in range.
fn occluder_poly_references(bsp: &Bsp, o: &crate::occlusion::Occlusion, mut faults: RecordFaults<'_>) {
    for (i, p) in o.polys.iter().enumerate() {
        faults.span(
            i,
            "vertex indices",
            p.first_vertex_index as i64,
            p.vertex_count as i64,
            o.vertex_indices.len(),
            "the vertex index list",
        );
        faults.index(i, "plane", p.plane as i64, false, bsp.planes.len(), PLANES);
    }
}

/// Physics collision: physcollide's models name brush models in ascending order, each model's
/// solids read completely (IVP compact surfaces: offsets in range, records apart), every edge
/// has its twin, ledges are closed and convex, ledge points lie in their tree nodes' spheres,
/// the key data's solid blocks name solids of the model; physdisp has one entry per displacement,
/// each packed hull closed (every edge in two triangles, once each way) over the displacement's vertices.
pub fn physics(bsp: &Bsp) -> Vec<Violation> {
    let mut c = Checker { out: Vec::new() };
    // Console (big-endian) collision is not read by srcmap-phys.
    if let Some(pc) = bsp
        .phys_collide
        .as_ref()
        .filter(|_| bsp.endian == srcmap_bytes::Endian::Little)
    {
        physcollide_model_order(bsp, pc, &mut c);
        match pc.read_models(0) {
            Err(e) => c.fail(PHYSCOLLIDE, None, format!("{e} (offset within the lump)")),
            Ok(models) => {
                for (i, m) in models.iter().enumerate() {
                    physcollide_model(i, m, &mut c);
                }
            }
        }
    }
    if let Some(pd) = &bsp.phys_disp {
        physdisp_hulls(bsp, pd, &mut c);
    }
    c.out
}

/// IVP units are metres: half a millimetre, twice VPhysics' vertex merge distance (0.01
/// unit), since merged corners may tilt a small triangle by that much.
const PHYSICS_TOLERANCE: f32 = 5e-4;

/// Physcollide's models name brush models, in ascending order.
fn physcollide_model_order(bsp: &Bsp, pc: &crate::physics::PhysCollide, c: &mut Checker) {
    let mut last = -1;
    for (i, m) in pc.models.iter().enumerate() {
        if m.model_index <= last || m.model_index as usize >= bsp.models.len() {
            c.fail(
                PHYSCOLLIDE,
                Some(i),
                format!(
                    "model index {} is out of order or out of range ({} models)",
                    m.model_index,
                    bsp.models.len()
                ),
            );
        }
        last = m.model_index;
    }
}

/// Collision model `i`: its solids' compact surfaces verify, its key data's solid blocks name
/// its solids.
fn physcollide_model(i: usize, m: &srcmap_phys::ModelCollision, c: &mut Checker) {
    for (s, solid) in m.solids.iter().enumerate() {
        let Some(surface) = solid.surface() else { continue };
        for problem in surface.verify(PHYSICS_TOLERANCE).into_iter().take(5) {
            c.fail(
                PHYSCOLLIDE,
                Some(i),
                format!("model {} solid {s}: {problem}", m.model_index),
            );
        }
    }
    for b in m.key_data.solids() {
        let index = b.get("index").and_then(|v| v.parse::<usize>().ok());
        if index.is_none_or(|x| x >= m.solids.len()) {
            c.fail(
                PHYSCOLLIDE,
                Some(i),
                format!(
                    "model {}: key data solid index {:?} does not name one of its {} solids",
                    m.model_index,
                    b.get("index"),
                    m.solids.len()
                ),
            );
        }
    }
}

/// Physdisp: one entry per displacement, each packed hull closed over the displacement's
/// vertices.
fn physdisp_hulls(bsp: &Bsp, pd: &crate::physics::PhysDisp, c: &mut Checker) {
    if pd.blobs.len() != bsp.disp_info.len() {
        c.fail(
            PHYSDISP,
            None,
            format!(
                "{} entries for {} displacements",
                pd.blobs.len(),
                bsp.disp_info.len()
            ),
        );
    }
    let hulls = match pd.read_hulls(0) {
        Err(e) => return c.fail(PHYSDISP, None, format!("{e} (offset within the lump)")),
        Ok(hulls) => hulls,
    };
    for (i, hull) in hulls.iter().enumerate() {
        let (Some(hull), Some(disp)) = (hull, bsp.disp_info.get(i)) else {
            continue;
        };
        for problem in hull.verify(disp.vert_count()).into_iter().take(5) {
            c.fail(
                PHYSDISP,
                Some(i),
                format!("displacement {i}: packed hull: {problem}"),
            );
        }
    }
}

/// Water volumes: every leaf's leaf water data index in range or -1, and every water data
/// entry's surface texinfo in range (or -1, which Valve's writer skips). Each message names the record's byte offset in
/// LEAFS or LEAFWATERDATA.
pub fn water(bsp: &Bsp) -> Vec<Violation> {
    use crate::codec::Record;
    use crate::records::LeafWaterData;
    let mut out = Vec::new();
    let mut faults = RecordFaults {
        out: &mut out,
        lump: LEAFS,
        name: "leaf",
        start: 0,
        stride: Leaf::size(&bsp.ctx(LEAFS)).unwrap_or(0),
    };
    for (i, l) in bsp.leafs.iter().enumerate() {
        let (index, len) = (l.leaf_water_data as i64, bsp.leaf_water_data.len());
        faults.index(i, "leaf water data", index, true, len, LEAFWATERDATA);
    }
    let mut faults = RecordFaults {
        lump: LEAFWATERDATA,
        name: "leaf water data",
        stride: LeafWaterData::size(&bsp.ctx(LEAFWATERDATA)).unwrap_or(0),
        ..faults
    };
    for (i, w) in bsp.leaf_water_data.iter().enumerate() {
        let (index, len) = (w.surface_texinfo as i64, bsp.texinfo.len());
        faults.index(i, "surface texinfo", index, true, len, TEXINFO);
    }
    out
}

#[cfg(test)]
mod quirk_tests {
    use super::*;

    fn cubes(n: usize, size: usize) -> Vec<u8> {
        (0..n * size).map(|i| (i * 37 % 251) as u8).collect()
    }

    /// Leaf ambient lighting (55, 56): version 1 is `dleafambientlighting_t` (28 bytes); any
    /// other version with a whole number of 24-byte light cubes is the legacy per-leaf layout,
    /// kept as bytes (written back unchanged) and reported as a warning.
    #[test]
    fn legacy_leaf_ambient_lighting_is_kept_as_bytes_with_a_warning() {
        for lump in [LEAF_AMBIENT_LIGHTING_HDR, LEAF_AMBIENT_LIGHTING] {
            // 7 cubes of 24 bytes (168 bytes: a whole number of 28-byte records too), and 5
            // cubes (120 bytes: not), at a stray version (the length) and at version 0.
            for (n, version) in [(7usize, 168u32), (5, 120), (5, 0), (7, 0)] {
                let data = cubes(n, 24);
                let mut bsp = Bsp::new(20);
                bsp.lump_versions[lump] = version;
                bsp.parse_lump(lump, &data, 0).unwrap();
                assert_eq!(bsp.raw.get(&lump), Some(&data), "lump {lump} v{version}");
                assert!(bsp.leaf_ambient_lighting.is_empty() && bsp.leaf_ambient_lighting_hdr.is_empty());
                assert_eq!(bsp.lump_bytes(lump).unwrap(), data);
                let q = quirks(&bsp);
                assert_eq!(q.len(), 1);
                assert_eq!(q[0].lump, lump);
                assert!(
                    q[0].message.contains(&format!("{n} per-leaf light cubes")),
                    "{}",
                    q[0]
                );
                assert!(check(&bsp).is_empty());
            }

            // Version 1: 28-byte records, typed, round trip, no warning.
            let data = cubes(6, 28);
            let mut bsp = Bsp::new(20);
            bsp.parse_lump(lump, &data, 0).unwrap();
            assert!(bsp.raw.is_empty());
            let typed = if lump == LEAF_AMBIENT_LIGHTING {
                &bsp.leaf_ambient_lighting
            } else {
                &bsp.leaf_ambient_lighting_hdr
            };
            assert_eq!(typed.len(), 6);
            assert_eq!(bsp.lump_bytes(lump).unwrap(), data);
            assert!(quirks(&bsp).is_empty());

            // Another version but only a whole number of 28-byte records: typed as those.
            let data = cubes(2, 28);
            let mut bsp = Bsp::new(20);
            bsp.lump_versions[lump] = 0;
            bsp.parse_lump(lump, &data, 0).unwrap();
            assert!(bsp.raw.is_empty());
            assert_eq!(bsp.lump_bytes(lump).unwrap(), data);

            // Version 1 with 24-byte cubes (not a whole number of 28) is still an error.
            let mut bsp = Bsp::new(20);
            assert!(bsp.parse_lump(lump, &cubes(5, 24), 0).is_err());
        }
    }

    /// Lighting (8, 53) one to three bytes longer than a whole number of 4-byte samples: the
    /// engine copies the lump as one block, so it loads. The samples are typed, the odd bytes
    /// kept (a file round trip is byte-identical), `check` warns and does not fail, and
    /// replacing the samples drops the old tail.
    #[test]
    fn lighting_bytes_past_the_last_sample_are_kept_with_a_warning() {
        for lump in [LIGHTING, LIGHTING_HDR] {
            for extra in 1..4 {
                let data = cubes(5, 4)
                    .into_iter()
                    .chain((0..extra).map(|i| 0xA0 + i as u8))
                    .collect::<Vec<_>>();
                let mut bsp = Bsp::new(20);
                bsp.parse_lump(lump, &data, 0).unwrap();
                let samples = if lump == LIGHTING {
                    &bsp.lighting
                } else {
                    &bsp.lighting_hdr
                };
                assert_eq!(samples.len(), 5);
                assert_eq!(bsp.tails.get(&lump).map(Vec::len), Some(extra));
                assert_eq!(bsp.lump_bytes(lump).unwrap(), data);
                let q = quirks(&bsp);
                assert_eq!(q.len(), 1, "{q:?}");
                assert_eq!(q[0].lump, lump);
                assert!(
                    q[0].message.starts_with(&format!("{extra} byte(s) past")),
                    "{}",
                    q[0]
                );
                assert!(check(&bsp).is_empty(), "{:?}", check(&bsp));

                let file = bsp.to_bytes().unwrap();
                let again = Bsp::parse(&file).unwrap();
                assert_eq!(again, bsp);
                assert_eq!(again.to_bytes().unwrap(), file);
            }
        }
        let mut bsp = Bsp::new(20);
        bsp.parse_lump(LIGHTING, &[1, 2, 3, 4, 5], 0).unwrap();
        bsp.parse_lump(LIGHTING, &[1, 2, 3, 4], 0).unwrap();
        assert!(bsp.tails.is_empty() && quirks(&bsp).is_empty());
    }

    /// A texture size of zero (a tool that found no texture) is a warning the file still
    /// writes with; a negative one (an overflowed size) is refused by the writer and `check`.
    #[test]
    fn zero_texture_size_is_a_quirk_and_negative_is_refused() {
        let mut bsp = Bsp::new(20);
        let name_id = bsp.add_texdata_name("DEV/NOSIZE");
        bsp.texdata.push(crate::TexData {
            name_id,
            ..Default::default()
        });
        let q = quirks(&bsp);
        assert_eq!(q.len(), 1, "{q:?}");
        assert!(q[0].message.contains("zero side"), "{}", q[0]);
        assert!(check(&bsp).is_empty(), "{:?}", check(&bsp));
        assert!(bsp.to_bytes().is_ok());

        bsp.texdata[0].width = -1;
        assert!(check(&bsp)[0].message.contains("negative"));
        assert!(bsp.to_bytes().is_err());
    }
}
