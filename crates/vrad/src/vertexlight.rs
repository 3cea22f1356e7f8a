//! Per-vertex static-prop lighting (VRAD's `-StaticPropLighting`): for each static prop
//! without `disablevertexlighting`, a `sp_N.vhv` (LDR) or `sp_hdr_N.vhv` (HDR) file in the
//! pakfile, N the prop's index in `sprp`.
//!
//! Each vertex of the model (LOD 0 positions and normals of the `.vvd`, placed by the prop's
//! origin and angles) gets:
//! * **direct** light of every style-0 light whose PVS holds it, from a point moved 4 units
//!   toward the light (along the normal for sky ambient), shadows traced as for luxels;
//! * **indirect** light (when bouncing): 40 rays over the sphere, those in front of the
//!   normal reading the style-0 lightmap sample they land on × 1/(1 + (d/128)²) ×
//!   reflectivity, summed and divided by the sum of the rays' cosines (as VRAD).
//!
//! A prop's own shadow triangles shadow its vertices unless it is flagged
//! `STATIC_PROP_NO_SELF_SHADOWING`; with `STATIC_PROP_IGNORE_NORMALS` every light counts as
//! arriving square on and every indirect ray with VRAD's fixed weight. A vertex inside solid is lit from a point halfway-stepped toward the prop's lighting origin
//! (or its nearest lit vertex). The file (`HardwareVerts`, version 2) holds one mesh per VTX
//! strip group of every LOD, its vertices' colours in strip-group order, as BGRA bytes in
//! the engine's vertex-light gamma; data blocks are 512-byte aligned.
//!
//! Lightmapped props (`generatelightmaps`) also get their texels lit the same way in the last
//! range lit ([`crate::texel`]).

use std::collections::HashMap;

use glam::{Mat3, Vec3};
use rayon::prelude::*;
use srcmap_bsp::Bsp;
use srcmap_model::vtx::Lod;
use srcmap_model::{ModelFiles, SubModel, Vertex};
use srcmap_trace::{Hit, Tracer};

use crate::color::{decode, encode};
use crate::detail::WrittenLightmap;
use crate::direct::{Shadows, gather};
use crate::lights::{Light, LightKind, Range};
use crate::props::{ModelSource, angle_matrix};
use crate::sampling::sphere_directions;
use crate::scene::{MAX_TRACE, SKY, STATIC_PROP};
use crate::texel::{self, engine_bytes};
use crate::{AmbientOcclusion, Counters, World};
use srcmap_bsp::gamelump::static_prop_flags::{
    IGNORE_NORMALS, NO_PER_TEXEL_LIGHTING, NO_PER_VERTEX_LIGHTING, NO_SELF_SHADOWING, USE_LIGHTING_ORIGIN,
};
use srcmap_bsp::gamelump::{StaticProp, StaticPropLayout, StaticProps};

/// `VHV_VERSION`.
pub const VHV_VERSION: i32 = 2;
/// `VERTEX_COLOR`: the vertices hold a colour.
const VERTEX_COLOR: u32 = 0x0004;
/// Bytes of `HardwareVerts::FileHeader_t` and `MeshHeader_t`.
const FILE_HEADER: usize = 40;
const MESH_HEADER: usize = 28;
/// Alignment of the vertex data and the file's end.
const ALIGN: usize = 512;
/// How far a vertex's light sample moves toward each light (against surface acne).
const TOWARD_LIGHT: f32 = 4.0;
/// Indirect rays per vertex (VRAD's 162 quartered: it forces its fast mode here).
const INDIRECT_RAYS: usize = 40;
/// Sky-ambient rays per vertex (forced fast, as the indirect rays).
const SKY_RAYS: usize = 40;

/// The `.vhv` files of one range and what became of the props.
#[derive(Debug, Default)]
pub struct VertexLighting {
    /// (pakfile name, bytes).
    pub files: Vec<(String, Vec<u8>)>,
    /// Props with `disablevertexlighting`.
    pub disabled: usize,
    /// Props whose model (with its `.vtx`) could not be read: no file.
    pub without_model: usize,
    /// The `texelslighting_N.ppl` files of lightmapped props ([`crate::texel`]), when asked.
    pub texel_files: Vec<(String, Vec<u8>)>,
}

/// One mesh of the file: its LOD and its vertices' colours.
pub struct VhvMesh {
    pub lod: u32,
    pub colors: Vec<[u8; 4]>,
}

/// Writes a `.vhv` file.
pub fn write_vhv(checksum: u32, meshes: &[VhvMesh]) -> Vec<u8> {
    let align = |n: usize| n.div_ceil(ALIGN) * ALIGN;
    let total: usize = meshes.iter().map(|m| m.colors.len()).sum();
    let data_start = align(FILE_HEADER + MESH_HEADER * meshes.len());
    let mut out = vec![0u8; align(data_start + 4 * total)];
    let mut put = |at: usize, v: u32| out[at..at + 4].copy_from_slice(&v.to_le_bytes());
    put(0, VHV_VERSION as u32);
    put(4, checksum);
    put(8, VERTEX_COLOR);
    put(12, 4);
    put(16, total as u32);
    put(20, meshes.len() as u32);
    let mut offset = data_start;
    for (i, m) in meshes.iter().enumerate() {
        let h = FILE_HEADER + MESH_HEADER * i;
        put(h, m.lod);
        put(h + 4, m.colors.len() as u32);
        put(h + 8, offset as u32);
        offset += 4 * m.colors.len();
    }
    let mut at = data_start;
    for m in meshes {
        for c in &m.colors {
            out[at..at + 4].copy_from_slice(c);
            at += 4;
        }
    }
    out
}

/// A vertex colour as VRAD stores it: through `ColorRGBExp32`, to linear 0..1, into the
/// engine's vertex-light space (gamma 2.2, overbright 2), scaled down when a channel exceeds
/// 1; BGRA bytes.
pub fn vertex_bytes(color: Vec3) -> [u8; 4] {
    let [r, g, b] = engine_bytes(decode(encode(color)) / 255.0);
    [b, g, r, 255]
}

/// The model files each prop type needs (`.mdl`, `.vvd`, `.vtx`), read once.
fn load_models(bsp: &Bsp, source: Option<&ModelSource>) -> HashMap<u16, ModelFiles> {
    let Some((sp, source)) = bsp.game_lumps.static_props().zip(source) else {
        return HashMap::new();
    };
    let mut out = HashMap::new();
    for p in &sp.props {
        if out.contains_key(&p.prop_type) {
            continue;
        }
        let Some(name) = sp.models.get(p.prop_type as usize) else {
            continue;
        };
        if let Ok(files) = ModelFiles::load(name, |f| (source.0)(f))
            && files.vtx.is_some()
        {
            out.insert(p.prop_type, files);
        }
    }
    out
}

/// The occluders less one prop's own triangles (`STATIC_PROP_NO_SELF_SHADOWING`).
struct WithoutProp<'a> {
    scene: &'a dyn Tracer,
    payload: u32,
}

impl WithoutProp<'_> {
    /// The first hit whose payload is not the prop's and has none of `ignore`'s bits,
    /// stepping past the prop's own triangles.
    fn first(&self, origin: [f32; 3], dir: [f32; 3], max_t: f32, ignore: u32) -> Option<Hit> {
        let (o, d) = (Vec3::from(origin), Vec3::from(dir));
        let mut start = 0.0f32;
        for _ in 0..64 {
            let from = o + d * start;
            let hit = self.scene.closest(from.to_array(), dir, max_t - start)?;
            if hit.payload != self.payload && hit.payload & ignore == 0 {
                return Some(Hit {
                    t: hit.t + start,
                    ..hit
                });
            }
            start += hit.t + 1e-3;
            if start >= max_t {
                return None;
            }
        }
        None
    }
}

impl Tracer for WithoutProp<'_> {
    fn closest(&self, origin: [f32; 3], dir: [f32; 3], max_t: f32) -> Option<Hit> {
        self.first(origin, dir, max_t, 0)
    }
    fn occluded(&self, origin: [f32; 3], dir: [f32; 3], max_t: f32) -> bool {
        self.first(origin, dir, max_t, 0).is_some()
    }
    fn occluded_except(&self, origin: [f32; 3], dir: [f32; 3], max_t: f32, ignore: u32) -> bool {
        self.first(origin, dir, max_t, ignore).is_some()
    }
}

/// How one prop's vertices are shaded: its shadow scene, and whether it ignores normals
/// (`STATIC_PROP_IGNORE_NORMALS`: every light arrives square on, every indirect ray counts).
struct PropShading<'a> {
    shadows: Shadows<'a>,
    /// The occluders less the prop's own triangles: ambient occlusion's scene, since a
    /// vertex may lie inside its own collision model.
    others: &'a dyn Tracer,
    ignore_normals: bool,
}

struct VertexLighter<'a> {
    world: &'a World,
    lights: &'a [Light],
    light_clusters: Vec<i32>,
    sky_dirs: &'a [Vec3],
    lightmaps: &'a [Option<WrittenLightmap>],
    dirs: Vec<Vec3>,
    indirect: bool,
    ambient_occlusion: Option<&'a AmbientOcclusion>,
}

impl<'a> VertexLighter<'a> {
    fn new(world: &'a World, inputs: &RangeInputs<'a>, sky_dirs: &'a [Vec3]) -> Self {
        VertexLighter {
            world,
            lights: inputs.lights,
            light_clusters: inputs.lights.iter().map(|l| world.cluster_at(l.origin)).collect(),
            sky_dirs,
            lightmaps: inputs.lightmaps,
            dirs: sphere_directions(INDIRECT_RAYS),
            indirect: inputs.indirect,
            ambient_occlusion: inputs.ambient_occlusion,
        }
    }

    fn direct(&self, shading: &PropShading<'_>, pos: Vec3, normal: Vec3, rays: &mut u64) -> Vec3 {
        let cluster = self.world.cluster_at(pos);
        let mut out = Vec3::ZERO;
        let mut f = [0.0f32; 4];
        for (l, &lc) in self.lights.iter().zip(&self.light_clusters) {
            if l.style != 0 || !self.world.sees(l, lc, cluster) {
                continue;
            }
            let toward = match l.kind {
                LightKind::SkyAmbient => normal,
                LightKind::Sun => -l.normal,
                _ => (l.origin - pos).normalize_or_zero(),
            };
            let facing = if shading.ignore_normals && l.kind != LightKind::SkyAmbient {
                toward
            } else {
                normal
            };
            let from = pos + toward * TOWARD_LIGHT;
            if gather(&shading.shadows, l, from, &[facing], rays, &mut f) {
                out += l.intensity * f[0];
            }
        }
        out
    }

    fn indirect(&self, ignore_normals: bool, pos: Vec3, normal: Vec3, rays: &mut u64) -> Vec3 {
        if !self.indirect {
            return Vec3::ZERO;
        }
        let (mut sum, mut total_dot) = (Vec3::ZERO, 0.0f32);
        for d in &self.dirs {
            let dot = if ignore_normals {
                std::f32::consts::FRAC_1_SQRT_2 / 2.0
            } else {
                normal.dot(*d)
            };
            if dot <= 0.001 {
                continue;
            }
            total_dot += dot;
            *rays += 1;
            if let Some(light) = self.bounced(pos, *d) {
                sum += light;
            }
        }
        if total_dot > 0.0 {
            sum / total_dot
        } else {
            Vec3::ZERO
        }
    }

    /// The light an indirect ray from `pos` along `d` brings: the style-0 lightmap sample
    /// it lands on × 1/(1 + (d/128)²) × reflectivity; none from sky or an unlit face.
    #[inline]
    fn bounced(&self, pos: Vec3, d: Vec3) -> Option<Vec3> {
        let hit = self
            .world
            .surfaces
            .closest(pos.to_array(), d.to_array(), MAX_TRACE)?;
        if hit.payload & SKY != 0 {
            return None;
        }
        let face = hit.payload as usize;
        let Some(Some(lm)) = self.lightmaps.get(face) else {
            return None;
        };
        let (st, _) = self.world.surface_hit(face, hit.triangle, pos + d * hit.t);
        let refl = self.world.faces[face].reflectivity;
        let falloff = 1.0 / (1.0 + (hit.t / 128.0).powi(2));
        Some(lm.sample(0, st) * falloff * refl)
    }

    fn light(&self, shading: &PropShading<'_>, pos: Vec3, normal: Vec3, rays: &mut u64) -> Vec3 {
        let lit = self.direct(shading, pos, normal, rays)
            + self.indirect(shading.ignore_normals, pos, normal, rays);
        match self.ambient_occlusion {
            // From a point 1 unit off the surface, as a luxel's sample; the seed from the
            // position, so a vertex shared by two meshes is darkened alike.
            Some(ao) => {
                let seed = (pos.x.to_bits() as u64)
                    ^ (pos.y.to_bits() as u64) << 21
                    ^ (pos.z.to_bits() as u64) << 42;
                lit * ao.factor(shading.others, pos + normal, normal, seed, rays)
            }
            None => lit,
        }
    }
}

/// What one range's vertex lighting reads.
pub(crate) struct RangeInputs<'a> {
    pub range: Range,
    pub lights: &'a [Light],
    /// The range's lightmaps as written.
    pub lightmaps: &'a [Option<WrittenLightmap>],
    /// Light bounced (with visibility data): vertices gather indirect light.
    pub indirect: bool,
    /// No prop shadows itself, whatever its flags.
    pub no_self_shadowing: bool,
    /// Darken vertices by ambient occlusion ([`crate::occlusion`]).
    pub ambient_occlusion: Option<&'a AmbientOcclusion>,
    /// Also light the texels of lightmapped props (`.ppl` files: one name for every range,
    /// so VRAD's last range's stand; asked of that range alone).
    pub texels: bool,
}

/// The `.vhv` files of a range for every static prop of `bsp` whose model `source` has.
pub(crate) fn light_prop_vertices(
    bsp: &Bsp,
    world: &World,
    inputs: &RangeInputs<'_>,
    source: Option<&ModelSource>,
    counters: &Counters,
) -> VertexLighting {
    let Some(sp) = bsp.game_lumps.static_props() else {
        return VertexLighting::default();
    };
    let sky_dirs = sphere_directions(SKY_RAYS);
    let props = PropLighter {
        lighter: VertexLighter::new(world, inputs, &sky_dirs),
        models: load_models(bsp, source),
        layout: sp.layout,
        prefix: vhv_prefix(inputs.range),
        texels: inputs.texels,
        no_self_shadowing: inputs.no_self_shadowing,
        counters,
    };
    let results: Vec<PropFiles> = sp
        .props
        .par_iter()
        .enumerate()
        .map(|(index, prop)| props.light(index, prop))
        .collect();
    VertexLighting::of(sp, results)
}

/// The prefix of a range's `.vhv` names.
fn vhv_prefix(range: Range) -> &'static str {
    if range == Range::Hdr { "sp_hdr_" } else { "sp_" }
}

impl VertexLighting {
    /// The files of the props of `sp`, one `results` entry each, in prop order.
    fn of(sp: &StaticProps, results: Vec<PropFiles>) -> VertexLighting {
        let mut out = VertexLighting::default();
        for (prop, files) in sp.props.iter().zip(results) {
            out.add(prop.flags_in(sp.layout), files);
        }
        out
    }

    /// Adds one prop's files (its flags `flags`), or counts why it has no `.vhv`.
    fn add(&mut self, flags: u32, (vhv, ppl): PropFiles) {
        match vhv {
            Some(file) => self.files.push(file),
            None if flags & NO_PER_VERTEX_LIGHTING != 0 => self.disabled += 1,
            None => self.without_model += 1,
        }
        self.texel_files.extend(ppl);
    }
}

/// One prop's `.vhv` and `.ppl` files (pakfile name, bytes), each when asked for.
type PropFiles = (Option<(String, Vec<u8>)>, Option<(String, Vec<u8>)>);

/// What lighting one static prop reads, besides the [`VertexLighter`].
struct PropLighter<'a> {
    lighter: VertexLighter<'a>,
    /// Per prop type, its model files.
    models: HashMap<u16, ModelFiles>,
    layout: StaticPropLayout,
    /// The `.vhv` names' prefix (`sp_`, `sp_hdr_`).
    prefix: &'static str,
    /// Light lightmapped props' texels too.
    texels: bool,
    /// No prop shadows itself, whatever its flags.
    no_self_shadowing: bool,
    counters: &'a Counters,
}

impl PropLighter<'_> {
    /// The files of prop `index`: none when its model is missing or it asks for neither.
    fn light(&self, index: usize, prop: &StaticProp) -> PropFiles {
        let flags = prop.flags_in(self.layout);
        let (with_vertices, with_texels) = self.wanted(prop, flags);
        let Some(files) = self
            .models
            .get(&prop.prop_type)
            .filter(|_| with_vertices || with_texels)
        else {
            return (None, None);
        };
        let placement = Placement::of(prop, flags);
        // The prop's own triangles shadow it unless it is flagged not to.
        let without_self = WithoutProp {
            scene: &self.lighter.world.occluders,
            payload: STATIC_PROP | (index as u32 & (STATIC_PROP - 1)),
        };
        let lit = LitProp {
            files,
            placement,
            shading: self.shading(flags, &without_self),
        };
        let mut rays = 0u64;
        let vhv = with_vertices.then(|| self.vhv(index, &lit, &mut rays));
        let ppl = with_texels.then(|| self.ppl(index, prop.lightmap_res, &lit, &mut rays));
        self.counters.add_pass_rays(&self.counters.prop_rays, rays);
        (vhv, ppl)
    }

    /// Whether a prop with `flags` gets its vertices lit, and its texels.
    fn wanted(&self, prop: &StaticProp, flags: u32) -> (bool, bool) {
        let with_vertices = flags & NO_PER_VERTEX_LIGHTING == 0;
        // Source 2013's layout alone has a lightmap resolution and the flag to test.
        let with_texels = self.texels
            && self.layout == StaticPropLayout::Lightmapped
            && flags & NO_PER_TEXEL_LIGHTING == 0
            && prop.lightmap_res.iter().all(|&r| r > 0);
        (with_vertices, with_texels)
    }

    /// Prop `index`'s `.vhv` file.
    fn vhv(&self, index: usize, lit: &LitProp<'_>, rays: &mut u64) -> (String, Vec<u8>) {
        let meshes = prop_meshes(lit.files, &lit.placement, &self.lighter, &lit.shading, rays);
        (
            format!("{}{index}.vhv", self.prefix),
            write_vhv(lit.files.mdl.checksum, &meshes),
        )
    }

    /// Prop `index`'s `texelslighting_N.ppl` file, `size` texels per model image.
    fn ppl(&self, index: usize, size: [u16; 2], lit: &LitProp<'_>, rays: &mut u64) -> (String, Vec<u8>) {
        let light = |p: Vec3, n: Vec3| {
            let mut r = 0;
            (self.lighter.light(&lit.shading, p, n, &mut r), r)
        };
        let place = |p: Vec3, n: Vec3| lit.placement.place(p, n);
        let bytes = texel::prop_texels(lit.files, size, place, light, rays);
        (format!("texelslighting_{index}.ppl"), bytes)
    }

    /// How a prop with `flags` is shaded: shadowed by its own triangles or not.
    fn shading<'s>(&'s self, flags: u32, without_self: &'s WithoutProp<'s>) -> PropShading<'s> {
        let world = self.lighter.world;
        PropShading {
            shadows: Shadows {
                scene: if self.no_self_shadowing || flags & NO_SELF_SHADOWING != 0 {
                    without_self
                } else {
                    &world.occluders
                },
                sky_faces: None,
                sky3d: world.sky3d.as_ref(),
                sky_dirs: self.lighter.sky_dirs,
            },
            others: without_self,
            ignore_normals: flags & IGNORE_NORMALS != 0,
        }
    }
}

/// One prop being lit: its model files, where it stands, how it is shaded.
struct LitProp<'a> {
    files: &'a ModelFiles,
    placement: Placement,
    shading: PropShading<'a>,
}

/// Where a prop stands: model space to the world.
struct Placement {
    rot: Mat3,
    origin: Vec3,
    /// The prop's lighting origin (`STATIC_PROP_USE_LIGHTING_ORIGIN`).
    lighting_origin: Option<Vec3>,
}

impl Placement {
    /// Where prop `prop` (with `flags`) stands.
    fn of(prop: &StaticProp, flags: u32) -> Placement {
        Placement {
            rot: angle_matrix(prop.angles),
            origin: Vec3::from(prop.origin),
            lighting_origin: (flags & USE_LIGHTING_ORIGIN != 0).then(|| Vec3::from(prop.lighting_origin)),
        }
    }

    /// A model-space point and normal in the world.
    #[inline]
    fn place(&self, p: Vec3, n: Vec3) -> (Vec3, Vec3) {
        (self.rot * p + self.origin, (self.rot * n).normalize_or_zero())
    }
}

/// The colours of every vertex of each model of `files`, laid out as the VTX's strip groups.
fn prop_meshes(
    files: &ModelFiles,
    placement: &Placement,
    lighter: &VertexLighter<'_>,
    shading: &PropShading<'_>,
    rays: &mut u64,
) -> Vec<VhvMesh> {
    let Some(vtx) = &files.vtx else { return Vec::new() };
    let mut meshes = Vec::new();
    for (part, vtx_part) in files.mdl.body_parts.iter().zip(&vtx.body_parts) {
        for (model, vtx_model) in part.models.iter().zip(vtx_part) {
            let verts = files
                .vvd
                .vertices
                .get(model.first_vertex..model.first_vertex + model.vertex_count as usize)
                .unwrap_or(&[]);
            let colors = vertex_colors(verts, placement, lighter, shading, rays);
            strip_group_meshes(model, vtx_model, &colors, &mut meshes);
        }
    }
    meshes
}

/// The light of each of a model's vertices, placed in the world.
fn vertex_colors(
    verts: &[Vertex],
    placement: &Placement,
    lighter: &VertexLighter<'_>,
    shading: &PropShading<'_>,
    rays: &mut u64,
) -> Vec<Vec3> {
    let tree = &lighter.world.tree;
    let placed: Vec<(Vec3, Vec3)> = verts
        .iter()
        .map(|v| placement.place(Vec3::from(v.position), Vec3::from(v.normal)))
        .collect();
    let solid: Vec<bool> = placed.iter().map(|(p, _)| tree.in_solid(*p)).collect();
    let mut colors = light_outside_solid(&placed, &solid, lighter, shading, rays);
    // Vertices in solid: lit from a point stepped toward the lighting origin or the
    // nearest lit vertex (none when every vertex is in solid and there is no origin).
    if solid.iter().any(|&s| !s) || placement.lighting_origin.is_some() {
        let in_solid = InSolid {
            placed: &placed,
            solid: &solid,
            lighting_origin: placement.lighting_origin,
        };
        in_solid.relight(&mut colors, lighter, shading, rays);
    }
    colors
}

/// The light of each placed vertex not in solid (zero in solid).
fn light_outside_solid(
    placed: &[(Vec3, Vec3)],
    solid: &[bool],
    lighter: &VertexLighter<'_>,
    shading: &PropShading<'_>,
    rays: &mut u64,
) -> Vec<Vec3> {
    placed
        .iter()
        .zip(solid)
        .map(|(&(p, n), &s)| {
            if s {
                Vec3::ZERO
            } else {
                lighter.light(shading, p, n, rays)
            }
        })
        .collect()
}

/// A model's placed vertices and which lie in solid.
struct InSolid<'a> {
    placed: &'a [(Vec3, Vec3)],
    solid: &'a [bool],
    lighting_origin: Option<Vec3>,
}

impl InSolid<'_> {
    /// Lights each vertex in solid from a point stepped out of solid toward the lighting
    /// origin or the nearest vertex not in solid.
    fn relight(
        &self,
        colors: &mut [Vec3],
        lighter: &VertexLighter<'_>,
        shading: &PropShading<'_>,
        rays: &mut u64,
    ) {
        let tree = &lighter.world.tree;
        for (i, &(bad, normal)) in self.placed.iter().enumerate() {
            if !self.solid[i] {
                continue;
            }
            let toward = self
                .lighting_origin
                .unwrap_or_else(|| nearest_lit(self.placed, self.solid, bad));
            let best = step_out_of_solid(tree, toward, bad);
            colors[i] = lighter.light(shading, best, normal, rays);
        }
    }
}

/// The vertex not in solid nearest to `bad` (`bad` itself when there is none).
fn nearest_lit(placed: &[(Vec3, Vec3)], solid: &[bool], bad: Vec3) -> Vec3 {
    placed
        .iter()
        .zip(solid)
        .filter(|(_, s)| !**s)
        .map(|((p, _), _)| *p)
        .min_by(|a, b| a.distance_squared(bad).total_cmp(&b.distance_squared(bad)))
        .unwrap_or(bad)
}

/// From `best` (outside solid), halves the way toward `bad` (in solid) up to 19 times while
/// the midpoint stays outside: the point to light a vertex in solid from.
fn step_out_of_solid(tree: &crate::tree::Tree, mut best: Vec3, bad: Vec3) -> Vec3 {
    for _ in 0..19 {
        let mid = (best + bad) * 0.5;
        if tree.in_solid(mid) {
            break;
        }
        best = mid;
    }
    best
}

/// Appends one mesh per strip group of every LOD of `model`, its vertices' colours in
/// strip-group order.
fn strip_group_meshes(model: &SubModel, vtx_model: &[Lod], colors: &[Vec3], meshes: &mut Vec<VhvMesh>) {
    for (lod, l) in vtx_model.iter().enumerate() {
        for ((_, groups), mesh) in l.meshes.iter().zip(&model.meshes) {
            for g in groups {
                let colors = g
                    .vertices
                    .iter()
                    .map(|&v| {
                        let c = colors
                            .get(mesh.vertex_offset as usize + v as usize)
                            .copied()
                            .unwrap_or_default();
                        vertex_bytes(c)
                    })
                    .collect();
                meshes.push(VhvMesh {
                    lod: lod as u32,
                    colors,
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prop_without_self_shadowing_sees_past_its_own_triangles_only() {
        let mut b = srcmap_trace::SceneBuilder::new();
        let square = |b: &mut srcmap_trace::SceneBuilder, x: f32, payload: u32| {
            b.add_polygon(
                &[[x, -1.0, -1.0], [x, 1.0, -1.0], [x, 1.0, 1.0], [x, -1.0, 1.0]],
                payload,
            )
        };
        square(&mut b, 1.0, STATIC_PROP | 3);
        square(&mut b, 2.0, STATIC_PROP | 4);
        square(&mut b, 3.0, 0);
        let scene = b.build();
        let own = WithoutProp {
            scene: &scene,
            payload: STATIC_PROP | 3,
        };
        let hit = own.closest([0.0; 3], [1.0, 0.0, 0.0], 10.0).unwrap();
        assert_eq!(hit.payload, STATIC_PROP | 4);
        assert!((hit.t - 2.0).abs() < 1e-3, "{}", hit.t);
        // Another prop still shadows; the prop's own triangle alone does not.
        assert!(own.occluded([0.0; 3], [1.0, 0.0, 0.0], 2.5));
        assert!(!own.occluded([0.0; 3], [1.0, 0.0, 0.0], 1.5));
        assert!(!own.occluded_except([0.0; 3], [1.0, 0.0, 0.0], 2.5, STATIC_PROP));
    }

    #[test]
    fn vhv_layout_is_valves() {
        let meshes = [
            VhvMesh {
                lod: 0,
                colors: vec![[1, 2, 3, 255]; 3],
            },
            VhvMesh {
                lod: 1,
                colors: vec![[4, 5, 6, 255]],
            },
        ];
        let f = write_vhv(0xdead_beef, &meshes);
        let word = |at: usize| u32::from_le_bytes(f[at..at + 4].try_into().unwrap());
        assert_eq!(f.len(), 1024, "header block and data block, each padded to 512");
        assert_eq!(
            (word(0), word(4), word(8), word(12), word(16), word(20)),
            (2, 0xdead_beef, 4, 4, 4, 2)
        );
        // Mesh headers: lod, count, offset.
        assert_eq!((word(40), word(44), word(48)), (0, 3, 512));
        assert_eq!((word(68), word(72), word(76)), (1, 1, 524));
        assert_eq!(&f[512..516], &[1, 2, 3, 255]);
        assert_eq!(&f[524..528], &[4, 5, 6, 255]);
    }

    #[test]
    fn vertex_colors_are_gamma_bytes_in_bgra() {
        // Lightmap white (255) is linear 1: the engine's vertex space halves it (overbright).
        let white = vertex_bytes(Vec3::splat(255.0));
        assert!(white[..3].iter().all(|&c| (126..=128).contains(&c)), "{white:?}");
        assert_eq!(vertex_bytes(Vec3::ZERO), [0, 0, 0, 255]);
        let red = vertex_bytes(Vec3::new(100.0, 0.0, 0.0));
        assert!(red[2] > 0 && red[0] == 0 && red[1] == 0, "{red:?}");
        // Light of 4× white and over saturates the table: 4^(1/2.2) / 2 of 255.
        assert_eq!(vertex_bytes(Vec3::splat(5000.0))[..3], [239, 239, 239]);
    }
}
