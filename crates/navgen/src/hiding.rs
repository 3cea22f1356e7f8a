//! Hiding spots (Valve's `ComputeHidingSpots`, read for behaviour): a corner of an area where
//! walls run on both sides, i.e. where the two-way neighbours along both of its sides stop at
//! least 20 units short of it, holds a spot 12.5 units in from the corner, in cover when
//! something is overhead or when rays out to 100 units hit something in at least half of
//! sixteen directions, else exposed. Then the sniper classes (`ClassifySniperSpot`): a spot
//! that sees walkable ground 1000 units or more away is a good sniper spot, an ideal one when
//! what it sees that far spans 200×200 units or reaches 1500.

use glam::Vec3;
use rayon::prelude::*;
use srcmap_hull::Hull;

use crate::areas::Area;
use crate::attributes::{ATTR_DONT_HIDE, ATTR_JUMP};
use crate::nodes::{
    EAST, NORTH, NORTH_EAST, NORTH_WEST, SOUTH, SOUTH_EAST, SOUTH_WEST, STEP, WEST, opposite,
};
pub use crate::pvs::Pvs;
use crate::sample::{HALF_HUMAN_HEIGHT, Space};

pub const IN_COVER: u8 = 0x01;
pub const GOOD_SNIPER_SPOT: u8 = 0x02;
pub const IDEAL_SNIPER_SPOT: u8 = 0x04;
pub const EXPOSED: u8 = 0x08;

/// How far past the neighbours a wall must run along a side to make a corner.
const CORNER_SIZE: f32 = 20.0;
/// How far in from its corner a spot stands (generated areas are at least 25 across).
const INSET: f32 = 12.5;
/// A spot this close to one already in the area is left out.
const SPOT_SPACING: f32 = 30.0;
const COVER_RANGE: f32 = 100.0;
/// What sniper sight lines stop at: `CONTENTS_SOLID | CONTENTS_MOVEABLE | CONTENTS_PLAYERCLIP`.
const SIGHT_MASK: u32 = 0x1 | 0x4000 | 0x10000;
const MIN_SNIPER_RANGE: f32 = 1000.0;
const LONG_SNIPER_RANGE: f32 = 1500.0;
const MIN_IDEAL_SNIPER_AREA: f32 = 200.0 * 200.0;

/// A spot and its flags.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Spot {
    pub pos: Vec3,
    pub flags: u8,
}

/// Per area, its hiding spots; `links` are the areas' connections per direction.
pub fn hiding_spots(space: &Space<'_>, areas: &[Area], links: &[[Vec<u32>; 4]]) -> Vec<Vec<Spot>> {
    (0..areas.len())
        .map(|i| area_spots(space, areas, links, i))
        .collect()
}

fn area_spots(space: &Space<'_>, areas: &[Area], links: &[[Vec<u32>; 4]], i: usize) -> Vec<Spot> {
    let area = &areas[i];
    if area.attributes & (ATTR_JUMP | ATTR_DONT_HIDE) != 0 {
        return Vec::new();
    }
    let walls = corner_walls(areas, links, i);
    let mut spots: Vec<Spot> = Vec::new();
    for corner in (0..4).filter(|&c| walls[c] == 2) {
        let pos = inset_corner(area, corner);
        if spots.iter().all(|s| s.pos.distance(pos) >= SPOT_SPACING) {
            let flags = if in_cover(space, pos) { IN_COVER } else { EXPOSED };
            spots.push(Spot { pos, flags });
        }
    }
    spots
}

/// The corners at each end of a side: (low end, high end) along the side's axis.
fn side_corners(dir: usize) -> (usize, usize) {
    match dir {
        NORTH => (NORTH_WEST, NORTH_EAST),
        EAST => (NORTH_EAST, SOUTH_EAST),
        SOUTH => (SOUTH_WEST, SOUTH_EAST),
        _ => (NORTH_WEST, SOUTH_WEST),
    }
}

/// For each corner, on how many of its two sides a wall runs past the neighbours into it.
fn corner_walls(areas: &[Area], links: &[[Vec<u32>; 4]], i: usize) -> [u8; 4] {
    let area = &areas[i];
    let mut walls = [0u8; 4];
    for dir in [NORTH, EAST, SOUTH, WEST] {
        let axis = if dir == NORTH || dir == SOUTH { 0 } else { 1 };
        let (lo, hi) = neighbour_span(areas, links, i, dir, axis);
        let (lo_corner, hi_corner) = side_corners(dir);
        walls[lo_corner] += u8::from(lo - area.min[axis] >= CORNER_SIZE);
        walls[hi_corner] += u8::from(area.max[axis] - hi >= CORNER_SIZE);
    }
    walls
}

/// How far along `axis` the two-way, non-jump neighbours in `dir` reach (empty: an inverted
/// span, so both corners count).
fn neighbour_span(areas: &[Area], links: &[[Vec<u32>; 4]], i: usize, dir: usize, axis: usize) -> (f32, f32) {
    let back = |b: u32| links[b as usize][opposite(dir)].contains(&(i as u32));
    links[i][dir]
        .iter()
        .filter(|&&b| back(b) && areas[b as usize].attributes & ATTR_JUMP == 0)
        .map(|&b| &areas[b as usize])
        .fold((999_999.9, -999_999.9), |(lo, hi), b| {
            (f32::min(lo, b.min[axis]), f32::max(hi, b.max[axis]))
        })
}

/// The corner's point moved `INSET` into the area, at the corner's height.
fn inset_corner(a: &Area, corner: usize) -> Vec3 {
    let (x, y, sx, sy) = match corner {
        NORTH_WEST => (a.min[0], a.min[1], 1.0, 1.0),
        NORTH_EAST => (a.max[0], a.min[1], -1.0, 1.0),
        SOUTH_EAST => (a.max[0], a.max[1], -1.0, -1.0),
        _ => (a.min[0], a.max[1], 1.0, -1.0),
    };
    Vec3::new(x + sx * INSET, y + sy * INSET, a.z[corner])
}

/// Something overhead within 20 units, or rays at sixteen headings (rising 35.5 over 100
/// units) hit something in at least half of them (`IsHidingSpotInCover`).
fn in_cover(space: &Space<'_>, spot: Vec3) -> bool {
    let from = spot + Vec3::Z * HALF_HUMAN_HEIGHT;
    let blocked = |to: Vec3| space.trace(&Hull::POINT, from, to).fraction != 1.0;
    if blocked(from + Vec3::Z * 20.0) {
        return true;
    }
    let hits = headings()
        .filter(|&a| {
            blocked(from + Vec3::new(COVER_RANGE * a.cos(), COVER_RANGE * a.sin(), HALF_HUMAN_HEIGHT))
        })
        .count();
    hits >= 8
}

/// The game's headings: a float angle stepped by π/8 while below 2π (as a double).
fn headings() -> impl Iterator<Item = f32> {
    let step = (std::f64::consts::PI / 8.0) as f32;
    std::iter::successors(Some(0.0f32), move |a| Some(a + step))
        .take_while(|&a| f64::from(a) < 2.0 * std::f64::consts::PI)
}

/// A point looked at, and its cluster.
type Target = (Vec3, Option<usize>);

/// Adds the sniper classes to the spots: each looks, from `eye` above it, at the middle of
/// every 25-unit cell of every area (half a player up), in order; only a sight line longer
/// than any seen so far can change the outcome, so only those are traced. Spots in parallel.
pub fn classify_snipers(space: &Space<'_>, pvs: &Pvs<'_>, areas: &[Area], spots: &mut [Vec<Spot>], eye: f32) {
    let targets: Vec<Target> = sight_targets(areas)
        .into_iter()
        .map(|t| (t, pvs.cluster(t)))
        .collect();
    spots.par_iter_mut().flatten().for_each(|spot| {
        let eye = spot.pos + Vec3::Z * eye;
        let sight = Sight {
            space,
            pvs,
            eye: (eye, pvs.cluster(eye)),
        };
        spot.flags |= sniper_class(&sight, &targets);
    });
}

fn sight_targets(areas: &[Area]) -> Vec<Vec3> {
    let mut targets = Vec::new();
    for a in areas {
        let mut y = a.min[1] + STEP / 2.0;
        while y < a.max[1] {
            let mut x = a.min[0] + STEP / 2.0;
            while x < a.max[0] {
                targets.push(Vec3::new(x, y, a.z_at(x, y) + HALF_HUMAN_HEIGHT));
                x += STEP;
            }
            y += STEP;
        }
    }
    targets
}

/// Sight lines from one eye.
struct Sight<'s, 'w> {
    space: &'s Space<'w>,
    pvs: &'s Pvs<'s>,
    eye: Target,
}

impl Sight<'_, '_> {
    fn sees(&self, (target, cluster): Target) -> bool {
        if !self.pvs.may_see(self.eye.1, cluster) {
            return false;
        }
        let t = self
            .space
            .world
            .trace(&Hull::POINT, self.eye.0, target, SIGHT_MASK);
        t.fraction == 1.0 && !t.start_solid
    }
}

fn sniper_class(sight: &Sight<'_, '_>, targets: &[Target]) -> u8 {
    let eye = sight.eye.0;
    let mut farthest = 0.0f32;
    let mut seen: Option<(Vec3, Vec3)> = None;
    for &(t, cluster) in targets {
        let range = eye.distance_squared(t);
        if range <= farthest || !sight.sees((t, cluster)) {
            continue;
        }
        farthest = range;
        if range >= MIN_SNIPER_RANGE * MIN_SNIPER_RANGE {
            seen = Some(seen.map_or((t, t), |(lo, hi)| (lo.min(t), hi.max(t))));
        }
    }
    match seen {
        None => 0,
        Some((lo, hi)) => {
            let span = (hi.x - lo.x) * (hi.y - lo.y);
            let ideal = span >= MIN_IDEAL_SNIPER_AREA || farthest >= LONG_SNIPER_RANGE * LONG_SNIPER_RANGE;
            if ideal {
                IDEAL_SNIPER_SPOT
            } else {
                GOOD_SNIPER_SPOT
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn area(min: [f32; 2], max: [f32; 2]) -> Area {
        Area::flat(min, max, 0)
    }

    #[test]
    fn sixteen_headings_as_the_game_steps_them() {
        let h: Vec<f32> = headings().collect();
        assert_eq!(h.len(), 16);
        assert!((h[4] - std::f32::consts::FRAC_PI_2).abs() < 1e-5);
    }

    #[test]
    fn a_dead_end_has_walls_at_its_two_far_corners_only() {
        // A corridor end: area 0 (0..100 × 0..100) joined both ways to area 1 along its whole
        // south side; walls on the north, east and west.
        let areas = [
            area([0.0, 0.0], [100.0, 100.0]),
            area([0.0, 100.0], [100.0, 300.0]),
        ];
        let mut links: Vec<[Vec<u32>; 4]> = vec![Default::default(), Default::default()];
        links[0][SOUTH].push(1);
        links[1][NORTH].push(0);
        assert_eq!(corner_walls(&areas, &links, 0), [2, 2, 1, 1]);
        // One-way (a drop) does not count as a neighbour: all four corners are walled.
        links[1][NORTH].clear();
        assert_eq!(corner_walls(&areas, &links, 0), [2, 2, 2, 2]);
    }

    #[test]
    fn spots_stand_inset_from_their_corners() {
        let a = area([0.0, 0.0], [100.0, 50.0]);
        assert_eq!(inset_corner(&a, NORTH_EAST), Vec3::new(87.5, 12.5, 0.0));
        assert_eq!(inset_corner(&a, SOUTH_WEST), Vec3::new(12.5, 37.5, 0.0));
    }
}
