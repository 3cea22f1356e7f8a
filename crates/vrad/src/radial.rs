//! From samples to luxels on flat faces (VRAD's `BuildLuxelRadial` / `SampleRadial`): each
//! luxel is the weighted mean of the samples whose cells lie within a luxel of it, its own
//! face's and those of its neighbours ([`crate::faces::face_neighbours`]) alike, so a face
//! vbsp split, or one meeting another at a shallow angle, has no seam. A sample weighs the
//! overlap of its cell's bounds with the luxel's 2 × 2 luxel reach over its distance to the
//! luxel's centre (the larger of the two axes, no nearer than 0.1). Displacements blend the
//! same way in world space, by VRAD's displacement radial ([`blend_disp_face`]).

use glam::{Vec2, Vec3};
use rayon::prelude::*;

use crate::displacement::DispSurface;
use crate::faces::FaceGeom;
use crate::samples::{Cell, FaceSamples, disp_uv};
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
            match (face.lit, world.disps[f].as_ref()) {
                (true, Some(disp)) => blend_disp_face(world, f, disp, &per_face),
                (true, None) if !face.is_displacement && !world.samples[f].cells.is_empty() => {
                    blend_face(world, f, &per_face)
                }
                _ => per_face[f].clone(),
            }
        })
        .collect()
}

/// Where one face's samples pull on the luxels of the face being blended.
struct Source {
    face: usize,
    /// That face's luxel count and whether it is bump-mapped (how its samples are laid out).
    luxels: usize,
    bumped: bool,
    /// Weight share of a flat sample in each bump basis of a bump-mapped face.
    flat_into_bump: f32,
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
    blended(face, f, &sources, per_face)
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
        flat_into_bump: FLAT_INTO_BUMP,
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

/// Face `f`'s luxels on displacement `disp` (VRAD's displacement `BuildLuxelRadial`): each
/// luxel, on the surface at its grid point, is the weighted mean of the samples within 2.2
/// luxel diagonals of it, its own face's and its neighbours' ([`crate::faces::face_neighbours`]:
/// every face sharing a vertex, flat or not), weight `(1 - d²/r²) × (sample normal · luxel
/// normal)`, samples facing more than ~81° away left out; a flat neighbour counts 1/20 on a
/// bump-mapped displacement. A luxel no sample reaches stays black. One [`FaceLight`] per range.
fn blend_disp_face(
    world: &World,
    f: usize,
    disp: &DispSurface,
    per_face: &[Vec<FaceLight>],
) -> Vec<FaceLight> {
    let face = &world.faces[f];
    let luxels_per_unit = Vec3::from_slice(&face.vecs[0][..3]).length();
    if luxels_per_unit <= 0.0 || world.samples[f].pos.len() != face.luxel_count() {
        return per_face[f].clone();
    }
    let radius = (std::f32::consts::SQRT_2 * 2.2 / luxels_per_unit).min(MAX_DISP_SAMPLE_RADIUS);
    let grid = LuxelGrid::new(face, disp, radius, DISP_MIN_DOT);
    let sources: Vec<Source> = std::iter::once(f)
        .chain(face.neighbours.iter().map(|&n| n as usize))
        .filter(|&n| world.faces[n].lit)
        .map(|n| grid.source(face, n, &world.faces[n], &world.samples[n]))
        .collect();
    blended(face, f, &sources, per_face)
}

/// VRAD's displacement patch radial (`CVRadDispMgr::BuildPatchRadial`): a displacement's
/// luxels take their bounced light from every patch of its own and its neighbours' faces
/// within `dispchop` × 2.2 luxels of them in world space (about 17 luxels), weight
/// `(1 - d²/r²) × max(0, patch normal · luxel normal)`, a flat face's patches at 1/20 on a
/// bump-mapped displacement. So a displacement's bounce is far smoother than a brush face's,
/// whose patches reach only the luxels under them.
pub(crate) struct DispPatchRadial {
    luxels: usize,
    /// Per patch (face, cell): the luxels it reaches, with its weight on each.
    pulls: Vec<(usize, usize, Vec<Pull>)>,
}

/// VRAD's `dispchop` × 2.2, in luxels: how far a displacement's patches reach.
const DISP_PATCH_REACH: f32 = 8.0 * 2.2;
/// VRAD's `g_MaxDispPatchRadius`.
const MAX_DISP_PATCH_RADIUS: f32 = 1500.0;

impl DispPatchRadial {
    /// The radial of displacement face `f` from `patches`: (face, cell, origin, normal) of
    /// each patch of `f` and of its neighbours. `None` where the face has no lightmap scale.
    pub(crate) fn new(
        world: &World,
        f: usize,
        disp: &DispSurface,
        patches: impl Iterator<Item = (usize, usize, Vec3, Vec3)>,
    ) -> Option<DispPatchRadial> {
        let face = &world.faces[f];
        let luxels_per_unit = Vec3::from_slice(&face.vecs[0][..3]).length();
        if luxels_per_unit <= 0.0 {
            return None;
        }
        let radius = (DISP_PATCH_REACH / luxels_per_unit).min(MAX_DISP_PATCH_RADIUS);
        let grid = LuxelGrid::new(face, disp, radius, 0.0);
        let pulls = patches
            .map(|(n, c, origin, normal)| {
                let flat_on_bumped = face.bumped && !world.faces[n].bumped;
                let scale = if flat_on_bumped { FLAT_ON_BUMPED_DISP } else { 1.0 };
                (n, c, grid.pulls(origin, normal, scale))
            })
            .filter(|(_, _, list)| !list.is_empty())
            .collect();
        Some(DispPatchRadial {
            luxels: face.luxel_count(),
            pulls,
        })
    }

    /// The luxels' light from the per-face, per-cell `light` of the patches.
    pub(crate) fn spread(&self, light: &[Vec<Vec3>]) -> Vec<Vec3> {
        let mut sum = vec![Vec3::ZERO; self.luxels];
        let mut weight = vec![0.0f32; self.luxels];
        for (n, c, pulls) in &self.pulls {
            let Some(l) = light.get(*n).and_then(|cells| cells.get(*c)) else {
                continue;
            };
            for p in pulls {
                sum[p.luxel] += *l * p.weight;
                weight[p.luxel] += p.weight;
            }
        }
        sum.iter()
            .zip(&weight)
            .map(|(s, &w)| if w > 0.0 { *s / w } else { Vec3::ZERO })
            .collect()
    }
}

/// VRAD's `g_flMaxDispSampleSize`: the most a displacement sample reaches.
const MAX_DISP_SAMPLE_RADIUS: f32 = 512.0;
/// A sample counts for a displacement luxel only when their normals' dot product is at least
/// this (VRAD's `AddSampleLightToRadial`).
const DISP_MIN_DOT: f32 = 0.15;
/// Weight of a flat face's sample on a bump-mapped displacement's luxels.
const FLAT_ON_BUMPED_DISP: f32 = 0.05;

/// A displacement's luxels (point, normal) bucketed on a grid of cells one radius wide.
struct LuxelGrid {
    radius: f32,
    /// The least normal dot product at which a source counts.
    min_dot: f32,
    /// The luxels' bounds grown by the radius: a sample outside reaches none.
    reach: (Vec3, Vec3),
    luxels: Vec<(Vec3, Vec3)>,
    /// Fx hashing: std's SipHash made these lookups a tenth of a sharded run's merge, whose
    /// largest part is this blend.
    buckets: rustc_hash::FxHashMap<glam::IVec3, Vec<usize>>,
}

impl LuxelGrid {
    fn new(face: &FaceGeom, disp: &DispSurface, radius: f32, min_dot: f32) -> LuxelGrid {
        let luxels: Vec<(Vec3, Vec3)> = (0..face.luxel_count())
            .map(|l| {
                let st = Vec2::new((l % face.width) as f32, (l / face.width) as f32);
                disp.lifted_sample(disp_uv(face, st), face.normal)
            })
            .collect();
        let points = luxels.iter().map(|&(p, _)| p);
        let lo = points.clone().fold(Vec3::splat(f32::MAX), Vec3::min) - Vec3::splat(radius);
        let hi = points.fold(Vec3::splat(f32::MIN), Vec3::max) + Vec3::splat(radius);
        let mut grid = LuxelGrid {
            radius,
            min_dot,
            reach: (lo, hi),
            luxels,
            buckets: std::collections::HashMap::default(),
        };
        for (l, &(p, _)) in grid.luxels.iter().enumerate() {
            grid.buckets.entry(grid.key(p)).or_default().push(l);
        }
        grid
    }

    fn key(&self, p: Vec3) -> glam::IVec3 {
        (p / self.radius).floor().as_ivec3()
    }

    /// The pulls of face `n`'s samples on the luxels. A sample's point is VRAD's: on a flat
    /// face on its plane, on a displacement pushed off the surface (both without the extra
    /// unit along the face normal [`FaceSamples`] lights them from).
    fn source(&self, face: &FaceGeom, n: usize, other: &FaceGeom, samples: &FaceSamples) -> Source {
        let scale = if face.bumped && !other.bumped {
            FLAT_ON_BUMPED_DISP
        } else {
            1.0
        };
        let pulls = (0..samples.pos.len())
            .filter(|&i| samples.holds(i))
            .map(|i| {
                (
                    i,
                    self.pulls(samples.pos[i] - other.normal, samples.normal[i], scale),
                )
            })
            .filter(|(_, list)| !list.is_empty())
            .collect();
        Source {
            face: n,
            luxels: other.luxel_count(),
            bumped: other.bumped,
            flat_into_bump: 1.0,
            pulls,
        }
    }

    /// The luxels a sample at `pos` facing `normal` reaches, with its weight on each.
    fn pulls(&self, pos: Vec3, normal: Vec3, scale: f32) -> Vec<Pull> {
        if pos.cmplt(self.reach.0).any() || pos.cmpgt(self.reach.1).any() {
            return Vec::new();
        }
        let r2 = self.radius * self.radius;
        let k = self.key(pos);
        let mut out = Vec::new();
        for dz in -1..=1 {
            for dy in -1..=1 {
                for dx in -1..=1 {
                    let cell = k + glam::IVec3::new(dx, dy, dz);
                    for &l in self.buckets.get(&cell).into_iter().flatten() {
                        let (at, luxel_normal) = self.luxels[l];
                        let dot = normal.dot(luxel_normal);
                        let influence = 1.0 - pos.distance_squared(at) / r2;
                        if dot >= self.min_dot && dot > 0.0 && influence > 0.0 {
                            out.push(Pull {
                                luxel: l,
                                weight: influence * dot * scale,
                            });
                        }
                    }
                }
            }
        }
        out
    }
}

/// One style's luxels (bump-major, as [`FaceLight::samples`]): the weighted mean of the
/// samples of that style pulling on each; a source without the style adds nothing. A flat
/// source's sample goes into each bump basis too, at 1/√3 of its weight.
/// Face `f`'s light in every range, each of its styles blended from `sources`.
fn blended(face: &FaceGeom, f: usize, sources: &[Source], per_face: &[Vec<FaceLight>]) -> Vec<FaceLight> {
    per_face[f]
        .iter()
        .enumerate()
        .map(|(r, own)| FaceLight {
            styles: own.styles.clone(),
            samples: (own.styles.iter())
                .map(|&style| blend_style(face, style, sources, |n| &per_face[n][r]))
                .collect(),
        })
        .collect()
}

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
                        (_, false) => (*cell, p.weight * src.flat_into_bump),
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
