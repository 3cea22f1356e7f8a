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
    let sub = mesh.sub_version.unwrap_or(0);
    let mut w = Writer::with_capacity(Endian::Little, 1 << 16);
    w.u32(NAV_MAGIC);
    w.u32(v);
    if v >= 10 {
        w.u32(sub);
    }
    if v >= 4 {
        w.u32(mesh.bsp_size.unwrap_or(0));
    }
    if v >= 14 {
        w.u8(mesh.is_analyzed.unwrap_or(0));
    }
    if v >= 5 {
        let n =
            u16::try_from(mesh.places.len()).map_err(|_| err("place directory", "more than 65535 places"))?;
        w.u16(n);
        for p in &mesh.places {
            let len = u16::try_from(p.0.len()).map_err(|_| err("place directory", "place name too long"))?;
            w.u16(len);
            w.bytes(&p.0);
        }
        if v >= 12 {
            w.u8(mesh.has_unnamed_areas.unwrap_or(0));
        }
    }
    w.bytes(&mesh.pre_area_data);
    w.u32(count_u32("areas", mesh.areas.len())?);
    for (i, area) in mesh.areas.iter().enumerate() {
        write_area(&mut w, mesh, area).map_err(|e| match e {
            NavError::Write { what, message } => err(format!("area #{i} (id {}): {what}", area.id), message),
            other => other,
        })?;
    }
    if v >= 6 {
        let ladders = mesh.ladders.as_deref().unwrap_or(&[]);
        w.u32(count_u32("ladders", ladders.len())?);
        for l in ladders {
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
    }
    w.bytes(&mesh.post_mesh_data);
    Ok(w.into_inner())
}

fn write_area(w: &mut Writer, mesh: &NavMesh, a: &NavArea) -> Result<(), NavError> {
    let v = mesh.version;
    w.u32(a.id);
    if v <= 8 {
        w.u8(u8::try_from(a.attributes).map_err(|_| {
            err(
                "attributes",
                format!("{:#x} needs more than 8 bits (v{v})", a.attributes),
            )
        })?);
    } else if v <= 12 {
        w.u16(u16::try_from(a.attributes).map_err(|_| {
            err(
                "attributes",
                format!("{:#x} needs more than 16 bits (v{v})", a.attributes),
            )
        })?);
    } else {
        w.u32(a.attributes);
    }
    w.vec3(a.nw_corner);
    w.vec3(a.se_corner);
    w.f32(a.ne_z);
    w.f32(a.sw_z);
    for (d, ids) in a.connections.iter().enumerate() {
        id_list(w, DIRECTIONS[d], ids)?;
    }
    w.u8(count_u8("hiding spots", a.hiding_spots.len())?);
    for s in &a.hiding_spots {
        if v == 1 {
            w.vec3(s.position);
        } else {
            w.u32(s.id);
            w.vec3(s.position);
            w.u8(s.flags);
        }
    }
    if v < 15 {
        w.u8(count_u8("approaches", a.approaches.len())?);
        for ap in &a.approaches {
            approach(w, ap);
        }
    } else if !a.approaches.is_empty() {
        return Err(err(
            "approaches",
            format!("version {v} stores no in-line approach list"),
        ));
    }
    match (&a.encounter_paths, v < 3) {
        (EncounterPaths::Old(paths), true) => {
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
            return Ok(());
        }
        (EncounterPaths::New(paths), false) => {
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
        }
        (EncounterPaths::Old(p), false) if p.is_empty() => w.u32(0),
        (EncounterPaths::New(p), true) if p.is_empty() => {
            w.u32(0);
            return Ok(());
        }
        _ => {
            return Err(err(
                "encounter paths",
                format!("layout does not match version {v}"),
            ));
        }
    }
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
            w.u32(count_u32("visible areas", a.visible_areas.len())?);
            for va in &a.visible_areas {
                w.u32(va.area);
                w.u8(va.attributes);
            }
            w.u32(a.inherit_visibility_from);
        }
    }
    if v >= 10 {
        write_custom(w, mesh, a)?;
    }
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
    let missing = |f: &str| err("L4D2 data", format!("field {f} is required by sub-version {sub}"));
    if sub == 0 {
        return Ok(());
    }
    let spawn = a.spawn_attributes.ok_or_else(|| missing("spawn_attributes"))?;
    w.u32(spawn);
    if sub >= 2 {
        let want = crate::read::l4d2_extra_words(sub).iter().filter(|p| **p).count();
        if a.extra_words.len() != want {
            return Err(missing("extra_words"));
        }
        for &x in &a.extra_words {
            w.u32(x);
        }
        if sub > 7 {
            w.u16(a.fog_place.ok_or_else(|| missing("fog_place"))?);
        }
    }
    if spawn & 8 != 0 && sub < 10 {
        for x in a.spawn_extra.ok_or_else(|| missing("spawn_extra"))? {
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
    }
    Ok(())
}
