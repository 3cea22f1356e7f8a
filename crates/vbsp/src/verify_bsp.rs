//! Checks of the BSP records the finishing passes leave for the next (see `verify`): the
//! indices each record holds are in range of the lumps they name. Each returns the first
//! violation found, in words.

use std::fmt::Display;

use srcmap_bsp::Bsp;
use srcmap_bsp::gamelump::{DetailProps, GameLumpData};

/// `count` records from `first` lie within a lump of `len`.
fn span(what: impl Display, first: i64, count: i64, len: usize) -> Result<(), String> {
    if first < 0 || count < 0 || first + count > len as i64 {
        Err(format!("{what}: {count} from {first} out of {len}"))
    } else {
        Ok(())
    }
}

/// Index `i` lies within a lump of `len`.
fn index(what: impl Display, i: i64, len: usize) -> Result<(), String> {
    span(what, i, 1, len)
}

/// Faces, nodes, leaves and models name edges, vertices, planes, texinfos, faces and
/// brushes that exist.
pub fn records(bsp: &Bsp) -> Result<(), String> {
    faces(bsp)?;
    nodes(bsp)?;
    leaves(bsp)?;
    for (i, m) in bsp.models.iter().enumerate() {
        span(
            format_args!("model {i} faces"),
            m.first_face as i64,
            m.num_faces as i64,
            bsp.faces.len(),
        )?;
        index(
            format_args!("model {i} head"),
            m.head_node as i64,
            bsp.nodes.len(),
        )?;
    }
    Ok(())
}

fn faces(bsp: &Bsp) -> Result<(), String> {
    for (i, f) in bsp.faces.iter().enumerate() {
        span(
            format_args!("face {i} edges"),
            f.first_edge as i64,
            f.num_edges as i64,
            bsp.surfedges.len(),
        )?;
        index(format_args!("face {i} plane"), f.plane as i64, bsp.planes.len())?;
        index(
            format_args!("face {i} texinfo"),
            f.texinfo as i64,
            bsp.texinfo.len(),
        )?;
    }
    for (i, se) in bsp.surfedges.iter().enumerate() {
        index(
            format_args!("surfedge {i}"),
            se.unsigned_abs() as i64,
            bsp.edges.len(),
        )?;
    }
    for (i, e) in bsp.edges.iter().enumerate() {
        for v in e.0 {
            index(format_args!("edge {i} vertex"), v as i64, bsp.vertexes.len())?;
        }
    }
    Ok(())
}

/// A node's or model's child: a node (`>= 0`) or a leaf (`-(leaf + 1)`).
fn child(what: impl Display, c: i32, bsp: &Bsp) -> Result<(), String> {
    if c >= 0 {
        index(what, c as i64, bsp.nodes.len())
    } else {
        index(what, -1 - c as i64, bsp.leafs.len())
    }
}

fn nodes(bsp: &Bsp) -> Result<(), String> {
    for (i, n) in bsp.nodes.iter().enumerate() {
        index(format_args!("node {i} plane"), n.plane as i64, bsp.planes.len())?;
        span(
            format_args!("node {i} faces"),
            n.first_face as i64,
            n.num_faces as i64,
            bsp.faces.len(),
        )?;
        for c in n.children {
            child(format_args!("node {i} child"), c, bsp)?;
        }
    }
    Ok(())
}

fn leaves(bsp: &Bsp) -> Result<(), String> {
    for (i, l) in bsp.leafs.iter().enumerate() {
        let (first, count) = (l.first_leaf_face as i64, l.num_leaf_faces as i64);
        span(format_args!("leaf {i} faces"), first, count, bsp.leaf_faces.len())?;
        let (first, count) = (l.first_leaf_brush as i64, l.num_leaf_brushes as i64);
        span(
            format_args!("leaf {i} brushes"),
            first,
            count,
            bsp.leaf_brushes.len(),
        )?;
    }
    for (i, &f) in bsp.leaf_faces.iter().enumerate() {
        index(format_args!("leaf face {i}"), f as i64, bsp.faces.len())?;
    }
    for (i, &b) in bsp.leaf_brushes.iter().enumerate() {
        index(format_args!("leaf brush {i}"), b as i64, bsp.brushes.len())?;
    }
    Ok(())
}

/// Each leaf's water record exists (or is -1), and each record's texinfo.
pub fn water(bsp: &Bsp) -> Result<(), String> {
    for (i, l) in bsp.leafs.iter().enumerate() {
        if l.leaf_water_data != -1 {
            index(
                format_args!("leaf {i} water"),
                l.leaf_water_data as i64,
                bsp.leaf_water_data.len(),
            )?;
        }
    }
    for (i, w) in bsp.leaf_water_data.iter().enumerate() {
        index(
            format_args!("water {i} texinfo"),
            w.surface_texinfo as i64,
            bsp.texinfo.len(),
        )?;
    }
    Ok(())
}

/// Each DISPINFO's face names it back, and its vertices, triangles and lightmap samples
/// are in range; each face's DISPINFO exists.
pub fn displacements(bsp: &Bsp) -> Result<(), String> {
    for (i, d) in bsp.disp_info.iter().enumerate() {
        dispinfo(bsp, i, d)?;
    }
    for (i, f) in bsp.faces.iter().enumerate() {
        if f.dispinfo != -1 {
            index(
                format_args!("face {i} dispinfo"),
                f.dispinfo as i64,
                bsp.disp_info.len(),
            )?;
        }
    }
    Ok(())
}

fn dispinfo(bsp: &Bsp, i: usize, d: &srcmap_bsp::DispInfo) -> Result<(), String> {
    dispinfo_face(bsp, i, d.map_face)?;
    let verts = (d.disp_vert_start as i64, d.vert_count() as i64);
    span(
        format_args!("dispinfo {i} vertices"),
        verts.0,
        verts.1,
        bsp.disp_verts.len(),
    )?;
    let tris = (d.disp_tri_start as i64, d.tri_count() as i64);
    span(
        format_args!("dispinfo {i} triangles"),
        tris.0,
        tris.1,
        bsp.disp_tris.len(),
    )?;
    let samples = d.lightmap_sample_position_start as i64;
    span(
        format_args!("dispinfo {i} samples"),
        samples,
        0,
        bsp.disp_lightmap_sample_positions.len(),
    )
}

/// DISPINFO `i`'s face (unless Valve's "no face" marker) exists and names it back.
fn dispinfo_face(bsp: &Bsp, i: usize, map_face: u32) -> Result<(), String> {
    if map_face == 0xFFFE {
        return Ok(());
    }
    index(
        format_args!("dispinfo {i} face"),
        map_face as i64,
        bsp.faces.len(),
    )?;
    let named = bsp.faces[map_face as usize].dispinfo;
    if named != i as i32 {
        return Err(format!(
            "dispinfo {i}: its face {map_face} names dispinfo {named}"
        ));
    }
    Ok(())
}

/// Each physics model names a model that exists, once.
pub fn physics(bsp: &Bsp) -> Result<(), String> {
    let Some(collide) = &bsp.phys_collide else {
        return Ok(());
    };
    let mut seen = vec![false; bsp.models.len()];
    for m in &collide.models {
        index("physics model", m.model_index as i64, bsp.models.len())?;
        if std::mem::replace(&mut seen[m.model_index as usize], true) {
            return Err(format!("model {} has two physics models", m.model_index));
        }
    }
    Ok(())
}

/// Each overlay's texinfo and faces exist.
pub fn overlays(bsp: &Bsp) -> Result<(), String> {
    for (i, o) in bsp.overlays.iter().enumerate() {
        index(
            format_args!("overlay {i} texinfo"),
            o.texinfo as i64,
            bsp.texinfo.len(),
        )?;
        let count = (o.face_count_and_render_order & 0x3fff) as usize;
        span(
            format_args!("overlay {i} face list"),
            0,
            count as i64,
            o.faces.len(),
        )?;
        for &f in &o.faces[..count] {
            index(format_args!("overlay {i} face"), f as i64, bsp.faces.len())?;
        }
    }
    Ok(())
}

/// Each texdata's name is in the string table, and each table entry in the string data.
pub fn texdata(bsp: &Bsp) -> Result<(), String> {
    for (i, t) in bsp.texdata.iter().enumerate() {
        index(
            format_args!("texdata {i} name"),
            t.name_id as i64,
            bsp.texdata_string_table.len(),
        )?;
    }
    for (i, &at) in bsp.texdata_string_table.iter().enumerate() {
        index(
            format_args!("texdata string {i}"),
            at as i64,
            bsp.texdata_string_data.len(),
        )?;
    }
    Ok(())
}

/// Each static prop's model and leaves are in range.
pub fn static_props(bsp: &Bsp) -> Result<(), String> {
    let Some(sprp) = bsp.game_lumps.static_props() else {
        return Ok(());
    };
    for (i, p) in sprp.props.iter().enumerate() {
        index(
            format_args!("static prop {i} model"),
            p.prop_type as i64,
            sprp.models.len(),
        )?;
        let (first, count) = (p.first_leaf as i64, p.leaf_count as i64);
        span(
            format_args!("static prop {i} leaves"),
            first,
            count,
            sprp.leaves.len(),
        )?;
    }
    for (i, &l) in sprp.leaves.iter().enumerate() {
        index(format_args!("static prop leaf {i}"), l as i64, bsp.leafs.len())?;
    }
    Ok(())
}

/// The `dprp` game lump, when there is one.
pub fn detail_lump(bsp: &Bsp) -> Option<&DetailProps> {
    bsp.game_lumps.lumps.iter().find_map(|l| match &l.data {
        GameLumpData::DetailProps(d) => Some(d),
        _ => None,
    })
}

/// Each detail prop's model (kind 0) or sprite (the other kinds) and leaf are in range.
pub fn detail_props(bsp: &Bsp) -> Result<(), String> {
    let Some(dprp) = detail_lump(bsp) else {
        return Ok(());
    };
    for (i, o) in dprp.objects.iter().enumerate() {
        let (what, len) = if o.kind == 0 {
            ("model", dprp.models.len())
        } else {
            ("sprite", dprp.sprites.len())
        };
        index(format_args!("detail prop {i} {what}"), o.detail_model as i64, len)?;
        index(
            format_args!("detail prop {i} leaf"),
            o.leaf as i64,
            bsp.leafs.len(),
        )?;
    }
    Ok(())
}

/// The pakfile reads as a zip.
pub fn pakfile(bsp: &Bsp) -> Result<(), String> {
    srcmap_bsp::pak::Pak::parse(&bsp.pakfile, 0)
        .map(|_| ())
        .map_err(|e| format!("pakfile: {e}"))
}

/// The entity lump reads back as written, and each `*N` model it names exists.
pub fn entities(bsp: &Bsp) -> Result<(), String> {
    let text = srcmap_bsp::entities::write_entities(&bsp.entities, bsp.entities_latin1);
    let read = srcmap_bsp::entities::parse_entities(&text, srcmap_bsp::lump::ENTITIES, 0)
        .map_err(|e| format!("entity lump: {e}"))?;
    if read != bsp.entities {
        return Err("entity lump reads back differently".to_string());
    }
    for (i, e) in bsp.entities.iter().enumerate() {
        let model = e.pairs.iter().find(|(k, _)| k == "model");
        if let Some(n) = model.and_then(|(_, v)| v.strip_prefix('*')) {
            let n: i64 = n.parse().map_err(|_| format!("entity {i}: model *{n}"))?;
            index(format_args!("entity {i} model"), n, bsp.models.len())?;
        }
    }
    Ok(())
}
