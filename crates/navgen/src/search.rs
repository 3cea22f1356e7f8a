//! Searches over the built areas along the grid (Valve's `findFirstAreaInDirection`), shared by
//! the ladders and the jump-down connections.

use glam::Vec3;
use srcmap_hull::Hull;

use crate::areas::{Area, area_under};
use crate::grid::AreaGrid;
use crate::nodes::{STEP, dir_vector};
use crate::sample::Space;

/// The unit vector of a direction.
pub fn facing(dir: usize) -> Vec3 {
    let (x, y) = dir_vector(dir);
    Vec3::new(x as f32, y as f32, 0.0)
}

/// Steps 25 units at a time from `start` in `dir` (while `hull` moves there freely) until an
/// area lies under the point within `beneath` (one `grid` lists there, when given): the area
/// and the point on it.
pub fn first_area_in_direction(
    space: &Space<'_>,
    (areas, grid): (&[Area], Option<&AreaGrid>),
    hull: &Hull,
    (start, dir): (Vec3, usize),
    range: f32,
    beneath: f32,
) -> Option<(u32, Vec3)> {
    let step = facing(dir) * STEP;
    let mut pos = start;
    for _ in 0..((range / STEP) + 0.5) as usize {
        pos += step;
        if space.trace(hull, start, pos).fraction < 1.0 {
            return None;
        }
        if let Some(a) = area_under(areas, grid, pos, beneath) {
            return Some((a, pos.with_z(areas[a as usize].z_at(pos.x, pos.y))));
        }
    }
    None
}
