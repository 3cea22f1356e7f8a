//! The generated areas and ladders as a NAV file's model, in the game's version and layout.

use srcmap_nav::{
    AreaCustom, EncounterPath, EncounterPaths, EncounterSpot, GameLayout, HidingSpot, NavArea, NavLadder,
    NavMesh, VisibleArea,
};

use crate::areas::Area;
use crate::encounter::Encounter;
use crate::game::Game;
use crate::hiding::Spot;
use crate::ladders::Ladder;
use crate::visibility::Visibility;

/// What the mesh is made of: the areas with their connections (per direction), the ladders,
/// and the hiding spots and encounters per area when the mesh was analysed.
pub struct Parts<'a> {
    pub areas: &'a [Area],
    pub links: &'a [[Vec<u32>; 4]],
    pub ladders: &'a [Ladder],
    pub analysis: Option<&'a Analysis>,
}

/// What the analysis found, per area: hiding spots, encounters (empty where the game's
/// analysis has none), visibility (where the game's files have it) and corner light (when
/// taken from the lightmaps).
#[derive(Debug, Clone, Default)]
pub struct Analysis {
    pub spots: Vec<Vec<Spot>>,
    pub encounters: Vec<Vec<Encounter>>,
    pub visibility: Option<Visibility>,
    pub light: Option<Vec<[f32; 4]>>,
    /// Earliest occupy times where the game computes them (else 0).
    pub occupy: Option<Vec<[f32; 2]>>,
}

/// Ladder connection slots of an area: up (index 0) and down (index 1).
const UP: usize = 0;
const DOWN: usize = 1;

/// Builds the mesh: area ids are their index + 1, ladder ids likewise, hiding spot ids
/// numbered from 1 in area order (as the game creates them).
pub fn to_mesh(game: Game, bsp_size: u32, parts: &Parts<'_>) -> NavMesh {
    let (version, sub_version, layout) = game.format();
    let (areas, ladders) = (parts.areas, parts.ladders);
    let mut nav_areas: Vec<NavArea> = areas
        .iter()
        .zip(parts.links)
        .enumerate()
        .map(|(i, (a, l))| nav_area(i as u32 + 1, a, l, layout))
        .collect();
    for (i, ladder) in ladders.iter().enumerate() {
        attach_ladder(&mut nav_areas, ladder, i as u32 + 1);
    }
    if let Some(analysis) = parts.analysis {
        attach_analysis(&mut nav_areas, analysis);
    }
    NavMesh {
        version,
        sub_version,
        bsp_size: Some(bsp_size),
        is_analyzed: (version >= 14).then_some(u8::from(parts.analysis.is_some())),
        places: Vec::new(),
        has_unnamed_areas: (version >= 12).then_some(1),
        pre_area_data: Vec::new(),
        areas: nav_areas,
        ladders: Some(
            ladders
                .iter()
                .enumerate()
                .map(|(i, l)| nav_ladder(i as u32 + 1, l))
                .collect(),
        ),
        post_mesh_data: Vec::new(),
        layout,
    }
}

fn nav_area(id: u32, a: &Area, links: &[Vec<u32>; 4], layout: GameLayout) -> NavArea {
    NavArea {
        id,
        attributes: a.attributes,
        nw_corner: [a.min[0], a.min[1], a.z[0]],
        se_corner: [a.max[0], a.max[1], a.z[2]],
        ne_z: a.z[1],
        sw_z: a.z[3],
        connections: links.clone().map(|l| l.into_iter().map(|b| b + 1).collect()),
        light_intensity: [1.0; 4],
        custom: match layout {
            GameLayout::Tf2 => AreaCustom::Tf2 { attributes: 0 },
            GameLayout::CounterStrike => AreaCustom::CsApproaches(Vec::new()),
            _ => AreaCustom::None,
        },
        ..NavArea::blank()
    }
}

fn attach_analysis(areas: &mut [NavArea], analysis: &Analysis) {
    attach_spots(areas, &analysis.spots);
    for (area, list) in areas.iter_mut().zip(&analysis.encounters) {
        area.encounter_paths = EncounterPaths::New(list.iter().map(encounter_path).collect());
    }
    if let Some(vis) = &analysis.visibility {
        attach_visibility(areas, vis);
    }
    for (area, light) in areas.iter_mut().zip(analysis.light.iter().flatten()) {
        area.light_intensity = *light;
    }
    for (area, times) in areas.iter_mut().zip(analysis.occupy.iter().flatten()) {
        area.earliest_occupy_time = *times;
    }
}

/// Area ids are indices + 1 in the lists and the anchors alike.
fn attach_visibility(areas: &mut [NavArea], vis: &Visibility) {
    for ((area, list), anchor) in areas.iter_mut().zip(&vis.lists).zip(&vis.inherit) {
        area.visible_areas = list
            .iter()
            .map(|&(a, attributes)| VisibleArea {
                area: a + 1,
                attributes,
            })
            .collect();
        area.inherit_visibility_from = anchor.map_or(0, |a| a + 1);
    }
}

fn attach_spots(areas: &mut [NavArea], spots: &[Vec<Spot>]) {
    let mut id = 0;
    for (area, list) in areas.iter_mut().zip(spots) {
        area.hiding_spots = list
            .iter()
            .map(|s| {
                id += 1;
                HidingSpot {
                    id,
                    position: s.pos.to_array(),
                    flags: s.flags,
                }
            })
            .collect();
    }
}

/// Area and spot ids are indices + 1; a spot's place along the path in 255ths, rounded down.
fn encounter_path(e: &Encounter) -> EncounterPath {
    EncounterPath {
        from_area: e.from.0 + 1,
        from_dir: e.from.1 as u8,
        to_area: e.to.0 + 1,
        to_dir: e.to.1 as u8,
        spots: e
            .spots
            .iter()
            .map(|&(spot, t)| EncounterSpot {
                hiding_spot: spot + 1,
                t: (255.0 * t) as u8,
            })
            .collect(),
    }
}

fn attach_ladder(areas: &mut [NavArea], ladder: &Ladder, id: u32) {
    if let Some(b) = ladder.bottom_area {
        areas[b as usize].ladder_connections[UP].push(id);
    }
    for &t in ladder.down_areas.iter().flatten() {
        let list = &mut areas[t as usize].ladder_connections[DOWN];
        if !list.contains(&id) {
            list.push(id);
        }
    }
}

fn nav_ladder(id: u32, l: &Ladder) -> NavLadder {
    let area = |a: Option<u32>| a.map_or(0, |a| a + 1);
    NavLadder {
        id,
        width: l.width,
        top: l.top.to_array(),
        bottom: l.bottom.to_array(),
        length: l.length,
        direction: l.dir as u32,
        is_dangling: None,
        top_forward_area: area(l.top_areas[0]),
        top_left_area: area(l.top_areas[1]),
        top_right_area: area(l.top_areas[2]),
        top_behind_area: area(l.top_areas[3]),
        bottom_area: area(l.bottom_area),
    }
}
