//! From samples to luxels on flat faces (VRAD's `BuildLuxelRadial` / `SampleRadial`): each
//! luxel is the weighted mean of the samples whose cells lie within a luxel of it, its own
//! face's and those of its neighbours ([`crate::faces::face_neighbours`]) alike, so a face
//! vbsp split, or one meeting another at a shallow angle, has no seam. A sample weighs the
//! overlap of its cell's bounds with the luxel's 2 × 2 luxel reach over its distance to the
//! luxel's centre (the larger of the two axes, no nearer than 0.1).

use glam::{Vec2, Vec3};
use rayon::prelude::*;

use crate::faces::FaceGeom;
use crate::samples::Cell;
use crate::world::{FaceLight, World};

/// Below this total weight a luxel has no sample (and stays black, VRAD's default).
const WEIGHT_EPS: f32 = 0.00001;
/// Least overlap a sample needs to count (VRAD's `EQUAL_EPSILON`).
const MIN_OVERLAP: f32 = 0.001;
/// Weight share of a flat sample in each bump basis of a bump-mapped face (1/√3).
const FLAT_INTO_BUMP: f32 = 0.577_350_26;

/// A sample's pull on one luxel.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Pull {
    pub luxel: usize,
    pub weight: f32,
}

/// The luxels of a `width` × `height` lightmap a sample at luxel-space `at`, whose cell spans
/// `mins`..`maxs`, pulls on, with its weight on each (VRAD's `AddDirectToRadial`).
pub(crate) fn pulls(at: Vec2, mins: Vec2, maxs: Vec2, width: usize, height: usize, out: &mut Vec<Pull>) {
    let first = |v: f32| (v as i64).max(0);
    let last = |v: f32, n: usize| ((v + 0.9999) as i64 + 1).min(n as i64);
    for s in first(mins.x)..last(maxs.x, width) {
        for t in first(mins.y)..last(maxs.y, height) {
            let luxel = Vec2::new(s as f32, t as f32);
            let low = (mins - luxel).max(Vec2::NEG_ONE);
            let high = (maxs - luxel).min(Vec2::ONE);
            let overlap = (high.x - low.x) * (high.y - low.y);
            if overlap > MIN_OVERLAP {
                let distance = (at - luxel).abs().max_element().max(0.1);
                out.push(Pull {
                    luxel: t as usize * width + s as usize,
                    weight: overlap / distance,
                });
            }
        }
    }
}

/// Every flat lit face's luxels blended from the samples `per_face` (`[face][range]`) holds.
pub(crate) fn blend_faces(world: &World, per_face: Vec<Vec<FaceLight>>) -> Vec<Vec<FaceLight>> {
    (0..per_face.len())
        .into_par_iter()
        .map(|f| {
            let face = &world.faces[f];
            if !face.lit || face.is_displacement || world.samples[f].cells.is_empty() {
                return per_face[f].clone();
            }
            blend_face(world, f, &per_face)
        })
        .collect()
}

/// Where one face's samples pull on the luxels of the face being blended.
struct Source {
    face: usize,
    /// That face's luxel count and whether it is bump-mapped (how its samples are laid out).
    luxels: usize,
    bumped: bool,
    /// Per sample (cell index), its pulls.
    pulls: Vec<(usize, Vec<Pull>)>,
}

/// Face `f`'s luxels, one [`FaceLight`] per range.
fn blend_face(world: &World, f: usize, per_face: &[Vec<FaceLight>]) -> Vec<FaceLight> {
    let face = &world.faces[f];
    let mut sources = vec![own_source(face, f, &world.samples[f].cells)];
    for &n in &face.neighbours {
        let n = n as usize;
        let other = &world.faces[n];
        if other.lit && !other.is_displacement && n != f {
            sources.push(neighbour_source(face, other, n, &world.samples[n].cells));
        }
    }
    per_face[f]
        .iter()
        .enumerate()
        .map(|(r, own)| FaceLight {
            styles: own.styles.clone(),
            samples: (own.styles.iter())
                .map(|&style| blend_style(face, style, &sources, |n| &per_face[n][r]))
                .collect(),
        })
        .collect()
}

/// The pulls of a face's own samples.
fn own_source(face: &FaceGeom, f: usize, cells: &[Cell]) -> Source {
    source((f, face), cells, face, |c: &Cell| (c.centre, c.mins, c.maxs))
}

/// The pulls of neighbour `n`'s samples on `face`: each sample's point and its cell's two
/// corners carried through world space into `face`'s luxel space (as VRAD: corners, not
/// bounds, so a mirrored neighbour's cell may come out inside out and pull on nothing).
fn neighbour_source(face: &FaceGeom, other: &FaceGeom, n: usize, cells: &[Cell]) -> Source {
    let carry = |p: Vec2| face.world_to_luxel(other.luxel_to_world(p.x, p.y));
    source((n, other), cells, face, |c: &Cell| {
        (carry(c.centre), carry(c.mins), carry(c.maxs))
    })
}

/// The pulls on `face` of the samples of `from` (index and geometry), each cell placed in
/// `face`'s luxel space by `place` (sample point, cell mins, cell maxs).
fn source(
    from: (usize, &FaceGeom),
    cells: &[Cell],
    face: &FaceGeom,
    place: impl Fn(&Cell) -> (Vec2, Vec2, Vec2),
) -> Source {
    let mut out = Source {
        face: from.0,
        luxels: from.1.luxel_count(),
        bumped: from.1.bumped,
        pulls: Vec::new(),
    };
    for (i, c) in cells.iter().enumerate() {
        if !c.holds_sample() {
            continue;
        }
        let (at, mins, maxs) = place(c);
        let mut list = Vec::new();
        pulls(at, mins, maxs, face.width, face.height, &mut list);
        if !list.is_empty() {
            out.pulls.push((i, list));
        }
    }
    out
}

/// One style's luxels (bump-major, as [`FaceLight::samples`]): the weighted mean of the
/// samples of that style pulling on each; a source without the style adds nothing. A flat
/// source's sample goes into each bump basis too, at 1/√3 of its weight.
fn blend_style<'a>(
    face: &FaceGeom,
    style: u8,
    sources: &[Source],
    light_of: impl Fn(usize) -> &'a FaceLight,
) -> Vec<Vec3> {
    let luxels = face.luxel_count();
    let bumps = if face.bumped { 4 } else { 1 };
    let mut sum = vec![Vec3::ZERO; luxels * bumps];
    let mut weight = vec![0.0f32; luxels];
    for src in sources {
        let light = light_of(src.face);
        let Some(slot) = light.styles.iter().position(|&s| s == style) else {
            continue;
        };
        let values = &light.samples[slot];
        let (src_luxels, src_bumped) = (src.luxels, src.bumped);
        for (cell, list) in &src.pulls {
            for p in list {
                weight[p.luxel] += p.weight;
                for b in 0..bumps {
                    let (from, w) = match (b, src_bumped) {
                        (_, true) => (b * src_luxels + cell, p.weight),
                        (0, false) => (*cell, p.weight),
                        (_, false) => (*cell, p.weight * FLAT_INTO_BUMP),
                    };
                    sum[b * luxels + p.luxel] += values[from] * w;
                }
            }
        }
    }
    for (l, &w) in weight.iter().enumerate() {
        for b in 0..bumps {
            let v = &mut sum[b * luxels + l];
            *v = if w > WEIGHT_EPS { *v / w } else { Vec3::ZERO };
        }
    }
    sum
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_whole_cell_pulls_equally_on_the_four_luxels_at_its_corners() {
        let mut out = Vec::new();
        pulls(
            Vec2::new(1.5, 2.5),
            Vec2::new(1.0, 2.0),
            Vec2::new(2.0, 3.0),
            4,
            4,
            &mut out,
        );
        let luxels: Vec<usize> = out.iter().map(|p| p.luxel).collect();
        assert_eq!(luxels, [9, 13, 10, 14]);
        // Overlap 1 (of the luxel's 2 × 2 reach), half a luxel away.
        assert!(out.iter().all(|p| (p.weight - 2.0).abs() < 1e-6), "{out:?}");
    }

    #[test]
    fn a_cell_pulls_harder_on_the_luxel_its_sample_is_nearer_and_not_past_the_lightmap() {
        let mut out = Vec::new();
        // A sliver of the face in cell (0, 0) near luxel 0; the lightmap is 1 luxel tall.
        pulls(
            Vec2::new(0.2, 0.0),
            Vec2::new(0.0, 0.0),
            Vec2::new(0.4, 0.0),
            3,
            1,
            &mut out,
        );
        assert_eq!(out.len(), 0, "no area: no pull");
        pulls(
            Vec2::new(0.2, 0.1),
            Vec2::new(0.0, 0.0),
            Vec2::new(0.4, 0.2),
            3,
            1,
            &mut out,
        );
        let luxels: Vec<usize> = out.iter().map(|p| p.luxel).collect();
        assert_eq!(luxels, [0, 1]);
        assert!(out[0].weight > out[1].weight, "{out:?}");
    }
}
