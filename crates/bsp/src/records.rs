//! Fixed-size lump records (`bspfile.h`), with the variants of the games in the corpus:
//! Source 2004-2013 (v19-v21), Left 4 Dead 2 / CS:GO (v21), Strata Source (v25, widened
//! indices) and console builds (same layouts, big-endian).
//!
//! Where a game widened a field, the Rust field has the wide type and the narrow layout checks
//! the value on write. Padding is kept as a field so a typed round trip is byte-identical.

use crate::codec::{Ctx, Cur, Field, Out, Record, read_sizes, simple_record};
use crate::versions::{
    LEAFS_VERSION, LEAFS_VERSION_WITH_AMBIENT, WORLD_LIGHTS_VERSION, WORLD_LIGHTS_VERSION_WITH_SHADOW_OFFSET,
};

/// A 3-vector of floats (`Vector`).
pub type Vector = [f32; 3];

simple_record! {
    /// `dplane_t` (lump 1): 20 bytes.
    pub struct Plane {
        pub normal: [f32; 3],
        pub dist: f32,
        /// Axis type: 0-2 axial X/Y/Z, 3-5 nearest X/Y/Z.
        pub kind: i32,
    }
}

simple_record! {
    /// `dtexdata_t` (lump 2): 32 bytes.
    pub struct TexData {
        pub reflectivity: [f32; 3],
        /// Index into the texdata string table (lump 44).
        pub name_id: i32,
        pub width: i32,
        pub height: i32,
        pub view_width: i32,
        pub view_height: i32,
    }
}

simple_record! {
    /// `texinfo_t` (lump 6): 72 bytes.
    pub struct TexInfo {
        pub texture_vecs: [[f32; 4]; 2],
        pub lightmap_vecs: [[f32; 4]; 2],
        /// `SURF_*` flags.
        pub flags: i32,
        /// Index into texdata (lump 2).
        pub texdata: i32,
    }
}

simple_record! {
    /// `dmodel_t` (lump 14): 48 bytes.
    pub struct Model {
        pub mins: [f32; 3],
        pub maxs: [f32; 3],
        pub origin: [f32; 3],
        pub head_node: i32,
        pub first_face: i32,
        pub num_faces: i32,
    }
}

simple_record! {
    /// `dbrush_t` (lump 18): 12 bytes.
    pub struct Brush {
        pub first_side: i32,
        pub num_sides: i32,
        /// `CONTENTS_*` flags.
        pub contents: i32,
    }
}

simple_record! {
    /// `darea_t` (lump 20): 8 bytes.
    pub struct Area {
        pub num_area_portals: i32,
        pub first_area_portal: i32,
    }
}

simple_record! {
    /// `dcubemapsample_t` (lump 42): 16 bytes.
    pub struct Cubemap {
        pub origin: [i32; 3],
        /// 0: default size; otherwise 2^(size-1) pixels square.
        pub size: i32,
    }
}

simple_record! {
    /// `CDispVert` (lump 33): 20 bytes.
    pub struct DispVert {
        pub vec: [f32; 3],
        pub dist: f32,
        pub alpha: f32,
    }
}

simple_record! {
    /// `ColorRGBExp32`: a lightmap sample; the colour is `rgb * 2^exponent`.
    pub struct ColorRgbExp32 {
        pub r: u8,
        pub g: u8,
        pub b: u8,
        pub exponent: i8,
    }
}

impl ColorRgbExp32 {
    /// Linear RGB (0-255 scale before gamma) of the sample.
    pub fn to_linear(self) -> [f32; 3] {
        let scale = (self.exponent as f32).exp2();
        [
            self.r as f32 * scale,
            self.g as f32 * scale,
            self.b as f32 * scale,
        ]
    }
}

/// `CompressedLightCube`: six samples, one per axis direction (+X, -X, +Y, -Y, +Z, -Z).
pub type LightCube = [ColorRgbExp32; 6];

simple_record! {
    /// `dleafambientlighting_t` (lumps 55, 56): 28 bytes.
    pub struct LeafAmbientLighting {
        pub cube: [ColorRgbExp32; 6],
        /// Position as fractions (0-255) of the leaf's bounds.
        pub x: u8,
        pub y: u8,
        pub z: u8,
        pub pad: u8,
    }
}

/// Size of the per-leaf `CompressedLightCube` records of legacy leaf ambient lighting lumps.
pub const LEGACY_LEAF_AMBIENT_SIZE: usize = 24;

/// Whether a leaf ambient lighting lump (55 or 56) of `len` bytes at lump version
/// `lump_version` holds the legacy layout: one bare `CompressedLightCube` (24 bytes) per leaf,
/// without the sample position of `dleafambientlighting_t`.
///
/// The engine reads `dleafambientlighting_t` (28 bytes, addressed through the ambient index
/// lumps) only at [`LEAF_AMBIENT_VERSION`](crate::versions::LEAF_AMBIENT_VERSION); any other
/// version is the older per-leaf cube array. Files written by older tools carry such lumps
/// with a stray version (often the lump's length). So: version 1 is always the 28-byte layout;
/// another version is the 24-byte layout when the length is a whole number of cubes, else the
/// 28-byte layout when it is a whole number of those (else the 28-byte reader reports it).
pub fn leaf_ambient_is_legacy(lump_version: u32, len: usize) -> bool {
    lump_version != crate::versions::LEAF_AMBIENT_VERSION
        && len > 0
        && len.is_multiple_of(LEGACY_LEAF_AMBIENT_SIZE)
}

simple_record! {
    /// `doverlayfade_t` (lump 60): 8 bytes.
    pub struct OverlayFade {
        pub min_dist_sq: f32,
        pub max_dist_sq: f32,
    }
}

simple_record! {
    /// `doverlaysystemlevel_t` (lump 61, Left 4 Dead branch): 4 bytes.
    pub struct OverlaySystemLevel {
        pub min_cpu_level: u8,
        pub max_cpu_level: u8,
        pub min_gpu_level: u8,
        pub max_gpu_level: u8,
    }
}

simple_record! {
    /// `doccluderpolydata_t` (inside lump 9): 12 bytes.
    pub struct OccluderPolyData {
        pub first_vertex_index: i32,
        pub vertex_count: i32,
        pub plane: i32,
    }
}

/// `dnode_t` (lump 5): 32 bytes; Strata v1: 48 bytes (float bounds, 32-bit face range).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Node {
    pub plane: i32,
    /// Non-negative: a node; negative: `-1 - leaf`.
    pub children: [i32; 2],
    pub mins: [f32; 3],
    pub maxs: [f32; 3],
    pub first_face: u32,
    pub num_faces: u32,
    /// The area if every leaf below is in one, else -1.
    pub area: i16,
    pub pad: i16,
}

impl Record for Node {
    read_sizes!(32, 48);
    fn size(ctx: &Ctx) -> Option<usize> {
        Some(if ctx.strata(1) { 48 } else { 32 })
    }
    #[inline(always)]
    fn read(c: &mut Cur<'_>, ctx: &Ctx) -> Self {
        let plane = c.i32();
        let children = [c.i32(), c.i32()];
        if ctx.strata(1) {
            Node {
                plane,
                children,
                mins: c.vec3(),
                maxs: c.vec3(),
                first_face: c.u32(),
                num_faces: c.u32(),
                area: c.i16(),
                pad: c.i16(),
            }
        } else {
            let mins = [c.i16() as f32, c.i16() as f32, c.i16() as f32];
            let maxs = [c.i16() as f32, c.i16() as f32, c.i16() as f32];
            Node {
                plane,
                children,
                mins,
                maxs,
                first_face: c.u16() as u32,
                num_faces: c.u16() as u32,
                area: c.i16(),
                pad: c.i16(),
            }
        }
    }
    fn write(&self, w: &mut Out, ctx: &Ctx) {
        w.w.i32(self.plane);
        self.children.put(w);
        if ctx.strata(1) {
            self.mins.put(w);
            self.maxs.put(w);
            w.w.u32(self.first_face);
            w.w.u32(self.num_faces);
        } else {
            for v in self.mins.iter().chain(&self.maxs) {
                w.i16_from_f32(*v, "node bounds");
            }
            w.u16_from(self.first_face, "node first_face");
            w.u16_from(self.num_faces, "node num_faces");
        }
        w.w.i16(self.area);
        w.w.i16(self.pad);
    }
}

/// `dface_t` (lumps 7, 27, 58): 56 bytes; Strata v2: 72 bytes.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Face {
    pub plane: u32,
    /// Non-zero: the face points opposite its plane.
    pub side: u8,
    pub on_node: u8,
    /// Strata only: padding after `on_node`.
    pub pad: u16,
    /// Index into surfedges.
    pub first_edge: i32,
    pub num_edges: i32,
    pub texinfo: i32,
    pub dispinfo: i32,
    pub surface_fog_volume_id: i32,
    /// Light styles, 255 = none.
    pub styles: [u8; 4],
    /// Byte offset into the lighting lump, -1 for none.
    pub light_offset: i32,
    pub area: f32,
    pub lightmap_mins: [i32; 2],
    /// Lightmap size in luxels minus one.
    pub lightmap_size: [i32; 2],
    pub orig_face: i32,
    /// Primitive count; bit 15 (bit 31 in Strata) disables dynamic shadows.
    pub num_prims: u32,
    pub first_prim: u32,
    pub smoothing_groups: u32,
}

impl Face {
    /// Number of light styles in use (styles before the first 255).
    pub fn style_count(&self) -> usize {
        self.styles.iter().take_while(|&&s| s != 255).count()
    }
    /// Luxels per style: `(size.x + 1) * (size.y + 1)`.
    pub fn luxel_count(&self) -> usize {
        ((self.lightmap_size[0].max(-1) + 1) as usize) * ((self.lightmap_size[1].max(-1) + 1) as usize)
    }
}

/// Strata writes every face lump wide: faces and HDR faces as v2, original faces as v0.
fn wide_faces(ctx: &Ctx) -> bool {
    ctx.bsp_version == 25 && ctx.lump_version != 1
}

impl Record for Face {
    read_sizes!(56, 72);
    fn size(ctx: &Ctx) -> Option<usize> {
        if wide_faces(ctx) {
            Some(72)
        } else if ctx.bsp_version >= 18 {
            Some(56)
        } else {
            None // Vampire: Bloodlines (v17) changed dface_t; kept as bytes.
        }
    }
    #[inline(always)]
    fn read(c: &mut Cur<'_>, ctx: &Ctx) -> Self {
        if wide_faces(ctx) {
            Face::read_wide(c)
        } else {
            Face::read_narrow(c)
        }
    }
    fn write(&self, w: &mut Out, ctx: &Ctx) {
        let strata = wide_faces(ctx);
        if strata {
            w.w.u32(self.plane);
        } else {
            w.u16_from(self.plane, "face plane");
        }
        w.w.u8(self.side);
        w.w.u8(self.on_node);
        self.write_edges_to_fog(w, strata);
        w.w.bytes(&self.styles);
        w.w.i32(self.light_offset);
        w.w.f32(self.area);
        self.lightmap_mins.put(w);
        self.lightmap_size.put(w);
        w.w.i32(self.orig_face);
        if strata {
            w.w.u32(self.num_prims);
            w.w.u32(self.first_prim);
        } else {
            w.u16_from(self.num_prims, "face num_prims");
            w.u16_from(self.first_prim, "face first_prim");
        }
        w.w.u32(self.smoothing_groups);
    }
}

impl Face {
    /// Strata's 72-byte layout: every index 32-bit.
    #[inline(always)]
    fn read_wide(c: &mut Cur<'_>) -> Face {
        Face {
            plane: c.u32(),
            side: c.u8(),
            on_node: c.u8(),
            pad: c.u16(),
            first_edge: c.i32(),
            num_edges: c.i32(),
            texinfo: c.i32(),
            dispinfo: c.i32(),
            surface_fog_volume_id: c.i32(),
            styles: c.bytes(),
            light_offset: c.i32(),
            area: c.f32(),
            lightmap_mins: [c.i32(), c.i32()],
            lightmap_size: [c.i32(), c.i32()],
            orig_face: c.i32(),
            num_prims: c.u32(),
            first_prim: c.u32(),
            smoothing_groups: c.u32(),
        }
    }

    /// Valve's 56-byte `dface_t`.
    #[inline(always)]
    fn read_narrow(c: &mut Cur<'_>) -> Face {
        Face {
            plane: c.u16() as u32,
            side: c.u8(),
            on_node: c.u8(),
            pad: 0,
            first_edge: c.i32(),
            num_edges: c.i16() as i32,
            texinfo: c.i16() as i32,
            dispinfo: c.i16() as i32,
            surface_fog_volume_id: c.i16() as i32,
            styles: c.bytes(),
            light_offset: c.i32(),
            area: c.f32(),
            lightmap_mins: [c.i32(), c.i32()],
            lightmap_size: [c.i32(), c.i32()],
            orig_face: c.i32(),
            num_prims: c.u16() as u32,
            first_prim: c.u16() as u32,
            smoothing_groups: c.u32(),
        }
    }

    /// The fields from the first edge to the fog volume (Strata's pad before them).
    fn write_edges_to_fog(&self, w: &mut Out, strata: bool) {
        if strata {
            w.w.u16(self.pad);
            w.w.i32(self.first_edge);
            w.w.i32(self.num_edges);
            w.w.i32(self.texinfo);
            w.w.i32(self.dispinfo);
            w.w.i32(self.surface_fog_volume_id);
        } else {
            w.w.i32(self.first_edge);
            w.i16_from(self.num_edges, "face num_edges");
            w.i16_from(self.texinfo, "face texinfo");
            w.i16_from(self.dispinfo, "face dispinfo");
            w.i16_from(self.surface_fog_volume_id, "face fog volume");
        }
    }
}

/// `dleaf_t` (lump 10): version 0 has the ambient cube (56 bytes), version 1 not (32 bytes);
/// Strata v2: 56 bytes with 32-bit fields and float bounds.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Leaf {
    pub contents: i32,
    /// Visibility cluster, -1 for none.
    pub cluster: i32,
    /// Packed area and flags (see [`Leaf::area`], [`Leaf::flags`]).
    pub area_flags: u32,
    pub mins: [f32; 3],
    pub maxs: [f32; 3],
    pub first_leaf_face: u32,
    pub num_leaf_faces: u32,
    pub first_leaf_brush: u32,
    pub num_leaf_brushes: u32,
    /// Index into leaf water data, -1 for none.
    pub leaf_water_data: i32,
    /// Version 0 only: the per-leaf ambient light cube.
    pub ambient: Option<LightCube>,
    pub pad: i16,
}

impl Leaf {
    /// The area index (low 9 bits; 17 bits in Strata's wide layout).
    pub fn area(&self, bsp_version: i32) -> u32 {
        if bsp_version == 25 && self.area_flags > 0xffff {
            self.area_flags & 0x1ffff
        } else {
            self.area_flags & 0x1ff
        }
    }
    /// Leaf flags (`LEAF_FLAGS_SKY`, ...).
    pub fn flags(&self) -> u32 {
        (self.area_flags & 0xffff) >> 9
    }
    /// Packs an area and flags the standard way.
    pub fn pack_area_flags(area: u32, flags: u32) -> u32 {
        (area & 0x1ff) | (flags << 9)
    }
}

impl Leaf {
    /// Strata's v2 layout: 32-bit fields, float bounds, no ambient cube.
    #[inline(always)]
    fn read_strata(c: &mut Cur<'_>) -> Leaf {
        Leaf {
            contents: c.i32(),
            cluster: c.i32(),
            area_flags: c.u32(),
            mins: c.vec3(),
            maxs: c.vec3(),
            first_leaf_face: c.u32(),
            num_leaf_faces: c.u32(),
            first_leaf_brush: c.u32(),
            num_leaf_brushes: c.u32(),
            leaf_water_data: c.i32(),
            ambient: None,
            pad: 0,
        }
    }

    fn write_strata(&self, w: &mut Out) {
        w.w.i32(self.contents);
        w.w.i32(self.cluster);
        w.w.u32(self.area_flags);
        self.mins.put(w);
        self.maxs.put(w);
        for v in [
            self.first_leaf_face,
            self.num_leaf_faces,
            self.first_leaf_brush,
            self.num_leaf_brushes,
        ] {
            w.w.u32(v);
        }
        w.w.i32(self.leaf_water_data);
    }
}

impl Record for Leaf {
    read_sizes!(32, 56);
    fn size(ctx: &Ctx) -> Option<usize> {
        Some(match ctx.lump_version {
            LEAFS_VERSION_WITH_AMBIENT => 56,
            LEAFS_VERSION => 32,
            2 if ctx.bsp_version == 25 => 56,
            _ => return None,
        })
    }
    #[inline(always)]
    fn read(c: &mut Cur<'_>, ctx: &Ctx) -> Self {
        if ctx.strata(2) {
            return Leaf::read_strata(c);
        }
        let contents = c.i32();
        let cluster = c.i16() as i32;
        let area_flags = c.u16() as u32;
        let mins = [c.i16() as f32, c.i16() as f32, c.i16() as f32];
        let maxs = [c.i16() as f32, c.i16() as f32, c.i16() as f32];
        let (first_leaf_face, num_leaf_faces) = (c.u16() as u32, c.u16() as u32);
        let (first_leaf_brush, num_leaf_brushes) = (c.u16() as u32, c.u16() as u32);
        let leaf_water_data = c.i16() as i32;
        let ambient = (ctx.lump_version == LEAFS_VERSION_WITH_AMBIENT).then(|| <LightCube as Field>::get(c));
        let pad = c.i16();
        Leaf {
            contents,
            cluster,
            area_flags,
            mins,
            maxs,
            first_leaf_face,
            num_leaf_faces,
            first_leaf_brush,
            num_leaf_brushes,
            leaf_water_data,
            ambient,
            pad,
        }
    }
    fn write(&self, w: &mut Out, ctx: &Ctx) {
        if ctx.strata(2) {
            return self.write_strata(w);
        }
        w.w.i32(self.contents);
        w.i16_from(self.cluster, "leaf cluster");
        w.u16_from(self.area_flags, "leaf area/flags");
        for v in self.mins.iter().chain(&self.maxs) {
            w.i16_from_f32(*v, "leaf bounds");
        }
        w.u16_from(self.first_leaf_face, "leaf first_leaf_face");
        w.u16_from(self.num_leaf_faces, "leaf num_leaf_faces");
        w.u16_from(self.first_leaf_brush, "leaf first_leaf_brush");
        w.u16_from(self.num_leaf_brushes, "leaf num_leaf_brushes");
        w.i16_from(self.leaf_water_data, "leaf water data");
        if ctx.lump_version == LEAFS_VERSION_WITH_AMBIENT {
            self.ambient.unwrap_or_default().put(w);
        }
        w.w.i16(self.pad);
    }
}

/// `dbrushside_t` (lump 19): 8 bytes; Strata v1: 16 bytes.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct BrushSide {
    pub plane: u32,
    pub texinfo: i32,
    pub dispinfo: i32,
    /// `bevel` as a short (Source 2013); the low byte is `bevel` and the high byte `thin` in
    /// Left 4 Dead 2 / CS:GO / Strata (little-endian files).
    pub bevel: u16,
    /// Strata only.
    pub pad: u16,
}

impl BrushSide {
    pub fn is_bevel(&self) -> bool {
        self.bevel & 0xff != 0
    }
}

impl Record for BrushSide {
    read_sizes!(8, 16);
    fn size(ctx: &Ctx) -> Option<usize> {
        Some(if ctx.strata(1) { 16 } else { 8 })
    }
    #[inline(always)]
    fn read(c: &mut Cur<'_>, ctx: &Ctx) -> Self {
        if ctx.strata(1) {
            BrushSide {
                plane: c.u32(),
                texinfo: c.i32(),
                dispinfo: c.i32(),
                bevel: c.u16(),
                pad: c.u16(),
            }
        } else {
            BrushSide {
                plane: c.u16() as u32,
                texinfo: c.i16() as i32,
                dispinfo: c.i16() as i32,
                bevel: c.u16(),
                pad: 0,
            }
        }
    }
    fn write(&self, w: &mut Out, ctx: &Ctx) {
        if ctx.strata(1) {
            w.w.u32(self.plane);
            w.w.i32(self.texinfo);
            w.w.i32(self.dispinfo);
            w.w.u16(self.bevel);
            w.w.u16(self.pad);
        } else {
            w.u16_from(self.plane, "brush side plane");
            w.i16_from(self.texinfo, "brush side texinfo");
            w.i16_from(self.dispinfo, "brush side dispinfo");
            w.w.u16(self.bevel);
        }
    }
}

/// `dareaportal_t` (lump 21): 12 bytes; Strata v1: 20 bytes.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct AreaPortal {
    /// Entities reference the portal by this key.
    pub portal_key: u32,
    pub other_area: u32,
    pub first_clip_portal_vert: u32,
    pub num_clip_portal_verts: u32,
    pub plane: i32,
}

impl Record for AreaPortal {
    read_sizes!(12, 20);
    fn size(ctx: &Ctx) -> Option<usize> {
        Some(if ctx.strata(1) { 20 } else { 12 })
    }
    #[inline(always)]
    fn read(c: &mut Cur<'_>, ctx: &Ctx) -> Self {
        let wide = ctx.strata(1);
        AreaPortal {
            portal_key: c.index(wide),
            other_area: c.index(wide),
            first_clip_portal_vert: c.index(wide),
            num_clip_portal_verts: c.index(wide),
            plane: c.i32(),
        }
    }
    fn write(&self, w: &mut Out, ctx: &Ctx) {
        let vals = [
            self.portal_key,
            self.other_area,
            self.first_clip_portal_vert,
            self.num_clip_portal_verts,
        ];
        for v in vals {
            w.index(v, ctx.strata(1), "area portal field");
        }
        w.w.i32(self.plane);
    }
}

/// `dleafwaterdata_t` (lump 36): 12 bytes in both layouts.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct LeafWaterData {
    pub surface_z: f32,
    pub min_z: f32,
    pub surface_texinfo: i32,
    /// Padding (standard layout only).
    pub pad: i16,
}

impl Record for LeafWaterData {
    read_sizes!(12);
    fn size(_: &Ctx) -> Option<usize> {
        Some(12)
    }
    #[inline(always)]
    fn read(c: &mut Cur<'_>, ctx: &Ctx) -> Self {
        let (surface_z, min_z) = (c.f32(), c.f32());
        if ctx.strata(1) {
            LeafWaterData {
                surface_z,
                min_z,
                surface_texinfo: c.i32(),
                pad: 0,
            }
        } else {
            LeafWaterData {
                surface_z,
                min_z,
                surface_texinfo: c.i16() as i32,
                pad: c.i16(),
            }
        }
    }
    fn write(&self, w: &mut Out, ctx: &Ctx) {
        w.w.f32(self.surface_z);
        w.w.f32(self.min_z);
        if ctx.strata(1) {
            w.w.i32(self.surface_texinfo);
        } else {
            w.i16_from(self.surface_texinfo, "water texinfo");
            w.w.i16(self.pad);
        }
    }
}

/// `dprimitive_t` (lump 37): 10 bytes; Strata v1: 20 bytes.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Primitive {
    /// Primitive type (0 triangle list, 1 strip) in the low byte; the rest is padding.
    pub kind: u32,
    pub first_index: u32,
    pub num_indices: u32,
    pub first_vert: u32,
    pub num_verts: u32,
}

impl Record for Primitive {
    read_sizes!(10, 20);
    fn size(ctx: &Ctx) -> Option<usize> {
        Some(if ctx.strata(1) { 20 } else { 10 })
    }
    #[inline(always)]
    fn read(c: &mut Cur<'_>, ctx: &Ctx) -> Self {
        let wide = ctx.strata(1);
        Primitive {
            kind: c.index(wide),
            first_index: c.index(wide),
            num_indices: c.index(wide),
            first_vert: c.index(wide),
            num_verts: c.index(wide),
        }
    }
    fn write(&self, w: &mut Out, ctx: &Ctx) {
        for v in [
            self.kind,
            self.first_index,
            self.num_indices,
            self.first_vert,
            self.num_verts,
        ] {
            w.index(v, ctx.strata(1), "primitive field");
        }
    }
}

/// `dleafambientindex_t` (lumps 51, 52): 4 bytes; Strata v1: 8 bytes.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct LeafAmbientIndex {
    pub sample_count: u32,
    pub first_sample: u32,
}

impl Record for LeafAmbientIndex {
    read_sizes!(4, 8);
    fn size(ctx: &Ctx) -> Option<usize> {
        Some(if ctx.strata(1) { 8 } else { 4 })
    }
    #[inline(always)]
    fn read(c: &mut Cur<'_>, ctx: &Ctx) -> Self {
        let wide = ctx.strata(1);
        LeafAmbientIndex {
            sample_count: c.index(wide),
            first_sample: c.index(wide),
        }
    }
    fn write(&self, w: &mut Out, ctx: &Ctx) {
        let wide = ctx.strata(1);
        w.index(self.sample_count, wide, "ambient sample count");
        w.index(self.first_sample, wide, "ambient first sample");
    }
}

/// `dworldlight_t` (lumps 15, 54): 88 bytes; version 1 (Left 4 Dead and later) adds
/// `shadow_cast_offset` (100 bytes).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct WorldLight {
    pub origin: Vector,
    pub intensity: Vector,
    pub normal: Vector,
    /// Version 1 only.
    pub shadow_cast_offset: Vector,
    pub cluster: i32,
    /// `emit_*` type: surface, point, spotlight, skylight, quakelight, skyambient.
    pub kind: i32,
    pub style: i32,
    pub stopdot: f32,
    pub stopdot2: f32,
    pub exponent: f32,
    pub radius: f32,
    pub constant_attn: f32,
    pub linear_attn: f32,
    pub quadratic_attn: f32,
    pub flags: i32,
    pub texinfo: i32,
    pub owner: i32,
}

impl Record for WorldLight {
    read_sizes!(88, 100);
    fn size(ctx: &Ctx) -> Option<usize> {
        match ctx.lump_version {
            WORLD_LIGHTS_VERSION => Some(88),
            WORLD_LIGHTS_VERSION_WITH_SHADOW_OFFSET => Some(100),
            _ => None,
        }
    }
    #[inline(always)]
    fn read(c: &mut Cur<'_>, ctx: &Ctx) -> Self {
        WorldLight {
            origin: c.vec3(),
            intensity: c.vec3(),
            normal: c.vec3(),
            shadow_cast_offset: if ctx.lump_version == WORLD_LIGHTS_VERSION_WITH_SHADOW_OFFSET {
                c.vec3()
            } else {
                [0.0; 3]
            },
            cluster: c.i32(),
            kind: c.i32(),
            style: c.i32(),
            stopdot: c.f32(),
            stopdot2: c.f32(),
            exponent: c.f32(),
            radius: c.f32(),
            constant_attn: c.f32(),
            linear_attn: c.f32(),
            quadratic_attn: c.f32(),
            flags: c.i32(),
            texinfo: c.i32(),
            owner: c.i32(),
        }
    }
    fn write(&self, w: &mut Out, ctx: &Ctx) {
        self.origin.put(w);
        self.intensity.put(w);
        self.normal.put(w);
        if ctx.lump_version == WORLD_LIGHTS_VERSION_WITH_SHADOW_OFFSET {
            self.shadow_cast_offset.put(w);
        }
        for v in [self.cluster, self.kind, self.style] {
            w.w.i32(v);
        }
        for v in [
            self.stopdot,
            self.stopdot2,
            self.exponent,
            self.radius,
            self.constant_attn,
            self.linear_attn,
            self.quadratic_attn,
        ] {
            w.w.f32(v);
        }
        for v in [self.flags, self.texinfo, self.owner] {
            w.w.i32(v);
        }
    }
}

/// `CDispSubNeighbor`: one half of a displacement edge's neighbour.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct DispSubNeighbor {
    /// Neighbouring displacement, 0xFFFF (0xFFFFFFFF in Strata) for none.
    pub neighbor: u32,
    pub orientation: u8,
    pub span: u8,
    pub neighbor_span: u8,
    pub pad: u8,
}

/// `CDispCornerNeighbors`.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct DispCornerNeighbors {
    pub neighbors: [u32; 4],
    pub count: u8,
    pub pad: [u8; 3],
}

/// `ddispinfo_t` (lump 26): 176 bytes; Strata v1: 232 bytes.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct DispInfo {
    pub start_position: Vector,
    pub disp_vert_start: i32,
    pub disp_tri_start: i32,
    /// 2, 3 or 4: (2^power + 1)^2 vertices.
    pub power: i32,
    pub min_tess: i32,
    pub smoothing_angle: f32,
    pub contents: i32,
    pub map_face: u32,
    /// Padding after `map_face` (standard layout).
    pub pad: u16,
    pub lightmap_alpha_start: i32,
    pub lightmap_sample_position_start: i32,
    /// Two sub-neighbours for each of the four edges.
    pub edge_neighbors: [[DispSubNeighbor; 2]; 4],
    pub corner_neighbors: [DispCornerNeighbors; 4],
    pub allowed_verts: [u32; 10],
}

impl DispInfo {
    pub fn vert_count(&self) -> usize {
        let side = (1usize << self.power.clamp(0, 8)) + 1;
        side * side
    }
    pub fn tri_count(&self) -> usize {
        2 * (1usize << (2 * self.power.clamp(0, 8)))
    }
}

impl Record for DispInfo {
    read_sizes!(176, 232);
    fn size(ctx: &Ctx) -> Option<usize> {
        Some(if ctx.strata(1) { 232 } else { 176 })
    }
    #[inline(always)]
    fn read(c: &mut Cur<'_>, ctx: &Ctx) -> Self {
        let wide = ctx.strata(1);
        let mut d = DispInfo {
            start_position: c.vec3(),
            disp_vert_start: c.i32(),
            disp_tri_start: c.i32(),
            power: c.i32(),
            min_tess: c.i32(),
            smoothing_angle: c.f32(),
            contents: c.i32(),
            ..Default::default()
        };
        if wide {
            d.map_face = c.u32();
        } else {
            d.map_face = c.u16() as u32;
            d.pad = c.u16();
        }
        d.lightmap_alpha_start = c.i32();
        d.lightmap_sample_position_start = c.i32();
        d.read_neighbors(c, wide);
        d.allowed_verts = Field::get(c);
        d
    }
    fn write(&self, w: &mut Out, ctx: &Ctx) {
        let wide = ctx.strata(1);
        self.start_position.put(w);
        for v in [
            self.disp_vert_start,
            self.disp_tri_start,
            self.power,
            self.min_tess,
        ] {
            w.w.i32(v);
        }
        w.w.f32(self.smoothing_angle);
        w.w.i32(self.contents);
        if wide {
            w.w.u32(self.map_face);
        } else {
            w.u16_from(self.map_face, "dispinfo map_face");
            w.w.u16(self.pad);
        }
        w.w.i32(self.lightmap_alpha_start);
        w.w.i32(self.lightmap_sample_position_start);
        self.write_neighbors(w, wide);
        self.allowed_verts.put(w);
    }
}

impl DispInfo {
    /// The edge and corner neighbours (`wide`: Strata's 32-bit indices and padded corners).
    #[inline(always)]
    fn read_neighbors(&mut self, c: &mut Cur<'_>, wide: bool) {
        for edge in self.edge_neighbors.iter_mut() {
            for sub in edge.iter_mut() {
                sub.neighbor = if wide { c.u32() } else { c.u16() as u32 };
                sub.orientation = c.u8();
                sub.span = c.u8();
                sub.neighbor_span = c.u8();
                sub.pad = c.u8();
            }
        }
        for corner in self.corner_neighbors.iter_mut() {
            for n in corner.neighbors.iter_mut() {
                *n = if wide { c.u32() } else { c.u16() as u32 };
            }
            corner.count = c.u8();
            corner.pad[0] = c.u8();
            if wide {
                corner.pad[1] = c.u8();
                corner.pad[2] = c.u8();
            }
        }
    }

    fn write_neighbors(&self, w: &mut Out, wide: bool) {
        for edge in &self.edge_neighbors {
            for sub in edge {
                if wide {
                    w.w.u32(sub.neighbor)
                } else {
                    w.u16_from(sub.neighbor, "disp neighbor")
                }
                w.w.u8(sub.orientation);
                w.w.u8(sub.span);
                w.w.u8(sub.neighbor_span);
                w.w.u8(sub.pad);
            }
        }
        for corner in &self.corner_neighbors {
            for &n in &corner.neighbors {
                if wide {
                    w.w.u32(n)
                } else {
                    w.u16_from(n, "disp corner neighbor")
                }
            }
            w.w.u8(corner.count);
            w.w.u8(corner.pad[0]);
            if wide {
                w.w.u8(corner.pad[1]);
                w.w.u8(corner.pad[2]);
            }
        }
    }
}

/// `doverlay_t` (lump 45, 64 faces) and `dwateroverlay_t` (lump 50, 256 faces): 352 / 1120
/// bytes; Strata v1: 356 / 1124 (32-bit texinfo and face count).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Overlay {
    pub id: i32,
    pub texinfo: i32,
    /// Face count in the low 14 bits, render order in the top 2.
    pub face_count_and_render_order: u32,
    /// Always 64 (overlays) or 256 (water overlays) entries, as on disk.
    pub faces: Vec<i32>,
    pub u: [f32; 2],
    pub v: [f32; 2],
    pub uv_points: [Vector; 4],
    pub origin: Vector,
    pub basis_normal: Vector,
}

impl Overlay {
    pub fn face_count(&self) -> usize {
        (self.face_count_and_render_order & 0x3fff) as usize
    }
    pub fn render_order(&self) -> u32 {
        (self.face_count_and_render_order >> 14) & 3
    }
}

fn overlay_size(ctx: &Ctx, faces: usize) -> usize {
    (if ctx.strata(1) { 12 } else { 8 }) + faces * 4 + 88
}

fn read_overlay(c: &mut Cur<'_>, ctx: &Ctx, faces: usize) -> Overlay {
    let id = c.i32();
    let (texinfo, fc) = if ctx.strata(1) {
        (c.i32(), c.u32())
    } else {
        (c.i16() as i32, c.u16() as u32)
    };
    Overlay {
        id,
        texinfo,
        face_count_and_render_order: fc,
        faces: c.i32s(faces),
        u: [c.f32(), c.f32()],
        v: [c.f32(), c.f32()],
        uv_points: [c.vec3(), c.vec3(), c.vec3(), c.vec3()],
        origin: c.vec3(),
        basis_normal: c.vec3(),
    }
}

fn write_overlay(o: &Overlay, w: &mut Out, ctx: &Ctx, faces: usize) {
    w.w.i32(o.id);
    if ctx.strata(1) {
        w.w.i32(o.texinfo);
        w.w.u32(o.face_count_and_render_order);
    } else {
        w.i16_from(o.texinfo, "overlay texinfo");
        w.u16_from(o.face_count_and_render_order, "overlay face count");
    }
    for i in 0..faces {
        w.w.i32(o.faces.get(i).copied().unwrap_or(0));
    }
    if o.faces.len() > faces {
        w.fail(format!(
            "overlay {} lists {} faces, the record holds {faces}",
            o.id,
            o.faces.len()
        ));
    }
    o.u.put(w);
    o.v.put(w);
    o.uv_points.put(w);
    o.origin.put(w);
    o.basis_normal.put(w);
}

/// An overlay record in lump 45.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct OverlayRecord(pub Overlay);
/// A water overlay record in lump 50.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct WaterOverlayRecord(pub Overlay);

impl Record for OverlayRecord {
    read_sizes!(352, 356);
    fn size(ctx: &Ctx) -> Option<usize> {
        (ctx.bsp_version != 25 || ctx.lump_version <= 1).then(|| overlay_size(ctx, 64))
    }
    #[inline(always)]
    fn read(c: &mut Cur<'_>, ctx: &Ctx) -> Self {
        OverlayRecord(read_overlay(c, ctx, 64))
    }
    fn write(&self, w: &mut Out, ctx: &Ctx) {
        write_overlay(&self.0, w, ctx, 64)
    }
}

impl Record for WaterOverlayRecord {
    read_sizes!(1120, 1124);
    fn size(ctx: &Ctx) -> Option<usize> {
        Some(overlay_size(ctx, 256))
    }
    #[inline(always)]
    fn read(c: &mut Cur<'_>, ctx: &Ctx) -> Self {
        WaterOverlayRecord(read_overlay(c, ctx, 256))
    }
    fn write(&self, w: &mut Out, ctx: &Ctx) {
        write_overlay(&self.0, w, ctx, 256)
    }
}

/// `dedge_t` (lump 12): two vertex indices, u16 (u32 in Strata v1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Edge(pub [u32; 2]);

impl Record for Edge {
    read_sizes!(4, 8);
    fn size(ctx: &Ctx) -> Option<usize> {
        Some(if ctx.strata(1) { 8 } else { 4 })
    }
    #[inline(always)]
    fn read(c: &mut Cur<'_>, ctx: &Ctx) -> Self {
        let wide = ctx.strata(1);
        Edge([c.index(wide), c.index(wide)])
    }
    fn write(&self, w: &mut Out, ctx: &Ctx) {
        for v in self.0 {
            w.index(v, ctx.strata(1), "edge vertex");
        }
    }
}
