//! Shading normals made continuous across neighbouring displacements, as VRAD blends them
//! before lighting (`SmoothNeighboringDispSurfNormals`): without it, two displacements that
//! meet at a crease each light their edge with their own normal, and the lightmap shows the
//! seam.
//!
//! Three passes over the displacements in index order, each writing in place (so a later
//! displacement reads what an earlier one wrote), on the neighbours the BSP records:
//! 1. *T-junctions*: where an edge has two half-edge neighbours, its midpoint and the two
//!    corners of theirs that meet it get the normalised sum of the three normals;
//! 2. *corners*: each corner and every corner of a listed neighbour (corner lists, then edge
//!    slots) lying within 0.1 units of it get the normalised sum of all of them;
//! 3. *edges*: each vertex inside a shared stretch of edge, present on both sides, gets the
//!    normalised sum of the two; where our side is finer, the vertices between are lerped
//!    from the two around them and normalised.

use glam::Vec3;

use crate::VertIndex;
use crate::edges::{self, coord, set_coord};
use crate::neighbors::DispNeighbors;

/// How far a neighbour's corner may be from ours to be the same point (VRAD's 0.1).
const CORNER_DISTANCE: f32 = 0.1;

/// One displacement's grid and the normals being blended.
#[derive(Debug, Clone)]
pub struct ShadedGrid {
    power: u32,
    verts: Vec<Vec3>,
    normals: Vec<Vec3>,
    neighbors: DispNeighbors,
}

impl ShadedGrid {
    /// A grid of `power` with its vertices and normals in `VertIndex::index` order; `None`
    /// unless both hold (2^power + 1)² entries.
    pub fn new(
        power: u32,
        verts: Vec<Vec3>,
        normals: Vec<Vec3>,
        neighbors: DispNeighbors,
    ) -> Option<ShadedGrid> {
        let count = (crate::MIN_POWER..=crate::MAX_POWER)
            .contains(&power)
            .then(|| crate::vert_count(power))?;
        (verts.len() == count && normals.len() == count).then_some(ShadedGrid {
            power,
            verts,
            normals,
            neighbors,
        })
    }

    /// The blended normals.
    pub fn into_normals(self) -> Vec<Vec3> {
        self.normals
    }

    fn side(&self) -> usize {
        crate::side_len(self.power)
    }

    /// The array index of `v`, if it lies on the grid (links from a damaged file may not).
    fn slot(&self, v: VertIndex) -> Option<usize> {
        let side = self.side() as i32;
        ((0..side).contains(&v.x) && (0..side).contains(&v.y)).then(|| v.index(self.side()))
    }

    fn normal(&self, v: VertIndex) -> Vec3 {
        self.slot(v).map_or(Vec3::ZERO, |i| self.normals[i])
    }

    fn set_normal(&mut self, v: VertIndex, n: Vec3) {
        if let Some(i) = self.slot(v) {
            self.normals[i] = n;
        }
    }

    fn vert(&self, v: VertIndex) -> Vec3 {
        self.slot(v).map_or(Vec3::ZERO, |i| self.verts[i])
    }

    /// The corner of ours at `point` (the nearest, within [`CORNER_DISTANCE`]).
    fn corner_at(&self, point: Vec3) -> Option<VertIndex> {
        let (mut best, mut best_d) = (0, f32::MAX);
        for corner in 0..4 {
            let d = self.vert(edges::corner_vert(self.power, corner)).distance(point);
            if d < best_d {
                (best, best_d) = (corner, d);
            }
        }
        (best_d <= CORNER_DISTANCE).then(|| edges::corner_vert(self.power, best))
    }
}

/// Blends the normals of `grids` (indexed as the BSP's displacement records, which the
/// neighbour links name; `None` for one that could not be built).
pub fn smooth(grids: &mut [Option<ShadedGrid>]) {
    for disp in 0..grids.len() {
        blend_t_junctions(grids, disp);
    }
    for disp in 0..grids.len() {
        blend_corners(grids, disp);
    }
    for disp in 0..grids.len() {
        blend_edges(grids, disp);
    }
}

/// Sets every `(grid, vertex)` listed to the normalised sum of their normals.
fn share_normal(grids: &mut [Option<ShadedGrid>], points: &[(usize, VertIndex)]) {
    let sum: Vec3 = points.iter().map(|&(g, v)| normal_of(grids, g, v)).sum();
    let n = sum.normalize_or_zero();
    for &(g, v) in points {
        if let Some(grid) = grids.get_mut(g).and_then(Option::as_mut) {
            grid.set_normal(v, n);
        }
    }
}

fn normal_of(grids: &[Option<ShadedGrid>], g: usize, v: VertIndex) -> Vec3 {
    grids
        .get(g)
        .and_then(Option::as_ref)
        .map_or(Vec3::ZERO, |grid| grid.normal(v))
}

/// The neighbour `index` names, if it exists.
fn grid(grids: &[Option<ShadedGrid>], index: u32) -> Option<&ShadedGrid> {
    grids.get(index as usize)?.as_ref()
}

/// The midpoint of `edge` on a grid of `power`.
fn edge_midpoint(power: u32, edge: usize) -> VertIndex {
    let m = 1 << power;
    let mut v = edges::corner_vert(power, edge);
    set_coord(&mut v, edges::free_axis(edge), m / 2);
    v
}

fn blend_t_junctions(grids: &mut [Option<ShadedGrid>], disp: usize) {
    for edge in 0..4 {
        if let Some(points) = t_junction(grids, disp, edge) {
            share_normal(grids, &points);
        }
    }
}

/// Our midpoint of `edge` and the corners of the two half-edge neighbours that meet it.
fn t_junction(grids: &[Option<ShadedGrid>], disp: usize, edge: usize) -> Option<[(usize, VertIndex); 3]> {
    let me = grids[disp].as_ref()?;
    let slots = me.neighbors.edges[edge];
    if !slots.iter().all(edges::is_set) {
        return None;
    }
    let mid = edge_midpoint(me.power, edge);
    let at = me.vert(mid);
    let a = grid(grids, slots[0].neighbor)?.corner_at(at)?;
    let b = grid(grids, slots[1].neighbor)?.corner_at(at)?;
    Some([
        (disp, mid),
        (slots[0].neighbor as usize, a),
        (slots[1].neighbor as usize, b),
    ])
}

/// Every displacement linked to `me`: its corner lists, then its edge slots (a neighbour
/// listed twice counts twice, as in VRAD).
fn all_neighbors(me: &ShadedGrid) -> Vec<u32> {
    let corners = (0..4).flat_map(|c| me.neighbors.corner_list(c).iter().copied());
    let sides = me
        .neighbors
        .edges
        .iter()
        .flatten()
        .filter(|s| edges::is_set(s))
        .map(|s| s.neighbor);
    corners.chain(sides).collect()
}

fn blend_corners(grids: &mut [Option<ShadedGrid>], disp: usize) {
    let Some(me) = grids[disp].as_ref() else { return };
    let neighbors = all_neighbors(me);
    for corner in 0..4 {
        let Some(me) = grids[disp].as_ref() else { return };
        let v = edges::corner_vert(me.power, corner);
        let at = me.vert(v);
        let mut points = vec![(disp, v)];
        for &nb in &neighbors {
            if let Some(c) = grid(grids, nb).and_then(|g| g.corner_at(at)) {
                points.push((nb as usize, c));
            }
        }
        share_normal(grids, &points);
    }
}

fn blend_edges(grids: &mut [Option<ShadedGrid>], disp: usize) {
    for edge in 0..4 {
        for slot in 0..2 {
            let Some(walk) = SharedEdge::new(grids, disp, edge, slot) else {
                continue;
            };
            walk.blend(grids);
        }
    }
}

/// One slot's stretch of a displacement's edge, walked on the vertices both sides have,
/// corners included.
struct SharedEdge {
    disp: usize,
    neighbor: usize,
    free: usize,
    /// Our first vertex and the neighbour's, and each one's step.
    start: VertIndex,
    nb_start: VertIndex,
    step: i32,
    nb_step: VertIndex,
    /// Our last vertex's coordinate along the edge.
    end: i32,
}

impl SharedEdge {
    fn new(grids: &[Option<ShadedGrid>], disp: usize, edge: usize, slot: usize) -> Option<SharedEdge> {
        let me = grids[disp].as_ref()?;
        let sub = me.neighbors.edges[edge][slot];
        let nb = grid(grids, sub.neighbor).filter(|_| edges::is_set(&sub))?;
        let m = 1 << me.power;
        let free = edges::free_axis(edge);
        let mut start = VertIndex::default();
        let fixed = if edge == edges::TOP || edge == edges::RIGHT {
            m
        } else {
            0
        };
        set_coord(&mut start, edges::fixed_axis(edge), fixed);
        set_coord(&mut start, free, (m / 2) * slot as i32);
        let nb_fine = nb.power as i32 + edges::power_shift(sub.span, sub.neighbor_span);
        let (step, nb_along) = crate::neighbors::steps(me.power as i32, nb_fine);
        let mut along = VertIndex::default();
        set_coord(&mut along, free, nb_along);
        Some(SharedEdge {
            disp,
            neighbor: sub.neighbor as usize,
            free,
            start,
            nb_start: edges::into_neighbor(me.power, edge, &sub, nb.power, start),
            step,
            nb_step: edges::rotate_step(sub.orientation, along),
            end: if sub.span == edges::CORNER_TO_MIDPOINT {
                m / 2
            } else {
                m
            },
        })
    }

    /// Our vertex and the neighbour's, `k` steps in.
    fn at(&self, k: i32) -> (VertIndex, VertIndex) {
        let mut v = self.start;
        set_coord(&mut v, self.free, coord(self.start, self.free) + k * self.step);
        let nb = VertIndex::new(
            self.nb_start.x + k * self.nb_step.x,
            self.nb_start.y + k * self.nb_step.y,
        );
        (v, nb)
    }

    fn blend(&self, grids: &mut [Option<ShadedGrid>]) {
        let mut prev = self.start;
        let mut k = 1;
        loop {
            let (v, nb) = self.at(k);
            let here = coord(v, self.free);
            if here > self.end {
                break;
            }
            // The ends (corners, midpoints) were blended with every displacement there.
            if here < self.end {
                share_normal(grids, &[(self.disp, v), (self.neighbor, nb)]);
            }
            self.lerp_between(grids, prev, v);
            prev = v;
            k += 1;
        }
    }

    /// Our vertices strictly between `from` and `to`, which the neighbour lacks.
    fn lerp_between(&self, grids: &mut [Option<ShadedGrid>], from: VertIndex, to: VertIndex) {
        let Some(me) = grids[self.disp].as_mut() else {
            return;
        };
        let (a, b) = (coord(from, self.free), coord(to, self.free));
        let (na, nb) = (me.normal(from), me.normal(to));
        for t in a + 1..b {
            let f = (t - a) as f32 / (b - a) as f32;
            let mut v = from;
            set_coord(&mut v, self.free, t);
            me.set_normal(v, na.lerp(nb, f).normalize_or_zero());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::neighbors::find_neighbors;
    use crate::{DispGrid, vert_count};

    /// A flat axis-aligned square on z = 0 with corner 0 at `(x, y)`: rows run along y,
    /// columns along x.
    fn square(power: u32, x: f32, y: f32, size: f32) -> DispGrid {
        let corners = [
            Vec3::new(x, y, 0.0),
            Vec3::new(x, y + size, 0.0),
            Vec3::new(x + size, y + size, 0.0),
            Vec3::new(x + size, y, 0.0),
        ];
        DispGrid::new(power, corners, &vec![(Vec3::Z, 0.0); vert_count(power)])
    }

    /// The grids with their found neighbours, each vertex given `normal(grid, vertex)`.
    fn shaded(grids: &[DispGrid], normal: impl Fn(usize, VertIndex) -> Vec3) -> Vec<Option<ShadedGrid>> {
        let links = find_neighbors(grids);
        let shade = |(i, g): (usize, &DispGrid)| {
            let normals = (0..g.verts.len())
                .map(|k| normal(i, VertIndex::of(k, g.side())))
                .collect();
            ShadedGrid::new(g.power, g.verts.clone(), normals, links[i])
        };
        grids.iter().enumerate().map(shade).collect()
    }

    fn at(grids: &[Option<ShadedGrid>], g: usize, x: i32, y: i32) -> Vec3 {
        grids[g].as_ref().unwrap().normal(VertIndex::new(x, y))
    }

    fn close(a: Vec3, b: Vec3) -> bool {
        a.abs_diff_eq(b, 1e-5)
    }

    #[test]
    fn a_crease_between_two_displacements_gets_one_normal_along_it() {
        let grids = [square(2, 0.0, 0.0, 64.0), square(2, 64.0, 0.0, 64.0)];
        let mut s = shaded(&grids, |g, _| if g == 0 { Vec3::Z } else { Vec3::X });
        smooth(&mut s);
        let both = (Vec3::Z + Vec3::X).normalize();
        for y in 0..=4 {
            assert!(
                close(at(&s, 0, 4, y), both) && close(at(&s, 1, 0, y), both),
                "row {y}"
            );
            // One vertex in from the edge, each keeps its own normal.
            assert_eq!((at(&s, 0, 3, y), at(&s, 1, 1, y)), (Vec3::Z, Vec3::X));
        }
        assert_eq!(at(&s, 0, 0, 0), Vec3::Z);
    }

    #[test]
    fn a_finer_edge_lerps_between_the_vertices_both_sides_have() {
        // 9 vertices along our right edge against the neighbour's 5.
        let grids = [square(3, 0.0, 0.0, 64.0), square(2, 64.0, 0.0, 64.0)];
        let tilt = |v: VertIndex| (Vec3::X + Vec3::Y * v.y as f32).normalize();
        let mut s = shaded(&grids, |g, v| if g == 0 { Vec3::Z } else { tilt(v) });
        smooth(&mut s);
        for y in 1..4 {
            let shared = (Vec3::Z + tilt(VertIndex::new(0, y))).normalize();
            assert!(close(at(&s, 0, 8, 2 * y), shared), "shared vertex {y}");
        }
        for y in [1, 3, 5, 7] {
            let between = at(&s, 0, 8, y - 1).lerp(at(&s, 0, 8, y + 1), 0.5).normalize();
            assert!(close(at(&s, 0, 8, y), between), "vertex {y} only we have");
            assert!(!close(at(&s, 0, 8, y), Vec3::Z));
        }
    }

    #[test]
    fn a_t_junction_takes_the_corners_of_both_half_neighbours() {
        let grids = [
            square(2, 0.0, 0.0, 64.0),
            square(2, 64.0, 0.0, 32.0),
            square(2, 64.0, 32.0, 32.0),
        ];
        let mut s = shaded(&grids, |g, _| [Vec3::Z, Vec3::X, Vec3::Y][g]);
        smooth(&mut s);
        let three = (Vec3::Z + Vec3::X + Vec3::Y).normalize();
        assert!(close(at(&s, 0, 4, 2), three));
        assert!(close(at(&s, 1, 0, 4), three) && close(at(&s, 2, 0, 0), three));
        // Below the junction the edge blends with the lower neighbour alone.
        assert!(close(at(&s, 0, 4, 1), (Vec3::Z + Vec3::X).normalize()));
    }

    #[test]
    fn links_to_missing_or_misplaced_vertices_change_nothing() {
        let grids = [square(2, 0.0, 0.0, 64.0), square(2, 64.0, 0.0, 64.0)];
        let mut s = shaded(&grids, |_, _| Vec3::Z);
        s[1] = None;
        smooth(&mut s);
        assert!(s[0].as_ref().unwrap().normals.iter().all(|&n| n == Vec3::Z));
        assert!(
            ShadedGrid::new(
                5,
                vec![Vec3::Z; 1089],
                vec![Vec3::Z; 1089],
                DispNeighbors::default()
            )
            .is_none()
        );
    }
}
