//! Lighting spread over machines, one pass sharded by faces.
//!
//! Shard `I` of `N` ([`light_shard`]) computes direct light and the bounce gather rays of its
//! lit faces (runs of consecutive faces dealt round robin: [`FaceShard::faces`]): the shadow rays, the sky and sun tables' rays from those
//! faces' luxels, the supersampling, and the bounce rays of their patches; and the ambient-cube
//! rays of the leaves `l` with `l % N == I` (they meet only geometry). That is nearly all of
//! lighting's tracing. Its part ([`ShardPayload`]) holds each of its faces' light per range,
//! not yet blended across faces, each face's recorded gather hits and each leaf's cube rays.
//!
//! The merge ([`relight_merged`]) rebuilds the geometry, puts the shards' light and rays
//! together, blends light across faces (it reads neighbours, so it cannot run in a shard) and
//! runs everything after as one machine does: the bounce passes, which trace no ray (each is a
//! gather over the recorded hits, so they are not worth a round of parts each), the ambient
//! cubes (shading the recorded rays), the lightmaps and the props. Each face's light and rays are computed exactly as one
//! machine computes them, so the merged BSP is one machine's, byte for byte.

use glam::Vec3;
use srcmap_bsp::BspFile;
use srcmap_bytes::{Endian, ReadError, Reader, Writer};

use crate::ambient::{CubeRay, LeafRays, SampleRays, cube_directions};
use crate::bounce::{FacePatches, HitRef, NO_HIT};
use crate::patches::Grid;
use crate::pipeline::Lighting;
use crate::{FaceLight, Options, Progress, Report, Result, VradError, World};

/// Shard `index` of `count` (0-based).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FaceShard {
    pub index: u32,
    pub count: u32,
}

/// Runs of faces a shard's share is cut into ([`FaceShard::faces`]), per shard.
const RUNS_PER_SHARD: u64 = 4;

impl FaceShard {
    /// Whether item `i` (a leaf) is this shard's: round robin.
    pub fn owns(&self, i: usize) -> bool {
        i % self.count.max(1) as usize == self.index as usize
    }

    /// Per face (of a map's `faces`), whether it is this shard's. The faces are cut into
    /// [`RUNS_PER_SHARD`] × N runs of consecutive faces holding about as many luxels each,
    /// dealt round robin. A BSP stores the faces of a node together, so a run is one place
    /// of the map: a shard's luxels lie in a few places, and most of the map's triangles
    /// meet none of them along a sky direction (the sky table skips those before its
    /// sort). Dealing faces one by one spread every shard's luxels over the whole map, and
    /// each shard paid for every triangle. Several runs a shard keep the shards even where
    /// one part of the map costs more per luxel (under the sky).
    pub fn faces(&self, faces: &[srcmap_bsp::records::Face]) -> Vec<bool> {
        let weights: Vec<u64> = faces.iter().map(|f| face_weight(f.lightmap_size)).collect();
        let total = weights.iter().sum::<u64>().max(1);
        let (count, runs) = (
            u64::from(self.count.max(1)),
            u64::from(self.count.max(1)) * RUNS_PER_SHARD,
        );
        let mut before = 0;
        weights
            .iter()
            .map(|w| {
                let run = before * runs / total;
                before += w;
                run % count == u64::from(self.index)
            })
            .collect()
    }
}

/// What a face weighs in cutting runs: its luxels (none when its lightmap size is out of
/// range), plus one for the face itself.
fn face_weight([w, h]: [i32; 2]) -> u64 {
    let side = |n: i32| {
        if (0..=crate::faces::MAX_LIGHTMAP_EXTENT).contains(&n) {
            n as u64 + 1
        } else {
            0
        }
    };
    side(w) * side(h) + 1
}

/// What a shard computed: per face of its share, its light per range and its patches.
#[derive(Debug, Default)]
pub struct ShardPayload {
    faces: Vec<ShardFace>,
    /// The ambient-cube rays of the shard's leaves (`l % N == I`), with their indices.
    leaves: Vec<(u32, LeafRays)>,
}

#[derive(Debug)]
struct ShardFace {
    index: u32,
    /// Per range, not blended across faces.
    light: Vec<FaceLight>,
    /// The gather hits, when the face's rays were traced.
    hits: Option<Vec<HitRef>>,
}

/// Lights shard `shard` of a BSP file's faces (direct light and bounce gather rays): the
/// part's payload, and the run's report.
pub fn light_shard(
    bytes: &[u8],
    options: &Options,
    shard: FaceShard,
    progress: &dyn Progress,
) -> Result<(Vec<u8>, Report)> {
    let file = BspFile::parse(bytes)?;
    let mut bsp = crate::parse_within_limits(&file)?;
    if bsp.faces.is_empty() {
        return Ok((ShardPayload::default().to_bytes(), Report::new("vrad")));
    }
    let owned = shard.faces(&bsp.faces);
    options.threads.pool()?.install(|| {
        let mut run = Lighting::new(&mut bsp, options, progress)?;
        let mine = owned.clone();
        run.only_clusters_of(Box::new(move |f| mine.get(f).copied().unwrap_or(false)));
        let mut payload = ShardPayload::default();
        if crate::prepare(&mut run)? {
            let (light, patches) = run.light_direct_shard(owned);
            payload = ShardPayload::of(run.world(), light, patches);
            payload.leaves = run.trace_ambient_shard(|l| shard.owns(l));
        }
        Ok((payload.to_bytes(), run.finish()))
    })
}

/// Lights a BSP file's bytes as [`crate::relight`] does, direct light and the bounce rays taken
/// from the payloads of every shard of a run ([`light_shard`]) instead of computed.
pub fn relight_merged(
    bytes: &[u8],
    options: &Options,
    payloads: &[&[u8]],
    progress: &dyn Progress,
) -> Result<(Vec<u8>, Report)> {
    let mut parts = payloads
        .iter()
        .map(|p| ShardPayload::parse(p))
        .collect::<Result<Vec<_>>>()?;
    let leaves: Vec<_> = parts
        .iter_mut()
        .flat_map(|p| std::mem::take(&mut p.leaves))
        .collect();
    crate::relight_with(bytes, |bsp| {
        // The merge lights no face directly: no sample's cluster is needed.
        crate::light_with(bsp, options, progress, Some(Box::new(|_| false)), |run| {
            let rays = joined_leaves(run, leaves, options)?;
            let (light, patches) = joined(run.world(), run.ranges.len(), parts, options)?;
            run.set_direct(light, patches);
            run.set_ambient_rays(rays);
            Ok(())
        })
    })
}

/// The shards' faces, each in its place: `[face][range]` light and per face its patches.
fn joined(
    world: &World,
    ranges: usize,
    parts: Vec<ShardPayload>,
    options: &Options,
) -> Result<(Vec<Vec<FaceLight>>, Vec<FacePatches>)> {
    let n = world.faces.len();
    let mut light: Vec<Option<Vec<FaceLight>>> = vec![None; n];
    let mut patches: Vec<FacePatches> = (0..n).map(|_| FacePatches::default()).collect();
    let spacing = options.bounce_spacing();
    let cells: Vec<usize> = (world.faces.iter()).map(|g| Grid::of(g, spacing).len()).collect();
    for face in parts.into_iter().flat_map(|p| p.faces) {
        let f = face.index as usize;
        check_face(world, ranges, &face, light.get(f).is_some_and(Option::is_some))?;
        if let Some(hits) = face.hits {
            patches[f] = patch_of(world, f, hits, options, &cells)?;
        }
        light[f] = Some(face.light);
    }
    let light = (light.into_iter().enumerate())
        .map(|(f, l)| l.ok_or_else(|| bad(format!("no part holds face {f}"))))
        .collect::<Result<Vec<_>>>()?;
    Ok((light, patches))
}

/// The shards' leaves' ambient-cube rays, each in its place (none when cubes are off): every
/// leaf given once, each sample with a ray per direction, landing on a face of the map and
/// reached by lights of the run.
fn joined_leaves(
    run: &Lighting<'_>,
    leaves: Vec<(u32, LeafRays)>,
    options: &Options,
) -> Result<Vec<LeafRays>> {
    if !options.ambient_cubes {
        return Ok(Vec::new());
    }
    let (count, lights) = run.leaves_and_lights();
    let (faces, dirs) = (run.world().faces.len(), cube_directions(options.quality).len());
    let mut placed: Vec<Option<LeafRays>> = vec![None; count];
    for (l, rays) in leaves {
        let slot = placed.get_mut(l as usize);
        let slot = slot.ok_or_else(|| bad(format!("leaf {l}: the map has {count}")))?;
        if slot.is_some() {
            return Err(bad(format!("leaf {l} is in two parts")));
        }
        check_leaf(l, &rays, dirs, faces, lights)?;
        *slot = Some(rays);
    }
    (placed.into_iter().enumerate())
        .map(|(l, r)| r.ok_or_else(|| bad(format!("no part holds leaf {l}"))))
        .collect()
}

fn check_leaf(l: u32, rays: &LeafRays, dirs: usize, faces: usize, lights: usize) -> Result<()> {
    for s in &rays.samples {
        if s.rays.len() != dirs {
            return Err(bad(format!(
                "leaf {l}: {} ambient rays, the run traces {dirs}",
                s.rays.len()
            )));
        }
        let on_map = |r: &CubeRay| !matches!(r, CubeRay::Luxel { face, .. } if *face as usize >= faces);
        if !s.rays.iter().all(on_map) || s.lights.iter().any(|&i| i as usize >= lights) {
            return Err(bad(format!(
                "leaf {l}: an ambient ray on no face or light of the map"
            )));
        }
    }
    Ok(())
}

fn bad(message: String) -> VradError {
    VradError::Part(message)
}

/// A part's face is one of this map's, given once, with light of the shape it needs.
fn check_face(world: &World, ranges: usize, face: &ShardFace, seen: bool) -> Result<()> {
    let f = face.index as usize;
    let Some(geom) = world.faces.get(f) else {
        return Err(bad(format!("face {f}: the map has {}", world.faces.len())));
    };
    if seen {
        return Err(bad(format!("face {f} is in two parts")));
    }
    if face.light.len() != ranges {
        return Err(bad(format!(
            "face {f}: {} ranges, the run lights {ranges}",
            face.light.len()
        )));
    }
    for fl in &face.light {
        crate::verify::face_light(f, geom, fl).map_err(bad)?;
    }
    Ok(())
}

/// Face `f`'s patches from its hits: its grid, and hits that each land on one of the `cells`
/// of a face (per face, its count).
fn patch_of(
    world: &World,
    f: usize,
    hits: Vec<HitRef>,
    options: &Options,
    cells: &[usize],
) -> Result<FacePatches> {
    let grid = Grid::of(&world.faces[f], options.bounce_spacing());
    if hits.len() != grid.len() * options.bounce_rays() {
        return Err(bad(format!("face {f}: {} gather hits", hits.len())));
    }
    let lands =
        |h: &HitRef| h.face == NO_HIT || cells.get(h.face as usize).is_some_and(|&c| (h.cell as usize) < c);
    if let Some(h) = hits.iter().find(|h| !lands(h)) {
        return Err(bad(format!(
            "face {f}: a gather hit on face {} cell {}",
            h.face, h.cell
        )));
    }
    Ok(FacePatches { grid, hits })
}

impl ShardPayload {
    /// The faces `world` names this shard's, from their light (`[face][range]`) and patches.
    fn of(world: &World, light: Vec<Vec<FaceLight>>, mut patches: Vec<FacePatches>) -> ShardPayload {
        let mut faces = Vec::new();
        for (f, light) in light.into_iter().enumerate() {
            if !world.only_faces.as_ref().is_some_and(|m| m[f]) {
                continue;
            }
            let hits = patches.get_mut(f).map(|p| std::mem::take(&mut p.hits));
            let traced = hits.as_ref().is_some_and(|h| !h.is_empty());
            faces.push(ShardFace {
                index: f as u32,
                light,
                hits: hits.filter(|_| traced),
            });
        }
        ShardPayload {
            faces,
            leaves: Vec::new(),
        }
    }

    /// Layout (little-endian): face count u32; per face its index u32, range count u8, per
    /// range the styles (u8 count, bytes) and per style its samples (u32 count, 3 × f32
    /// each); then u32 hits + 1 (0: no rays traced), per hit its face (u32; `u32::MAX`: none)
    /// and when there is one its cell u32, a flags byte, its weight f32 (unless it is 1) and
    /// its bump weights 3 × f32 (unless all are +0).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new(Endian::Little);
        w.u32(self.faces.len() as u32);
        for face in &self.faces {
            w.u32(face.index);
            w.u8(face.light.len() as u8);
            face.light.iter().for_each(|fl| write_light(&mut w, fl));
            write_hits(&mut w, face.hits.as_deref());
        }
        w.u32(self.leaves.len() as u32);
        for (index, rays) in &self.leaves {
            w.u32(*index);
            write_leaf(&mut w, rays);
        }
        w.into_inner()
    }

    /// A payload from its bytes; any damage is an error (never a panic, never a huge
    /// allocation from a hostile count).
    pub fn parse(bytes: &[u8]) -> Result<ShardPayload> {
        let mut r = Reader::new(bytes, Endian::Little);
        let read = |e: ReadError| bad(e.to_string());
        let n = r.u32().map_err(read)?;
        let faces = (0..r.check_count(n.into(), 5).map_err(read)?)
            .map(|_| read_face(&mut r).map_err(read))
            .collect::<Result<Vec<_>>>()?;
        let n = r.u32().map_err(read)?;
        let leaves = (0..r.check_count(n.into(), 8).map_err(read)?)
            .map(|_| Ok((r.u32()?, read_leaf(&mut r)?)))
            .collect::<std::result::Result<Vec<_>, ReadError>>()
            .map_err(read)?;
        if r.remaining() != 0 {
            return Err(bad("bytes after the last leaf".into()));
        }
        Ok(ShardPayload { faces, leaves })
    }
}

fn write_light(w: &mut Writer, fl: &FaceLight) {
    w.u8(fl.styles.len() as u8);
    w.bytes(&fl.styles);
    for style in &fl.samples {
        w.u32(style.len() as u32);
        style.iter().for_each(|v| w.vec3(v.to_array()));
    }
}

/// A hit's flags: its weight is not 1, its bump weights are not all +0.
const HIT_WEIGHTED: u8 = 1;
const HIT_BUMPED: u8 = 2;

/// Most hits weigh 1 on a face without bump maps: their flags byte says so, and neither value
/// is written (compared bit for bit, so a -0 is kept).
fn hit_flags(h: &HitRef) -> u8 {
    let weighted = h.weight.to_bits() != 1f32.to_bits();
    let bumped = h.bump.map(f32::to_bits) != [0; 3];
    (u8::from(weighted) * HIT_WEIGHTED) | (u8::from(bumped) * HIT_BUMPED)
}

fn write_hits(w: &mut Writer, hits: Option<&[HitRef]>) {
    let Some(hits) = hits else {
        w.u32(0);
        return;
    };
    w.u32(hits.len() as u32 + 1);
    for h in hits.iter() {
        w.u32(h.face);
        if h.face == NO_HIT {
            continue;
        }
        w.u32(h.cell);
        let flags = hit_flags(h);
        w.u8(flags);
        if flags & HIT_WEIGHTED != 0 {
            w.f32(h.weight);
        }
        if flags & HIT_BUMPED != 0 {
            w.vec3(h.bump);
        }
    }
}

/// A ray's tag: none, the sky, or else the face it hit (its luxel follows).
const RAY_NOTHING: u32 = u32::MAX;
const RAY_SKY: u32 = u32::MAX - 1;

/// Layout: sample count u32, per sample its point (3 × f32), its place (3 bytes), its ray
/// count u32 and per ray its tag u32 (and the luxel u32 after a face), its light count u32
/// and the lights (u32 each).
fn write_leaf(w: &mut Writer, rays: &LeafRays) {
    w.u32(rays.samples.len() as u32);
    for s in &rays.samples {
        w.vec3(s.pos.to_array());
        w.bytes(&s.frac);
        w.u32(s.rays.len() as u32);
        for ray in &s.rays {
            match *ray {
                CubeRay::Nothing => w.u32(RAY_NOTHING),
                CubeRay::Sky => w.u32(RAY_SKY),
                CubeRay::Luxel { face, luxel } => {
                    w.u32(face);
                    w.u32(luxel);
                }
            }
        }
        w.u32(s.lights.len() as u32);
        s.lights.iter().for_each(|&i| w.u32(i));
    }
}

fn read_leaf(r: &mut Reader<'_>) -> std::result::Result<LeafRays, ReadError> {
    let n = r.u32()?;
    let samples = (0..r.check_count(n.into(), 23)?)
        .map(|_| read_sample(r))
        .collect::<std::result::Result<_, _>>()?;
    Ok(LeafRays { samples })
}

fn read_sample(r: &mut Reader<'_>) -> std::result::Result<SampleRays, ReadError> {
    let pos = Vec3::from(r.vec3()?);
    let frac = <[u8; 3]>::try_from(r.bytes(3)?).map_err(|_| r.invalid("sample place"))?;
    let n = r.u32()?;
    let rays = read_n(r, r.check_count(n.into(), 4)?, read_ray)?;
    let n = r.u32()?;
    let lights = read_n(r, r.check_count(n.into(), 4)?, Reader::u32)?;
    Ok(SampleRays {
        pos,
        frac,
        rays,
        lights,
    })
}

fn read_ray(r: &mut Reader<'_>) -> std::result::Result<CubeRay, ReadError> {
    Ok(match r.u32()? {
        RAY_NOTHING => CubeRay::Nothing,
        RAY_SKY => CubeRay::Sky,
        face => CubeRay::Luxel {
            face,
            luxel: r.u32()?,
        },
    })
}

/// `n` values read by `read`, in a vector allocated once (collecting `Result`s grows it step by
/// step: a part's millions of hits made that a tenth of the merge). `n` is checked against the
/// bytes left by the caller.
fn read_n<'a, T>(
    r: &mut Reader<'a>,
    n: usize,
    read: impl Fn(&mut Reader<'a>) -> std::result::Result<T, ReadError>,
) -> std::result::Result<Vec<T>, ReadError> {
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        out.push(read(r)?);
    }
    Ok(out)
}

fn read_face(r: &mut Reader<'_>) -> std::result::Result<ShardFace, ReadError> {
    let index = r.u32()?;
    let ranges = r.u8()?;
    let light = (0..ranges)
        .map(|_| read_light(r))
        .collect::<std::result::Result<_, _>>()?;
    let hits = match r.u32()? {
        0 => None,
        n => {
            let n = r.check_count(u64::from(n - 1), 4)?;
            Some(read_n(r, n, read_hit)?)
        }
    };
    Ok(ShardFace { index, light, hits })
}

fn read_light(r: &mut Reader<'_>) -> std::result::Result<FaceLight, ReadError> {
    let styles = r.u8()? as usize;
    let styles = r.bytes(styles)?.to_vec();
    let mut samples = Vec::with_capacity(styles.len());
    for _ in &styles {
        let n = r.u32()?;
        let n = r.check_count(n.into(), 12)?;
        // In one slice: read value by value, the merge spent a tenth of its time here.
        samples.push(r.bytes(n * 12)?.chunks_exact(12).map(le_vec3).collect());
    }
    Ok(FaceLight { styles, samples })
}

/// Three little-endian f32 from 12 bytes.
fn le_vec3(b: &[u8]) -> Vec3 {
    let f = |i: usize| f32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
    Vec3::new(f(0), f(4), f(8))
}

fn read_hit(r: &mut Reader<'_>) -> std::result::Result<HitRef, ReadError> {
    let face = r.u32()?;
    let mut hit = HitRef {
        face,
        cell: 0,
        weight: 0.0,
        bump: [0.0; 3],
    };
    if face == NO_HIT {
        return Ok(hit);
    }
    hit.cell = r.u32()?;
    let flags = r.u8()?;
    hit.weight = if flags & HIT_WEIGHTED != 0 { r.f32()? } else { 1.0 };
    if flags & HIT_BUMPED != 0 {
        hit.bump = r.vec3()?;
    }
    // One way to write each hit: a flag for a value the flag says is not there is damage.
    if hit_flags(&hit) != flags {
        return Err(r.invalid(format!("gather hit flags {flags:#x}")));
    }
    Ok(hit)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn leaf() -> LeafRays {
        let sample = |x: f32| SampleRays {
            pos: Vec3::new(x, -0.0, 1e-30),
            frac: [0, 128, 255],
            rays: vec![
                CubeRay::Sky,
                CubeRay::Nothing,
                CubeRay::Luxel { face: 3, luxel: 77 },
            ],
            lights: vec![0, 5],
        };
        LeafRays {
            samples: vec![sample(1.5), sample(-2.0)],
        }
    }

    fn payload() -> ShardPayload {
        let light = |v: f32| FaceLight {
            styles: vec![0, 32],
            samples: vec![vec![Vec3::new(v, -0.0, 1e-30); 3], vec![Vec3::splat(f32::MAX); 3]],
        };
        let hit = |face| HitRef {
            face,
            cell: 7,
            weight: 0.25,
            bump: [0.5, 0.0, 1.0],
        };
        let plain = |face| HitRef {
            weight: 1.0,
            bump: [0.0; 3],
            ..hit(face)
        };
        let negative_zero = |face| HitRef {
            bump: [0.0, -0.0, 0.0],
            ..plain(face)
        };
        ShardPayload {
            faces: vec![
                ShardFace {
                    index: 3,
                    light: vec![light(1.5), light(2.5)],
                    hits: Some(vec![hit(1), hit(NO_HIT), plain(4), negative_zero(5)]),
                },
                ShardFace {
                    index: 9,
                    light: vec![FaceLight::default(); 2],
                    hits: None,
                },
            ],
            leaves: vec![(4, LeafRays::default()), (6, leaf())],
        }
    }

    #[test]
    fn a_payload_reads_back_bit_for_bit() {
        let bytes = payload().to_bytes();
        let back = ShardPayload::parse(&bytes).unwrap();
        assert_eq!(back.to_bytes(), bytes);
        assert_eq!(back.faces[0].light, payload().faces[0].light);
        let hits = back.faces[0].hits.as_ref().unwrap();
        assert_eq!(
            (hits[0].cell, hits[0].weight, hits[0].bump),
            (7, 0.25, [0.5, 0.0, 1.0])
        );
        assert_eq!(hits[1].face, NO_HIT);
        assert_eq!((hits[2].weight, hits[2].bump), (1.0, [0.0; 3]));
        assert_eq!(hits[3].bump.map(f32::to_bits), [0, (-0.0f32).to_bits(), 0]);
        assert!(back.faces[1].hits.is_none());
        assert_eq!(back.leaves, payload().leaves);
        let pos = back.leaves[1].1.samples[0].pos;
        assert_eq!(
            pos.to_array().map(f32::to_bits),
            [1.5f32, -0.0, 1e-30].map(f32::to_bits)
        );
    }

    #[test]
    fn every_truncation_or_extra_byte_is_an_error() {
        let bytes = payload().to_bytes();
        for n in 0..bytes.len() {
            assert!(ShardPayload::parse(&bytes[..n]).is_err(), "truncated to {n}");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(ShardPayload::parse(&longer).is_err());
        // The plain hit's flags byte (after its face and cell) claiming a weight of 1 written out.
        let plain = ShardPayload {
            faces: vec![ShardFace {
                index: 0,
                light: Vec::new(),
                hits: Some(vec![payload().faces[0].hits.as_ref().unwrap()[2]]),
            }],
            leaves: Vec::new(),
        };
        let mut bytes = plain.to_bytes();
        // The flags byte comes last before the leaf count (4 bytes).
        let flags = bytes.len() - 5;
        assert_eq!(bytes[flags], 0);
        bytes[flags] = HIT_WEIGHTED;
        bytes.splice(flags + 1..flags + 1, 1f32.to_le_bytes());
        assert!(ShardPayload::parse(&bytes).is_err());
    }

    #[test]
    fn shards_split_faces_into_even_runs() {
        let sizes = [
            [15, 15],
            [0, 0],
            [31, 7],
            [-1, -1],
            [3, 3],
            [2000, 1],
            [7, 7],
            [15, 3],
        ];
        let faces: Vec<srcmap_bsp::records::Face> = (0..4000)
            .map(|i| srcmap_bsp::records::Face {
                lightmap_size: sizes[i * 7 % sizes.len()],
                ..Default::default()
            })
            .collect();
        let count = 7;
        let shares: Vec<Vec<bool>> = (0..count)
            .map(|index| FaceShard { index, count }.faces(&faces))
            .collect();
        // Every face is one shard's.
        for f in 0..faces.len() {
            assert_eq!(shares.iter().filter(|s| s[f]).count(), 1, "face {f}");
        }
        let weights: Vec<u64> = faces.iter().map(|f| face_weight(f.lightmap_size)).collect();
        let weight = |share: &Vec<bool>| -> u64 {
            (share.iter().zip(&weights))
                .filter(|(m, _)| **m)
                .map(|(_, w)| w)
                .sum()
        };
        let (least, most) = (
            shares.iter().map(weight).min().unwrap(),
            shares.iter().map(weight).max().unwrap(),
        );
        // Each run is within one face of its even share, at either end.
        let heaviest = weights.iter().max().unwrap();
        assert!(
            most - least <= 2 * 2 * RUNS_PER_SHARD * heaviest,
            "{least}..{most}"
        );
        // In runs: a shard's faces change hands only at a run's end.
        let changes = (1..faces.len())
            .filter(|&f| shares[0][f] != shares[0][f - 1])
            .count();
        assert!(changes <= 2 * RUNS_PER_SHARD as usize, "{changes}");
        assert_eq!(
            FaceShard { index: 0, count: 1 }.faces(&faces),
            vec![true; faces.len()]
        );
    }

    #[test]
    fn shards_split_leaves_round_robin() {
        let s = FaceShard { index: 2, count: 3 };
        assert_eq!((0..9).filter(|&f| s.owns(f)).collect::<Vec<_>>(), [2, 5, 8]);
    }
}
