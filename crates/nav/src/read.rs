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
    let (fit, first_err) = first_fit(data, &candidates);
    if let Some(mesh) = fit {
        return Ok(mesh);
    }
    let first = first_err.unwrap_or(NavError::UnknownVersion { version });
    if candidates.len() == 1 {
        return Err(first);
    }
    Err(no_layout(version, sub_version, &candidates, first))
}

/// Tries the candidate layouts in order: the first that fits, else the first known layout
/// that parsed with unexpected trailing bytes (a fallback); and the first error met.
fn first_fit(data: &[u8], candidates: &[GameLayout]) -> (Option<NavMesh>, Option<NavError>) {
    let mut first_err = None;
    let mut fallback = None;
    for &layout in candidates {
        match parse(data, layout) {
            // A fit means the file parses to its end, leaving only what the layout expects after
            // the ladders; a known layout with other trailing bytes is kept as a fallback.
            Ok(mesh) => {
                let expected_tail = if layout == GameLayout::L4d2 { 4 } else { 0 };
                if mesh.post_mesh_data.len() == expected_tail {
                    return (Some(mesh), first_err);
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
    (fallback, first_err)
}

/// No candidate layout read the file: the error names those tried and the first failure.
fn no_layout(version: u32, sub_version: u32, candidates: &[GameLayout], first: NavError) -> NavError {
    let named: Vec<String> = candidates
        .iter()
        .filter(|l| !matches!(l, GameLayout::UnknownFixed(_)))
        .map(|l| l.name())
        .chain(std::iter::once(format!(
            "0-{MAX_UNKNOWN_TAIL} raw bytes per area"
        )))
        .collect();
    NavError::NoLayout {
        version,
        sub_version,
        tried: named.join(", "),
        first: Box::new(first),
    }
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

/// The file header: version, sub-version (v10+), BSP size (v4+), analyzed flag (v14+).
type Header = (u32, Option<u32>, Option<u32>, Option<u8>);

fn header(r: &mut Reader<'_>) -> Result<Header, ReadError> {
    let _magic = r.u32()?;
    let version = r.u32()?;
    let sub = if version >= 10 { Some(r.u32()?) } else { None };
    let bsp = if version >= 4 { Some(r.u32()?) } else { None };
    let analyzed = if version >= 14 { Some(r.u8()?) } else { None };
    Ok((version, sub, bsp, analyzed))
}

fn parse(data: &[u8], layout: GameLayout) -> Result<NavMesh, NavError> {
    let mut r = Reader::new(data, Endian::Little);
    let (version, sub_version, bsp_size, is_analyzed) = header(&mut r).map_err(ctx("header"))?;
    let mut p = Parser {
        r,
        version,
        sub: sub_version.unwrap_or(0),
        layout,
    };
    let (places, has_unnamed_areas) = p.places().map_err(ctx("place directory"))?;
    let pre_area_data = p.pre_area_data()?;
    let areas = p.areas()?;
    let ladders = if version >= 6 { Some(p.ladders()?) } else { None };
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
    /// The place directory (v5+): place names, then whether areas may be unnamed (v12+).
    fn places(&mut self) -> Result<(Vec<PlaceName>, Option<u8>), ReadError> {
        if self.version < 5 {
            return Ok((Vec::new(), None));
        }
        let count = self.r.u16()?;
        self.r.check_count(count as u64, 2)?;
        let mut places = Vec::with_capacity(count as usize);
        for _ in 0..count {
            let len = self.r.u16()? as usize;
            places.push(PlaceName(self.r.bytes(len)?.to_vec()));
        }
        let has_unnamed_areas = if self.version >= 12 {
            Some(self.r.u8()?)
        } else {
            None
        };
        Ok((places, has_unnamed_areas))
    }

    /// The bytes between the place directory and the areas, kept as they are (L4D2's
    /// population names, sub-version 8 on; empty otherwise).
    fn pre_area_data(&mut self) -> Result<Vec<u8>, NavError> {
        let pre_start = self.r.position();
        if self.layout == GameLayout::L4d2 && self.sub > 7 {
            self.skip_l4d2_pre_area().map_err(ctx("L4D2 pre-area data"))?;
        }
        Ok(self.r.data()[pre_start..self.r.position()].to_vec())
    }

    fn skip_l4d2_pre_area(&mut self) -> Result<(), ReadError> {
        if self.sub >= 12 {
            self.r.cstr()?; // zombie population name
        }
        let n = self.r.u16()?;
        self.r.check_count(n as u64, 2)?;
        for _ in 0..n {
            let len = self.r.u16()? as usize;
            self.r.skip(len)?;
        }
        Ok(())
    }

    fn areas(&mut self) -> Result<Vec<NavArea>, NavError> {
        let area_count = self.r.u32().map_err(ctx("area count"))?;
        // The smallest area record is 48 bytes (v1: id, flags, corners, heights, 4 counts…).
        self.r
            .check_count(area_count as u64, 40)
            .map_err(ctx("area count"))?;
        let mut areas = Vec::with_capacity(area_count as usize);
        for i in 0..area_count {
            let start = self.r.offset();
            let area = self.area().map_err(|e| NavError::Read {
                context: format!(
                    "area #{i} (starting at byte {start}, layout {})",
                    self.layout.name()
                ),
                source: e,
            })?;
            areas.push(area);
        }
        Ok(areas)
    }

    fn ladders(&mut self) -> Result<Vec<NavLadder>, NavError> {
        let count = self.r.u32().map_err(ctx("ladder count"))?;
        self.r
            .check_count(count as u64, 56)
            .map_err(ctx("ladder count"))?;
        let mut ladders = Vec::with_capacity(count as usize);
        for i in 0..count {
            ladders.push(self.ladder().map_err(ctx(format!("ladder #{i}")))?);
        }
        Ok(ladders)
    }

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

    /// One area record: the fields every version has, the encounter paths (old or new form),
    /// then what later versions added.
    fn area(&mut self) -> Result<NavArea, ReadError> {
        let v = self.version;
        let mut area = NavArea::blank();
        area.id = self.r.u32()?;
        area.attributes = self.attributes()?;
        area.nw_corner = self.r.vec3()?;
        area.se_corner = self.r.vec3()?;
        area.ne_z = self.r.f32()?;
        area.sw_z = self.r.f32()?;
        area.connections = [self.id_list()?, self.id_list()?, self.id_list()?, self.id_list()?];
        area.hiding_spots = self.hiding_spots()?;
        if v < 15 {
            area.approaches = self.approaches()?;
        }
        let path_count = self.r.u32()?;
        if v < 3 {
            area.encounter_paths = EncounterPaths::Old(self.old_encounter_paths(path_count)?);
            return Ok(area);
        }
        area.encounter_paths = EncounterPaths::New(self.encounter_paths(path_count)?);
        self.later_fields(area)
    }

    /// The attribute flags: a u8 up to v8, a u16 up to v12, a u32 after.
    fn attributes(&mut self) -> Result<u32, ReadError> {
        let v = self.version;
        Ok(if v <= 8 {
            self.r.u8()? as u32
        } else if v <= 12 {
            self.r.u16()? as u32
        } else {
            self.r.u32()?
        })
    }

    /// Hiding spots: position only in v1, with id and flags after.
    fn hiding_spots(&mut self) -> Result<Vec<HidingSpot>, ReadError> {
        let v = self.version;
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
        Ok(hiding_spots)
    }

    /// Encounter paths before v3: areas, end points and spots as four floats.
    fn old_encounter_paths(&mut self, path_count: u32) -> Result<Vec<OldEncounterPath>, ReadError> {
        let r = &mut self.r;
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
        Ok(paths)
    }

    /// Encounter paths from v3: areas and directions, spots as hiding spot and position.
    fn encounter_paths(&mut self, path_count: u32) -> Result<Vec<EncounterPath>, ReadError> {
        let r = &mut self.r;
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
        Ok(paths)
    }

    /// The fields later versions append: place (v5), ladders (v7), occupy times (v8), light
    /// intensity (v11), visible areas (v16, not L4D2), then the game's own data.
    fn later_fields(&mut self, mut area: NavArea) -> Result<NavArea, ReadError> {
        let v = self.version;
        if v < 5 {
            return Ok(area);
        }
        area.place = self.r.u16()?;
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
            self.visible_areas(&mut area)?;
        }
        self.custom(area)
    }

    fn visible_areas(&mut self, area: &mut NavArea) -> Result<(), ReadError> {
        let r = &mut self.r;
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
        Ok(())
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
        let mut a = L4d2Area::default();
        if sub == 0 {
            return Ok(a);
        }
        let spawn = self.r.u32()?;
        a.spawn_attributes = Some(spawn);
        if sub >= 2 {
            self.l4d2_extra_words(&mut a)?;
        }
        let r = &mut self.r;
        if spawn & 8 != 0 && sub < 10 {
            a.spawn_extra = Some([r.u32()?, r.u32()?, r.u32()?, r.u32()?, r.u32()?]);
        }
        if (3..=9).contains(&sub) {
            let n = r.u8()? as usize;
            r.check_count(n as u64, 4)?;
            a.old_list = Some((0..n).map(|_| r.u32()).collect::<Result<_, _>>()?);
        }
        if sub >= 5 {
            self.l4d2_visible_areas(&mut a)?;
        }
        Ok(a)
    }

    /// The optional u32 words of sub-version 2 on, then the fog place (sub-version 8 on).
    fn l4d2_extra_words(&mut self, a: &mut L4d2Area) -> Result<(), ReadError> {
        for present in l4d2_extra_words(self.sub) {
            if present {
                a.extra_words.push(self.r.u32()?);
            }
        }
        if self.sub > 7 {
            a.fog_place = Some(self.r.u16()?);
        }
        Ok(())
    }

    /// Visible areas (sub-version 5 on; attributes from 9), then the area they are inherited
    /// from (after 10).
    fn l4d2_visible_areas(&mut self, a: &mut L4d2Area) -> Result<(), ReadError> {
        let sub = self.sub;
        let r = &mut self.r;
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
        Ok(())
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
