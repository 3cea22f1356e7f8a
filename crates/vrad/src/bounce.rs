//! Radiosity by gathering. VRAD builds patches (faces chopped to 4-luxel squares), a transfer
//! list between every pair of patches that see each other, and iterates "light leaving a
//! patch = reflectivity × light arriving" until a bounce adds less than one unit of light,
//! summed over the patches. Two patches of one face never exchange light. The bounced light
//! of the patches is then spread over the luxels (`patches::spread`).
//!
//! Here the patches are the cells of `patches::Grid`. Each traces one fixed set of
//! cosine-weighted rays from its centre once and remembers which face's cell each ray hits —
//! that list is the transfer list, with the form factors folded into the cosine-weighted
//! sampling. Every patch of a plane uses the same directions, so neighbouring patches see
//! nearly the same surfaces and their light differs smoothly (a new random set per patch
//! shows as blotches VRAD's deterministic transfers do not have). Each bounce is lookups:
//! the light arriving at a patch is the mean, over its rays, of reflectivity × light leaving
//! the cell each lands on: that cell's mean direct light (what VRAD's patches carry) and its
//! bounced light.
//!
//! Two of VRAD's rules keep its energy where patches are close. Its form factor for a patch
//! nearer than its "five times rule" is a polygon formula whose edge angles come from an
//! arcsine, so an edge right beside the receiver counts near zero: a strip at the bottom of
//! a narrow slot takes almost nothing from the slot's sides (`vrad_transfers` gives such
//! cells that form factor instead of their share of rays). And a patch's light is the mean
//! over its area, so a receiver beside a light's hot spot gets the patch's share of it.

use glam::{Vec2, Vec3};
use rayon::prelude::*;
use srcmap_trace::Tracer;

use crate::displacement::DispSurface;
use crate::faces::bump_normals;
use crate::patches::{
    Footprint, Grid, area_and_centre, cell_pieces, cell_polygon, disp_cell_pieces, footprints, neighbours,
    spread, vrad_form_factor,
};
use crate::radial::DispPatchRadial;
use crate::samples::{Cell, sample_point};
use crate::sampling::cosine_dirs;
use crate::scene::MAX_TRACE;
use crate::world::par_map_steps;
use crate::{Counters, FaceLight, Options, Progress, World};

/// A ray that hit nothing useful (sky, a back face, an unlit face, nothing).
pub(crate) const NO_HIT: u32 = u32::MAX;
/// One set of gather directions for every patch (per plane orientation).
const DIRECTION_SEED: u64 = 0x5eed;

/// One remembered ray hit: the face and its cell.
#[derive(Debug, Clone, Copy)]
pub(crate) struct HitRef {
    pub face: u32,
    pub cell: u32,
    /// What this ray counts for: 1, or VRAD's form factor of the cell hit over the share of
    /// rays that hit it ([`vrad_transfers`]).
    pub weight: f32,
    /// For bump-mapped receivers: how much of this ray counts for each bump basis, relative
    /// to the flat normal (`max(0, d·bᵢ) / d·n`, what VRAD's `GatherLight` does per transfer).
    pub bump: [f32; 3],
}

/// The patches of one face and their gather rays.
#[derive(Debug, Default)]
pub(crate) struct FacePatches {
    pub grid: Grid,
    /// `rays` hits per cell, row-major.
    pub hits: Vec<HitRef>,
}

/// Traces the gather rays of every cell of `face`.
fn trace_patches(
    world: &World,
    see_through: &[bool],
    table: &PatchTable,
    face: usize,
    options: &Options,
    rays: &mut u64,
) -> FacePatches {
    let g = &world.faces[face];
    let mut p = FacePatches {
        grid: table.grids[face],
        hits: Vec::new(),
    };
    let count = options.bounce_rays();
    p.hits.reserve(p.grid.len() * count);
    let disp = world.disps[face].as_ref();
    let centroid = g.luxel_centroid();
    // A flat face's patches share one normal, so one set of directions (made per patch, its
    // trigonometry was a fifth of this function's own time).
    let mut dirs: (Vec3, Vec<Vec3>) = (Vec3::NAN, Vec::new());
    for c in 0..p.grid.len() {
        let (pos, normal) = sample_point(g, disp, p.grid.centre(c), centroid);
        let bases = g.bumped.then(|| bump_normals(g.texture_vecs, normal));
        let first = p.hits.len();
        let mut through = 0;
        if dirs.0 != normal {
            dirs = (normal, cosine_dirs(normal, count, DIRECTION_SEED).collect());
        }
        for &dir in &dirs.1 {
            let bump = bases.map_or([0.0; 3], |b| bump_weights(b, dir, normal));
            *rays += 1;
            let (hit, passed) = gather_ray(world, see_through, face, (pos, dir), bump, &table.grids, rays);
            p.hits.push(hit);
            through += usize::from(passed);
        }
        // A displacement patch receives as any other (VRAD's `MakeTransfer` does not tell them
        // apart): a flat patch right beside it, the floor at a cliff's foot, gives it VRAD's
        // polygon form factor, next to nothing, not its share of rays.
        let hidden = through as f32 / count.max(1) as f32;
        vrad_transfers(
            world,
            &table.patches,
            (pos, normal),
            hidden,
            &mut p.hits[first..],
            rays,
        );
    }
    p
}

/// VRAD's transfers for one receiving patch at `at` (point, normal), from its rays `hits`.
/// A cosine-weighted ray set estimates exact form factors; VRAD's differ where a source patch
/// is close (`π · 0.04 · distance² < area`, its "five times rule"): there it takes the
/// polygon form factor of [`vrad_form_factor`], which counts next to nothing from a patch
/// right beside the receiver. Each hit cell that close gets that form factor, shared among
/// the rays that found it; then, as VRAD's `MakeScales`, transfers summing over 1 are scaled
/// down to 1. `hidden` is the share of rays that passed see-through faces: VRAD has a transfer
/// from each of those faces too, counted in that sum though the ray brings the light behind.
/// A cell whose origin the receiver cannot see gives nothing ([`HitPatch::origin_seen_from`]),
/// nor does any cell of a displacement whose root patch's plane the receiver lies behind
/// ([`DispSurface::root_plane_faces`]).
fn vrad_transfers(
    world: &World,
    table: &[Vec<Option<HitPatch>>],
    at: (Vec3, Vec3),
    hidden: f32,
    hits: &mut [HitRef],
    rays: &mut u64,
) {
    let mut keyed: Vec<(u32, u32, usize)> = (hits.iter().enumerate())
        .filter(|(_, h)| h.face != NO_HIT)
        .map(|(i, h)| (h.face, h.cell, i))
        .collect();
    keyed.sort_unstable();
    let share = 1.0 / hits.len().max(1) as f32;
    let mut total = hidden;
    for run in keyed.chunk_by(|a, b| (a.0, a.1) == (b.0, b.1)) {
        let found = run.len() as f32 * share;
        let (face, cell) = (hits[run[0].2].face as usize, hits[run[0].2].cell as usize);
        let patch = table.get(face).and_then(|cells| cells.get(cell)?.as_ref());
        *rays += u64::from(patch.is_some());
        let root_hidden = world.disps[face]
            .as_ref()
            .is_some_and(|d| !d.root_plane_faces(at.0));
        let ff = match patch {
            _ if root_hidden => 0.0,
            Some(p) if !p.origin_seen_from(world, at.0) => 0.0,
            Some(p) if p.is_close(at.0) => p.form_factor(at),
            _ => found,
        };
        for &(_, _, i) in run {
            hits[i].weight = ff / found;
        }
        total += ff;
    }
    if total > 1.0 {
        hits.iter_mut().for_each(|h| h.weight /= total);
    }
}

/// Cell `cell` of face `face` as VRAD's patch: the pieces of surface over it (a displacement's cell is
/// the triangles of its displaced surface, VRAD's displacement patches), their area, and the
/// patch's origin and normal. `None` for a displacement whose surface is not known.
struct HitPatch {
    pieces: Vec<Vec<Vec3>>,
    area: f32,
    origin: Vec3,
    normal: Vec3,
}

fn patch_at(world: &World, face: usize, grid: &Grid, cell: usize) -> Option<HitPatch> {
    let g = &world.faces[face];
    let mut pieces = match world.disps.get(face).and_then(|d| d.as_ref()) {
        Some(disp) => disp_cell_pieces(g, disp, grid, cell),
        None if g.is_displacement => return None,
        None => vec![cell_polygon(g, grid, cell)],
    };
    pieces.retain(|p| p.len() >= 3);
    if pieces.is_empty() {
        return None;
    }
    let measures: Vec<(f32, Vec3)> = pieces.iter().map(|p| area_and_centre(p)).collect();
    let area: f32 = measures.iter().map(|m| m.0).sum();
    let origin = measures.iter().map(|m| m.1).sum::<Vec3>() / pieces.len() as f32;
    // Valve winds faces clockwise seen from the front, so the edge cross products point back.
    let back: Vec3 = pieces
        .iter()
        .flat_map(|p| (0..p.len()).map(|i| p[i].cross(p[(i + 1) % p.len()])))
        .sum();
    let normal = (-back).try_normalize().unwrap_or(g.normal);
    Some(HitPatch {
        pieces,
        area,
        origin,
        normal,
    })
}

/// Every face's cell grid, and its cells as VRAD's patches (`[face][cell]`, `None` where a
/// cell misses its face), built once: each gather ray looks up the cell it hit, each
/// receiving patch the patches its rays found.
struct PatchTable {
    grids: Vec<Grid>,
    patches: Vec<Vec<Option<HitPatch>>>,
}

fn patch_table(world: &World, spacing: usize) -> PatchTable {
    let grids: Vec<Grid> = world.faces.iter().map(|g| Grid::of(g, spacing)).collect();
    let patches = (0..world.faces.len())
        .into_par_iter()
        .map(|f| {
            (0..grids[f].len())
                .map(|c| patch_at(world, f, &grids[f], c))
                .collect()
        })
        .collect();
    PatchTable { grids, patches }
}

impl HitPatch {
    /// VRAD makes a transfer only where the line between the two patches' origins, each pushed
    /// out a unit along its normal, is clear (`TestPatchToPatch`): a patch of a wall that
    /// straddles the ground seen from a pocket under that ground gives the pocket nothing,
    /// though part of it is in view.
    fn origin_seen_from(&self, world: &World, from: Vec3) -> bool {
        let to = self.origin + self.normal - from;
        let length = to.length();
        length < 1e-3
            || !world
                .occluders
                .occluded(from.to_array(), (to / length).to_array(), length)
    }

    /// Whether VRAD takes this patch's polygon form factor rather than its point-to-point one
    /// (its "five times rule").
    fn is_close(&self, at: Vec3) -> bool {
        std::f32::consts::PI * 0.04 * self.origin.distance_squared(at) < self.area
    }

    /// VRAD's polygon form factor of the patch, seen from `at`: the sum over its pieces, so a
    /// wall standing on a displacement takes next to nothing from the ground right at its foot.
    fn form_factor(&self, at: (Vec3, Vec3)) -> f32 {
        self.pieces
            .iter()
            .map(|p| piece_form_factor(p, at))
            .sum::<f32>()
            .max(0.0)
    }
}

/// VRAD's polygon form factor of one piece of a close patch: nothing where the piece lies
/// behind the receiver or turns its back to it (VRAD makes no transfer from such a child
/// patch).
fn piece_form_factor(poly: &[Vec3], (point, normal): (Vec3, Vec3)) -> f32 {
    let (_, centre) = area_and_centre(poly);
    // Valve winds faces clockwise seen from the front, so the edge cross products point back.
    let back: Vec3 = (0..poly.len())
        .map(|i| poly[i].cross(poly[(i + 1) % poly.len()]))
        .sum();
    let in_front = (centre - point).dot(normal) > 0.0;
    let facing = back.dot(centre - point) > 0.0;
    match in_front && facing {
        true => vrad_form_factor(poly, point, normal).max(0.0),
        false => 0.0,
    }
}

/// How much a ray along `dir` counts for each bump basis `bases`, relative to the flat
/// `normal` (`max(0, d·bᵢ) / d·n`).
#[inline]
fn bump_weights(bases: [Vec3; 3], dir: Vec3, normal: Vec3) -> [f32; 3] {
    let flat = dir.dot(normal).max(1e-4);
    bases.map(|bi| dir.dot(bi).max(0.0) / flat)
}

/// What a gather ray from `pos` along `dir` records ([`NO_HIT`] when it brings no light), and
/// whether it passed through a see-through face to get there.
#[inline]
fn gather_ray(
    world: &World,
    see_through: &[bool],
    face: usize,
    (pos, dir): (Vec3, Vec3),
    bump: [f32; 3],
    grids: &[Grid],
    rays: &mut u64,
) -> (HitRef, bool) {
    let (landed, through) = gather_hit(world, see_through, face, pos, dir, rays);
    let hit = match landed {
        Some((face, st)) => HitRef {
            face,
            cell: grids[face as usize].cell_at(st) as u32,
            weight: 1.0,
            bump,
        },
        None => HitRef {
            face: NO_HIT,
            cell: 0,
            weight: 0.0,
            bump,
        },
    };
    (hit, through)
}

/// See-through faces a gather ray passes at most.
const MAX_SEE_THROUGH: usize = 8;

/// The face and luxel-space point a gather ray from `pos` brings light from, and whether it
/// passed through a see-through face (water, a window, a door: VRAD's transfers
/// test visibility against opaque geometry alone, so a receiver gets both the see-through
/// face's transfer and that of the surface behind it). Where no opaque surface behind brings
/// light, the furthest see-through face that does.
fn gather_hit(
    world: &World,
    see_through: &[bool],
    face: usize,
    pos: Vec3,
    dir: Vec3,
    rays: &mut u64,
) -> (Option<(u32, Vec2)>, bool) {
    let mut from = 0.0;
    let mut passed: Vec<srcmap_trace::Hit> = Vec::new();
    for _ in 0..MAX_SEE_THROUGH {
        let o = pos + dir * from;
        let Some(mut h) = world.surfaces.closest(o.to_array(), dir.to_array(), MAX_TRACE) else {
            break;
        };
        h.t += from;
        if !see_through.get(h.payload as usize).copied().unwrap_or(false) {
            let landed = landing(world, face, pos, dir, h);
            if landed.is_some() {
                return (landed, !passed.is_empty());
            }
            break;
        }
        passed.push(h);
        from = h.t + 0.01;
        *rays += 1;
    }
    while let Some(h) = passed.pop() {
        if let Some(landed) = landing(world, face, pos, dir, h) {
            return (Some(landed), !passed.is_empty());
        }
    }
    (None, false)
}

/// Where the gather ray from `pos` along `dir` that met `h` lands: none for sky, the
/// gathering face itself or a face's back. A ray slipping between faces (a crack at a
/// T-junction) into a brush is not tested for: VRAD tests a transfer once, from patch to
/// patch ([`HitPatch::origin_seen_from`]), and a per-ray test of the solid brushes changed
/// 48 of dotf_test2's 44,281 luxels, by at most 1.5 %, for 6 % of its instructions.
#[inline]
fn landing(world: &World, face: usize, pos: Vec3, dir: Vec3, h: srcmap_trace::Hit) -> Option<(u32, Vec2)> {
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
    Some((h.payload, st))
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
    let see_through = crate::patches::see_through_faces(world);
    let table = patch_table(world, options.bounce_spacing());
    par_map_steps(progress, "bounce rays", srcmap_stage::Unit::Faces, faces, |i| {
        let mut rays = 0;
        let p = if world.lights_face(i) && facelights.get(i).is_some_and(|f| !f.samples.is_empty()) {
            trace_patches(world, &see_through, &table, i, options, &mut rays)
        } else {
            FacePatches::default()
        };
        counters.add_pass_rays(&counters.bounce_rays, rays);
        p
    })
}

/// Adds bounced light to style 0 of every lit face, from the rays [`trace`] recorded.
/// Returns the number of bounces done.
pub(crate) fn bounce(
    world: &World,
    patches: &[FacePatches],
    transfers: &Transfers,
    facelights: &mut [FaceLight],
    options: &Options,
    progress: &dyn Progress,
    tag: &str,
) -> u32 {
    if options.bounces == 0 || patches.len() != world.faces.len() {
        return 0;
    }
    let direct = reflected_direct(world, patches, facelights);
    let max_bounces = options.bounces.min(100);
    progress.start(
        &format!("bounce{tag}"),
        max_bounces as u64,
        srcmap_stage::Unit::Bounces,
    );
    let bounced = iterate(world, transfers, &direct, max_bounces, progress);
    progress.finish();
    add_bounced(world, patches, facelights, transfers, &direct, &bounced);
    bounced.done
}

/// Per face and cell: the direct light (style 0, flat normal) times reflectivity, what
/// leaves a patch in the first bounce. As VRAD's `BuildPatchLights`, a patch carries the
/// area-weighted mean direct light of the samples over it, not the light where a ray lands:
/// a receiver right beside a light's hot spot gets the patch's share of it, not the spot's.
fn reflected_direct(world: &World, patches: &[FacePatches], facelights: &[FaceLight]) -> Vec<Vec<Vec3>> {
    (0..world.faces.len())
        .map(|i| {
            let g = &world.faces[i];
            let luxels = facelights[i]
                .samples
                .first()
                .map_or(&[][..], |s| &s[..g.luxel_count().min(s.len())]);
            let cells = world.samples.get(i).map_or(&[][..], |s| &s.cells[..]);
            patch_means(g.width, &patches[i].grid, cells, luxels)
                .into_iter()
                .map(|v| v * g.reflectivity)
                .collect()
        })
        .collect()
}

/// VRAD's `AddSampleToPatch` skips samples dimmer than this (mean of the channels).
const PATCH_SAMPLE_MIN: f32 = 1.0;

/// Per cell of `grid`, the mean of the `luxels` (rows of `width`) over it that are at least
/// [`PATCH_SAMPLE_MIN`] bright, as VRAD's `AddSampleToPatch`: each luxel weighs its area on
/// the face (`samples`, one per luxel on a flat face; 1 each without) and counts for every cell
/// its square of that area, centred on its sample, overlaps. Zero where none does.
fn patch_means(width: usize, grid: &Grid, samples: &[Cell], luxels: &[Vec3]) -> Vec<Vec3> {
    let mut sums = vec![(Vec3::ZERO, 0.0f32); grid.len()];
    if grid.len() == 0 {
        return Vec::new();
    }
    for (l, v) in luxels.iter().enumerate() {
        let at = Vec2::new((l % width.max(1)) as f32, (l / width.max(1)) as f32);
        let (centre, area) = samples.get(l).map_or((at, 1.0), |c| (c.centre, c.area));
        if area <= 0.0 || v.element_sum() / 3.0 < PATCH_SAMPLE_MIN {
            continue;
        }
        let r = area.sqrt() * 0.5;
        let (c0, c1) = (grid.cols.index(centre.x - r), grid.cols.index(centre.x + r));
        let (r0, r1) = (grid.rows.index(centre.y - r), grid.rows.index(centre.y + r));
        for row in r0..=r1 {
            for col in c0..=c1 {
                let s = &mut sums[row * grid.cols.count + col];
                *s = (s.0 + *v * area, s.1 + area);
            }
        }
    }
    sums.into_iter()
        .map(|(sum, w)| if w > 0.0 { sum / w } else { Vec3::ZERO })
        .collect()
}

/// The recorded gather rays in the form each bounce reads them, over and over: per receiving
/// cell (faces in order, cells row-major), its rays that hit a cell, each as the index of that
/// cell among every face's cells ([`Transfers::leaving`]'s layout) with its weight and bump
/// weights. Rays that hit nothing are dropped (they bring no light); a hit on a cell no face's
/// grid has reads the one zero slot after the last cell. A bounce over these reads 8 bytes a
/// ray in one sweep, where [`HitRef`]s took 24 and two lookups through per-face vectors.
pub(crate) struct Transfers {
    /// Per face, the index of its first cell among all cells (one past the end: the total).
    first_cell: Vec<usize>,
    /// Per face, its first receiving cell in `start` (one past the end: the total); a face
    /// without rays receives nothing.
    first_receiver: Vec<usize>,
    /// Per receiving cell, where its rays start in `source` (one past the end: the total).
    start: Vec<usize>,
    source: Vec<u32>,
    weight: Vec<f32>,
    bump: Vec<[f32; 3]>,
    /// Rays per receiving cell, hits or not (each cell's light is their mean).
    rays: usize,
}

impl Transfers {
    /// The transfers of `patches`, traced with `rays` rays per cell.
    pub(crate) fn new(patches: &[FacePatches], rays: usize) -> Transfers {
        let mut first_cell = vec![0];
        for p in patches {
            first_cell.push(first_cell.last().copied().unwrap_or(0) + p.grid.len());
        }
        let hits: usize = patches.iter().map(|p| p.hits.len()).sum();
        let mut t = Transfers {
            first_cell,
            first_receiver: Vec::with_capacity(patches.len() + 1),
            start: Vec::with_capacity(hits / rays.max(1) + 1),
            source: Vec::with_capacity(hits),
            weight: Vec::with_capacity(hits),
            bump: Vec::with_capacity(hits),
            rays,
        };
        t.first_receiver.push(0);
        t.start.push(0);
        for p in patches.iter().filter(|_| rays > 0) {
            p.hits.chunks(rays).for_each(|cell| t.add_receiver(cell));
            t.first_receiver.push(t.start.len() - 1);
        }
        t.first_receiver.resize(patches.len() + 1, 0);
        t
    }

    /// The number of cells of face `f`'s grid.
    fn cells(&self, f: usize) -> usize {
        self.first_cell[f + 1] - self.first_cell[f]
    }

    /// One receiving cell's rays.
    fn add_receiver(&mut self, hits: &[HitRef]) {
        for h in hits.iter().filter(|h| h.face != NO_HIT) {
            self.source.push(self.slot(h) as u32);
            self.weight.push(h.weight);
            self.bump.push(h.bump);
        }
        self.start.push(self.source.len());
    }

    /// The index of the cell `h` hit among all cells (the zero slot when no grid has it).
    fn slot(&self, h: &HitRef) -> usize {
        let zero = self.first_cell.last().copied().unwrap_or(0);
        let f = h.face as usize;
        match (self.first_cell.get(f), self.first_cell.get(f + 1)) {
            (Some(&a), Some(&b)) if (h.cell as usize) < b - a => a + h.cell as usize,
            _ => zero,
        }
    }

    /// Light leaving every cell (reflected direct plus reflected bounced light, per face and
    /// cell), laid out for `source`, the zero slot last.
    fn leaving(&self, direct: &[Vec<Vec3>], indirect: &[Vec<Vec3>]) -> Vec<Vec3> {
        let cell = |field: &[Vec<Vec3>], f: usize, c: usize| {
            field.get(f).and_then(|l| l.get(c)).copied().unwrap_or(Vec3::ZERO)
        };
        let mut out = Vec::with_capacity(self.first_cell.last().map_or(0, |n| n + 1));
        for f in 0..self.first_cell.len() - 1 {
            out.extend((0..self.cells(f)).map(|c| cell(direct, f, c) + cell(indirect, f, c)));
        }
        out.push(Vec3::ZERO);
        out
    }

    /// Light arriving at each cell of `face`: the mean over its rays of the light `leaving`
    /// where each landed, times the ray's weight for bump basis `bump`. Summed in the rays'
    /// order, so the result is the same, bit for bit, as summing the recorded hits.
    fn gather_face(&self, face: usize, cells: usize, bump: Option<usize>, leaving: &[Vec3]) -> Vec<Vec3> {
        let receivers = self.first_receiver[face]..self.first_receiver[face + 1];
        if self.rays == 0 || receivers.is_empty() {
            return vec![Vec3::ZERO; cells];
        }
        receivers
            .map(|r| {
                let sum: Vec3 = (self.start[r]..self.start[r + 1])
                    .map(|k| {
                        let factor = bump.map_or(1.0, |b| self.bump[k][b]);
                        leaving[self.source[k] as usize] * self.weight[k] * factor
                    })
                    .sum();
                sum / self.rays as f32
            })
            .collect()
    }
}

/// What [`iterate`] leaves, per face and cell.
struct Bounced {
    /// The light all bounces brought.
    indirect: Vec<Vec<Vec3>>,
    /// The reflected bounced light leaving each cell in the last bounce (empty with none).
    last_exitant: Vec<Vec<Vec3>>,
    done: u32,
}

/// Bounces light from `direct` until a bounce adds less than VRAD's one unit, or
/// `max_bounces` are done. VRAD's rule: stop once a bounce adds less than one unit of light
/// per channel, summed over every patch. An absolute threshold, so a dim map still gets the
/// second and later bounces that light what the first could not reach.
fn iterate(
    world: &World,
    transfers: &Transfers,
    direct: &[Vec<Vec3>],
    max_bounces: u32,
    progress: &dyn Progress,
) -> Bounced {
    let mut bounced = Bounced {
        indirect: (0..world.faces.len())
            .map(|f| vec![Vec3::ZERO; transfers.cells(f)])
            .collect(),
        last_exitant: Vec::new(),
        done: 0,
    };
    for _ in 0..max_bounces {
        let exitant = reflected(world, &bounced.indirect);
        let next = gather_all(transfers, &transfers.leaving(direct, &exitant));
        let added = added_light(&next, &bounced.indirect);
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

/// One bounce: the light arriving at every cell of every face (flat normal), from the light
/// `leaving` every cell.
fn gather_all(transfers: &Transfers, leaving: &[Vec3]) -> Vec<Vec<Vec3>> {
    (0..transfers.first_cell.len() - 1)
        .into_par_iter()
        .map(|f| transfers.gather_face(f, transfers.cells(f), None, leaving))
        .collect()
}

/// Per face and cell: reflectivity × `light`.
fn reflected(world: &World, light: &[Vec<Vec3>]) -> Vec<Vec<Vec3>> {
    world
        .faces
        .iter()
        .zip(light)
        .map(|(g, l)| l.iter().map(|v| *v * g.reflectivity).collect())
        .collect()
}

/// What a bounce changed, summed over every patch.
fn added_light(next: &[Vec<Vec3>], indirect: &[Vec<Vec3>]) -> Vec3 {
    next.iter()
        .zip(indirect)
        .map(|(a, b)| a.iter().zip(b).map(|(a, b)| (*a - *b).abs()).sum::<Vec3>())
        .sum()
}

/// Spreads the bounced light of the cells over style 0's flat samples, and over its bump
/// bases weighted by how each faces where the light came from.
fn add_bounced(
    world: &World,
    patches: &[FacePatches],
    facelights: &mut [FaceLight],
    transfers: &Transfers,
    direct: &[Vec<Vec3>],
    bounced: &Bounced,
) {
    let spreaders = spreaders(world, patches);
    // Only the faces whose luxels take the light are spread: every face's flat light, and a
    // bump basis's light on the bumped faces alone (the others' bump arrays are never added).
    let spread_faces = |light: &[Vec<Vec3>], bumps: bool| -> Vec<Vec<Vec3>> {
        (0..world.faces.len())
            .into_par_iter()
            .map(|i| {
                match patches[i].hits.is_empty() || light.is_empty() || (bumps && !world.faces[i].bumped) {
                    true => Vec::new(),
                    false => spreaders[i].spread(&world.faces[i], light),
                }
            })
            .collect()
    };
    let flat = spread_faces(&bounced.indirect, false);
    let bump: Vec<Vec<Vec<Vec3>>> = (0..3)
        .map(|b| spread_faces(&bump_light(world, transfers, direct, bounced, b), true))
        .collect();
    for (i, fl) in facelights.iter_mut().enumerate() {
        let n = world.faces[i].luxel_count();
        let Some(s0) = fl.samples.first_mut() else {
            continue;
        };
        add_luxels(s0, 0, &flat[i], n);
        for (b, light) in bump.iter().enumerate() {
            if world.faces[i].bumped {
                add_luxels(s0, (b + 1) * n, &light[i], n);
            }
        }
    }
}

/// How one face's luxels take its patches' light: a brush face's by the patches' footprints in
/// its luxel space (VRAD's `BuildPatchRadial`), a displacement's by its patch radial in world
/// space ([`DispPatchRadial`]).
enum Spreader {
    Footprints(Vec<(usize, usize, Footprint)>),
    Disp(DispPatchRadial),
}

impl Spreader {
    fn spread(&self, g: &crate::faces::FaceGeom, light: &[Vec<Vec3>]) -> Vec<Vec3> {
        match self {
            Spreader::Footprints(prints) => spread(g, prints, light),
            Spreader::Disp(radial) => radial.spread(light),
        }
    }
}

fn spreaders(world: &World, patches: &[FacePatches]) -> Vec<Spreader> {
    let grids: Vec<Grid> = patches.iter().map(|p| p.grid).collect();
    let near = neighbours(&world.faces);
    let pieces = cell_pieces(&world.faces, &grids);
    (0..world.faces.len())
        .into_par_iter()
        .map(|i| {
            if patches[i].hits.is_empty() {
                return Spreader::Footprints(Vec::new());
            }
            (world.disps[i].as_ref())
                .and_then(|disp| disp_spreader(world, patches, i, disp))
                .unwrap_or_else(|| Spreader::Footprints(footprints(&world.faces, &pieces, &near[i], i)))
        })
        .collect()
}

/// Displacement `f`'s patch radial over the patches of its own face and its neighbours'.
fn disp_spreader(world: &World, patches: &[FacePatches], f: usize, disp: &DispSurface) -> Option<Spreader> {
    let faces = std::iter::once(f).chain(world.faces[f].neighbours.iter().map(|&n| n as usize));
    let sources = faces
        .filter(|&n| !patches[n].hits.is_empty())
        .flat_map(|n| (0..patches[n].grid.len()).map(move |c| (n, c)))
        .filter_map(|(n, c)| patch_at(world, n, &patches[n].grid, c).map(|p| (n, c, p.origin, p.normal)));
    DispPatchRadial::new(world, f, disp, sources).map(Spreader::Disp)
}

/// Per face and cell, the bounced light for bump basis `b`: bumped faces gather it with
/// their rays' basis weights, flat faces their flat light (so a flat neighbour of a bumped
/// face still counts in its radial mean). A flat face's is the last bounce's gather, which
/// [`iterate`] kept: the same sum over the same light, so it is not gathered again.
fn bump_light(
    world: &World,
    transfers: &Transfers,
    direct: &[Vec<Vec3>],
    bounced: &Bounced,
    b: usize,
) -> Vec<Vec<Vec3>> {
    if bounced.last_exitant.is_empty() || !world.faces.iter().any(|g| g.bumped) {
        return Vec::new();
    }
    let leaving = transfers.leaving(direct, &bounced.last_exitant);
    (0..world.faces.len())
        .into_par_iter()
        .map(|f| match world.faces[f].bumped {
            true => transfers.gather_face(f, bounced.indirect[f].len(), Some(b), &leaving),
            false => bounced.indirect[f].clone(),
        })
        .collect()
}

/// Adds the first `n` values of `light` to `samples` from index `at` on.
fn add_luxels(samples: &mut [Vec3], at: usize, light: &[Vec3], n: usize) {
    for (l, add) in light.iter().enumerate().take(n) {
        if let Some(v) = samples.get_mut(at + l) {
            *v += *add;
        }
    }
}
