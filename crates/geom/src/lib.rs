//! Geometry for map compiling: f64 planes with Valve's snapping and a deduplicating plane
//! table, convex polygons ("windings") with clipping and splitting, bounding boxes, and
//! convex polyhedra from planes (a brush's faces).
//!
//! Shared by the compile stages (vbsp now; vis and light later). Everything is f64 and
//! free of I/O.

mod plane;
mod winding;

pub use glam::DVec3;
pub use plane::{DIST_EPSILON, NORMAL_EPSILON, Plane, PlaneId, PlaneSet, PlaneType, snap_dist, snap_normal};
pub use winding::{MAX_WORLD, Side, Split, Winding};

/// Source's `AngleMatrix` for entity angles (`pitch yaw roll`, degrees): yaw about z, then
/// pitch about y, then roll about x. Returns the columns: forward, left, up.
pub fn angle_matrix(angles: [f64; 3]) -> [[f64; 3]; 3] {
    let (sp, cp) = angles[0].to_radians().sin_cos();
    let (sy, cy) = angles[1].to_radians().sin_cos();
    let (sr, cr) = angles[2].to_radians().sin_cos();
    [
        [cp * cy, cp * sy, -sp],
        [sr * sp * cy - cr * sy, sr * sp * sy + cr * cy, sr * cp],
        [cr * sp * cy + sr * sy, cr * sp * sy - sr * cy, cr * cp],
    ]
}

/// An axis-aligned box; [`Bounds::EMPTY`] contains nothing and grows by adding points.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bounds {
    pub mins: DVec3,
    pub maxs: DVec3,
}

impl Bounds {
    pub const EMPTY: Bounds = Bounds {
        mins: DVec3::splat(f64::INFINITY),
        maxs: DVec3::splat(f64::NEG_INFINITY),
    };

    pub fn new(mins: DVec3, maxs: DVec3) -> Bounds {
        Bounds { mins, maxs }
    }

    pub fn is_empty(&self) -> bool {
        self.mins.x > self.maxs.x || self.mins.y > self.maxs.y || self.mins.z > self.maxs.z
    }

    pub fn add_point(&mut self, p: DVec3) {
        self.mins = self.mins.min(p);
        self.maxs = self.maxs.max(p);
    }

    pub fn union(&self, o: &Bounds) -> Bounds {
        Bounds {
            mins: self.mins.min(o.mins),
            maxs: self.maxs.max(o.maxs),
        }
    }

    pub fn expanded(&self, by: f64) -> Bounds {
        Bounds {
            mins: self.mins - DVec3::splat(by),
            maxs: self.maxs + DVec3::splat(by),
        }
    }

    /// Overlap test with a tolerance (touching boxes overlap when `eps >= 0`).
    pub fn overlaps(&self, o: &Bounds, eps: f64) -> bool {
        (0..3).all(|i| self.mins[i] <= o.maxs[i] + eps && o.mins[i] <= self.maxs[i] + eps)
    }

    pub fn contains(&self, p: DVec3) -> bool {
        (0..3).all(|i| p[i] >= self.mins[i] && p[i] <= self.maxs[i])
    }

    pub fn size(&self) -> DVec3 {
        self.maxs - self.mins
    }

    pub fn center(&self) -> DVec3 {
        (self.mins + self.maxs) * 0.5
    }

    /// Which side of `plane` the box is on: `Front`, `Back` or `Cross` (never `On`).
    pub fn plane_side(&self, plane: &Plane, eps: f64) -> Side {
        let (mut near, mut far) = (DVec3::ZERO, DVec3::ZERO);
        for i in 0..3 {
            if plane.normal[i] >= 0.0 {
                near[i] = self.mins[i];
                far[i] = self.maxs[i];
            } else {
                near[i] = self.maxs[i];
                far[i] = self.mins[i];
            }
        }
        if plane.distance(near) >= -eps {
            Side::Front
        } else if plane.distance(far) <= eps {
            Side::Back
        } else {
            Side::Cross
        }
    }
}

/// The faces of the convex polyhedron bounded by `planes` (each plane's normal pointing
/// out): for each plane, its polygon clipped by every other plane, or `None` when the
/// plane does not touch the solid (redundant, or the planes enclose nothing).
pub fn polyhedron_faces(planes: &[Plane]) -> Vec<Option<Winding>> {
    planes
        .iter()
        .enumerate()
        .map(|(i, plane)| {
            let mut w = Winding::base_for_plane(plane);
            for (j, other) in planes.iter().enumerate() {
                if i == j {
                    continue;
                }
                // A plane coincident with this one (same facing) would clip it away entirely
                // at epsilon 0; skip exact duplicates.
                if other.approx_eq(plane, 1e-9, 1e-9) {
                    continue;
                }
                w = w.into_back(other, 0.0, false)?;
            }
            Some(w)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    pub fn cube_planes(half: f64) -> Vec<Plane> {
        [DVec3::X, -DVec3::X, DVec3::Y, -DVec3::Y, DVec3::Z, -DVec3::Z]
            .iter()
            .map(|&n| Plane::new(n, half))
            .collect()
    }

    #[test]
    fn cube_polyhedron() {
        let faces = polyhedron_faces(&cube_planes(16.0));
        let total: f64 = faces.iter().map(|f| f.as_ref().unwrap().area()).sum();
        assert!((total - 6.0 * 32.0 * 32.0).abs() < 1e-6);
        for (f, p) in faces.iter().zip(cube_planes(16.0)) {
            let w = f.as_ref().unwrap();
            assert!(w.is_valid_on(&p, 1e-6));
            assert!(
                (w.plane().unwrap().normal - p.normal).length() < 1e-9,
                "outward winding"
            );
        }
    }

    #[test]
    fn redundant_plane_has_no_face() {
        let mut planes = cube_planes(16.0);
        planes.push(Plane::new(DVec3::new(1.0, 1.0, 0.0).normalize(), 100.0));
        let faces = polyhedron_faces(&planes);
        assert!(faces[6].is_none());
    }

    #[test]
    fn box_plane_side() {
        let b = Bounds::new(DVec3::splat(-1.0), DVec3::splat(1.0));
        assert_eq!(b.plane_side(&Plane::new(DVec3::X, 2.0), 0.0), Side::Back);
        assert_eq!(b.plane_side(&Plane::new(DVec3::X, -2.0), 0.0), Side::Front);
        assert_eq!(b.plane_side(&Plane::new(DVec3::X, 0.0), 0.0), Side::Cross);
    }
}
