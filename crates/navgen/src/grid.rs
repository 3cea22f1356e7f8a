//! The game's area grid as it stands when ladders are joined (Valve's `m_grid`, 300-unit cells
//! over the areas' extent): an area is listed in the cells its extent covered when it was made.
//! Merging grows an area without listing it anew (`FinishMerge`), so a point over the part it
//! absorbed, in a cell the surviving piece never reached, finds no area there; squaring up lists
//! its pieces afresh. The ladders' top search sees only what the grid lists.

use glam::Vec3;

const CELL: f32 = 300.0;

/// Where an area is listed: its place in the game's area list and the extent it was listed with.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Listing {
    pub order: u32,
    pub min: [f32; 2],
    pub max: [f32; 2],
}

impl Listing {
    /// Of the two pieces of a merge, the one earlier in the list survives (it absorbs the other).
    pub fn survivor(self, other: Listing) -> Listing {
        if other.order < self.order { other } else { self }
    }
}

/// The grid's origin and size in cells.
#[derive(Debug, Clone, Copy)]
pub struct AreaGrid {
    min: [f32; 2],
    cells: [i32; 2],
}

impl AreaGrid {
    /// Over the areas' extent (each area's min and max corners; merging and squaring keep it).
    pub fn new(extents: impl IntoIterator<Item = ([f32; 2], [f32; 2])>) -> AreaGrid {
        let mut min = [f32::MAX; 2];
        let mut max = [f32::MIN; 2];
        for (lo, hi) in extents {
            for k in 0..2 {
                min[k] = min[k].min(lo[k]);
                max[k] = max[k].max(hi[k]);
            }
        }
        let cells = [0, 1].map(|k| ((max[k] - min[k]) / CELL) as i32 + 1);
        AreaGrid { min, cells }
    }

    /// The cell holding a coordinate along axis `k` (`WorldToGridX/Y`: clamped to the grid).
    fn cell(&self, k: usize, v: f32) -> i32 {
        (((v - self.min[k]) / CELL) as i32).clamp(0, self.cells[k] - 1)
    }

    /// Whether the cell holding `pos` lists the area listed as `l`.
    pub fn lists(&self, l: &Listing, pos: Vec3) -> bool {
        [pos.x, pos.y].iter().enumerate().all(|(k, &v)| {
            let c = self.cell(k, v);
            c >= self.cell(k, l.min[k]) && c <= self.cell(k, l.max[k])
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listing(min: [f32; 2], max: [f32; 2], order: u32) -> Listing {
        Listing { order, min, max }
    }

    #[test]
    fn a_merged_area_is_found_only_in_the_cells_its_survivor_was_listed_in() {
        let west = listing([0.0, 0.0], [250.0, 100.0], 0);
        let east = listing([250.0, 0.0], [700.0, 100.0], 1);
        let grid = AreaGrid::new([(west.min, west.max), (east.min, east.max)]);
        let merged = west.survivor(east);
        assert!(grid.lists(&merged, Vec3::new(100.0, 50.0, 0.0)));
        assert!(!grid.lists(&merged, Vec3::new(650.0, 50.0, 0.0)));
        assert!(grid.lists(&east, Vec3::new(650.0, 50.0, 0.0)));
    }

    #[test]
    fn the_earlier_piece_survives_a_merge() {
        let a = Listing {
            order: 4,
            min: [0.0; 2],
            max: [1.0; 2],
        };
        let b = Listing {
            order: 2,
            min: [5.0; 2],
            max: [6.0; 2],
        };
        assert_eq!(a.survivor(b), b);
        assert_eq!(b.survivor(a), b);
    }
}
