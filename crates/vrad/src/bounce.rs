//! Radiosity by gathering. VRAD builds patches (faces chopped to 4-luxel squares), a transfer
//! list between every pair of patches that see each other, and iterates "light leaving a
//! patch = reflectivity × light arriving" until a bounce adds less than one unit of light,
//! summed over the patches. Two patches of one face never exchange light.
//!
//! Here the patches are a grid of gather points every [`Options::bounce_spacing`] luxels on
//! each face. Each point traces a fixed set of cosine-weighted rays once and remembers which
//! face and luxel each ray hits — that list is the transfer list, with the form factors
//! folded into the cosine-weighted sampling. Each bounce is then only lookups: the light
//! arriving at a point is the mean, over its rays, of reflectivity × light at the hit luxel.
//! The gathered light is spread back over the face's luxels bilinearly.

use glam::{Vec2, Vec3};
use rayon::prelude::*;
use srcmap_trace::Tracer;

use crate::faces::bump_normals;
use crate::samples::sample_point;
use crate::sampling::cosine_dirs;
use crate::scene::MAX_TRACE;
use crate::world::par_map_steps;
use crate::{Counters, FaceLight, Options, Progress, World};

/// A ray that hit nothing useful (sky, a back face, an unlit face, nothing).
const NO_HIT: u32 = u32::MAX;

/// One remembered ray hit: the face and the luxel-space point.
#[derive(Debug, Clone, Copy)]
struct HitRef {
    face: u32,
    st: Vec2,
    /// For bump-mapped receivers: how much of this ray counts for each bump basis, relative
    /// to the flat normal (`max(0, d·bᵢ) / d·n`, what VRAD's `GatherLight` does per transfer).
    bump: [f32; 3],
}

/// The gather points of one face.
#[derive(Debug, Default)]
pub(crate) struct FacePatches {
    /// Luxel coordinates of the grid columns and rows.
    xs: Vec<usize>,
    ys: Vec<usize>,
    /// `rays` hits per grid point, row-major.
    hits: Vec<HitRef>,
}

fn grid_coords(n: usize, spacing: usize) -> Vec<usize> {
    let mut v: Vec<usize> = (0..n.saturating_sub(1)).step_by(spacing.max(1)).collect();
    if n > 0 {
        v.push(n - 1);
    }
    v.dedup();
    v
}

/// Traces the gather rays of every grid point of `face`.
fn trace_patches(world: &World, face: usize, options: &Options, rays: &mut u64) -> FacePatches {
    let g = &world.faces[face];
    let spacing = options.bounce_spacing();
    let mut p = FacePatches {
        xs: grid_coords(g.width, spacing),
        ys: grid_coords(g.height, spacing),
        hits: Vec::new(),
    };
    let count = options.bounce_rays();
    p.hits.reserve(p.xs.len() * p.ys.len() * count);
    let disp = world.disps[face].as_ref();
    let centroid = g.luxel_centroid();
    for (yi, &y) in p.ys.iter().enumerate() {
        for (xi, &x) in p.xs.iter().enumerate() {
            let (pos, normal) = sample_point(g, disp, Vec2::new(x as f32, y as f32), centroid);
            let seed = (face as u64) << 32 ^ ((yi as u64) << 16) ^ xi as u64;
            let bases = g.bumped.then(|| bump_normals(g.texture_vecs, normal));
            for dir in cosine_dirs(normal, count, seed) {
                let bump = bases.map_or([0.0; 3], |b| bump_weights(b, dir, normal));
                *rays += 1;
                p.hits.push(gather_ray(world, face, pos, dir, bump, rays));
            }
        }
    }
    p
}

/// How much a ray along `dir` counts for each bump basis `bases`, relative to the flat
/// `normal` (`max(0, d·bᵢ) / d·n`).
#[inline]
fn bump_weights(bases: [Vec3; 3], dir: Vec3, normal: Vec3) -> [f32; 3] {
    let flat = dir.dot(normal).max(1e-4);
    bases.map(|bi| dir.dot(bi).max(0.0) / flat)
}

/// What a gather ray from `pos` along `dir` records ([`NO_HIT`] when it brings no light).
#[inline]
fn gather_ray(world: &World, face: usize, pos: Vec3, dir: Vec3, bump: [f32; 3], rays: &mut u64) -> HitRef {
    match gather_hit(world, face, pos, dir, rays) {
        Some((face, st)) => HitRef { face, st, bump },
        None => HitRef {
            face: NO_HIT,
            st: Vec2::ZERO,
            bump,
        },
    }
}

/// The face and luxel-space point a gather ray from `pos` brings light from: none for sky,
/// the gathering face itself, a face's back, or a face behind a solid brush.
#[inline]
fn gather_hit(world: &World, face: usize, pos: Vec3, dir: Vec3, rays: &mut u64) -> Option<(u32, Vec2)> {
    let h = world
        .surfaces
        .closest(pos.to_array(), dir.to_array(), MAX_TRACE)?;
    // VRAD makes no transfer between two patches of one face: a curved
    // displacement does not light itself (its bumps still block the ray).
    if h.payload as usize == face {
        return None;
    }
    // Sky triangles carry a flag and name no face here.
    world.faces.get(h.payload as usize)?;
    // Light leaves only the front of a face.
    let point = pos + dir * h.t;
    let (st, facing) = world.surface_hit(h.payload as usize, h.triangle, point);
    if facing.dot(dir) >= 0.0 {
        return None;
    }
    // Faces alone leave cracks (T-junctions, faces cut by detail brushes);
    // VRAD tests transfers against the solid brushes, so do we: light from
    // behind a brush does not count.
    *rays += 1;
    if h.t > 2.0
        && world
            .occluders
            .occluded(pos.to_array(), dir.to_array(), h.t - 1.0)
    {
        return None;
    }
    Some((h.payload, st))
}

/// Bilinear lookup of a per-luxel field of face `g` at luxel-space `st`.
fn bilinear(values: &[Vec3], width: usize, height: usize, st: Vec2) -> Vec3 {
    if values.is_empty() || width == 0 || height == 0 {
        return Vec3::ZERO;
    }
    let x = st.x.clamp(0.0, (width - 1) as f32);
    let y = st.y.clamp(0.0, (height - 1) as f32);
    let (x0, y0) = (x.floor() as usize, y.floor() as usize);
    let (x1, y1) = ((x0 + 1).min(width - 1), (y0 + 1).min(height - 1));
    let (fx, fy) = (x - x0 as f32, y - y0 as f32);
    let v = |xx: usize, yy: usize| values[yy * width + xx];
    v(x0, y0)
        .lerp(v(x1, y0), fx)
        .lerp(v(x0, y1).lerp(v(x1, y1), fx), fy)
}

/// Traces every face's gather rays once (shared by all ranges and bounces).
pub(crate) fn trace(
    world: &World,
    facelights: &[FaceLight],
    options: &Options,
    progress: &dyn Progress,
    counters: &Counters,
) -> Vec<FacePatches> {
    if options.bounces == 0 {
        return Vec::new();
    }
    let faces = world.faces.len();
    par_map_steps(progress, "bounce rays", srcmap_stage::Unit::Faces, faces, |i| {
        let mut rays = 0;
        let p = if world.faces[i].lit && facelights.get(i).is_some_and(|f| !f.samples.is_empty()) {
            trace_patches(world, i, options, &mut rays)
        } else {
            FacePatches::default()
        };
        counters.add_rays(rays);
        p
    })
}

/// Adds bounced light to style 0 of every lit face, from the rays [`trace`] recorded.
/// Returns the number of bounces done.
pub(crate) fn bounce(
    world: &World,
    patches: &[FacePatches],
    facelights: &mut [FaceLight],
    options: &Options,
    progress: &dyn Progress,
    tag: &str,
) -> u32 {
    if options.bounces == 0 || patches.len() != world.faces.len() {
        return 0;
    }
    let direct = style0_direct(world, facelights);
    let max_bounces = options.bounces.min(100);
    progress.start(
        &format!("bounce{tag}"),
        max_bounces as u64,
        srcmap_stage::Unit::Bounces,
    );
    let bounced = iterate(
        world,
        patches,
        &direct,
        max_bounces,
        options.bounce_rays(),
        progress,
    );
    progress.finish();
    add_bounced(world, patches, facelights, &bounced, options.bounce_rays());
    bounced.done
}

/// Direct light of style 0, flat normal: what the first bounce starts from.
fn style0_direct(world: &World, facelights: &[FaceLight]) -> Vec<Vec<Vec3>> {
    world
        .faces
        .iter()
        .zip(facelights.iter())
        .map(|(g, fl)| {
            fl.samples
                .first()
                .map(|s| s[..g.luxel_count().min(s.len())].to_vec())
                .unwrap_or_default()
        })
        .collect()
}

/// What [`iterate`] leaves.
struct Bounced {
    /// Per face, per luxel: the light all bounces brought.
    indirect: Vec<Vec<Vec3>>,
    /// Per face, per luxel: the light leaving it in the last bounce (empty with none).
    last_exitant: Vec<Vec<Vec3>>,
    done: u32,
}

/// Bounces light from `direct` until a bounce adds less than VRAD's one unit, or
/// `max_bounces` are done. VRAD's rule: stop once a bounce adds less than one unit of light
/// per channel, summed over every patch. An absolute threshold, so a dim map still gets the
/// second and later bounces that light what the first could not reach.
fn iterate(
    world: &World,
    patches: &[FacePatches],
    direct: &[Vec<Vec3>],
    max_bounces: u32,
    rays: usize,
    progress: &dyn Progress,
) -> Bounced {
    let patch_share = patch_shares(world);
    let mut bounced = Bounced {
        indirect: direct.iter().map(|d| vec![Vec3::ZERO; d.len()]).collect(),
        last_exitant: Vec::new(),
        done: 0,
    };
    for _ in 0..max_bounces {
        let exitant = exitant_light(world, direct, &bounced.indirect);
        let next = gather_all(world, patches, &exitant, rays);
        let added = added_light(&next, &bounced.indirect, &patch_share);
        bounced.indirect = next;
        bounced.last_exitant = exitant;
        bounced.done += 1;
        progress.advance(1);
        if added.max_element() < 1.0 {
            break;
        }
    }
    bounced
}

/// Per face, what one luxel's light counts for in VRAD's stopping rule, which sums over
/// patches: a patch spans 4 × 4 luxels of a brush face, 8 × 8 of a displacement
/// (`dispchop`).
fn patch_shares(world: &World) -> Vec<f32> {
    world
        .faces
        .iter()
        .map(|g| if g.is_displacement { 1.0 / 64.0 } else { 1.0 / 16.0 })
        .collect()
}

/// One bounce: the light arriving at every luxel of every face from what `exitant` says
/// leaves each luxel.
fn gather_all(world: &World, patches: &[FacePatches], exitant: &[Vec<Vec3>], rays: usize) -> Vec<Vec<Vec3>> {
    (0..world.faces.len())
        .into_par_iter()
        .map(|i| gather_face(world, i, &patches[i], exitant, rays, None))
        .collect()
}

/// Light leaving each luxel: reflectivity × (direct + indirect so far).
fn exitant_light(world: &World, direct: &[Vec<Vec3>], indirect: &[Vec<Vec3>]) -> Vec<Vec<Vec3>> {
    world
        .faces
        .iter()
        .enumerate()
        .map(|(i, g)| {
            direct[i]
                .iter()
                .zip(&indirect[i])
                .map(|(d, n)| (*d + *n) * g.reflectivity)
                .collect()
        })
        .collect()
}

/// What a bounce changed, summed over patches (each luxel weighted by its patch share).
fn added_light(next: &[Vec<Vec3>], indirect: &[Vec<Vec3>], patch_share: &[f32]) -> Vec3 {
    next.iter()
        .zip(indirect)
        .zip(patch_share)
        .map(|((a, b), share)| a.iter().zip(b).map(|(a, b)| (*a - *b).abs()).sum::<Vec3>() * *share)
        .sum()
}

/// Adds the bounced light to style 0's flat samples, and to its bump bases weighted by how
/// each faces where the light came from.
fn add_bounced(
    world: &World,
    patches: &[FacePatches],
    facelights: &mut [FaceLight],
    bounced: &Bounced,
    rays: usize,
) {
    for (i, fl) in facelights.iter_mut().enumerate() {
        let g = &world.faces[i];
        let n = g.luxel_count();
        let Some(s0) = fl.samples.first_mut() else {
            continue;
        };
        add_luxels(s0, 0, &bounced.indirect[i], n);
        if g.bumped && !bounced.last_exitant.is_empty() {
            for b in 0..3 {
                let bump = gather_face(world, i, &patches[i], &bounced.last_exitant, rays, Some(b));
                add_luxels(s0, (b + 1) * n, &bump, n);
            }
        }
    }
}

/// Adds the first `n` values of `light` to `samples` from index `at` on.
fn add_luxels(samples: &mut [Vec3], at: usize, light: &[Vec3], n: usize) {
    for (l, add) in light.iter().enumerate().take(n) {
        if let Some(v) = samples.get_mut(at + l) {
            *v += *add;
        }
    }
}

/// Light arriving at every luxel of `face` from the surfaces its rays hit: for the flat
/// normal, or (with `bump = Some(i)`) for bump basis `i`.
fn gather_face(
    world: &World,
    face: usize,
    p: &FacePatches,
    exitant: &[Vec<Vec3>],
    rays: usize,
    bump: Option<usize>,
) -> Vec<Vec3> {
    if p.xs.is_empty() || p.ys.is_empty() || rays == 0 {
        return vec![Vec3::ZERO; exitant[face].len()];
    }
    let grid = grid_light(world, p, exitant, rays, bump);
    spread(&world.faces[face], p, &grid)
}

/// Light arriving at each grid point: the mean over its rays of the light leaving where
/// each landed.
fn grid_light(
    world: &World,
    p: &FacePatches,
    exitant: &[Vec<Vec3>],
    rays: usize,
    bump: Option<usize>,
) -> Vec<Vec3> {
    let mut grid = Vec::with_capacity(p.xs.len() * p.ys.len());
    for hits in p.hits.chunks(rays) {
        let mut sum = Vec3::ZERO;
        for h in hits {
            if h.face == NO_HIT {
                continue;
            }
            let hf = &world.faces[h.face as usize];
            let weight = bump.map_or(1.0, |b| h.bump[b]);
            if weight > 0.0 {
                sum += bilinear(&exitant[h.face as usize], hf.width, hf.height, h.st) * weight;
            }
        }
        grid.push(sum / rays as f32);
    }
    grid
}

/// The grid points' light spread bilinearly over the luxels of face `g`.
fn spread(g: &crate::faces::FaceGeom, p: &FacePatches, grid: &[Vec3]) -> Vec<Vec3> {
    let mut out = Vec::with_capacity(g.luxel_count());
    let w = p.xs.len();
    for t in 0..g.height {
        let (y0, y1, fy) = locate(&p.ys, t);
        for s in 0..g.width {
            let (x0, x1, fx) = locate(&p.xs, s);
            let v = |xx: usize, yy: usize| grid[yy * w + xx];
            out.push(
                v(x0, y0)
                    .lerp(v(x1, y0), fx)
                    .lerp(v(x0, y1).lerp(v(x1, y1), fx), fy),
            );
        }
    }
    out
}

/// The grid lines around luxel coordinate `v` and how far between them it lies.
#[inline]
fn locate(coords: &[usize], v: usize) -> (usize, usize, f32) {
    let k = coords
        .partition_point(|&c| c <= v)
        .saturating_sub(1)
        .min(coords.len() - 1);
    if k + 1 >= coords.len() {
        return (k, k, 0.0);
    }
    let (a, b) = (coords[k], coords[k + 1]);
    (k, k + 1, (v - a) as f32 / (b - a).max(1) as f32)
}
