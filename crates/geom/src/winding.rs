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
        let at = self.point_sides(plane, epsilon);
        if at.front == 0 && at.back == 0 {
            return (None, None);
        }
        if at.back == 0 {
            return (Some(self.clone()), None);
        }
        if at.front == 0 {
            return (None, Some(self.clone()));
        }
        self.split_crossing(plane, &at)
    }

    /// Each point's distance from `plane` and side (within `epsilon`: on it), the first point
    /// repeated at the end, and how many points are in front and behind.
    #[inline]
    fn point_sides(&self, plane: &Plane, epsilon: f64) -> PointSides {
        let n = self.points.len();
        let mut dists = Vec::with_capacity(n + 1);
        let mut sides = Vec::with_capacity(n + 1);
        let (mut front, mut back) = (0, 0);
        for &p in &self.points {
            let d = plane.distance(p);
            let s = side_of(d, epsilon);
            front += usize::from(s == Side::Front);
            back += usize::from(s == Side::Back);
            dists.push(d);
            sides.push(s);
        }
        // The first point again, closing the loop for the edge walk.
        if let (Some(&d), Some(&s)) = (dists.first(), sides.first()) {
            dists.push(d);
            sides.push(s);
        }
        PointSides {
            dists,
            sides,
            front,
            back,
        }
    }

    /// [`Winding::split`] of a polygon with points on both sides (`at` from
    /// [`Winding::point_sides`]): points on the plane go to both parts, and each edge
    /// crossing it adds its crossing point to both.
    #[inline]
    fn split_crossing(&self, plane: &Plane, at: &PointSides) -> (Option<Winding>, Option<Winding>) {
        let (dists, sides) = (&at.dists, &at.sides);
        let n = self.points.len();
        let mut f = Vec::with_capacity(n + 4);
        let mut b = Vec::with_capacity(n + 4);
        for i in 0..n {
            let p1 = self.points[i];
            match sides[i] {
                Side::On => {
                    f.push(p1);
                    b.push(p1);
                    continue;
                }
                Side::Front => f.push(p1),
                Side::Back => b.push(p1),
                Side::Cross => {}
            }
            if sides[i + 1] == Side::On || sides[i + 1] == sides[i] {
                continue;
            }
            let mid = self.crossing(plane, dists, i);
            f.push(mid);
            b.push(mid);
        }
        (
            (f.len() >= 3).then_some(Winding { points: f }),
            (b.len() >= 3).then_some(Winding { points: b }),
        )
    }

    /// Where edge `i` (to the next point) crosses `plane`, its points `dists` from it.
    #[inline]
    fn crossing(&self, plane: &Plane, dists: &[f64], i: usize) -> DVec3 {
        let n = self.points.len();
        let (p1, p2) = (self.points[i], self.points[(i + 1) % n]);
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
        for i in 0..self.points.len() {
            let j = (i + 1) % self.points.len();
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

/// Where a polygon's points lie against a plane ([`Winding::split`]).
struct PointSides {
    /// Each point's distance, the first point repeated at the end.
    dists: Vec<f64>,
    /// Each point's side, the first point repeated at the end.
    sides: Vec<Side>,
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
}
