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
