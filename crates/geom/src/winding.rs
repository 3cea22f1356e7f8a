//! Convex polygons ("windings") and the clipping operations a BSP compiler needs.

use glam::DVec3;

use crate::{Bounds, Plane};

/// Half the size of the polygon a plane starts as, larger than any Source map.
pub const MAX_WORLD: f64 = 65536.0;

/// Where a point or polygon lies relative to a plane.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Front,
    Back,
    On,
    Cross,
}

/// A convex polygon, points wound clockwise seen from the front of its plane (Valve's
/// convention).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Winding {
    pub points: Vec<DVec3>,
}

impl Winding {
    pub fn new(points: Vec<DVec3>) -> Winding {
        Winding { points }
    }

    /// A huge square on `plane`, to be cut down by clipping.
    pub fn base_for_plane(plane: &Plane) -> Winding {
        let n = plane.normal;
        // The major axis picks an "up" vector that is not parallel to the normal.
        let a = n.abs();
        let up = if a.z >= a.x && a.z >= a.y {
            DVec3::X
        } else {
            DVec3::Z
        };
        let up = (up - n * up.dot(n)).normalize();
        let right = up.cross(n);
        let org = n * plane.dist;
        let up = up * MAX_WORLD;
        let right = right * MAX_WORLD;
        Winding {
            points: vec![
                org - right + up,
                org + right + up,
                org + right - up,
                org - right - up,
            ],
        }
    }

    pub fn len(&self) -> usize {
        self.points.len()
    }

    pub fn is_empty(&self) -> bool {
        self.points.is_empty()
    }

    pub fn area(&self) -> f64 {
        let mut total = DVec3::ZERO;
        for i in 2..self.points.len() {
            total += (self.points[i - 1] - self.points[0]).cross(self.points[i] - self.points[0]);
        }
        total.length() * 0.5
    }

    pub fn center(&self) -> DVec3 {
        let sum: DVec3 = self.points.iter().copied().sum();
        sum / self.points.len().max(1) as f64
    }

    pub fn bounds(&self) -> Bounds {
        let mut b = Bounds::EMPTY;
        for &p in &self.points {
            b.add_point(p);
        }
        b
    }

    /// The plane the polygon lies on (normal by its winding order).
    pub fn plane(&self) -> Option<Plane> {
        if self.points.len() < 3 {
            return None;
        }
        // Newell's method: robust for slightly non-planar polygons.
        let mut n = DVec3::ZERO;
        for i in 0..self.points.len() {
            let a = self.points[i];
            let b = self.points[(i + 1) % self.points.len()];
            n += DVec3::new(
                (a.y - b.y) * (a.z + b.z),
                (a.z - b.z) * (a.x + b.x),
                (a.x - b.x) * (a.y + b.y),
            );
        }
        // Newell gives the counter-clockwise normal; ours are clockwise.
        let n = -n;
        let len = n.length();
        if len < 1e-12 {
            return None;
        }
        let normal = n / len;
        Some(Plane::new(normal, normal.dot(self.points[0])))
    }

    pub fn reversed(&self) -> Winding {
        Winding {
            points: self.points.iter().rev().copied().collect(),
        }
    }

    /// Which side of `plane` the polygon is on, with points within `epsilon` counted on it.
    pub fn classify(&self, plane: &Plane, epsilon: f64) -> Side {
        let (mut front, mut back) = (false, false);
        for &p in &self.points {
            let d = plane.distance(p);
            if d > epsilon {
                front = true;
            } else if d < -epsilon {
                back = true;
            }
        }
        match (front, back) {
            (true, true) => Side::Cross,
            (true, false) => Side::Front,
            (false, true) => Side::Back,
            (false, false) => Side::On,
        }
    }

    /// Split by `plane` into the parts in front and behind. A polygon lying on the plane goes
    /// to neither side (both `None`) — callers decide by facing.
    pub fn split(&self, plane: &Plane, epsilon: f64) -> (Option<Winding>, Option<Winding>) {
        self.split_parts(plane, epsilon)
            .unwrap_or_else(|whole| whole.place(self.clone()))
    }

    /// [`Winding::split`] without copying a polygon the plane does not cut: where the whole
    /// of it goes, or its two parts.
    pub fn split_or_whole(&self, plane: &Plane, epsilon: f64) -> Split {
        match self.split_parts(plane, epsilon) {
            Ok((front, back)) => Split::Cut(front, back),
            Err(Whole::Neither) => Split::On,
            Err(Whole::Front) => Split::Front,
            Err(Whole::Back) => Split::Back,
        }
    }

    /// [`Winding::split`] of a polygon given up: returned itself, not a copy, when the plane
    /// does not cut it, and as the error when it lies on the plane (for the caller to place).
    /// When the plane cuts it, its buffer holds the front part.
    pub fn into_split(
        mut self,
        plane: &Plane,
        epsilon: f64,
    ) -> Result<(Option<Winding>, Option<Winding>), Winding> {
        let mut front = take_spare();
        let cut = with_point_sides(&self.points, plane, epsilon, |at| match (at.front, at.back) {
            (0, 0) => Err(Whole::Neither),
            (_, 0) => Err(Whole::Front),
            (0, _) => Err(Whole::Back),
            _ => Ok(self.split_into(plane, at, &mut front)),
        });
        let back = match cut {
            Ok(back) => back,
            Err(Whole::Neither) => return Err(self),
            Err(whole) => return Ok(whole.place(self)),
        };
        self.take_points(front);
        Ok(((self.points.len() >= 3).then_some(self), back))
    }

    /// The two parts when the plane cuts the polygon, else where the whole of it goes.
    fn split_parts(&self, plane: &Plane, epsilon: f64) -> Result<(Option<Winding>, Option<Winding>), Whole> {
        with_point_sides(&self.points, plane, epsilon, |at| match (at.front, at.back) {
            (0, 0) => Err(Whole::Neither),
            (_, 0) => Err(Whole::Front),
            (0, _) => Err(Whole::Back),
            _ => Ok(self.split_crossing(plane, at, [true, true])),
        })
    }

    /// [`Winding::clip_front`] of a polygon given up: returned itself, not a copy, when it
    /// lies wholly in front, and only the front part built when the plane cuts it, in a
    /// buffer kept for reuse (its own then kept in turn), so that clipping polygons plane
    /// after plane allocates next to nothing.
    pub fn into_front(mut self, plane: &Plane, epsilon: f64, keep_on: bool) -> Option<Winding> {
        let mut front = take_spare();
        let cut = with_point_sides(&self.points, plane, epsilon, |at| match (at.front, at.back) {
            (0, 0) => Err(keep_on),
            (_, 0) => Err(true),
            (0, _) => Err(false),
            _ => {
                make_room(&mut front, self.points.len() + 4);
                self.walk_crossing(plane, at, |to_front, _, p| {
                    if to_front {
                        front.push(p);
                    }
                });
                Ok(())
            }
        });
        if let Err(whole) = cut {
            put_spare(front);
            return whole.then_some(self);
        }
        self.take_points(front);
        (self.points.len() >= 3).then_some(self)
    }

    /// Takes `points` as the polygon's: copied into its own buffer when that has room (the
    /// larger one kept for reuse), else its buffer kept for reuse instead.
    #[inline]
    fn take_points(&mut self, mut points: Vec<DVec3>) {
        if self.points.capacity() >= points.len() {
            self.points.clear();
            self.points.extend_from_slice(&points);
        } else {
            std::mem::swap(&mut self.points, &mut points);
        }
        put_spare(points);
    }

    /// [`Winding::clip_back`] of a polygon given up (see [`Winding::into_front`]).
    pub fn into_back(self, plane: &Plane, epsilon: f64, keep_on: bool) -> Option<Winding> {
        self.into_front(&plane.flipped(), epsilon, keep_on)
    }

    /// The back part of a polygon the plane cuts, built; the front part into `front`.
    fn split_into(&self, plane: &Plane, at: &PointSides<'_>, front: &mut Vec<DVec3>) -> Option<Winding> {
        let mut back = Vec::with_capacity(self.points.len() + 4);
        make_room(front, self.points.len() + 4);
        self.walk_crossing(plane, at, |to_front, to_back, p| {
            if to_front {
                front.push(p);
            }
            if to_back {
                back.push(p);
            }
        });
        (back.len() >= 3).then_some(Winding { points: back })
    }

    /// [`Winding::split`] of a polygon with points on both sides (`at` from
    /// [`point_sides`]): points on the plane go to both parts, and each edge crossing it adds
    /// its crossing point to both. Only the parts `wanted` (front, back) are built.
    #[inline]
    fn split_crossing(
        &self,
        plane: &Plane,
        at: &PointSides<'_>,
        wanted: [bool; 2],
    ) -> (Option<Winding>, Option<Winding>) {
        let n = self.points.len();
        let room = |want: bool| if want { n + 4 } else { 0 };
        let (mut f, mut b) = (
            Vec::with_capacity(room(wanted[0])),
            Vec::with_capacity(room(wanted[1])),
        );
        self.walk_crossing(plane, at, |to_front, to_back, p| {
            if to_front && wanted[0] {
                f.push(p);
            }
            if to_back && wanted[1] {
                b.push(p);
            }
        });
        (
            (f.len() >= 3).then_some(Winding { points: f }),
            (b.len() >= 3).then_some(Winding { points: b }),
        )
    }

    /// The points of both parts of a split polygon in order, each with the parts (front,
    /// back) it belongs to: points on the plane and edge crossings to both.
    #[inline]
    fn walk_crossing(&self, plane: &Plane, at: &PointSides<'_>, mut push: impl FnMut(bool, bool, DVec3)) {
        // Each point with its side and the next point's (zipped: no bounds check per point).
        let steps = self.points.iter().zip(at.sides.windows(2)).enumerate();
        for (i, (&p1, pair)) in steps {
            let (side, next) = (pair[0], pair[1]);
            match side {
                Side::On => {
                    push(true, true, p1);
                    continue;
                }
                Side::Front => push(true, false, p1),
                Side::Back => push(false, true, p1),
                Side::Cross => {}
            }
            if next == Side::On || next == side {
                continue;
            }
            push(true, true, self.crossing(plane, at.dists, i));
        }
    }

    /// Where edge `i` (to the next point) crosses `plane`, its points `dists` from it.
    #[inline]
    fn crossing(&self, plane: &Plane, dists: &[f64], i: usize) -> DVec3 {
        let n = self.points.len();
        // The next point, the first after the last (no division, as `% n` would cost).
        let next = if i + 1 == n { 0 } else { i + 1 };
        let (p1, p2) = (self.points[i], self.points[next]);
        let dot = dists[i] / (dists[i] - dists[i + 1]);
        snap_to_axial(p1 + (p2 - p1) * dot, plane)
    }

    /// Keep the part in front of `plane`. A polygon on the plane is kept when `keep_on`.
    pub fn clip_front(&self, plane: &Plane, epsilon: f64, keep_on: bool) -> Option<Winding> {
        match self.split(plane, epsilon) {
            (None, None) => keep_on.then(|| self.clone()),
            (f, _) => f,
        }
    }

    /// Keep the part behind `plane` (inside a brush whose side this is).
    pub fn clip_back(&self, plane: &Plane, epsilon: f64, keep_on: bool) -> Option<Winding> {
        self.clip_front(&plane.flipped(), epsilon, keep_on)
    }

    /// True when the polygon is degenerate: fewer than three edges longer than `edge_len`.
    pub fn is_tiny(&self, edge_len: f64) -> bool {
        let mut edges = 0;
        let n = self.points.len();
        for i in 0..n {
            let j = if i + 1 == n { 0 } else { i + 1 };
            if (self.points[j] - self.points[i]).length() > edge_len {
                edges += 1;
                if edges == 3 {
                    return false;
                }
            }
        }
        true
    }

    /// True when any point lies outside the valid world (a plane that was never clipped).
    pub fn is_huge(&self, limit: f64) -> bool {
        self.points.iter().any(|p| p.abs().max_element() > limit)
    }

    /// Drop points that lie on the line through their neighbours.
    pub fn remove_colinear(&mut self, epsilon: f64) {
        if self.points.len() < 3 {
            return;
        }
        let n = self.points.len();
        let mut out = Vec::with_capacity(n);
        for i in 0..n {
            let prev = self.points[(i + n - 1) % n];
            let cur = self.points[i];
            let next = self.points[(i + 1) % n];
            let v1 = (cur - prev).normalize_or_zero();
            let v2 = (next - cur).normalize_or_zero();
            if v1.dot(v2) < 1.0 - epsilon {
                out.push(cur);
            }
        }
        if out.len() >= 3 {
            self.points = out;
        }
    }

    /// True when the polygon is convex and lies on `plane` within `epsilon` (a sanity
    /// check for tests and `verify()`).
    pub fn is_valid_on(&self, plane: &Plane, epsilon: f64) -> bool {
        if self.points.len() < 3 {
            return false;
        }
        let n = self.points.len();
        for i in 0..n {
            let p1 = self.points[i];
            if plane.distance(p1).abs() > epsilon {
                return false;
            }
            let p2 = self.points[(i + 1) % n];
            // Clockwise winding: the inside is behind each edge plane `normal × edge`.
            let edge_normal = plane.normal.cross(p2 - p1).normalize_or_zero();
            let edge_dist = edge_normal.dot(p1);
            for (j, &p) in self.points.iter().enumerate() {
                if j != i && edge_normal.dot(p) - edge_dist > epsilon {
                    return false;
                }
            }
        }
        true
    }
}

/// The side of a point `d` from a plane: on it within `epsilon`.
#[inline]
fn side_of(d: f64, epsilon: f64) -> Side {
    if d > epsilon {
        Side::Front
    } else if d < -epsilon {
        Side::Back
    } else {
        Side::On
    }
}

/// Where a plane puts a polygon ([`Winding::split_or_whole`]).
#[derive(Debug, Clone, PartialEq)]
pub enum Split {
    /// Lying on the plane.
    On,
    /// Wholly in front.
    Front,
    /// Wholly behind.
    Back,
    /// Cut: the parts in front and behind (a part of under three points is `None`).
    Cut(Option<Winding>, Option<Winding>),
}

/// Where [`Winding::split`] puts a polygon the plane does not cut.
enum Whole {
    /// On the plane: neither part.
    Neither,
    Front,
    Back,
}

impl Whole {
    /// The (front, back) parts holding `w` whole.
    fn place(self, w: Winding) -> (Option<Winding>, Option<Winding>) {
        match self {
            Whole::Neither => (None, None),
            Whole::Front => (Some(w), None),
            Whole::Back => (None, Some(w)),
        }
    }
}

/// `f` of where `points` lie against `plane` ([`point_sides`]). Most polygons are small: their
/// distances and sides go on the stack (a compile splits polygons millions of times; two
/// allocations each were a fifth of vbsp's time).
#[inline]
fn with_point_sides<R>(
    points: &[DVec3],
    plane: &Plane,
    epsilon: f64,
    f: impl FnOnce(&PointSides<'_>) -> R,
) -> R {
    let n = points.len();
    if n < STACK_POINTS {
        let mut dists = [0.0; STACK_POINTS];
        let mut sides = [Side::On; STACK_POINTS];
        f(&point_sides(
            points,
            plane,
            epsilon,
            &mut dists[..=n],
            &mut sides[..=n],
        ))
    } else {
        let (mut dists, mut sides) = (vec![0.0; n + 1], vec![Side::On; n + 1]);
        f(&point_sides(points, plane, epsilon, &mut dists, &mut sides))
    }
}

/// Each point's distance from `plane` and side (within `epsilon`: on it) into `dists` and
/// `sides` (one longer than `points`), the first point repeated at the end, and how many
/// points are in front and behind.
#[inline]
fn point_sides<'b>(
    points: &[DVec3],
    plane: &Plane,
    epsilon: f64,
    dists: &'b mut [f64],
    sides: &'b mut [Side],
) -> PointSides<'b> {
    let n = points.len();
    let (mut front, mut back) = (0, 0);
    // Zipped rather than indexed: no bounds check per point (this runs millions of times).
    for ((&p, dist), side) in points.iter().zip(dists.iter_mut()).zip(sides.iter_mut()) {
        let d = plane.distance(p);
        let s = side_of(d, epsilon);
        front += usize::from(s == Side::Front);
        back += usize::from(s == Side::Back);
        *dist = d;
        *side = s;
    }
    // The first point again, closing the loop for the edge walk.
    if n > 0 {
        dists[n] = dists[0];
        sides[n] = sides[0];
    }
    PointSides {
        dists,
        sides,
        front,
        back,
    }
}

/// Polygons with fewer points than this are split with their distances on the stack.
const STACK_POINTS: usize = 32;

thread_local! {
    /// A point buffer kept for [`Winding::into_front`] and [`Winding::into_split`]: each builds
    /// the front part in it and keeps the polygon's old buffer here for the next.
    static SPARE_POINTS: std::cell::Cell<Vec<DVec3>> = const { std::cell::Cell::new(Vec::new()) };
}

/// The kept point buffer, empty (a new one when it is in use).
#[inline]
fn take_spare() -> Vec<DVec3> {
    let mut spare = SPARE_POINTS.with(std::cell::Cell::take);
    spare.clear();
    spare
}

/// Makes the empty `points` hold at least `room` points: a new buffer when it has less
/// (growing it would copy its old contents for nothing).
#[inline]
fn make_room(points: &mut Vec<DVec3>, room: usize) {
    if points.capacity() < room {
        *points = Vec::with_capacity(room);
    }
}

/// Keeps `points`' buffer for the next [`take_spare`].
#[inline]
fn put_spare(points: Vec<DVec3>) {
    SPARE_POINTS.with(|cell| cell.set(points));
}

/// Where a polygon's points lie against a plane ([`Winding::split`]).
struct PointSides<'b> {
    /// Each point's distance, the first point repeated at the end.
    dists: &'b [f64],
    /// Each point's side, the first point repeated at the end.
    sides: &'b [Side],
    /// Points in front of and behind the plane.
    front: usize,
    back: usize,
}

/// A point on `plane` with its coordinate along an axial plane's axis set exactly to the
/// plane's: axial planes produce exact coordinates, so round-off is avoided on them.
#[inline]
fn snap_to_axial(mut mid: DVec3, plane: &Plane) -> DVec3 {
    for j in 0..3 {
        if plane.normal[j] == 1.0 {
            mid[j] = plane.dist;
        } else if plane.normal[j] == -1.0 {
            mid[j] = -plane.dist;
        }
    }
    mid
}

#[cfg(test)]
mod tests {
    use super::*;

    fn square() -> Winding {
        Winding::base_for_plane(&Plane::new(DVec3::Z, 0.0))
            .clip_back(&Plane::new(DVec3::X, 1.0), 0.0, false)
            .unwrap()
            .clip_back(&Plane::new(-DVec3::X, 1.0), 0.0, false)
            .unwrap()
            .clip_back(&Plane::new(DVec3::Y, 1.0), 0.0, false)
            .unwrap()
            .clip_back(&Plane::new(-DVec3::Y, 1.0), 0.0, false)
            .unwrap()
    }

    #[test]
    fn base_winding_faces_its_plane() {
        for n in [
            DVec3::X,
            -DVec3::Y,
            DVec3::Z,
            DVec3::new(1.0, 2.0, 3.0).normalize(),
        ] {
            let plane = Plane::new(n, 10.0);
            let w = Winding::base_for_plane(&plane);
            let wp = w.plane().unwrap();
            assert!((wp.normal - n).length() < 1e-9, "{n} vs {}", wp.normal);
            assert!((wp.dist - 10.0).abs() < 1e-6);
        }
    }

    #[test]
    fn clip_and_split() {
        let w = square();
        assert!((w.area() - 4.0).abs() < 1e-9);
        assert!(w.is_valid_on(&Plane::new(DVec3::Z, 0.0), 1e-9));
        let (f, b) = w.split(&Plane::new(DVec3::X, 0.5), 0.0);
        assert!((f.unwrap().area() - 1.0).abs() < 1e-9);
        assert!((b.unwrap().area() - 3.0).abs() < 1e-9);
        assert_eq!(w.classify(&Plane::new(DVec3::Z, 0.0), 0.01), Side::On);
        assert_eq!(w.classify(&Plane::new(DVec3::X, 5.0), 0.01), Side::Back);
        assert!(w.clip_front(&Plane::new(DVec3::X, 5.0), 0.0, false).is_none());
    }

    #[test]
    fn clipping_an_owned_polygon_gives_what_clipping_a_borrowed_one_does() {
        // A square and a 40-point polygon (past the stack buffers) against planes that cut
        // them, miss them on either side, and hold them.
        let round = Winding::new(
            (0..40)
                .map(|k| {
                    let a = k as f64 * std::f64::consts::TAU / 40.0;
                    DVec3::new(a.cos() * 8.0, a.sin() * 8.0, 0.0)
                })
                .collect(),
        );
        let planes = [
            Plane::new(DVec3::X, 0.5),
            Plane::new(-DVec3::X, 0.5),
            Plane::new(DVec3::X, 50.0),
            Plane::new(DVec3::X, -50.0),
            Plane::new(DVec3::Z, 0.0),
            Plane::new(DVec3::new(1.0, 1.0, 0.0).normalize(), 1.0),
        ];
        for w in [square(), round] {
            for plane in &planes {
                for keep_on in [false, true] {
                    let borrowed = (
                        w.clip_front(plane, 0.01, keep_on),
                        w.clip_back(plane, 0.01, keep_on),
                    );
                    let owned = (
                        w.clone().into_front(plane, 0.01, keep_on),
                        w.clone().into_back(plane, 0.01, keep_on),
                    );
                    assert_eq!(owned, borrowed, "{} points, {plane:?}", w.len());
                    let whole = match w.split_or_whole(plane, 0.01) {
                        Split::On => (None, None),
                        Split::Front => (Some(w.clone()), None),
                        Split::Back => (None, Some(w.clone())),
                        Split::Cut(f, b) => (f, b),
                    };
                    assert_eq!(whole, w.split(plane, 0.01), "{} points, {plane:?}", w.len());
                    let owned_split = w.clone().into_split(plane, 0.01).unwrap_or_default();
                    assert_eq!(owned_split, w.split(plane, 0.01), "{} points, {plane:?}", w.len());
                }
            }
        }
    }
}
