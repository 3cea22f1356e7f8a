//! The brushes displacements came from. The compiler drops a displacement's brush and keeps
//! only its base faces, in map order; a Hammer brush often carries several displacement sides
//! (a cave's boxes: all six). Consecutive base quads that share an edge and bound one convex
//! solid are put back on one brush, closed by its bounding box or else by the hull of their
//! corners; a quad alone gets a box of its own, `THICKNESS` deep behind it.

use std::ops::Range;

use srcmap_geom::{DVec3, MAX_WORLD, Plane, Winding, polyhedron_faces};

/// How far behind a lone base quad its brush reaches.
const THICKNESS: f64 = 8.0;
/// Two displaced sides of one brush meet at a corner: their normals this far apart or more
/// (cosine). Neighbouring brushes' tops bent into an arch or a ramp meet flatter.
const CORNER_COS: f64 = 0.5;
/// The most sides a brush has (Valve's `MAX_BRUSH_SIDES`): longer runs are cut.
const MAX_SIDES: usize = 128;
/// The hull is sought among at most this many corners (its cost grows as their fourth power).
const MAX_HULL_CORNERS: usize = 48;
/// Points closer than this are one (BSP vertices are f32s).
const SAME_POINT: f64 = 0.01;
/// A corner this far in front of a plane is outside the solid it bounds.
const OUTSIDE: f64 = 0.01;

/// Hammer numbers a brush's sides one after another: displaced sides of one box are at most
/// this far apart in id (its first and last); the same side of consecutive boxes, six.
const SIDE_ID_GAP: u32 = 5;

/// A displacement's base face: its four corners, its plane (facing out of the brush) and, where
/// the BSP keeps face ids, the Hammer id of the side it was.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Base {
    pub quad: [DVec3; 4],
    pub top: Plane,
    pub side_id: Option<u32>,
}

/// A rebuilt brush: one plane per side, the bases' planes first (in their order), each with
/// its winding on the brush.
pub(crate) type Sides = Vec<(Plane, Winding)>;

/// The groups of bases that may share a brush: runs of consecutive bases with planes of their
/// own whose corners all stay on one convex solid, each run split into its parts that hang
/// together by edges at a corner (Hammer lists a box's top and bottom first: they share none).
pub(crate) fn brush_groups(bases: &[Base]) -> Vec<Vec<usize>> {
    let mut runs: Vec<Range<usize>> = Vec::new();
    for (i, base) in bases.iter().enumerate() {
        match runs.last_mut() {
            Some(run) if run.len() < MAX_SIDES && joins(&bases[run.clone()], base) => run.end = i + 1,
            _ => runs.push(i..i + 1),
        }
    }
    runs.into_iter()
        .flat_map(|run| edge_connected(&bases[run.clone()], run.start))
        .collect()
}

fn joins(run: &[Base], next: &Base) -> bool {
    let corners = || run.iter().flat_map(|b| b.quad);
    let last = run.last().and_then(|b| b.side_id);
    // Ids further apart are sides of different brushes (panels around a pillar, say).
    let numbered_together = match (last, next.side_id) {
        (Some(a), Some(b)) => a.abs_diff(b) <= SIDE_ID_GAP,
        _ => true,
    };
    numbered_together
        && run.iter().all(|b| !same_plane(&b.top, &next.top))
        && run.iter().all(|b| behind(&b.top, next.quad.iter().copied()))
        && behind(&next.top, corners())
}

/// The parts of `run` (whose first base is number `first`) joined by shared edges, each in
/// order.
fn edge_connected(run: &[Base], first: usize) -> Vec<Vec<usize>> {
    let mut part: Vec<usize> = (0..run.len()).collect();
    for i in 0..run.len() {
        for j in 0..i {
            if meet_at_corner(&run[i], &run[j]) {
                let (a, b) = (part[i], part[j]);
                part.iter_mut().filter(|p| **p == a).for_each(|p| *p = b);
            }
        }
    }
    let mut groups: Vec<(usize, Vec<usize>)> = Vec::new();
    for (i, &p) in part.iter().enumerate() {
        match groups.iter_mut().find(|g| g.0 == p) {
            Some(g) => g.1.push(first + i),
            None => groups.push((p, vec![first + i])),
        }
    }
    groups.into_iter().map(|g| g.1).collect()
}

/// The sides of the one brush `bases` lie on, each base's winding its quad; `None` when no
/// closing found keeps every quad whole.
pub(crate) fn brush_sides(bases: &[Base]) -> Option<Sides> {
    let tops: Vec<Plane> = bases.iter().map(|b| b.top).collect();
    let closed = |extra: Vec<Plane>| {
        let planes: Vec<Plane> = tops.iter().copied().chain(extra).collect();
        fitted(bases, &planes)
    };
    match bases {
        [one] => closed(prism_planes(one)),
        _ => closed(box_planes(bases)).or_else(|| closed(hull_planes(bases)?)),
    }
}

/// The planes with their windings when the solid is bounded and each base's winding is its
/// quad (redundant extra planes left out).
fn fitted(bases: &[Base], planes: &[Plane]) -> Option<Sides> {
    let windings = polyhedron_faces(planes);
    for (base, w) in bases.iter().zip(&windings) {
        if !w.as_ref().is_some_and(|w| same_polygon(&w.points, &base.quad)) {
            return None;
        }
    }
    // An extra plane that only touches the solid along an edge bounds nothing.
    let sides: Sides = (planes.iter().copied())
        .zip(windings)
        .enumerate()
        .filter_map(|(k, (p, w))| Some((p, w?)).filter(|(_, w)| k < bases.len() || !w.is_tiny(SAME_POINT)))
        .collect();
    let bounded = sides.iter().all(|(_, w)| !w.is_huge(MAX_WORLD / 2.0));
    (bounded && sides.len() >= 4).then_some(sides)
}

/// A lone quad's box: the bottom `THICKNESS` behind its plane, one plane through each edge.
fn prism_planes(base: &Base) -> Vec<Plane> {
    let (quad, top) = (&base.quad, base.top);
    let centre = quad.iter().sum::<DVec3>() / 4.0;
    let mut planes = vec![Plane::new(-top.normal, -(top.dist - THICKNESS))];
    for k in 0..4 {
        let (a, b) = (quad[k], quad[(k + 1) % 4]);
        let mut n = (b - a).cross(top.normal).normalize_or_zero();
        if n.dot(a - centre) < 0.0 {
            n = -n;
        }
        planes.push(Plane::new(n, n.dot(a)));
    }
    planes
}

/// The six planes of the corners' bounding box, less those a base already is (Hammer's
/// usual brush: a box some of whose sides were displaced).
fn box_planes(bases: &[Base]) -> Vec<Plane> {
    let (lo, hi) = corner_box(bases);
    let mut planes = Vec::new();
    for axis in 0..3 {
        let n = DVec3::AXES[axis];
        planes.push(Plane::new(n, hi[axis]));
        planes.push(Plane::new(-n, -lo[axis]));
    }
    planes.retain(|p| bases.iter().all(|b| !same_plane(p, &b.top)));
    planes
}

fn corner_box(bases: &[Base]) -> (DVec3, DVec3) {
    let corners = bases.iter().flat_map(|b| b.quad);
    corners.fold(
        (DVec3::splat(f64::INFINITY), DVec3::splat(f64::NEG_INFINITY)),
        |(lo, hi), p| (lo.min(p), hi.max(p)),
    )
}

/// The planes of the corners' convex hull that no base already is: each through three
/// corners with every corner behind it (`None` past `MAX_HULL_CORNERS`).
fn hull_planes(bases: &[Base]) -> Option<Vec<Plane>> {
    let corners = distinct(bases.iter().flat_map(|b| b.quad));
    if corners.len() > MAX_HULL_CORNERS {
        return None;
    }
    let mut planes: Vec<Plane> = bases.iter().map(|b| b.top).collect();
    let known = planes.len();
    for (i, &a) in corners.iter().enumerate() {
        for (j, &b) in corners.iter().enumerate().skip(i + 1) {
            for &c in &corners[j + 1..] {
                let Some(p) = outward_plane(a, b, c, &corners) else {
                    continue;
                };
                if planes.iter().all(|q| !same_plane(q, &p)) {
                    planes.push(p);
                }
            }
        }
    }
    Some(planes.split_off(known))
}

/// The plane through `a`, `b`, `c` facing away from every point of `all`, when all lie on
/// one side of it.
fn outward_plane(a: DVec3, b: DVec3, c: DVec3, all: &[DVec3]) -> Option<Plane> {
    let n = (b - a).cross(c - a);
    // Nearly collinear corners name no plane worth having.
    if n.length() < 1e-3 * (b - a).length().max((c - a).length()) {
        return None;
    }
    let p = Plane::new(n.normalize(), n.normalize().dot(a));
    if behind(&p, all.iter().copied()) {
        Some(p)
    } else {
        let q = p.flipped();
        behind(&q, all.iter().copied()).then_some(q)
    }
}

fn distinct(points: impl Iterator<Item = DVec3>) -> Vec<DVec3> {
    let mut out: Vec<DVec3> = Vec::new();
    for p in points {
        if out.iter().all(|q| q.distance(p) > SAME_POINT) {
            out.push(p);
        }
    }
    out
}

fn same_plane(a: &Plane, b: &Plane) -> bool {
    a.approx_eq(b, 1e-4, SAME_POINT)
}

fn behind(plane: &Plane, mut points: impl Iterator<Item = DVec3>) -> bool {
    points.all(|p| plane.distance(p) <= OUTSIDE)
}

/// Two bases share an edge at a corner of a solid (not a fold between neighbouring tops).
fn meet_at_corner(a: &Base, b: &Base) -> bool {
    a.top.normal.dot(b.top.normal) <= CORNER_COS && shares_edge(&a.quad, &b.quad)
}

/// Two quads share an edge: two consecutive corners of one are consecutive corners of the other.
fn shares_edge(a: &[DVec3; 4], b: &[DVec3; 4]) -> bool {
    let near = |p: DVec3, q: DVec3| p.distance(q) <= SAME_POINT;
    (0..4).any(|i| {
        let (p, q) = (a[i], a[(i + 1) % 4]);
        (0..4).any(|j| {
            let (r, s) = (b[j], b[(j + 1) % 4]);
            (near(p, r) && near(q, s)) || (near(p, s) && near(q, r))
        })
    })
}

/// The polygon has the quad's corners and no others.
fn same_polygon(points: &[DVec3], quad: &[DVec3; 4]) -> bool {
    let near = |p: &DVec3, set: &[DVec3]| set.iter().any(|q| q.distance(*p) <= SAME_POINT);
    points.iter().all(|p| near(p, quad)) && quad.iter().all(|p| near(p, points))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The six faces of the box `lo`..`hi` as bases (corners wound around each face).
    fn box_bases(lo: DVec3, hi: DVec3) -> Vec<Base> {
        let mut out = Vec::new();
        for axis in 0..3 {
            for sign in [1.0, -1.0] {
                let n = DVec3::AXES[axis] * sign;
                let at = if sign > 0.0 { hi[axis] } else { lo[axis] };
                let (u, v) = ((axis + 1) % 3, (axis + 2) % 3);
                let corner = |a: bool, b: bool| {
                    let mut p = DVec3::ZERO;
                    p[axis] = at;
                    p[u] = if a { hi[u] } else { lo[u] };
                    p[v] = if b { hi[v] } else { lo[v] };
                    p
                };
                let quad = [
                    corner(false, false),
                    corner(true, false),
                    corner(true, true),
                    corner(false, true),
                ];
                out.push(Base {
                    quad,
                    top: Plane::new(n, n.dot(quad[0])),
                    side_id: None,
                });
            }
        }
        out
    }

    #[test]
    fn a_displaced_box_is_one_brush_again() {
        let bases = box_bases(DVec3::ZERO, DVec3::new(64.0, 128.0, 32.0));
        assert_eq!(brush_groups(&bases), vec![(0..6).collect::<Vec<_>>()]);
        let sides = brush_sides(&bases).unwrap();
        assert_eq!(sides.len(), 6);
        // Five displaced sides: the box closes the sixth.
        let five = brush_sides(&bases[..5]).unwrap();
        assert_eq!(five.len(), 6);
        assert!(same_plane(&five[5].0, &bases[5].top), "{:?}", five[5].0);
    }

    #[test]
    fn neighbouring_boxes_stay_apart() {
        let mut bases = box_bases(DVec3::ZERO, DVec3::splat(64.0));
        bases.extend(box_bases(
            DVec3::new(64.0, 0.0, 0.0),
            DVec3::new(128.0, 64.0, 64.0),
        ));
        let groups = brush_groups(&bases);
        assert_eq!(groups, vec![(0..6).collect::<Vec<_>>(), (6..12).collect()]);
    }

    #[test]
    fn a_sloped_pair_closes_on_its_hull() {
        // A roof: two slopes meeting at a ridge; no bounding box keeps both quads whole
        // behind them both, the hull (a triangular prism) does.
        let ridge = [DVec3::new(0.0, 32.0, 64.0), DVec3::new(64.0, 32.0, 64.0)];
        let left = [
            DVec3::new(0.0, 0.0, 32.0),
            ridge[0],
            ridge[1],
            DVec3::new(64.0, 0.0, 32.0),
        ];
        let right = [
            ridge[0],
            DVec3::new(0.0, 64.0, 32.0),
            DVec3::new(64.0, 64.0, 32.0),
            ridge[1],
        ];
        let plane = |q: &[DVec3; 4], out: DVec3| {
            let n = (q[1] - q[0]).cross(q[2] - q[0]).normalize();
            let n = if n.dot(out) < 0.0 { -n } else { n };
            Plane::new(n, n.dot(q[0]))
        };
        let bases = [
            Base {
                quad: left,
                top: plane(&left, DVec3::new(0.0, -1.0, 1.0)),
                side_id: None,
            },
            Base {
                quad: right,
                top: plane(&right, DVec3::new(0.0, 1.0, 1.0)),
                side_id: None,
            },
        ];
        assert_eq!(brush_groups(&bases), vec![vec![0, 1]]);
        let sides = brush_sides(&bases).unwrap();
        for (k, base) in bases.iter().enumerate() {
            assert!(same_polygon(&sides[k].1.points, &base.quad));
        }
        assert!(sides.len() >= 5);
    }

    #[test]
    fn panels_numbered_as_brushes_of_their_own_stay_apart() {
        // The faces of a box, each the one displaced side of a six-sided panel (ids 6 apart):
        // six brushes; numbered one after another: one.
        let mut bases = box_bases(DVec3::ZERO, DVec3::splat(64.0));
        for (k, b) in bases.iter_mut().enumerate() {
            b.side_id = Some(100 + 6 * k as u32);
        }
        assert_eq!(brush_groups(&bases).len(), 6);
        for (k, b) in bases.iter_mut().enumerate() {
            b.side_id = Some(100 - k as u32);
        }
        assert_eq!(brush_groups(&bases).len(), 1);
    }

    #[test]
    fn neighbouring_tops_folded_into_an_arch_stay_apart() {
        // Two brushes' displaced tops, 20 degrees apart across their shared edge: convex
        // together, but a fold between neighbours, not a corner of one brush.
        let rise = 64.0 * 20f64.to_radians().tan();
        let flat = [
            DVec3::new(-64.0, 0.0, 0.0),
            DVec3::new(-64.0, 64.0, 0.0),
            DVec3::new(0.0, 64.0, 0.0),
            DVec3::new(0.0, 0.0, 0.0),
        ];
        let tilted = [
            DVec3::new(0.0, 0.0, 0.0),
            DVec3::new(0.0, 64.0, 0.0),
            DVec3::new(64.0, 64.0, -rise),
            DVec3::new(64.0, 0.0, -rise),
        ];
        let n = DVec3::new(rise, 0.0, 64.0).normalize();
        let bases = [
            Base {
                quad: flat,
                top: Plane::new(DVec3::Z, 0.0),
                side_id: None,
            },
            Base {
                quad: tilted,
                top: Plane::new(n, 0.0),
                side_id: None,
            },
        ];
        assert_eq!(brush_groups(&bases), vec![vec![0], vec![1]]);
    }

    #[test]
    fn a_lone_quad_gets_a_box_behind_it() {
        let top = box_bases(DVec3::ZERO, DVec3::splat(64.0))[4];
        let sides = brush_sides(&[top]).unwrap();
        assert_eq!(sides.len(), 6);
        let lowest = sides.iter().flat_map(|(_, w)| &w.points).map(|p| p.z);
        assert_eq!(lowest.fold(f64::INFINITY, f64::min), 64.0 - THICKNESS);
    }
}
