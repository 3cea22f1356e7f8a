//! The sky ambient's directions in two levels: a coarse set traced at every luxel asked, and
//! the rest (fine), each traced only where the coarse directions around it do not settle it.
//! A direction's shadow changes little from one direction to its neighbour a sixteenth of a
//! radian away, as it changes little from one luxel to the next ([`crate::refine`]): where
//! the coarse directions around it asked at a luxel (three at least, within 33°) all reach
//! the sky, the fine direction takes that answer untraced; where those of a wider ring (40°)
//! all miss it, it takes that one ([`crate::refine::Bits::said_by`]).
//!
//! Not VRAD's sampling ray for ray: a gap in the occluders (or an occluder) narrower than the
//! coarse directions' spacing, seen in a fine direction only, is missed. Three agreeing
//! neighbours, the wider ring for shut answers, and one more rule keep that rare where it
//! costs most: a luxel from which no coarse direction reaches the sky, on a face some
//! of whose luxels see it, is never taken as shut (it may see the sky through a gap between
//! the coarse directions: most of the wrong answers were there, and at such a luxel each one
//! is a large share of its sky). Measured on corpus maps in `docs/vrad-measurements.md`.

use glam::Vec3;

/// Coarse directions are picked at least this many mean spacings apart (the mean spacing
/// of `n` directions over the sphere being `sqrt(4π / n)` radians): about three in ten of
/// them.
const COARSE_SPACINGS: f32 = 1.38;

/// A fine direction is taken as open from the coarse directions within this many mean
/// spacings of it,
const OPEN_FROM_SPACINGS: f32 = 2.07;

/// and as shut from those within this many.
const SHUT_FROM_SPACINGS: f32 = 2.5;

/// Fewer directions than this are all traced: their spacing is already coarse (VRAD's
/// `-fast` sky).
const LEVELS_FROM: usize = 100;

/// The directions of a sky table by level.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct DirLevels {
    /// Indices of the directions traced at every luxel asked, in order.
    pub coarse: Vec<usize>,
    /// The others.
    pub fine: Vec<Fine>,
}

/// A fine direction and the coarse ones that may answer for it (indices into
/// [`DirLevels::coarse`]).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Fine {
    pub dir: usize,
    pub open_from: Vec<usize>,
    pub shut_from: Vec<usize>,
}

impl DirLevels {
    /// Every one of `n` directions coarse (a sun's table: its shadows are sharp).
    pub fn all(n: usize) -> DirLevels {
        DirLevels {
            coarse: (0..n).collect(),
            fine: Vec::new(),
        }
    }

    /// `dirs` (unit vectors spread evenly over the sphere) by level: coarse ones picked
    /// greedily in order, each [`COARSE_SPACINGS`] from those before it.
    pub fn of(dirs: &[Vec3]) -> DirLevels {
        if dirs.len() < LEVELS_FROM {
            return DirLevels::all(dirs.len());
        }
        let spacing = (4.0 * std::f32::consts::PI / dirs.len() as f32).sqrt();
        let apart = (COARSE_SPACINGS * spacing).cos();
        let mut coarse: Vec<usize> = Vec::new();
        for (k, d) in dirs.iter().enumerate() {
            if coarse.iter().all(|&c| dirs[c].dot(*d) < apart) {
                coarse.push(k);
            }
        }
        let within = |d: Vec3, spacings: f32| {
            let near = (spacings * spacing).cos();
            (0..coarse.len())
                .filter(|&i| dirs[coarse[i]].dot(d) >= near)
                .collect()
        };
        let fine = (0..dirs.len())
            .filter(|k| coarse.binary_search(k).is_err())
            .map(|dir| Fine {
                dir,
                open_from: within(dirs[dir], OPEN_FROM_SPACINGS),
                shut_from: within(dirs[dir], SHUT_FROM_SPACINGS),
            })
            .collect();
        DirLevels { coarse, fine }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::refine::AGREEING;
    use crate::sampling::sphere_directions;

    /// VRAD's 162 sky directions: about three in ten coarse, every direction in exactly one
    /// level; nine in ten fine ones have enough coarse neighbours to be taken as open (the
    /// others are traced wherever they are not shut), every one enough to be taken as shut, those
    /// it is taken as shut from include those it is taken as open from, and all lie within the
    /// wider ring.
    #[test]
    fn the_sky_directions_split_into_coarse_and_fine_with_neighbours() {
        let dirs = sphere_directions(162);
        let levels = DirLevels::of(&dirs);
        assert!(
            (40..=60).contains(&levels.coarse.len()),
            "{}",
            levels.coarse.len()
        );
        let mut all: Vec<usize> = levels.coarse.clone();
        all.extend(levels.fine.iter().map(|f| f.dir));
        all.sort_unstable();
        assert_eq!(all, (0..162).collect::<Vec<_>>());
        let open_able = levels
            .fine
            .iter()
            .filter(|f| f.open_from.len() >= AGREEING)
            .count();
        assert!(
            open_able * 20 >= levels.fine.len() * 17,
            "{open_able} of {}",
            levels.fine.len()
        );
        for f in &levels.fine {
            assert!(
                f.shut_from.len() >= AGREEING,
                "direction {}: {:?}",
                f.dir,
                f.shut_from
            );
            assert!(
                f.open_from.iter().all(|i| f.shut_from.contains(i)),
                "direction {}",
                f.dir
            );
            for &i in &f.shut_from {
                let angle = dirs[levels.coarse[i]].angle_between(dirs[f.dir]);
                assert!(angle <= 2.5 * 0.2786, "direction {}: {angle}", f.dir);
            }
        }
    }

    /// A sun's table and a `-fast` sky keep every direction traced.
    #[test]
    fn few_directions_and_suns_are_all_coarse() {
        assert_eq!(DirLevels::of(&sphere_directions(40)), DirLevels::all(40));
        assert!(DirLevels::all(7).fine.is_empty());
    }
}
