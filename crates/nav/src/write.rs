//! Encoding: the exact mirror of `read.rs`, with the same version gates.

use srcmap_bytes::{Endian, Writer};

use crate::*;

fn err(what: impl Into<String>, message: impl Into<String>) -> NavError {
    NavError::Write {
        what: what.into(),
        message: message.into(),
    }
}

fn count_u8(what: &str, n: usize) -> Result<u8, NavError> {
    u8::try_from(n).map_err(|_| err(what, format!("{n} entries, at most 255 fit")))
}

fn count_u32(what: &str, n: usize) -> Result<u32, NavError> {
    u32::try_from(n).map_err(|_| err(what, format!("{n} entries do not fit a u32 count")))
}

fn id_list(w: &mut Writer, what: &str, ids: &[u32]) -> Result<(), NavError> {
    w.u32(count_u32(what, ids.len())?);
    for &id in ids {
        w.u32(id);
    }
    Ok(())
}

fn approach(w: &mut Writer, a: &Approach) {
    w.u32(a.here);
    w.u32(a.prev);
    w.u8(a.prev_to_here);
    w.u32(a.next);
    w.u8(a.here_to_next);
}

pub(crate) fn write(mesh: &NavMesh) -> Result<Vec<u8>, NavError> {
    let v = mesh.version;
    if v == 0 || v > MAX_SOURCE1_VERSION {
        return Err(err(
            "header",
            format!("version {v} is not a Source 1 NAV version (1-16)"),
        ));
    }
    let mut w = Writer::with_capacity(Endian::Little, 1 << 16);
    write_header(&mut w, mesh);
    if v >= 5 {
        write_places(&mut w, mesh)?;
    }
    w.bytes(&mesh.pre_area_data);
    write_areas(&mut w, mesh)?;
    if v >= 6 {
        write_ladders(&mut w, mesh)?;
    }
    w.bytes(&mesh.post_mesh_data);
    Ok(w.into_inner())
}

/// Magic, version, sub-version (v10+), BSP size (v4+), analyzed flag (v14+).
fn write_header(w: &mut Writer, mesh: &NavMesh) {
    let v = mesh.version;
    w.u32(NAV_MAGIC);
    w.u32(v);
    if v >= 10 {
        w.u32(mesh.sub_version.unwrap_or(0));
    }
    if v >= 4 {
        w.u32(mesh.bsp_size.unwrap_or(0));
    }
    if v >= 14 {
        w.u8(mesh.is_analyzed.unwrap_or(0));
    }
}

/// The place directory (v5+): place names, then whether areas may be unnamed (v12+).
fn write_places(w: &mut Writer, mesh: &NavMesh) -> Result<(), NavError> {
    let n = u16::try_from(mesh.places.len()).map_err(|_| err("place directory", "more than 65535 places"))?;
    w.u16(n);
    for p in &mesh.places {
        let len = u16::try_from(p.0.len()).map_err(|_| err("place directory", "place name too long"))?;
        w.u16(len);
        w.bytes(&p.0);
    }
    if mesh.version >= 12 {
        w.u8(mesh.has_unnamed_areas.unwrap_or(0));
    }
    Ok(())
}

/// The area count and records; an error names the area it is in.
fn write_areas(w: &mut Writer, mesh: &NavMesh) -> Result<(), NavError> {
    w.u32(count_u32("areas", mesh.areas.len())?);
    for (i, area) in mesh.areas.iter().enumerate() {
        write_area(w, mesh, area).map_err(|e| match e {
            NavError::Write { what, message } => err(format!("area #{i} (id {}): {what}", area.id), message),
            other => other,
        })?;
    }
    Ok(())
}

fn write_ladders(w: &mut Writer, mesh: &NavMesh) -> Result<(), NavError> {
    let ladders = mesh.ladders.as_deref().unwrap_or(&[]);
    w.u32(count_u32("ladders", ladders.len())?);
    for l in ladders {
        write_ladder(w, mesh.version, l);
    }
    Ok(())
}

fn write_ladder(w: &mut Writer, v: u32, l: &NavLadder) {
    w.u32(l.id);
    w.f32(l.width);
    w.vec3(l.top);
    w.vec3(l.bottom);
    w.f32(l.length);
    w.u32(l.direction);
    if v == 6 {
        w.u8(l.is_dangling.unwrap_or(0));
    }
    for id in [
        l.top_forward_area,
        l.top_left_area,
        l.top_right_area,
        l.top_behind_area,
        l.bottom_area,
    ] {
        w.u32(id);
    }
}

/// One area record, in `read`'s order: the fields every version has, the encounter paths
/// (old or new form), then what later versions added.
fn write_area(w: &mut Writer, mesh: &NavMesh, a: &NavArea) -> Result<(), NavError> {
    let v = mesh.version;
    w.u32(a.id);
    write_attributes(w, v, a.attributes)?;
    w.vec3(a.nw_corner);
    w.vec3(a.se_corner);
    w.f32(a.ne_z);
    w.f32(a.sw_z);
    for (d, ids) in a.connections.iter().enumerate() {
        id_list(w, DIRECTIONS[d], ids)?;
    }
    write_hiding_spots(w, v, &a.hiding_spots)?;
    write_approaches(w, v, &a.approaches)?;
    write_encounter_paths(w, v, &a.encounter_paths)?;
    if v < 3 {
        return Ok(());
    }
    write_later_fields(w, mesh, a)
}

/// The attribute flags: a u8 up to v8, a u16 up to v12, a u32 after.
fn write_attributes(w: &mut Writer, v: u32, attributes: u32) -> Result<(), NavError> {
    if v <= 8 {
        w.u8(u8::try_from(attributes).map_err(|_| {
            err(
                "attributes",
                format!("{attributes:#x} needs more than 8 bits (v{v})"),
            )
        })?);
    } else if v <= 12 {
        w.u16(u16::try_from(attributes).map_err(|_| {
            err(
                "attributes",
                format!("{attributes:#x} needs more than 16 bits (v{v})"),
            )
        })?);
    } else {
        w.u32(attributes);
    }
    Ok(())
}

/// Hiding spots: position only in v1, with id and flags after.
fn write_hiding_spots(w: &mut Writer, v: u32, spots: &[HidingSpot]) -> Result<(), NavError> {
    w.u8(count_u8("hiding spots", spots.len())?);
    for s in spots {
        if v == 1 {
            w.vec3(s.position);
        } else {
            w.u32(s.id);
            w.vec3(s.position);
            w.u8(s.flags);
        }
    }
    Ok(())
}

/// The in-line approach list, stored before v15 only.
fn write_approaches(w: &mut Writer, v: u32, approaches: &[Approach]) -> Result<(), NavError> {
    if v < 15 {
        w.u8(count_u8("approaches", approaches.len())?);
        for ap in approaches {
            approach(w, ap);
        }
    } else if !approaches.is_empty() {
        return Err(err(
            "approaches",
            format!("version {v} stores no in-line approach list"),
        ));
    }
    Ok(())
}

/// The encounter paths in the form the version stores (old before v3); an empty list of the
/// other form is written as an empty one of the right form.
fn write_encounter_paths(w: &mut Writer, v: u32, paths: &EncounterPaths) -> Result<(), NavError> {
    match (paths, v < 3) {
        (EncounterPaths::Old(paths), true) => write_old_encounter_paths(w, paths),
        (EncounterPaths::New(paths), false) => write_new_encounter_paths(w, paths),
        (EncounterPaths::Old(p), false) if p.is_empty() => {
            w.u32(0);
            Ok(())
        }
        (EncounterPaths::New(p), true) if p.is_empty() => {
            w.u32(0);
            Ok(())
        }
        _ => Err(err(
            "encounter paths",
            format!("layout does not match version {v}"),
        )),
    }
}

fn write_old_encounter_paths(w: &mut Writer, paths: &[OldEncounterPath]) -> Result<(), NavError> {
    w.u32(count_u32("encounter paths", paths.len())?);
    for p in paths {
        w.u32(p.from);
        w.u32(p.to);
        w.vec3(p.path_from);
        w.vec3(p.path_to);
        w.u8(count_u8("encounter spots", p.spots.len())?);
        for s in &p.spots {
            for c in s {
                w.f32(*c);
            }
        }
    }
    Ok(())
}

fn write_new_encounter_paths(w: &mut Writer, paths: &[EncounterPath]) -> Result<(), NavError> {
    w.u32(count_u32("encounter paths", paths.len())?);
    for p in paths {
        w.u32(p.from_area);
        w.u8(p.from_dir);
        w.u32(p.to_area);
        w.u8(p.to_dir);
        w.u8(count_u8("encounter spots", p.spots.len())?);
        for s in &p.spots {
            w.u32(s.hiding_spot);
            w.u8(s.t);
        }
    }
    Ok(())
}

/// The fields later versions append: place (v5), ladders (v7), occupy times (v8), light
/// intensity (v11), visible areas (v16, not L4D2), then the game's own data (v10).
fn write_later_fields(w: &mut Writer, mesh: &NavMesh, a: &NavArea) -> Result<(), NavError> {
    let v = mesh.version;
    if v < 5 {
        return Ok(());
    }
    w.u16(a.place);
    if v < 7 {
        return Ok(());
    }
    id_list(w, "ladders up", &a.ladder_connections[0])?;
    id_list(w, "ladders down", &a.ladder_connections[1])?;
    if v < 8 {
        return Ok(());
    }
    w.f32(a.earliest_occupy_time[0]);
    w.f32(a.earliest_occupy_time[1]);
    if v >= 11 {
        for c in a.light_intensity {
            w.f32(c);
        }
        if v >= 16 && mesh.layout != GameLayout::L4d2 {
            write_visible_areas(w, a)?;
        }
    }
    if v >= 10 {
        write_custom(w, mesh, a)?;
    }
    Ok(())
}

fn write_visible_areas(w: &mut Writer, a: &NavArea) -> Result<(), NavError> {
    w.u32(count_u32("visible areas", a.visible_areas.len())?);
    for va in &a.visible_areas {
        w.u32(va.area);
        w.u8(va.attributes);
    }
    w.u32(a.inherit_visibility_from);
    Ok(())
}

fn write_custom(w: &mut Writer, mesh: &NavMesh, a: &NavArea) -> Result<(), NavError> {
    let sub = mesh.sub_version.unwrap_or(0);
    let mismatch = || {
        err(
            "custom data",
            format!("does not match layout {}", mesh.layout.name()),
        )
    };
    match (&a.custom, mesh.layout) {
        (AreaCustom::None, GameLayout::Base) => {}
        (AreaCustom::None, GameLayout::Tf2) if sub < 2 => {}
        (AreaCustom::Tf2 { attributes }, GameLayout::Tf2) if sub >= 2 => w.u32(*attributes),
        (AreaCustom::None, GameLayout::CounterStrike) if !(sub == 1 && mesh.version >= 15) => {}
        (AreaCustom::CsApproaches(list), GameLayout::CounterStrike) if sub == 1 && mesh.version >= 15 => {
            w.u8(count_u8("approaches", list.len())?);
            for ap in list {
                approach(w, ap);
            }
        }
        (AreaCustom::Raw(bytes), GameLayout::UnknownFixed(n)) if bytes.len() == n as usize => w.bytes(bytes),
        (AreaCustom::L4d2(l), GameLayout::L4d2) => write_l4d2(w, sub, l)?,
        _ => return Err(mismatch()),
    }
    Ok(())
}

fn write_l4d2(w: &mut Writer, sub: u32, a: &L4d2Area) -> Result<(), NavError> {
    if sub == 0 {
        return Ok(());
    }
    let spawn = a
        .spawn_attributes
        .ok_or_else(|| l4d2_missing(sub, "spawn_attributes"))?;
    w.u32(spawn);
    if sub >= 2 {
        write_l4d2_extra_words(w, sub, a)?;
    }
    if spawn & 8 != 0 && sub < 10 {
        for x in a.spawn_extra.ok_or_else(|| l4d2_missing(sub, "spawn_extra"))? {
            w.u32(x);
        }
    }
    if (3..=9).contains(&sub) {
        let list = a.old_list.as_deref().unwrap_or(&[]);
        w.u8(count_u8("L4D2 list", list.len())?);
        for &x in list {
            w.u32(x);
        }
    }
    if sub >= 5 {
        write_l4d2_visible_areas(w, sub, a)?;
    }
    Ok(())
}

/// A field of L4D2's area data that the sub-version needs is missing.
fn l4d2_missing(sub: u32, field: &str) -> NavError {
    err(
        "L4D2 data",
        format!("field {field} is required by sub-version {sub}"),
    )
}

/// The optional u32 words of sub-version 2 on (exactly those the sub-version stores), then
/// the fog place (sub-version 8 on).
fn write_l4d2_extra_words(w: &mut Writer, sub: u32, a: &L4d2Area) -> Result<(), NavError> {
    let want = crate::read::l4d2_extra_words(sub).iter().filter(|p| **p).count();
    if a.extra_words.len() != want {
        return Err(l4d2_missing(sub, "extra_words"));
    }
    for &x in &a.extra_words {
        w.u32(x);
    }
    if sub > 7 {
        w.u16(a.fog_place.ok_or_else(|| l4d2_missing(sub, "fog_place"))?);
    }
    Ok(())
}

/// Visible areas (sub-version 5 on; attributes from 9), then the area they are inherited
/// from (after 10).
fn write_l4d2_visible_areas(w: &mut Writer, sub: u32, a: &L4d2Area) -> Result<(), NavError> {
    let list = a.visible_areas.as_deref().unwrap_or(&[]);
    w.u32(count_u32("visible areas", list.len())?);
    for &(id, attr) in list {
        w.u32(id);
        if sub >= 9 {
            w.u8(attr.unwrap_or(0));
        }
    }
    if sub > 10 {
        w.u32(a.inherit_visibility_from.unwrap_or(0));
    }
    Ok(())
}
