//! One convex solid (a brush with its bevels, a displacement triangle slab, a prop box) and the
//! clip of a swept box against it.

use glam::Vec3;

/// How far a trace stops short of the plane it hits, so that the next trace from its end
/// does not start inside (Valve's `DIST_EPSILON`).
pub const DIST_EPSILON: f32 = 0.031_25;

/// A bounding plane of a solid: points `p` with `normal · p <= dist` are inside.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Side {
    pub normal: Vec3,
    pub dist: f32,
    /// The surface flags of the side's texture (`SURF_SKY`, ...); 0 for made-up sides.
    pub surface: u32,
}

/// What a solid is made of and where its sides are kept.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Solid {
    pub mins: Vec3,
    pub maxs: Vec3,
    pub contents: u32,
    /// Range of this solid's sides in the world's side list.
    pub first_side: u32,
    pub num_sides: u32,
    /// Made from a displacement's triangles.
    pub displacement: bool,
}

/// A box swept along a segment: the state one trace carries from solid to solid.
#[derive(Debug, Clone, Copy)]
pub struct Sweep {
    pub start: Vec3,
    pub end: Vec3,
    pub mins: Vec3,
    pub maxs: Vec3,
}

/// The first contact a sweep makes with one solid.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Contact {
    /// The box enters the solid at `fraction` through `side`.
    Enter { fraction: f32, side: Side },
    /// The box starts inside; `leaves` when it gets out before the end.
    StartInside { leaves: bool },
}

impl Sweep {
    /// The plane distance moved out by the box: the box corner deepest behind the plane
    /// touches the plane when the box's origin lies on the returned distance.
    fn offset_dist(&self, side: &Side) -> f32 {
        let n = side.normal;
        let corner = Vec3::new(
            if n.x < 0.0 { self.maxs.x } else { self.mins.x },
            if n.y < 0.0 { self.maxs.y } else { self.mins.y },
            if n.z < 0.0 { self.maxs.z } else { self.mins.z },
        );
        side.dist - n.dot(corner)
    }

    /// Clips the sweep against a convex set of sides (Quake's clip-box-to-brush, written from
    /// its description): the latest entering plane and the earliest leaving one bound the span
    /// the box spends inside.
    pub fn clip(&self, sides: &[Side]) -> Option<Contact> {
        let mut enter = -1.0f32;
        let mut leave = 1.0f32;
        let (mut starts_out, mut gets_out) = (false, false);
        let mut hit = None;
        for side in sides {
            let dist = self.offset_dist(side);
            let d1 = side.normal.dot(self.start) - dist;
            let d2 = side.normal.dot(self.end) - dist;
            starts_out |= d1 > 0.0;
            gets_out |= d2 > 0.0;
            if d1 > 0.0 && (d2 >= DIST_EPSILON || d2 >= d1) {
                return None; // wholly in front of one side: never inside
            }
            if d1 <= 0.0 && d2 <= 0.0 {
                continue;
            }
            if d1 > d2 {
                let f = (d1 - DIST_EPSILON) / (d1 - d2);
                if f > enter {
                    enter = f;
                    hit = Some(*side);
                }
            } else {
                leave = leave.min((d1 + DIST_EPSILON) / (d1 - d2));
            }
        }
        Self::contact(starts_out, gets_out, enter, leave, hit)
    }

    fn contact(
        starts_out: bool,
        gets_out: bool,
        enter: f32,
        leave: f32,
        hit: Option<Side>,
    ) -> Option<Contact> {
        if !starts_out {
            return Some(Contact::StartInside { leaves: gets_out });
        }
        let side = hit?;
        (enter < leave && enter > -1.0).then_some(Contact::Enter {
            fraction: enter.max(0.0),
            side,
        })
    }
}

/// The six axial sides of a box (used for made-up solids and as bevels).
pub fn box_sides(mins: Vec3, maxs: Vec3) -> [Side; 6] {
    let s = |normal: Vec3, dist: f32| Side {
        normal,
        dist,
        surface: 0,
    };
    [
        s(Vec3::X, maxs.x),
        s(Vec3::NEG_X, -mins.x),
        s(Vec3::Y, maxs.y),
        s(Vec3::NEG_Y, -mins.y),
        s(Vec3::Z, maxs.z),
        s(Vec3::NEG_Z, -mins.z),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit_box() -> [Side; 6] {
        box_sides(Vec3::splat(-1.0), Vec3::splat(1.0))
    }

    fn sweep(start: Vec3, end: Vec3, half: f32) -> Sweep {
        Sweep {
            start,
            end,
            mins: Vec3::splat(-half),
            maxs: Vec3::splat(half),
        }
    }

    #[test]
    fn point_hits_the_near_face_short_by_epsilon() {
        let s = sweep(Vec3::new(-3.0, 0.0, 0.0), Vec3::new(3.0, 0.0, 0.0), 0.0);
        let Some(Contact::Enter { fraction, side }) = s.clip(&unit_box()) else {
            panic!("no contact");
        };
        assert!((fraction - (2.0 - DIST_EPSILON) / 6.0).abs() < 1e-6);
        assert_eq!(side.normal, Vec3::NEG_X);
    }

    #[test]
    fn box_extent_moves_the_contact_out() {
        let s = sweep(Vec3::new(-3.0, 0.0, 0.0), Vec3::new(3.0, 0.0, 0.0), 0.5);
        let Some(Contact::Enter { fraction, .. }) = s.clip(&unit_box()) else {
            panic!("no contact");
        };
        assert!((fraction - (1.5 - DIST_EPSILON) / 6.0).abs() < 1e-6);
    }

    #[test]
    fn a_box_passing_beside_misses_and_one_inside_starts_solid() {
        let miss = sweep(Vec3::new(-3.0, 1.6, 0.0), Vec3::new(3.0, 1.6, 0.0), 0.5);
        assert_eq!(miss.clip(&unit_box()), None);
        let inside = sweep(Vec3::ZERO, Vec3::new(3.0, 0.0, 0.0), 0.5);
        assert_eq!(
            inside.clip(&unit_box()),
            Some(Contact::StartInside { leaves: true })
        );
    }
}
