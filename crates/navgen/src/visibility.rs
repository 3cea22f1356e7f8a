//! Visibility between areas (SDK 2013's `ComputeVisibilityToMesh` and
//! `EndVisibilityComputations`, read for behaviour), for the games whose files carry it (v16).
//!
//! Every pair of areas whose centres lie within the view distance is looked at once, the first
//! one's PVS (the clusters of its 25-unit samples at eye height) culling pairs whose second
//! area's box is in none of them. Each area of a pair then looks at the other
//! ([`look`]): its own footprint swept as a box from its centre toward the other's nearest
//! point arriving means completely visible; else sight lines from its centre and its samples
//! to the other's centre and corners say potentially visible (some see it), completely (all
//! do) or not. A pair seen one way only is potentially visible both ways. An area's list holds
//! what each area found looking at it, itself completely visible. Then the lists are made
//! deltas: in area order, an area nothing inherits from takes the neighbour (or the
//! neighbour's anchor) whose list differs least, and keeps only the difference when it has at
//! most 64 entries.

use std::collections::{HashMap, HashSet};

use glam::Vec3;
use rayon::prelude::*;
use srcmap_hull::Hull;

use crate::areas::Area;
use crate::nodes::STEP;
use crate::pvs::Pvs;
use crate::sample::{HUMAN_HEIGHT, Space};

pub const NOT_VISIBLE: u8 = 0;
pub const POTENTIALLY_VISIBLE: u8 = 1;
pub const COMPLETELY_VISIBLE: u8 = 2;

/// `nav_max_view_distance` (SDK 2013's default).
const MAX_VIEW_DISTANCE: f32 = 6000.0;
/// The eye over an area's floor: three quarters of a player.
const EYE: f32 = 0.75 * HUMAN_HEIGHT;
/// `nav_potentially_visible_dot_tolerance`: sight lines this close in direction share a result.
const SAME_DIRECTION: f32 = 0.98;
/// Beyond this distance, samples lying toward the looking area's far side are skipped.
const FAR: f32 = 1000.0;
/// `nav_max_vis_delta_list_length`.
const MAX_DELTA: usize = 64;
/// `MASK_NAV_VISION` as brushes carry it: solid, moveable, block-line-of-sight.
pub const VISION_MASK: u32 = 0x1 | 0x4000 | 0x40;

/// Per area: its visible-area list (area index, attributes), and the area it inherits the
/// rest from (then the list is a delta over the anchor's, `NOT_VISIBLE` entries included).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Visibility {
    pub lists: Vec<Vec<(u32, u8)>>,
    pub inherit: Vec<Option<u32>>,
}

/// The visibility of every area, its lists compressed into deltas.
pub fn visibility(space: &Space<'_>, pvs: &Pvs<'_>, areas: &[Area], links: &[[Vec<u32>; 4]]) -> Visibility {
    compress(full_lists(space, pvs, areas), links)
}

/// A point looked from or at, and its cluster.
type Target = (Vec3, Option<usize>);

/// What an area is seen from and at, worked out once: its eye over the centre, its samples,
/// the points others aim at (centre, then the corners, raised as the game raises them), the
/// clusters its samples stand in (its PVS) and those its eye-height box touches.
struct Viewpoints<'a> {
    area: &'a Area,
    eye: Target,
    samples: Vec<Target>,
    aims: [Target; 5],
    sees_from: Option<Vec<usize>>,
    box_clusters: Option<Vec<usize>>,
}

impl<'a> Viewpoints<'a> {
    fn new(pvs: &Pvs<'_>, area: &'a Area) -> Viewpoints<'a> {
        let at = |p: Vec3| (p, pvs.cluster(p));
        let samples: Vec<Target> = samples(area).into_iter().map(at).collect();
        let [nw, ne, se, sw] = corners(area).map(|c| at(c + Vec3::Z * 2.0 * EYE));
        let mut sees_from: Vec<usize> = samples.iter().filter_map(|s| s.1).collect();
        sees_from.sort_unstable();
        sees_from.dedup();
        let (lo, hi) = eye_box(area);
        Viewpoints {
            area,
            eye: at(center(area) + Vec3::Z * EYE),
            samples,
            aims: [at(center(area) + Vec3::Z * EYE), nw, ne, se, sw],
            sees_from: pvs.has_data().then_some(sees_from),
            box_clusters: pvs.clusters_in_box(lo, hi),
        }
    }
}

/// The full lists: pairs looked at in parallel per first area, entries in pair order.
fn full_lists(space: &Space<'_>, pvs: &Pvs<'_>, areas: &[Area]) -> Vec<Vec<(u32, u8)>> {
    let views: Vec<Viewpoints<'_>> = areas.par_iter().map(|a| Viewpoints::new(pvs, a)).collect();
    let sight = Sight { space, pvs };
    let pairs: Vec<Vec<(u32, u8, u8)>> = (0..areas.len())
        .into_par_iter()
        .map(|i| {
            let (a, rest) = (&views[i], &views[i + 1..]);
            let culled =
                |b: &Viewpoints<'_>| !pvs.any_sees(a.sees_from.as_deref(), b.box_clusters.as_deref());
            let others = rest
                .iter()
                .zip(i + 1..)
                .filter(|(b, _)| in_range(a.area, b.area) && !culled(b));
            others
                .filter_map(|(b, j)| sight.pair(a, b).map(|(x, y)| (j as u32, x, y)))
                .collect()
        })
        .collect();
    let mut lists: Vec<Vec<(u32, u8)>> = vec![Vec::new(); areas.len()];
    for (i, row) in pairs.into_iter().enumerate() {
        lists[i].push((i as u32, COMPLETELY_VISIBLE));
        for (j, seen_by_j, seen_by_i) in row {
            lists[i].push((j, seen_by_j));
            lists[j as usize].push((i as u32, seen_by_i));
        }
    }
    lists
}

fn in_range(a: &Area, b: &Area) -> bool {
    center(a).distance_squared(center(b)) <= MAX_VIEW_DISTANCE * MAX_VIEW_DISTANCE
}

/// Sight lines and sweeps against the world, lines between clusters the PVS keeps apart
/// blocked without tracing (the same result: the sets hold every cluster a line can reach).
struct Sight<'s, 'w> {
    space: &'s Space<'w>,
    pvs: &'s Pvs<'s>,
}

impl Sight<'_, '_> {
    /// How `a` and `b` see each other: (what `b` finds looking at `a`, what `a` finds looking
    /// at `b`), each at least potentially visible when the other is; `None` when neither sees.
    fn pair(&self, a: &Viewpoints<'_>, b: &Viewpoints<'_>) -> Option<(u8, u8)> {
        let (a_to_b, b_to_a) = (self.look(a, b), self.look(b, a));
        let at_least = |v: u8, other: u8| {
            if v == NOT_VISIBLE && other != NOT_VISIBLE {
                POTENTIALLY_VISIBLE
            } else {
                v
            }
        };
        let (a_to_b, b_to_a) = (at_least(a_to_b, b_to_a), at_least(b_to_a, a_to_b));
        (a_to_b != NOT_VISIBLE).then_some((b_to_a, a_to_b))
    }

    /// What `from` finds looking at `to` (`CNavArea::ComputeVisibility`).
    fn look(&self, from: &Viewpoints<'_>, to: &Viewpoints<'_>) -> u8 {
        if sweep_arrives(self.space, from.area, to.area) {
            return COMPLETELY_VISIBLE;
        }
        let see = |vis: u8, eye: Target| {
            if self.partly_visible(to, eye) {
                vis | POTENTIALLY_VISIBLE
            } else {
                vis & !COMPLETELY_VISIBLE
            }
        };
        let mut vis = see(COMPLETELY_VISIBLE, from.eye);
        let (here, there) = (center(from.area), center(to.area));
        let toward = (here - there).normalize_or_zero();
        let far = here.distance_squared(there) > FAR * FAR;
        for &sample in &from.samples {
            if vis == POTENTIALLY_VISIBLE {
                break;
            }
            if far && (sample.0 - from.eye.0).normalize_or_zero().dot(toward) >= SAME_DIRECTION {
                continue;
            }
            vis = see(vis, sample);
        }
        vis
    }

    /// Whether a sight line from `eye` reaches the centre of `to` or one of its corners
    /// (`IsPartiallyVisible`); corners in nearly the centre's direction share its result. The
    /// game aims at the corners one eye height higher than at the centre (it adds the eye
    /// twice).
    fn partly_visible(&self, to: &Viewpoints<'_>, eye: Target) -> bool {
        let [middle, corners @ ..] = to.aims;
        if self.clear(eye, middle) {
            return true;
        }
        let to_middle = (middle.0 - eye.0).normalize_or_zero();
        corners.into_iter().any(|c| {
            let aim = c.0 - Vec3::Z * EYE;
            (aim - eye.0).normalize_or_zero().dot(to_middle) < SAME_DIRECTION && self.clear(eye, c)
        })
    }

    fn clear(&self, (from, from_cluster): Target, (to, to_cluster): Target) -> bool {
        self.pvs.may_see(from_cluster, to_cluster)
            && self
                .space
                .world
                .trace(&Hull::POINT, from, to, VISION_MASK)
                .fraction
                >= 1.0
    }
}

/// The area's footprint, as a box from its centre at eye height, swept toward the nearest
/// point of `to`: arriving, or stopping over `to`, means `from` is completely visible to it.
fn sweep_arrives(space: &Space<'_>, from: &Area, to: &Area) -> bool {
    let start = center(from) + Vec3::Z * EYE;
    let (lo, hi) = eye_box(from);
    let hull = Hull::new(lo - start, hi - start + Vec3::Z * 0.1);
    let nearest = Vec3::new(
        start.x.clamp(to.min[0], to.max[0]),
        start.y.clamp(to.min[1], to.max[1]),
        0.0,
    );
    let target = Vec3::new(nearest.x, nearest.y, to.z_at(nearest.x, nearest.y) + EYE);
    let t = space.world.trace(&hull, start, target, VISION_MASK);
    let over = |p: Vec3| p.x > to.min[0] && p.x < to.max[0] && p.y > to.min[1] && p.y < to.max[1];
    t.fraction == 1.0 || over(t.end)
}

/// The eye positions over an area's 25-unit samples, half a step in from its edges.
fn samples(area: &Area) -> Vec<Vec3> {
    let mut out = Vec::new();
    let size = [area.max[0] - area.min[0], area.max[1] - area.min[1]];
    let mut dy = STEP / 2.0;
    while dy <= size[1] - STEP / 2.0 {
        let mut dx = STEP / 2.0;
        while dx <= size[0] - STEP / 2.0 {
            let (x, y) = (area.min[0] + dx, area.min[1] + dy);
            out.push(Vec3::new(x, y, area.z_at(x, y) + EYE));
            dx += STEP;
        }
        dy += STEP;
    }
    out
}

/// The box over an area's centre and corners at eye height.
fn eye_box(area: &Area) -> (Vec3, Vec3) {
    let points = corners(area).map(|c| c + Vec3::Z * EYE);
    let start = center(area) + Vec3::Z * EYE;
    points
        .iter()
        .fold((start, start), |(lo, hi), &p| (lo.min(p), hi.max(p)))
}

/// The game's `GetCenter`: the middle of the NW and SE corners.
pub fn center(area: &Area) -> Vec3 {
    Vec3::new(
        (area.min[0] + area.max[0]) / 2.0,
        (area.min[1] + area.max[1]) / 2.0,
        (area.z[0] + area.z[2]) / 2.0,
    )
}

/// NW, NE, SE, SW.
pub fn corners(area: &Area) -> [Vec3; 4] {
    let [x0, y0] = area.min;
    let [x1, y1] = area.max;
    [
        Vec3::new(x0, y0, area.z[0]),
        Vec3::new(x1, y0, area.z[1]),
        Vec3::new(x1, y1, area.z[2]),
        Vec3::new(x0, y1, area.z[3]),
    ]
}

/// The lists as deltas over a neighbour's where the difference is short (area order).
fn compress(lists: Vec<Vec<(u32, u8)>>, links: &[[Vec<u32>; 4]]) -> Visibility {
    let n = lists.len();
    let mut vis = Visibility {
        lists,
        inherit: vec![None; n],
    };
    let mut anchor_of_others = vec![false; n];
    for i in 0..n {
        if anchor_of_others[i] {
            continue;
        }
        if let Some((anchor, delta)) = best_anchor(&vis, i, &links[i]) {
            vis.inherit[i] = Some(anchor);
            vis.lists[i] = delta;
            anchor_of_others[anchor as usize] = true;
        }
    }
    vis
}

/// The neighbour (through its own anchor) whose list differs least from area `i`'s, the first
/// of equals in connection order, when the difference is short enough.
fn best_anchor(vis: &Visibility, i: usize, links: &[Vec<u32>; 4]) -> Option<(u32, Vec<(u32, u8)>)> {
    let mut best: Option<(u32, Vec<(u32, u8)>)> = None;
    for &adjacent in links.iter().flatten() {
        let anchor = vis.inherit[adjacent as usize].unwrap_or(adjacent);
        if anchor as usize == i {
            continue;
        }
        let d = delta(&vis.lists[i], &vis.lists[anchor as usize]);
        if best.as_ref().is_none_or(|(_, b)| d.len() < b.len()) {
            best = Some((anchor, d));
        }
    }
    best.filter(|(_, d)| d.len() <= MAX_DELTA)
}

/// Entries of `mine` that `other` lacks or lists otherwise, then `other`'s areas missing
/// from `mine` as not visible (`ComputeVisibilityDelta`).
pub fn delta(mine: &[(u32, u8)], other: &[(u32, u8)]) -> Vec<(u32, u8)> {
    let theirs: HashMap<u32, u8> = other.iter().copied().collect();
    let ours: HashSet<u32> = mine.iter().map(|&(a, _)| a).collect();
    let mut out: Vec<(u32, u8)> = mine
        .iter()
        .filter(|(a, v)| theirs.get(a) != Some(v))
        .copied()
        .collect();
    let missing = other.iter().filter(|(a, _)| !ours.contains(a));
    out.extend(missing.map(|&(a, _)| (a, NOT_VISIBLE)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An inherited list read back: the anchor's entries, the area's own winning.
    fn resolve(own: &[(u32, u8)], anchor: &[(u32, u8)]) -> HashMap<u32, u8> {
        let mut out: HashMap<u32, u8> = anchor.iter().copied().collect();
        out.extend(own.iter().copied());
        out.retain(|_, v| *v != NOT_VISIBLE);
        out
    }

    #[test]
    fn a_delta_over_its_anchor_reads_back_as_the_full_list() {
        let mine = [(0, 2), (1, 3), (4, 1), (7, 2)];
        let anchor = [(1, 2), (0, 2), (5, 1), (4, 1)];
        let d = delta(&mine, &anchor);
        assert_eq!(d, vec![(1, 3), (7, 2), (5, NOT_VISIBLE)]);
        assert_eq!(resolve(&d, &anchor), mine.iter().copied().collect());
    }

    #[test]
    fn an_area_inherits_from_the_neighbour_closest_to_its_list_unless_it_is_an_anchor() {
        let far: Vec<(u32, u8)> = (10..90).map(|a| (a, 2)).collect();
        let near_far = [far.clone(), vec![(3, 1)]].concat();
        let lists = vec![far.clone(), near_far.clone(), vec![(1, 2)]];
        let links = vec![
            [vec![1], vec![], vec![], vec![]],
            [vec![0], vec![2], vec![], vec![]],
            [vec![], vec![], vec![], vec![1]],
        ];
        let vis = compress(lists, &links);
        // Area 0 takes area 1 (one entry apart); area 1 is then an anchor and keeps its list;
        // area 2 differs from area 1 by more than 64 entries and keeps its own.
        assert_eq!(vis.inherit, vec![Some(1), None, None]);
        assert_eq!(vis.lists[0], vec![(3, NOT_VISIBLE)]);
        assert_eq!(vis.lists[1], near_far);
    }
}
