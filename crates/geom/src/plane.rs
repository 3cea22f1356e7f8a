//! Planes in f64, with Valve's snapping and a deduplicating plane table.

use std::collections::HashMap;

use glam::DVec3;

/// A normal within this of an axis snaps onto it (Valve's `RENDER_NORMAL_EPSILON`).
pub const NORMAL_EPSILON: f64 = 0.00001;
/// A distance within this of an integer snaps onto it; also the distance tolerance
/// under which two planes are the same plane (Valve's `RENDER_DIST_EPSILON`).
pub const DIST_EPSILON: f64 = 0.01;

/// The axis a plane faces, as the BSP `type` field stores it: 0-2 axial (normal along
/// X, Y, Z), 3-5 non-axial, closest to X, Y, Z.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PlaneType {
    X = 0,
    Y = 1,
    Z = 2,
    AnyX = 3,
    AnyY = 4,
    AnyZ = 5,
}

impl PlaneType {
    pub fn for_normal(n: DVec3) -> PlaneType {
        if n.x == 1.0 || n.x == -1.0 {
            return PlaneType::X;
        }
        if n.y == 1.0 || n.y == -1.0 {
            return PlaneType::Y;
        }
        if n.z == 1.0 || n.z == -1.0 {
            return PlaneType::Z;
        }
        let a = n.abs();
        if a.x >= a.y && a.x >= a.z {
            PlaneType::AnyX
        } else if a.y >= a.x && a.y >= a.z {
            PlaneType::AnyY
        } else {
            PlaneType::AnyZ
        }
    }

    pub fn is_axial(self) -> bool {
        (self as u8) < 3
    }

    /// The axis index (0-2) for axial planes.
    pub fn axis(self) -> usize {
        (self as usize) % 3
    }
}

/// `normal · p = dist`; points with a positive distance are in front.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Plane {
    pub normal: DVec3,
    pub dist: f64,
}

impl Plane {
    pub fn new(normal: DVec3, dist: f64) -> Plane {
        Plane { normal, dist }
    }

    /// The plane through three points, wound clockwise as seen from the front (Hammer's
    /// convention: the normal points out of the brush). `None` when the points are
    /// collinear or coincident.
    pub fn from_points(p0: DVec3, p1: DVec3, p2: DVec3) -> Option<Plane> {
        let n = (p0 - p1).cross(p2 - p1);
        let len = n.length();
        if len.is_nan() || len <= 1e-9 || !len.is_finite() {
            return None;
        }
        let normal = n / len;
        Some(Plane {
            normal,
            dist: normal.dot(p0),
        })
    }

    /// Like [`Plane::from_points`], then snapped as Valve's VBSP does: a nearly axial
    /// normal becomes exactly axial (the distance recomputed through the points' centroid)
    /// and a distance near an integer becomes that integer.
    pub fn from_points_snapped(p0: DVec3, p1: DVec3, p2: DVec3) -> Option<Plane> {
        let mut plane = Plane::from_points(p0, p1, p2)?;
        if snap_normal(&mut plane.normal) {
            plane.dist = plane.normal.dot((p0 + p1 + p2) / 3.0);
        }
        plane.dist = snap_dist(plane.dist);
        Some(plane)
    }

    #[inline]
    pub fn distance(&self, p: DVec3) -> f64 {
        self.normal.dot(p) - self.dist
    }

    pub fn flipped(&self) -> Plane {
        Plane {
            normal: -self.normal,
            dist: -self.dist,
        }
    }

    pub fn plane_type(&self) -> PlaneType {
        PlaneType::for_normal(self.normal)
    }

    /// Same plane within `normal_eps` per component and `dist_eps`.
    pub fn approx_eq(&self, other: &Plane, normal_eps: f64, dist_eps: f64) -> bool {
        (self.normal.x - other.normal.x).abs() < normal_eps
            && (self.normal.y - other.normal.y).abs() < normal_eps
            && (self.normal.z - other.normal.z).abs() < normal_eps
            && (self.dist - other.dist).abs() < dist_eps
    }
}

/// Snap a unit normal within [`NORMAL_EPSILON`] of an axis onto it. Returns whether it
/// snapped.
pub fn snap_normal(n: &mut DVec3) -> bool {
    for i in 0..3 {
        for sign in [1.0, -1.0] {
            if (n[i] - sign).abs() < NORMAL_EPSILON {
                *n = DVec3::ZERO;
                n[i] = sign;
                return true;
            }
        }
    }
    false
}

/// Snap a distance within [`DIST_EPSILON`] of an integer onto it.
pub fn snap_dist(d: f64) -> f64 {
    let r = d.round();
    if (d - r).abs() < DIST_EPSILON { r } else { d }
}

/// Index into a [`PlaneSet`]. Planes come in pairs: `id ^ 1` is the same plane facing the
/// other way, and the even member of an axial pair faces the positive axis.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PlaneId(pub u32);

impl PlaneId {
    #[inline]
    pub fn flipped(self) -> PlaneId {
        PlaneId(self.0 ^ 1)
    }
    /// The even (canonical) member of the pair.
    #[inline]
    pub fn positive(self) -> PlaneId {
        PlaneId(self.0 & !1)
    }
    #[inline]
    pub fn is_flipped(self) -> bool {
        self.0 & 1 == 1
    }
    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// A deduplicating table of planes, as Valve's `FindFloatPlane`: lookups snap the plane,
/// then match an existing one within ([`NORMAL_EPSILON`], [`DIST_EPSILON`]), hashed on the
/// distance so a lookup touches three buckets, not the whole table.
#[derive(Debug, Clone, Default)]
pub struct PlaneSet {
    planes: Vec<Plane>,
    types: Vec<PlaneType>,
    buckets: HashMap<i64, Vec<u32>>,
}

impl PlaneSet {
    pub fn new() -> PlaneSet {
        PlaneSet::default()
    }

    pub fn len(&self) -> usize {
        self.planes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.planes.is_empty()
    }

    #[inline]
    pub fn get(&self, id: PlaneId) -> &Plane {
        &self.planes[id.index()]
    }

    #[inline]
    pub fn plane_type(&self, id: PlaneId) -> PlaneType {
        self.types[id.index()]
    }

    pub fn planes(&self) -> &[Plane] {
        &self.planes
    }

    fn bucket(dist: f64) -> i64 {
        dist.abs().floor() as i64
    }

    /// Find the plane or add it (with its flipped twin). `None` for a degenerate normal.
    pub fn find_or_insert(&mut self, plane: Plane) -> Option<PlaneId> {
        let len = plane.normal.length();
        if len.is_nan() || len <= 0.5 || !plane.dist.is_finite() {
            return None;
        }
        let mut normal = plane.normal;
        snap_normal(&mut normal);
        let plane = Plane {
            normal,
            dist: snap_dist(plane.dist),
        };
        if let Some(id) = self.find(&plane) {
            return Some(id);
        }
        Some(self.insert_pair(plane))
    }

    /// Find an existing plane equal to `plane` within the table's tolerances.
    pub fn find(&self, plane: &Plane) -> Option<PlaneId> {
        let b = Self::bucket(plane.dist);
        // Saturating: a hostile distance near i64::MAX must not overflow (the end buckets repeat).
        for key in [b.saturating_sub(1), b, b.saturating_add(1)] {
            if let Some(list) = self.buckets.get(&key) {
                for &i in list {
                    if self.planes[i as usize].approx_eq(plane, NORMAL_EPSILON, DIST_EPSILON) {
                        return Some(PlaneId(i));
                    }
                }
            }
        }
        None
    }

    fn insert_pair(&mut self, plane: Plane) -> PlaneId {
        let ty = plane.plane_type();
        let flipped = plane.flipped();
        // Axial planes facing the positive axis go first, so `id & !1` is the positive one.
        let first_is_given = !(ty.is_axial() && plane.normal[ty.axis()] < 0.0);
        let base = self.planes.len() as u32;
        let (a, b) = if first_is_given {
            (plane, flipped)
        } else {
            (flipped, plane)
        };
        self.planes.push(a);
        self.planes.push(b);
        self.types.push(ty);
        self.types.push(ty);
        for (i, p) in [(base, a), (base + 1, b)] {
            self.buckets.entry(Self::bucket(p.dist)).or_default().push(i);
        }
        if first_is_given {
            PlaneId(base)
        } else {
            PlaneId(base + 1)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snapping_and_dedup() {
        let mut set = PlaneSet::new();
        let a = set
            .find_or_insert(Plane::new(DVec3::new(0.0, 0.0, 1.0), 64.0))
            .unwrap();
        let b = set
            .find_or_insert(Plane::new(DVec3::new(0.0, 0.000001, 0.9999999), 64.004))
            .unwrap();
        assert_eq!(a, b);
        let c = set
            .find_or_insert(Plane::new(DVec3::new(0.0, 0.0, -1.0), -64.0))
            .unwrap();
        assert_eq!(c, a.flipped());
        assert_eq!(a.0 & 1, 0, "positive axial plane is even");
        assert_eq!(c.0 & 1, 1);
        assert_eq!(set.plane_type(a), PlaneType::Z);
        assert_eq!(set.len(), 2);
        // A negative-facing plane inserted first still lands odd.
        let d = set
            .find_or_insert(Plane::new(DVec3::new(-1.0, 0.0, 0.0), 10.0))
            .unwrap();
        assert!(d.is_flipped());
        assert_eq!(set.get(d.positive()).normal, DVec3::X);
    }

    #[test]
    fn distances_at_the_end_of_the_bucket_range_are_found_again() {
        let mut set = PlaneSet::new();
        for dist in [9.3e18, -9.3e18, 1e300] {
            let p = Plane::new(DVec3::Z, dist);
            let id = set.find_or_insert(p).unwrap();
            assert_eq!(set.find(&p), Some(id), "{dist}");
        }
    }

    #[test]
    fn from_points_orientation() {
        // Hammer's top face of a box: points clockwise seen from above → normal +Z.
        let p = Plane::from_points_snapped(
            DVec3::new(-64.0, 64.0, 64.0),
            DVec3::new(64.0, 64.0, 64.0),
            DVec3::new(64.0, -64.0, 64.0),
        )
        .unwrap();
        assert_eq!(p.normal, DVec3::Z);
        assert_eq!(p.dist, 64.0);
        assert!(Plane::from_points(DVec3::ZERO, DVec3::X, DVec3::X * 2.0).is_none());
    }
}
