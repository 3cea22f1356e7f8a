//! The collision world: every solid with its sides, a box tree over them, and the trace.

use glam::Vec3;

use crate::bvh::{Bvh, Ray};
use crate::convex::{Contact, DIST_EPSILON, Side, Solid, Sweep, box_sides};

/// The box a trace sweeps, relative to its origin.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hull {
    pub mins: Vec3,
    pub maxs: Vec3,
}

impl Hull {
    /// A zero-size box: the trace is a line.
    pub const POINT: Hull = Hull {
        mins: Vec3::ZERO,
        maxs: Vec3::ZERO,
    };

    pub fn new(mins: impl Into<Vec3>, maxs: impl Into<Vec3>) -> Hull {
        Hull {
            mins: mins.into(),
            maxs: maxs.into(),
        }
    }
}

/// What a trace found (Valve's `trace_t`, the fields map tools need).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Trace {
    /// Share of the way travelled, 1 when nothing was hit.
    pub fraction: f32,
    /// Where the box's origin stopped.
    pub end: Vec3,
    /// The normal of the plane hit (zero when nothing was).
    pub normal: Vec3,
    /// The contents of the solid hit (0 when nothing was).
    pub contents: u32,
    /// The surface flags of the side hit.
    pub surface: u32,
    /// The box started inside a solid.
    pub start_solid: bool,
    /// The box never left the solid it started in.
    pub all_solid: bool,
    /// The solid hit is a displacement's.
    pub displacement: bool,
}

/// Solids, their sides and the box tree over them. Build with [`WorldBuilder`].
#[derive(Debug, Clone, Default)]
pub struct World {
    sides: Vec<Side>,
    solids: Vec<Solid>,
    bvh: Bvh,
}

/// Collects solids, then [`WorldBuilder::build`] makes the tree.
#[derive(Debug, Clone, Default)]
pub struct WorldBuilder {
    sides: Vec<Side>,
    solids: Vec<Solid>,
}

impl WorldBuilder {
    /// Adds a convex solid bounded by `sides` (inside: `normal · p <= dist` for all) whose
    /// bounds are `(mins, maxs)`.
    pub fn add(&mut self, sides: &[Side], bounds: (Vec3, Vec3), contents: u32, displacement: bool) {
        self.solids.push(Solid {
            mins: bounds.0,
            maxs: bounds.1,
            contents,
            first_side: self.sides.len() as u32,
            num_sides: sides.len() as u32,
            displacement,
        });
        self.sides.extend_from_slice(sides);
    }

    /// Adds an axis-aligned box.
    pub fn add_box(&mut self, mins: Vec3, maxs: Vec3, contents: u32) {
        self.add(&box_sides(mins, maxs), (mins, maxs), contents, false);
    }

    /// Adds a box given in its own frame (`mins`, `maxs`) placed at `origin` turned by Source's
    /// `angles` (pitch, yaw, roll in degrees): its six sides and the axial bevels of its bounds.
    pub fn add_oriented_box(
        &mut self,
        (mins, maxs): (Vec3, Vec3),
        origin: Vec3,
        angles: Vec3,
        contents: u32,
    ) {
        let axes = axes_of(angles);
        let mut sides = Vec::with_capacity(12);
        for (a, axis) in axes.iter().enumerate() {
            let at = axis.dot(origin);
            sides.push(Side {
                normal: *axis,
                dist: at + maxs[a],
                surface: 0,
            });
            sides.push(Side {
                normal: -*axis,
                dist: -at - mins[a],
                surface: 0,
            });
        }
        let corners = (0..8).map(|i| {
            let local = Vec3::new(
                if i & 1 == 0 { mins.x } else { maxs.x },
                if i & 2 == 0 { mins.y } else { maxs.y },
                if i & 4 == 0 { mins.z } else { maxs.z },
            );
            origin + axes[0] * local.x + axes[1] * local.y + axes[2] * local.z
        });
        let (lo, hi) = corners.fold((Vec3::splat(f32::MAX), Vec3::splat(f32::MIN)), |(lo, hi), c| {
            (lo.min(c), hi.max(c))
        });
        sides.extend(box_sides(lo, hi));
        self.add(&sides, (lo, hi), contents, false);
    }

    /// Adds the convex solid whose surface is `triangles` (either winding: each plane is turned
    /// to face away from the points' centre), with the axial sides of its bounds as bevels.
    /// Adds nothing and returns false when fewer than four triangles have an area.
    pub fn add_convex_triangles(&mut self, triangles: &[[Vec3; 3]], contents: u32) -> bool {
        let points = || triangles.iter().flatten().copied();
        let centre = points().sum::<Vec3>() / (3 * triangles.len().max(1)) as f32;
        let mut sides: Vec<Side> = triangles
            .iter()
            .filter_map(|t| side_facing_away(t, centre))
            .collect();
        if sides.len() < 4 {
            return false;
        }
        let (lo, hi) = points().fold((Vec3::splat(f32::MAX), Vec3::splat(f32::MIN)), |(lo, hi), p| {
            (lo.min(p), hi.max(p))
        });
        sides.extend(box_sides(lo, hi));
        self.add(&sides, (lo, hi), contents, false);
        true
    }

    pub fn solid_count(&self) -> usize {
        self.solids.len()
    }

    pub fn build(self) -> World {
        let boxes: Vec<(Vec3, Vec3)> = self.solids.iter().map(|s| (s.mins, s.maxs)).collect();
        World {
            bvh: Bvh::build(&boxes),
            sides: self.sides,
            solids: self.solids,
        }
    }
}

/// The plane of triangle `t` facing away from `centre`; none for a triangle without area.
fn side_facing_away(t: &[Vec3; 3], centre: Vec3) -> Option<Side> {
    let normal = (t[1] - t[0]).cross(t[2] - t[0]).try_normalize()?;
    let normal = if normal.dot(centre - t[0]) > 0.0 {
        -normal
    } else {
        normal
    };
    Some(Side {
        normal,
        dist: normal.dot(t[0]),
        surface: 0,
    })
}

/// The world directions of an entity's local x, y and z axes (Source's `AngleMatrix` columns).
pub fn axes_of(angles: Vec3) -> [Vec3; 3] {
    let [p, y, r] = angles.to_array().map(f32::to_radians);
    let ((sp, cp), (sy, cy), (sr, cr)) = (p.sin_cos(), y.sin_cos(), r.sin_cos());
    [
        Vec3::new(cp * cy, cp * sy, -sp),
        Vec3::new(sr * sp * cy - cr * sy, sr * sp * sy + cr * cy, sr * cp),
        Vec3::new(cr * sp * cy + sr * sy, cr * sp * sy - sr * cy, cr * cp),
    ]
}

impl World {
    pub fn solid_count(&self) -> usize {
        self.solids.len()
    }

    /// Sweeps `hull` from `from` to `to` against the solids whose contents meet `mask`.
    pub fn trace(&self, hull: &Hull, from: Vec3, to: Vec3, mask: u32) -> Trace {
        let sweep = Sweep {
            start: from,
            end: to,
            mins: hull.mins,
            maxs: hull.maxs,
        };
        let mut trace = Trace {
            fraction: 1.0,
            end: to,
            normal: Vec3::ZERO,
            contents: 0,
            surface: 0,
            start_solid: false,
            all_solid: false,
            displacement: false,
        };
        let ray = Ray {
            start: from,
            delta: to - from,
            extent: (hull.maxs - hull.mins) * 0.5 + Vec3::splat(2.0 * DIST_EPSILON),
            centre_offset: (hull.mins + hull.maxs) * 0.5,
        };
        self.bvh.walk(&ray, &mut |item| {
            if let Some(i) = item {
                self.clip_solid(&sweep, i as usize, mask, &mut trace);
            }
            trace.fraction
        });
        trace.end = from + (to - from) * trace.fraction;
        trace
    }

    fn clip_solid(&self, sweep: &Sweep, index: usize, mask: u32, trace: &mut Trace) {
        let solid = &self.solids[index];
        if solid.contents & mask == 0 || trace.all_solid {
            return;
        }
        let sides = &self.sides[solid.first_side as usize..(solid.first_side + solid.num_sides) as usize];
        match sweep.clip(sides) {
            Some(Contact::StartInside { leaves }) => {
                trace.start_solid = true;
                if !leaves {
                    trace.all_solid = true;
                    trace.fraction = 0.0;
                    trace.contents = solid.contents;
                }
            }
            Some(Contact::Enter { fraction, side }) if fraction < trace.fraction => {
                trace.fraction = fraction;
                trace.normal = side.normal;
                trace.surface = side.surface;
                trace.contents = solid.contents;
                trace.displacement = solid.displacement;
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn floor_and_step() -> World {
        let mut b = WorldBuilder::default();
        b.add_box(Vec3::new(-512.0, -512.0, -16.0), Vec3::new(512.0, 512.0, 0.0), 1);
        b.add_box(Vec3::new(100.0, -512.0, 0.0), Vec3::new(512.0, 512.0, 16.0), 1);
        b.build()
    }

    #[test]
    fn a_dropped_box_lands_on_the_floor() {
        let w = floor_and_step();
        let hull = Hull::new([-16.0, -16.0, 0.0], [16.0, 16.0, 72.0]);
        let t = w.trace(&hull, Vec3::new(0.0, 0.0, 100.0), Vec3::new(0.0, 0.0, -100.0), 1);
        assert!((t.end.z - DIST_EPSILON).abs() < 0.01, "{t:?}");
        assert_eq!(t.normal, Vec3::Z);
    }

    #[test]
    fn a_box_walking_east_stops_at_the_step_unless_raised() {
        let w = floor_and_step();
        let hull = Hull::new([-16.0, -16.0, 0.0], [16.0, 16.0, 72.0]);
        let low = w.trace(&hull, Vec3::new(0.0, 0.0, 1.0), Vec3::new(200.0, 0.0, 1.0), 1);
        assert!((low.end.x - (84.0 - DIST_EPSILON)).abs() < 0.01, "{low:?}");
        assert_eq!(low.normal, Vec3::NEG_X);
        let high = w.trace(&hull, Vec3::new(0.0, 0.0, 17.0), Vec3::new(200.0, 0.0, 17.0), 1);
        assert_eq!(high.fraction, 1.0);
    }

    #[test]
    fn a_tetrahedron_from_triangles_of_mixed_winding_stops_a_line_on_its_slanted_face() {
        let [o, x, y, z] = [Vec3::ZERO, Vec3::X * 30.0, Vec3::Y * 30.0, Vec3::Z * 30.0];
        let mut b = WorldBuilder::default();
        assert!(b.add_convex_triangles(&[[o, x, y], [o, z, x], [o, z, y], [x, y, z]], 1));
        assert!(
            !b.add_convex_triangles(&[[o, x, y], [o, y, x]], 1),
            "a flat piece is refused"
        );
        let w = b.build();
        // x + y + z <= 30: at y = z = 5 the slanted face is at x = 20, inside the bounds' box.
        let t = w.trace(
            &Hull::POINT,
            Vec3::new(50.0, 5.0, 5.0),
            Vec3::new(-50.0, 5.0, 5.0),
            1,
        );
        assert!((t.end.x - 20.0).abs() < 0.1, "{t:?}");
        // Through the corner of the bounds the tetrahedron does not fill, nothing is hit.
        let corner = w.trace(
            &Hull::POINT,
            Vec3::new(25.0, 25.0, 50.0),
            Vec3::new(25.0, 25.0, -50.0),
            1,
        );
        assert_eq!(corner.fraction, 1.0, "{corner:?}");
    }

    #[test]
    fn a_box_turned_45_degrees_is_hit_on_its_slanted_side() {
        let mut b = WorldBuilder::default();
        let half = Vec3::splat(10.0);
        b.add_oriented_box((-half, half), Vec3::ZERO, Vec3::new(0.0, 45.0, 0.0), 1);
        let w = b.build();
        // The turned square is |x| + |y| <= 10·√2: at y = 3 its slanted side is at x = 3 − 10·√2.
        let t = w.trace(
            &Hull::POINT,
            Vec3::new(-50.0, 3.0, 0.0),
            Vec3::new(50.0, 3.0, 0.0),
            1,
        );
        assert!((t.end.x - (3.0 - 10.0 * 2f32.sqrt())).abs() < 0.1, "{t:?}");
        assert!(
            (t.normal.x + std::f32::consts::FRAC_1_SQRT_2).abs() < 0.01 && t.normal.y.abs() > 0.7,
            "{t:?}"
        );
    }

    #[test]
    fn the_mask_filters_solids() {
        let w = floor_and_step();
        let t = w.trace(
            &Hull::POINT,
            Vec3::new(0.0, 0.0, 10.0),
            Vec3::new(0.0, 0.0, -10.0),
            2,
        );
        assert_eq!(t.fraction, 1.0);
    }
}
