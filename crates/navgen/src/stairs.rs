//! Stairs (SDK 2013's `MarkStairAreas`/`TestStairs`, read for behaviour): an area larger than
//! one sample whose two triangles face the same way (normals within 0.95) is stairs when the
//! floor probed every 5 units along six lines inset 5 units (its four sides and its two middle
//! lines) shows, on a line rising more than a step, a rise of a real step (between what a
//! 0.7 slope climbs in 5 units and 18) and no steeper one, all on flat treads (normal z 0.97
//! or more) and no displacement. The game then sets STAIRS as the area's only attribute.

use glam::Vec3;
use srcmap_hull::Hull;

use crate::areas::Area;
use crate::attributes::ATTR_STAIRS;
use crate::nodes::STEP;
use crate::sample::{SLOPE_LIMIT, STEP_HEIGHT, Space};
use crate::visibility::corners;

/// The probe spacing and the lines' inset.
const INC: f32 = 5.0;
const MIN_STAIR_NORMAL: f32 = 0.97;
const MATCHING_NORMAL_DOT: f32 = 0.95;
/// How far above and below a line point the floor is looked for (the ducked hull's height).
const PROBE_REACH: f32 = 36.0;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stairs {
    No,
    Yes,
    Maybe,
}

/// Marks the areas that are stairs.
pub fn mark(space: &Space<'_>, areas: &mut [Area]) {
    for a in areas.iter_mut() {
        if is_stairs(space, a) {
            a.attributes = ATTR_STAIRS;
        }
    }
}

pub fn is_stairs(space: &Space<'_>, a: &Area) -> bool {
    if a.max[0] - a.min[0] <= STEP && a.max[1] - a.min[1] <= STEP {
        return false;
    }
    if triangle_normals(a).0.dot(triangle_normals(a).1) < MATCHING_NORMAL_DOT {
        return false;
    }
    let [nw, ne, se, sw] = corners(a);
    let v = |x: f32, y: f32| Vec3::new(x, y, 0.0);
    let lines = [
        (nw + v(INC, INC), ne + v(-INC, INC)),
        (sw + v(INC, -INC), se + v(-INC, -INC)),
        (nw + v(INC, INC), sw + v(INC, -INC)),
        (ne + v(-INC, INC), se + v(-INC, -INC)),
        ((nw + ne) / 2.0 + v(0.0, INC), (sw + se) / 2.0 + v(0.0, -INC)),
        ((ne + se) / 2.0 + v(-INC, 0.0), (nw + sw) / 2.0 + v(INC, 0.0)),
    ];
    let verdict = lines
        .into_iter()
        .fold(Stairs::Maybe, |so_far, (from, to)| line(space, from, to, so_far));
    verdict == Stairs::Yes
}

/// The normals of the NW-NE-SW and SE-SW-NE triangles.
fn triangle_normals(a: &Area) -> (Vec3, Vec3) {
    let (dx, dy) = (a.max[0] - a.min[0], a.max[1] - a.min[1]);
    let first = Vec3::new(dx, 0.0, a.z[1] - a.z[0]).cross(Vec3::new(0.0, dy, a.z[3] - a.z[0]));
    let second = Vec3::new(-dx, 0.0, a.z[3] - a.z[2]).cross(Vec3::new(0.0, -dy, a.z[1] - a.z[2]));
    (first.normalize_or(Vec3::Z), second.normalize_or(Vec3::Z))
}

/// One probe line (`IsStairs`): lines rising no more than a step say nothing.
fn line(space: &Space<'_>, start: Vec3, end: Vec3, so_far: Stairs) -> Stairs {
    if so_far == Stairs::No || (start.z - end.z).abs() <= STEP_HEIGHT {
        return so_far;
    }
    let min_step = INC * SLOPE_LIMIT.acos().tan();
    let wide_x = (start.x - end.x).abs() > (start.y - end.y).abs();
    let half = if wide_x {
        Vec3::new(8.0, INC / 2.0, 0.0)
    } else {
        Vec3::new(INC / 2.0, 8.0, 0.0)
    };
    let hull = Hull::new(-half, half + Vec3::Z);
    let floor = |p: Vec3| {
        let t = space.trace(&hull, p + Vec3::Z * PROBE_REACH, p - Vec3::Z * PROBE_REACH);
        (!t.start_solid && !t.displacement).then_some((t.end.z, t.normal.z))
    };
    let Some((mut prior, _)) = floor(start) else {
        return Stairs::No;
    };
    let mut verdict = so_far;
    let increment = INC / start.truncate().distance(end.truncate());
    let mut t = 0.0f32;
    while t <= 1.0 {
        let Some((height, normal_z)) = floor(start + (end - start) * t) else {
            return Stairs::No;
        };
        let off_end = (t == 0.0 && (height - start.z).abs() > STEP_HEIGHT)
            || (t == 1.0 && (height - end.z).abs() > STEP_HEIGHT);
        let rise = (height - prior).abs();
        if off_end || normal_z < MIN_STAIR_NORMAL || rise > STEP_HEIGHT {
            return Stairs::No;
        }
        if rise >= min_step {
            verdict = Stairs::Yes;
        }
        prior = height;
        t += increment;
    }
    verdict
}
