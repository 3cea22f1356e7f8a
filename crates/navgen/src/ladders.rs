//! Ladders (Valve's `CreateLadder` and `ConnectGeneratedLadder`): from each ladder volume
//! (`info_ladder`, as vbsp writes Counter-Strike's `func_ladder`s, or `func_simpleladder`), the
//! facing side, both ends pulled in to where there is room to climb, then the areas at the
//! bottom and over the top.

use glam::Vec3;
use srcmap_bsp::{Bsp, Entity};
use srcmap_hull::Hull;

use crate::areas::Area;
use crate::grid::AreaGrid;
use crate::nodes::{EAST, NORTH, SOUTH, STEP, WEST, opposite};
use crate::sample::{HALF_HUMAN_WIDTH, Space};
use crate::search::{facing, first_area_in_direction};

/// A ladder with the areas it joins (area indices).
#[derive(Debug, Clone, PartialEq)]
pub struct Ladder {
    pub top: Vec3,
    pub bottom: Vec3,
    pub width: f32,
    /// Top to bottom as created: Valve keeps it when the top is later snapped to its areas.
    pub length: f32,
    /// The direction the climber's side faces (`NavDirType`).
    pub dir: usize,
    pub bottom_area: Option<u32>,
    /// Forward, left, right, behind: the ladder's own record, the behind area dropped from it.
    pub top_areas: [Option<u32>; 4],
    /// The areas found at the top, behind included: each lists the ladder as a way down.
    pub down_areas: [Option<u32>; 4],
}

/// The ladder volumes of a map: `(mins, maxs)`.
pub fn volumes(bsp: &Bsp) -> Vec<(Vec3, Vec3)> {
    bsp.entities.iter().filter_map(|e| volume(bsp, e)).collect()
}

fn volume(bsp: &Bsp, e: &Entity) -> Option<(Vec3, Vec3)> {
    match e.classname()? {
        "info_ladder" => {
            let v = |k: &str| e.get(k).map(|s| srcmap_kv::values::atof(s) as f32);
            let mins = Vec3::new(v("mins.x")?, v("mins.y")?, v("mins.z")?);
            let maxs = Vec3::new(v("maxs.x")?, v("maxs.y")?, v("maxs.z")?);
            Some((mins, maxs))
        }
        "func_simpleladder" => {
            let m = bsp.models.get(e.brush_model()?)?;
            let origin = e
                .get("origin")
                .and_then(srcmap_kv::values::vector)
                .unwrap_or([0.0; 3]);
            let o = Vec3::from(origin.map(|v| v as f32));
            Some((Vec3::from(m.mins) + o, Vec3::from(m.maxs) + o))
        }
        _ => None,
    }
}

/// The ladder in a volume, before its areas are known.
pub fn create(space: &Space<'_>, (mins, maxs): (Vec3, Vec3)) -> Ladder {
    let centre = (mins + maxs) * 0.5;
    let mut top = centre.with_z(maxs.z);
    let mut bottom = centre.with_z(mins.z);
    let size = maxs - mins;
    let (probe, blocked_dir, free_dir, width) = if size.x > size.y {
        (Vec3::Y, NORTH, SOUTH, size.x)
    } else {
        (Vec3::X, WEST, EAST, size.y)
    };
    let lift = Vec3::Z * (STEP / 2.0);
    let t = space.trace(
        &Hull::POINT,
        bottom + probe * STEP + lift,
        top + probe * STEP - lift,
    );
    let dir = if t.fraction != 1.0 || t.start_solid {
        blocked_dir
    } else {
        free_dir
    };
    let normal = facing(dir);
    bottom = clear_end(space, bottom, top, normal);
    top = clear_end(space, top, bottom, normal);
    Ladder {
        top,
        bottom,
        width,
        length: (top - bottom).length(),
        dir,
        bottom_area: None,
        top_areas: [None; 4],
        down_areas: [None; 4],
    }
}

/// Moves `end` toward `other` in 10-unit steps until there are 32 free units in front.
fn clear_end(space: &Space<'_>, end: Vec3, other: Vec3, normal: Vec3) -> Vec3 {
    let along = (other - end).normalize_or_zero();
    let length = (other - end).length();
    let mut t = 0.0;
    while t <= length {
        let on = end + along * t;
        let r = space.trace(&Hull::POINT, on, on + normal * 32.0);
        if r.fraction == 1.0 && !r.start_solid {
            return on;
        }
        t += 10.0;
    }
    end
}

/// The points the sampler restarts from when its seeds are spent: each ladder's ends.
pub fn ends(ladders: &[Ladder]) -> Vec<(Vec3, usize)> {
    ladders
        .iter()
        .flat_map(|l| [(l.bottom, l.dir), (l.top, l.dir)])
        .collect()
}

/// Finds the ladder's bottom and top areas and snaps its top to the highest of them. The top
/// areas are those the game's area grid lists where the search looks.
pub fn connect(space: &Space<'_>, ladder: &mut Ladder, areas: &[Area], grid: &AreaGrid) {
    let out = facing(ladder.dir) * HALF_HUMAN_WIDTH;
    let bottom_probe = ladder.bottom + Vec3::Z * STEP + out;
    ladder.bottom_area = nearest_area(areas, bottom_probe);
    let centre = ladder.top + Vec3::Z * STEP + out;
    let beneath = (ladder.top.z - ladder.bottom.z + HALF_HUMAN_WIDTH).min(120.0);
    let d = ladder.dir;
    let dirs = [
        (opposite(d), 75.0),
        ((d + 3) % 4, 75.0),
        ((d + 1) % 4, 75.0),
        (d, 150.0),
    ];
    for (slot, (dir, range)) in dirs.into_iter().enumerate() {
        // A line, not the sampling column: the column may start in the overhang above a ladder top.
        let found = first_area_in_direction(
            space,
            (areas, Some(grid)),
            &Hull::POINT,
            (centre, dir),
            range,
            beneath,
        )
        .map(|(a, _)| a);
        ladder.down_areas[slot] = found.filter(|&a| Some(a) != ladder.bottom_area);
    }
    ladder.top_areas = without_behind(ladder.down_areas);
    let top_z = ladder
        .top_areas
        .iter()
        .flatten()
        .map(|&a| z_near(&areas[a as usize], ladder.top))
        .fold(f32::MIN, f32::max);
    if top_z > ladder.bottom.z + 5.0 {
        ladder.top.z = top_z;
    }
}

/// Valve's ladder forgets its behind area once the area knows the ladder (`Disconnect`): the
/// first slot holding that area is emptied, so a ladder whose only top area lies behind it is
/// joined to nothing at its top.
fn without_behind(mut slots: [Option<u32>; 4]) -> [Option<u32>; 4] {
    if let Some(behind) = slots[3] {
        let first = slots.iter().position(|&s| s == Some(behind));
        slots[first.unwrap_or(3)] = None;
    }
    slots
}

fn nearest_area(areas: &[Area], pos: Vec3) -> Option<u32> {
    let dist = |a: &Area| {
        let x = pos.x.clamp(a.min[0], a.max[0]);
        let y = pos.y.clamp(a.min[1], a.max[1]);
        (Vec3::new(x, y, a.z_at(x, y)) - pos).length_squared()
    };
    (0..areas.len())
        .min_by(|&i, &j| dist(&areas[i]).total_cmp(&dist(&areas[j])))
        .map(|i| i as u32)
}

/// The area's height at the point of it closest to `p` in x and y.
fn z_near(a: &Area, p: Vec3) -> f32 {
    a.z_at(p.x.clamp(a.min[0], a.max[0]), p.y.clamp(a.min[1], a.max[1]))
}

#[cfg(test)]
mod tests {
    use super::without_behind;

    #[test]
    fn a_behind_area_of_its_own_is_forgotten() {
        assert_eq!(
            without_behind([Some(1), None, None, Some(2)]),
            [Some(1), None, None, None]
        );
        assert_eq!(without_behind([None, None, None, Some(2)]), [None; 4]);
    }

    #[test]
    fn a_behind_area_also_found_ahead_empties_the_first_slot_holding_it() {
        let slots = [Some(4), Some(7), Some(4), Some(4)];
        assert_eq!(without_behind(slots), [None, Some(7), Some(4), Some(4)]);
        assert_eq!(
            without_behind([Some(1), Some(2), None, None]),
            [Some(1), Some(2), None, None]
        );
    }
}
