//! Decoding, following the version gates of Valve's `CNavMesh::Load` / `CNavArea::Load`.

use srcmap_bytes::{Endian, ReadError, Reader};

use crate::*;

/// Longest fixed per-area tail tried for an unknown game.
const MAX_UNKNOWN_TAIL: u32 = 64;

pub(crate) fn read(data: &[u8], forced: Option<GameLayout>) -> Result<NavMesh, NavError> {
    let (version, sub) = peek_version(data)?;
    let sub_version = sub.unwrap_or(0);
    if version >= 30 {
        return Err(NavError::Source2 { version, sub_version });
    }
    if version == 0 || version > MAX_SOURCE1_VERSION {
        return Err(NavError::UnknownVersion { version });
    }
    if let Some(layout) = forced {
        return parse(data, layout);
    }
    let candidates = candidates(version, sub_version);
    let mut first_err = None;
    let mut fallback = None;
    for &layout in &candidates {
        match parse(data, layout) {
            // A fit means the file parses to its end, leaving only what the layout expects after
            // the ladders; a known layout with other trailing bytes is kept as a fallback.
            Ok(mesh) => {
                let expected_tail = if layout == GameLayout::L4d2 { 4 } else { 0 };
                if mesh.post_mesh_data.len() == expected_tail {
                    return Ok(mesh);
                }
                // L4D2's tail is one f32; anything else means the layout is wrong or the file cut.
                if fallback.is_none() && !matches!(layout, GameLayout::UnknownFixed(_) | GameLayout::L4d2) {
                    fallback = Some(mesh);
                }
            }
            Err(e) => {
                if first_err.is_none() {
                    first_err = Some(e);
                }
            }
        }
    }
    if let Some(mesh) = fallback {
        return Ok(mesh);
    }
    let first = first_err.unwrap_or(NavError::UnknownVersion { version });
    if candidates.len() == 1 {
        return Err(first);
    }
    let named: Vec<String> = candidates
        .iter()
        .filter(|l| !matches!(l, GameLayout::UnknownFixed(_)))
        .map(|l| l.name())
        .chain(std::iter::once(format!(
            "0-{MAX_UNKNOWN_TAIL} raw bytes per area"
        )))
        .collect();
    Err(NavError::NoLayout {
        version,
        sub_version,
        tried: named.join(", "),
        first: Box::new(first),
    })
}

/// Layouts to try, most likely first.
fn candidates(version: u32, sub: u32) -> Vec<GameLayout> {
    if version < 10 {
        // No sub-version field: no game data is possible.
        return vec![GameLayout::Base];
    }
    let mut v = match sub {
        0 => vec![GameLayout::Base, GameLayout::L4d2],
        1 => vec![GameLayout::CounterStrike, GameLayout::L4d2, GameLayout::Base],
        2 => vec![GameLayout::Tf2, GameLayout::L4d2],
        _ => vec![GameLayout::L4d2, GameLayout::Tf2],
    };
    v.extend((0..=MAX_UNKNOWN_TAIL).map(GameLayout::UnknownFixed));
    v
}

struct Parser<'a> {
    r: Reader<'a>,
    version: u32,
    sub: u32,
    layout: GameLayout,
}

fn ctx(what: impl Into<String>) -> impl FnOnce(ReadError) -> NavError {
    let context = what.into();
    move |source| NavError::Read { context, source }
}

fn parse(data: &[u8], layout: GameLayout) -> Result<NavMesh, NavError> {
    let mut r = Reader::new(data, Endian::Little);
    let h = ctx("header");
    let header = (|| -> Result<_, ReadError> {
        let _magic = r.u32()?;
        let version = r.u32()?;
        let sub = if version >= 10 { Some(r.u32()?) } else { None };
        let bsp = if version >= 4 { Some(r.u32()?) } else { None };
        let analyzed = if version >= 14 { Some(r.u8()?) } else { None };
        Ok((version, sub, bsp, analyzed))
    })()
    .map_err(h)?;
    let (version, sub_version, bsp_size, is_analyzed) = header;
    let mut p = Parser {
        r,
        version,
        sub: sub_version.unwrap_or(0),
        layout,
    };

    let mut places = Vec::new();
    let mut has_unnamed_areas = None;
    if version >= 5 {
        (|| -> Result<(), ReadError> {
            let count = p.r.u16()?;
            p.r.check_count(count as u64, 2)?;
            places.reserve(count as usize);
            for _ in 0..count {
                let len = p.r.u16()? as usize;
                places.push(PlaceName(p.r.bytes(len)?.to_vec()));
            }
            if version >= 12 {
                has_unnamed_areas = Some(p.r.u8()?);
            }
            Ok(())
        })()
        .map_err(ctx("place directory"))?;
    }

    let pre_start = p.r.position();
    if layout == GameLayout::L4d2 && p.sub > 7 {
        (|| -> Result<(), ReadError> {
            if p.sub >= 12 {
                p.r.cstr()?; // zombie population name
            }
            let n = p.r.u16()?;
            p.r.check_count(n as u64, 2)?;
            for _ in 0..n {
                let len = p.r.u16()? as usize;
                p.r.skip(len)?;
            }
            Ok(())
        })()
        .map_err(ctx("L4D2 pre-area data"))?;
    }
    let pre_area_data = p.r.data()[pre_start..p.r.position()].to_vec();

    let area_count = p.r.u32().map_err(ctx("area count"))?;
    // The smallest area record is 48 bytes (v1: id, flags, corners, heights, 4 counts…).
    p.r.check_count(area_count as u64, 40)
        .map_err(ctx("area count"))?;
    let mut areas = Vec::with_capacity(area_count as usize);
    for i in 0..area_count {
        let start = p.r.offset();
        let area = p.area().map_err(|e| NavError::Read {
            context: format!("area #{i} (starting at byte {start}, layout {})", layout.name()),
            source: e,
        })?;
        areas.push(area);
    }

    let ladders = if version >= 6 {
        let count = p.r.u32().map_err(ctx("ladder count"))?;
        p.r.check_count(count as u64, 56).map_err(ctx("ladder count"))?;
        let mut ladders = Vec::with_capacity(count as usize);
        for i in 0..count {
            ladders.push(p.ladder().map_err(ctx(format!("ladder #{i}")))?);
        }
        Some(ladders)
    } else {
        None
    };
    let post_mesh_data = p.r.rest().to_vec();
    Ok(NavMesh {
        version,
        sub_version,
        bsp_size,
        is_analyzed,
        places,
        has_unnamed_areas,
        pre_area_data,
        areas,
        ladders,
        post_mesh_data,
        layout,
    })
}

impl Parser<'_> {
    fn id_list(&mut self) -> Result<Vec<u32>, ReadError> {
        let n = self.r.u32()?;
        let n = self.r.check_count(n as u64, 4)?;
        (0..n).map(|_| self.r.u32()).collect()
    }

    fn approach(&mut self) -> Result<Approach, ReadError> {
        Ok(Approach {
            here: self.r.u32()?,
            prev: self.r.u32()?,
            prev_to_here: self.r.u8()?,
            next: self.r.u32()?,
            here_to_next: self.r.u8()?,
        })
    }

    fn approaches(&mut self) -> Result<Vec<Approach>, ReadError> {
        let n = self.r.u8()? as usize;
        self.r.check_count(n as u64, 14)?;
        (0..n).map(|_| self.approach()).collect()
    }

    fn area(&mut self) -> Result<NavArea, ReadError> {
        let v = self.version;
        let r = &mut self.r;
        let id = r.u32()?;
        let attributes = if v <= 8 {
            r.u8()? as u32
        } else if v <= 12 {
            r.u16()? as u32
        } else {
            r.u32()?
        };
        let nw_corner = r.vec3()?;
        let se_corner = r.vec3()?;
        let ne_z = r.f32()?;
        let sw_z = r.f32()?;
        let connections = [self.id_list()?, self.id_list()?, self.id_list()?, self.id_list()?];
        let r = &mut self.r;
        let spot_count = r.u8()? as usize;
        r.check_count(spot_count as u64, if v == 1 { 12 } else { 17 })?;
        let mut hiding_spots = Vec::with_capacity(spot_count);
        for _ in 0..spot_count {
            hiding_spots.push(if v == 1 {
                HidingSpot {
                    id: 0,
                    position: r.vec3()?,
                    flags: 0,
                }
            } else {
                HidingSpot {
                    id: r.u32()?,
                    position: r.vec3()?,
                    flags: r.u8()?,
                }
            });
        }
        let approaches = if v < 15 { self.approaches()? } else { Vec::new() };
        let r = &mut self.r;
        let path_count = r.u32()?;
        let mut area = NavArea {
            id,
            attributes,
            nw_corner,
            se_corner,
            ne_z,
            sw_z,
            connections,
            hiding_spots,
            approaches,
            encounter_paths: EncounterPaths::New(Vec::new()),
            place: 0,
            ladder_connections: [Vec::new(), Vec::new()],
            earliest_occupy_time: [0.0; 2],
            light_intensity: [0.0; 4],
            visible_areas: Vec::new(),
            inherit_visibility_from: 0,
            custom: AreaCustom::None,
        };
        if v < 3 {
            let n = r.check_count(path_count as u64, 33)?;
            let mut paths = Vec::with_capacity(n);
            for _ in 0..n {
                let from = r.u32()?;
                let to = r.u32()?;
                let path_from = r.vec3()?;
                let path_to = r.vec3()?;
                let spots = r.u8()? as usize;
                r.check_count(spots as u64, 16)?;
                let spots = (0..spots)
                    .map(|_| Ok([r.f32()?, r.f32()?, r.f32()?, r.f32()?]))
                    .collect::<Result<_, ReadError>>()?;
                paths.push(OldEncounterPath {
                    from,
                    to,
                    path_from,
                    path_to,
                    spots,
                });
            }
            area.encounter_paths = EncounterPaths::Old(paths);
            return Ok(area);
        }
        let n = r.check_count(path_count as u64, 11)?;
        let mut paths = Vec::with_capacity(n);
        for _ in 0..n {
            let from_area = r.u32()?;
            let from_dir = r.u8()?;
            let to_area = r.u32()?;
            let to_dir = r.u8()?;
            let spots = r.u8()? as usize;
            r.check_count(spots as u64, 5)?;
            let spots = (0..spots)
                .map(|_| {
                    Ok(EncounterSpot {
                        hiding_spot: r.u32()?,
                        t: r.u8()?,
                    })
                })
                .collect::<Result<_, ReadError>>()?;
            paths.push(EncounterPath {
                from_area,
                from_dir,
                to_area,
                to_dir,
                spots,
            });
        }
        area.encounter_paths = EncounterPaths::New(paths);
        if v < 5 {
            return Ok(area);
        }
        area.place = r.u16()?;
        if v < 7 {
            return Ok(area);
        }
        area.ladder_connections = [self.id_list()?, self.id_list()?];
        if v < 8 {
            return Ok(area);
        }
        let r = &mut self.r;
        area.earliest_occupy_time = [r.f32()?, r.f32()?];
        if v < 11 {
            return self.custom(area);
        }
        area.light_intensity = [r.f32()?, r.f32()?, r.f32()?, r.f32()?];
        if v >= 16 && self.layout != GameLayout::L4d2 {
            let n = r.u32()?;
            let n = r.check_count(n as u64, 5)?;
            area.visible_areas = (0..n)
                .map(|_| {
                    Ok(VisibleArea {
                        area: r.u32()?,
                        attributes: r.u8()?,
                    })
                })
                .collect::<Result<_, ReadError>>()?;
            area.inherit_visibility_from = r.u32()?;
        }
        self.custom(area)
    }

    /// Per-area game data (only from version 10, where the sub-version exists).
    fn custom(&mut self, mut area: NavArea) -> Result<NavArea, ReadError> {
        if self.version < 10 {
            return Ok(area);
        }
        let sub = self.sub;
        area.custom = match self.layout {
            GameLayout::Base => AreaCustom::None,
            GameLayout::Tf2 => {
                if sub >= 2 {
                    AreaCustom::Tf2 {
                        attributes: self.r.u32()?,
                    }
                } else {
                    AreaCustom::None
                }
            }
            GameLayout::CounterStrike => {
                if sub == 1 && self.version >= 15 {
                    AreaCustom::CsApproaches(self.approaches()?)
                } else {
                    AreaCustom::None
                }
            }
            GameLayout::UnknownFixed(n) => AreaCustom::Raw(self.r.bytes(n as usize)?.to_vec()),
            GameLayout::L4d2 => AreaCustom::L4d2(self.l4d2()?),
        };
        Ok(area)
    }

    fn l4d2(&mut self) -> Result<L4d2Area, ReadError> {
        let sub = self.sub;
        let r = &mut self.r;
        let mut a = L4d2Area::default();
        if sub == 0 {
            return Ok(a);
        }
        let spawn = r.u32()?;
        a.spawn_attributes = Some(spawn);
        if sub >= 2 {
            for present in l4d2_extra_words(sub) {
                if present {
                    a.extra_words.push(r.u32()?);
                }
            }
            if sub > 7 {
                a.fog_place = Some(r.u16()?);
            }
        }
        if spawn & 8 != 0 && sub < 10 {
            a.spawn_extra = Some([r.u32()?, r.u32()?, r.u32()?, r.u32()?, r.u32()?]);
        }
        if (3..=9).contains(&sub) {
            let n = r.u8()? as usize;
            r.check_count(n as u64, 4)?;
            a.old_list = Some((0..n).map(|_| r.u32()).collect::<Result<_, _>>()?);
        }
        if sub >= 5 {
            let n = r.u32()?;
            let with_attr = sub >= 9;
            let n = r.check_count(n as u64, if with_attr { 5 } else { 4 })?;
            let list = (0..n)
                .map(|_| Ok((r.u32()?, if with_attr { Some(r.u8()?) } else { None })))
                .collect::<Result<_, ReadError>>()?;
            a.visible_areas = Some(list);
            if sub > 10 {
                a.inherit_visibility_from = Some(r.u32()?);
            }
        }
        Ok(a)
    }

    fn ladder(&mut self) -> Result<NavLadder, ReadError> {
        let r = &mut self.r;
        Ok(NavLadder {
            id: r.u32()?,
            width: r.f32()?,
            top: r.vec3()?,
            bottom: r.vec3()?,
            length: r.f32()?,
            direction: r.u32()?,
            is_dangling: if self.version == 6 { Some(r.u8()?) } else { None },
            top_forward_area: r.u32()?,
            top_left_area: r.u32()?,
            top_right_area: r.u32()?,
            top_behind_area: r.u32()?,
            bottom_area: r.u32()?,
        })
    }
}

/// Which of L4D2's three optional u32 words a sub-version (≥ 2) stores.
pub(crate) fn l4d2_extra_words(sub: u32) -> [bool; 3] {
    [sub < 10, sub > 3 && sub < 10, (5..=12).contains(&sub)]
}
