//! Jump areas (Valve's `MarkJumpAreas`, `StichAndRemoveJumpAreas`, read for behaviour): an area
//! too steep to walk (its steeper triangle's normal under the slope limit, or within the
//! tolerance of it where the ground under its centre slopes otherwise) is one bots cross by
//! jumping. Counter-Strike: Source's generator keeps such areas in the mesh marked JUMP (its
//! v9 files have them, connected both ways like any area). SDK 2013's marks them JUMP and
//! NO_MERGE and, after squaring up, replaces each by one-way connections from the areas that
//! lead into it to the areas it leads to, then deletes it.

use glam::Vec3;
use srcmap_hull::Hull;

use crate::areas::Area;
use crate::attributes::{ATTR_JUMP, ATTR_STAIRS};
use crate::nodes::{STEP, opposite};
use crate::sample::{HALF_HUMAN_HEIGHT, SLOPE_LIMIT, STEP_HEIGHT, Space};

/// `nav_slope_tolerance`.
const SLOPE_TOLERANCE: f32 = 0.1;
/// Stitched areas lie closer than this in the plane (three samples).
const STITCH_REACH: f32 = 3.0 * STEP;

/// The lower z of the normals of an area's two triangles (NW-NE-SW and SE-SW-NE).
pub fn lowest_normal_z(a: &Area) -> f32 {
    let (dx, dy) = (a.max[0] - a.min[0], a.max[1] - a.min[1]);
    let first = Vec3::new(dx, 0.0, a.z[1] - a.z[0]).cross(Vec3::new(0.0, dy, a.z[3] - a.z[0]));
    let second = Vec3::new(-dx, 0.0, a.z[3] - a.z[2]).cross(Vec3::new(0.0, -dy, a.z[1] - a.z[2]));
    first.normalize_or(Vec3::Z).z.min(second.normalize_or(Vec3::Z).z)
}

/// Marks the areas bots must jump across with `attributes` (JUMP, with NO_MERGE where the game
/// keeps them from merging).
pub fn mark(space: &Space<'_>, areas: &mut [Area], attributes: u32) {
    for a in areas.iter_mut() {
        let lowest = lowest_normal_z(a);
        let steep = lowest < SLOPE_LIMIT
            || (lowest < SLOPE_LIMIT + SLOPE_TOLERANCE
                && ground_normal_z(space, a).is_some_and(|g| (g - lowest).abs() > SLOPE_TOLERANCE));
        if steep {
            a.attributes |= attributes;
        }
    }
}

/// The normal z of the ground straight under the area's centre (`GetSimpleGroundHeight`).
fn ground_normal_z(space: &Space<'_>, a: &Area) -> Option<f32> {
    let c = Vec3::new(
        (a.min[0] + a.max[0]) / 2.0,
        (a.min[1] + a.max[1]) / 2.0,
        (a.z[0] + a.z[2]) / 2.0,
    );
    let from = c + Vec3::Z * HALF_HUMAN_HEIGHT;
    let t = space.trace(&Hull::POINT, from, from - Vec3::Z * 9999.9);
    (!t.start_solid).then_some(t.normal.z)
}

/// Connects, across each jump area, the areas leading into it to the non-jump areas it leads
/// to on the far side (where their facing edges overlap and lie within three samples), one
/// way; then removes the jump areas. Returns the kept areas and their connections.
pub fn stitch_and_remove(areas: Vec<Area>, mut links: Vec<[Vec<u32>; 4]>) -> (Vec<Area>, Vec<[Vec<u32>; 4]>) {
    for j in 0..areas.len() {
        if areas[j].attributes & ATTR_JUMP == 0 {
            continue;
        }
        for incoming in 0..4 {
            let out = opposite(incoming);
            let dests = links[j][out].clone();
            for s in sources(&areas, &links, j, out, 0) {
                for &d in dests
                    .iter()
                    .filter(|&&d| areas[d as usize].attributes & ATTR_JUMP == 0)
                {
                    if s != d as usize
                        && stitchable(&areas[s], &areas[d as usize], out)
                        && !links[s][out].contains(&d)
                    {
                        links[s][out].push(d);
                    }
                }
            }
        }
    }
    remove_jump_areas(areas, links)
}

/// The non-jump areas entering area `j` heading `out`, through chains of jump areas entering
/// it the same way.
fn sources(areas: &[Area], links: &[[Vec<u32>; 4]], j: usize, out: usize, depth: u32) -> Vec<usize> {
    let entering = (0..areas.len()).filter(|&s| links[s][out].contains(&(j as u32)));
    let mut found = Vec::new();
    for s in entering {
        if areas[s].attributes & ATTR_JUMP == 0 {
            found.push(s);
        } else if depth < 8 {
            found.extend(sources(areas, links, s, out, depth + 1));
        }
    }
    found
}

/// Whether `source` may be connected to `dest` in `dir` across a jump area: their edges
/// overlap across `dir` (no corner-to-corner connection), they lie within three samples of
/// each other there, and no stairs are climbed more than a step.
fn stitchable(source: &Area, dest: &Area, dir: usize) -> bool {
    let across = usize::from(dir == 0 || dir == 2) ^ 1;
    let lo = source.min[across].max(dest.min[across]);
    let hi = source.max[across].min(dest.max[across]);
    if hi <= lo {
        return false;
    }
    let center = portal_center(source, dir, (lo + hi) / 2.0);
    let (s, d) = (closest_point(source, center), closest_point(dest, center));
    if source.attributes & ATTR_STAIRS != 0 && s.z + STEP_HEIGHT < d.z {
        return false;
    }
    s.truncate().distance(d.truncate()) < STITCH_REACH
}

/// The middle of the portal on `area`'s edge facing `dir`, at `middle` across it.
fn portal_center(area: &Area, dir: usize, middle: f32) -> Vec3 {
    let (x, y) = match dir {
        0 => (middle, area.min[1]),
        1 => (area.max[0], middle),
        2 => (middle, area.max[1]),
        _ => (area.min[0], middle),
    };
    Vec3::new(x, y, area.z_at(x, y))
}

fn closest_point(area: &Area, p: Vec3) -> Vec3 {
    let (x, y) = (
        p.x.clamp(area.min[0], area.max[0]),
        p.y.clamp(area.min[1], area.max[1]),
    );
    Vec3::new(x, y, area.z_at(x, y))
}

/// The areas without the jump areas, connections renumbered and those to removed areas gone.
fn remove_jump_areas(areas: Vec<Area>, links: Vec<[Vec<u32>; 4]>) -> (Vec<Area>, Vec<[Vec<u32>; 4]>) {
    let mut new_index = vec![None; areas.len()];
    let mut next = 0u32;
    for (i, a) in areas.iter().enumerate() {
        if a.attributes & ATTR_JUMP == 0 {
            new_index[i] = Some(next);
            next += 1;
        }
    }
    let kept = areas
        .into_iter()
        .zip(links)
        .zip(&new_index)
        .filter(|(_, n)| n.is_some());
    kept.map(|((a, l), _)| {
        (
            a,
            l.map(|list| list.into_iter().filter_map(|b| new_index[b as usize]).collect()),
        )
    })
    .unzip()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::areas::Area;

    fn area(min: [f32; 2], max: [f32; 2], z: [f32; 4]) -> Area {
        Area {
            z,
            ..Area::flat(min, max, 0)
        }
    }

    #[test]
    fn a_rise_of_40_over_25_units_is_too_steep_to_walk_and_18_is_not() {
        assert!(lowest_normal_z(&area([0.0, 0.0], [25.0, 25.0], [0.0, 40.0, 40.0, 0.0])) < SLOPE_LIMIT);
        assert!(lowest_normal_z(&area([0.0, 0.0], [25.0, 25.0], [0.0, 18.0, 18.0, 0.0])) > SLOPE_LIMIT);
        // One corner up: only one triangle is steep, and it counts.
        assert!(lowest_normal_z(&area([0.0, 0.0], [25.0, 25.0], [0.0, 0.0, 40.0, 0.0])) < SLOPE_LIMIT);
    }

    #[test]
    fn a_jump_area_between_two_floors_becomes_a_one_way_link_each_way() {
        // West floor, the jump area up to the east floor 40 units higher, the east floor.
        let mut jump = area([25.0, 0.0], [50.0, 25.0], [0.0, 40.0, 40.0, 0.0]);
        jump.attributes = ATTR_JUMP;
        let areas = vec![
            area([0.0, 0.0], [25.0, 25.0], [0.0; 4]),
            jump,
            area([50.0, 0.0], [75.0, 25.0], [40.0; 4]),
        ];
        let (e, w) = (1usize, 3usize);
        let mut links: Vec<[Vec<u32>; 4]> = vec![Default::default(); 3];
        links[0][e] = vec![1];
        links[1][w] = vec![0];
        links[1][e] = vec![2];
        links[2][w] = vec![1];
        let (kept, links) = stitch_and_remove(areas, links);
        assert_eq!(kept.len(), 2);
        assert!(kept.iter().all(|a| a.attributes & ATTR_JUMP == 0));
        assert_eq!(links[0][e], vec![1], "west floor to east floor");
        assert_eq!(links[1][w], vec![0], "east floor to west floor");
    }
}
