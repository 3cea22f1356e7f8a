//! [`BspView`]: every lump typed, borrowing from the file's bytes wherever the stored bytes
//! already are the typed values. It is the one lump parser: [`Bsp::parse`](crate::Bsp::parse) is a view made
//! owned ([`BspView::into_owned`]).
//!
//! What is borrowed (zero-copy) and what is decoded:
//!
//! * Records whose memory layout is their little-endian on-disk layout (planes, texdata,
//!   texinfo, models, brushes, areas, cubemaps, displacement vertices, vertex lists, lightmap
//!   samples, ambient lighting, overlay fades and levels, `i32`/`u16` lists) are viewed in place
//!   when the file is little-endian and the lump is aligned for the record; otherwise (console
//!   `PSBV` files, a misaligned lump, an LZMA lump) they are decoded into a `Vec`. Either way
//!   the field is a `Cow<[T]>` of typed records.
//! * Records whose fields are widened in memory (faces, nodes, leafs, edges, brush sides, index
//!   lists, displacement infos, world lights, overlays, ...) are always decoded.
//! * Byte lumps (pakfile, texdata string data, displacement sample positions, lumps without a
//!   typed layout) and the physics collision blobs are borrowed slices.
//! * Entities are tokenised once into key/value slices of the lump text ([`Entities`]).
//! * Visibility is decoded into PVS and PAS rows, occlusion and the game lumps are decoded:
//!   nothing is left unparsed.

use std::borrow::Cow;
use std::collections::BTreeMap;

use srcmap_bytes::Endian;

use bumpalo::Bump;

use crate::codec::{
    Ctx, Record, Scalar, ToArena, file_bytes, read_indices, read_indices_into, read_records,
    read_records_cow, read_scalars,
};
use crate::entities::{Entities, Entity};
use crate::error::{BspError, Result};
use crate::file::{BspFile, LumpOrder};
use crate::gamelump::GameLumps;
use crate::lump::*;
use crate::occlusion::Occlusion;
use crate::physics::{PhysCollide, PhysCollideView, PhysDisp, PhysDispView};
use crate::records::*;
use crate::vis::{VisRows, Visibility};

/// A Source BSP with every lump typed, borrowing from the file bytes where it can (see the
/// module documentation). Field names and meanings are those of [`Bsp`](crate::Bsp).
#[derive(Debug, Clone, PartialEq)]
pub struct BspView<'a> {
    pub version: i32,
    pub revision: i32,
    pub endian: Endian,
    pub order: LumpOrder,
    pub lump_versions: [u32; HEADER_LUMPS],
    /// The entities, tokenised; [`Entities::latin1`] says how the text is written back.
    pub entities: Entities<'a>,
    pub planes: Cow<'a, [Plane]>,
    pub texdata: Cow<'a, [TexData]>,
    pub vertexes: Cow<'a, [Vector]>,
    /// PVS and PAS rows, decoded ([`VisRows::into_visibility`] gives [`Bsp::visibility`](crate::Bsp::visibility)).
    pub visibility: Option<VisRows>,
    pub nodes: Cow<'a, [Node]>,
    pub texinfo: Cow<'a, [TexInfo]>,
    pub faces: Cow<'a, [Face]>,
    pub lighting: Cow<'a, [ColorRgbExp32]>,
    pub occlusion: Option<Occlusion>,
    pub leafs: Cow<'a, [Leaf]>,
    pub face_ids: Cow<'a, [u32]>,
    pub edges: Cow<'a, [Edge]>,
    pub surfedges: Cow<'a, [i32]>,
    pub models: Cow<'a, [Model]>,
    pub world_lights: Cow<'a, [WorldLight]>,
    pub leaf_faces: Cow<'a, [u32]>,
    pub leaf_brushes: Cow<'a, [u32]>,
    pub brushes: Cow<'a, [Brush]>,
    pub brush_sides: Cow<'a, [BrushSide]>,
    pub areas: Cow<'a, [Area]>,
    pub area_portals: Cow<'a, [AreaPortal]>,
    pub disp_info: Cow<'a, [DispInfo]>,
    pub original_faces: Cow<'a, [Face]>,
    pub phys_collide: Option<PhysCollideView<'a>>,
    pub phys_disp: Option<PhysDispView<'a>>,
    pub vert_normals: Cow<'a, [Vector]>,
    pub vert_normal_indices: Cow<'a, [u32]>,
    pub disp_verts: Cow<'a, [DispVert]>,
    pub disp_lightmap_sample_positions: Cow<'a, [u8]>,
    pub game_lumps: GameLumps,
    pub leaf_water_data: Cow<'a, [LeafWaterData]>,
    pub primitives: Cow<'a, [Primitive]>,
    pub prim_verts: Cow<'a, [Vector]>,
    pub prim_indices: Cow<'a, [u32]>,
    /// The pakfile zip archive (see [`crate::pak`]).
    pub pakfile: Cow<'a, [u8]>,
    pub clip_portal_verts: Cow<'a, [Vector]>,
    pub cubemaps: Cow<'a, [Cubemap]>,
    pub texdata_string_data: Cow<'a, [u8]>,
    pub texdata_string_table: Cow<'a, [i32]>,
    pub overlays: Cow<'a, [Overlay]>,
    pub leaf_min_dist_to_water: Cow<'a, [u16]>,
    pub face_macro_texture_info: Cow<'a, [u16]>,
    pub disp_tris: Cow<'a, [u16]>,
    pub water_overlays: Cow<'a, [Overlay]>,
    pub leaf_ambient_index_hdr: Cow<'a, [LeafAmbientIndex]>,
    pub leaf_ambient_index: Cow<'a, [LeafAmbientIndex]>,
    pub lighting_hdr: Cow<'a, [ColorRgbExp32]>,
    pub world_lights_hdr: Cow<'a, [WorldLight]>,
    pub leaf_ambient_lighting_hdr: Cow<'a, [LeafAmbientLighting]>,
    pub leaf_ambient_lighting: Cow<'a, [LeafAmbientLighting]>,
    pub faces_hdr: Cow<'a, [Face]>,
    pub map_flags: Option<u32>,
    pub overlay_fades: Cow<'a, [OverlayFade]>,
    pub overlay_system_levels: Cow<'a, [OverlaySystemLevel]>,
    /// Lumps kept as bytes (see [`Bsp::raw`](crate::Bsp::raw)).
    pub raw: BTreeMap<usize, Cow<'a, [u8]>>,
    /// Bytes past a lump's last whole record (see [`Bsp::tails`](crate::Bsp::tails)).
    pub tails: BTreeMap<usize, Cow<'a, [u8]>>,
}

/// The value of an absent lump in a [`BspView`] field: empty or `None`, borrowing and
/// allocating nothing.
trait Absent {
    fn absent() -> Self;
}

impl<T: Clone> Absent for Cow<'_, [T]> {
    fn absent() -> Self {
        Cow::Borrowed(&[])
    }
}

impl<T> Absent for Option<T> {
    fn absent() -> Self {
        None
    }
}

impl Absent for Entities<'_> {
    fn absent() -> Self {
        Entities::default()
    }
}

impl Absent for GameLumps {
    fn absent() -> Self {
        GameLumps::default()
    }
}

/// The lumps [`BspView::arena_hint`] counts whatever the file: their records are always
/// decoded (widened in memory).
const DECODED_LUMPS: [usize; 20] = [
    NODES,
    FACES,
    LEAFS,
    FACEIDS,
    EDGES,
    WORLDLIGHTS,
    LEAFFACES,
    LEAFBRUSHES,
    BRUSHSIDES,
    AREAPORTALS,
    DISPINFO,
    ORIGINALFACES,
    VERTNORMALINDICES,
    LEAFWATERDATA,
    PRIMITIVES,
    PRIMINDICES,
    LEAF_AMBIENT_INDEX_HDR,
    LEAF_AMBIENT_INDEX,
    WORLDLIGHTS_HDR,
    FACES_HDR,
];

/// Turns one view field into its [`Bsp`](crate::Bsp) field.
pub(crate) trait IntoOwnedLump {
    type Owned;
    fn into_owned_lump(self) -> Self::Owned;
}

impl<T: Clone> IntoOwnedLump for Cow<'_, [T]> {
    type Owned = Vec<T>;
    fn into_owned_lump(self) -> Vec<T> {
        self.into_owned()
    }
}

impl IntoOwnedLump for Entities<'_> {
    type Owned = Vec<Entity>;
    fn into_owned_lump(self) -> Vec<Entity> {
        self.to_vec()
    }
}

impl IntoOwnedLump for Option<PhysCollideView<'_>> {
    type Owned = Option<PhysCollide>;
    fn into_owned_lump(self) -> Option<PhysCollide> {
        self.map(PhysCollideView::into_owned)
    }
}

impl IntoOwnedLump for Option<PhysDispView<'_>> {
    type Owned = Option<PhysDisp>;
    fn into_owned_lump(self) -> Option<PhysDisp> {
        self.map(PhysDispView::into_owned)
    }
}

macro_rules! owned_already {
    ($($t:ty),*) => {$(
        impl IntoOwnedLump for $t {
            type Owned = $t;
            fn into_owned_lump(self) -> $t {
                self
            }
        }
    )*};
}
impl IntoOwnedLump for Option<VisRows> {
    type Owned = Option<Visibility>;
    fn into_owned_lump(self) -> Option<Visibility> {
        self.map(VisRows::into_visibility)
    }
}

owned_already!(Option<Occlusion>, Option<u32>, GameLumps);

/// Calls `$mac!` with every lump constant and its field (the same name in [`Bsp`](crate::Bsp) and
/// [`BspView`]).
macro_rules! lump_fields {
    ($mac:ident) => {
        $mac! {
            ENTITIES entities, PLANES planes, TEXDATA texdata, VERTEXES vertexes,
            VISIBILITY visibility, NODES nodes, TEXINFO texinfo, FACES faces, LIGHTING lighting,
            OCCLUSION occlusion, LEAFS leafs, FACEIDS face_ids, EDGES edges, SURFEDGES surfedges,
            MODELS models, WORLDLIGHTS world_lights, LEAFFACES leaf_faces,
            LEAFBRUSHES leaf_brushes, BRUSHES brushes, BRUSHSIDES brush_sides, AREAS areas,
            AREAPORTALS area_portals, DISPINFO disp_info, ORIGINALFACES original_faces,
            PHYSDISP phys_disp, PHYSCOLLIDE phys_collide, VERTNORMALS vert_normals,
            VERTNORMALINDICES vert_normal_indices, DISP_VERTS disp_verts,
            DISP_LIGHTMAP_SAMPLE_POSITIONS disp_lightmap_sample_positions, GAME_LUMP game_lumps,
            LEAFWATERDATA leaf_water_data, PRIMITIVES primitives, PRIMVERTS prim_verts,
            PRIMINDICES prim_indices, PAKFILE pakfile, CLIPPORTALVERTS clip_portal_verts,
            CUBEMAPS cubemaps, TEXDATA_STRING_DATA texdata_string_data,
            TEXDATA_STRING_TABLE texdata_string_table, OVERLAYS overlays,
            LEAFMINDISTTOWATER leaf_min_dist_to_water,
            FACE_MACRO_TEXTURE_INFO face_macro_texture_info, DISP_TRIS disp_tris,
            WATEROVERLAYS water_overlays, LEAF_AMBIENT_INDEX_HDR leaf_ambient_index_hdr,
            LEAF_AMBIENT_INDEX leaf_ambient_index, LIGHTING_HDR lighting_hdr,
            WORLDLIGHTS_HDR world_lights_hdr, LEAF_AMBIENT_LIGHTING_HDR leaf_ambient_lighting_hdr,
            LEAF_AMBIENT_LIGHTING leaf_ambient_lighting, FACES_HDR faces_hdr, MAP_FLAGS map_flags,
            OVERLAY_FADES overlay_fades, OVERLAY_SYSTEM_LEVELS overlay_system_levels
        }
    };
}
pub(crate) use lump_fields;

/// Lumps whose record layout may be unknown for some versions: even absent, they are kept as
/// (empty) raw bytes then, so that writing does not need the layout. Every other lump parses no
/// bytes to its bare value.
const EMPTY_MAY_BE_RAW: [bool; HEADER_LUMPS] = {
    let mut t = [false; HEADER_LUMPS];
    let lumps = [
        FACES,
        ORIGINALFACES,
        FACES_HDR,
        LEAFS,
        WORLDLIGHTS,
        WORLDLIGHTS_HDR,
        OVERLAYS,
    ];
    let mut i = 0;
    while i < lumps.len() {
        t[lumps[i]] = true;
        i += 1;
    }
    t
};

/// The layout context of `lump` in a BSP of `version` with these lump versions.
pub(crate) fn lump_ctx(
    endian: Endian,
    version: i32,
    lump_versions: &[u32; HEADER_LUMPS],
    lump: usize,
) -> Ctx {
    Ctx::new(endian, version, lump_versions.get(lump).copied().unwrap_or(0))
}

/// Strata Source widened the index lists of these lumps (and face ids always).
pub(crate) fn wide_indices(version: i32, lump_versions: &[u32; HEADER_LUMPS], lump: usize) -> bool {
    version == 25 && (lump == FACEIDS || lump_versions[lump] >= 1)
}

/// Lightmap and ambient samples are bytes only (no byte order): any length that is not a whole
/// number of records is an error in every branch.
fn byte_records<'a, T: Record + Copy>(
    data: &Cow<'a, [u8]>,
    ctx: &Ctx,
    lump: usize,
    base: u64,
    size: usize,
) -> Result<Cow<'a, [T]>> {
    if !data.len().is_multiple_of(size) {
        return Err(BspError::lump(
            lump,
            base + data.len() as u64,
            format!("length {} is not a multiple of {size}", data.len()),
        ));
    }
    Ok(read_records_cow(data, ctx, lump, base, None)?.unwrap_or_default())
}

/// One lump's bytes on their way into a [`BspView`] field, with what parsing them needs.
struct LumpInput<'a> {
    lump: usize,
    data: Cow<'a, [u8]>,
    /// The lump's file offset, for errors.
    base: u64,
    ctx: Ctx,
    arena: Option<&'a Bump>,
    /// A bad record size is an error rather than a lump kept as bytes.
    strict: bool,
    /// The lump's index lists are Strata's 32-bit ones.
    wide: bool,
}

impl<'a> LumpInput<'a> {
    /// Records whose layout every version has (positions): in place, or decoded.
    fn records<T: Record + Copy>(&self) -> Result<Cow<'a, [T]>> {
        Ok(read_records_cow(&self.data, &self.ctx, self.lump, self.base, self.arena)?.unwrap_or_default())
    }

    /// A plain `i32` or `u16` list.
    fn scalars<T: Scalar>(&self) -> Result<Cow<'a, [T]>> {
        read_scalars(&self.data, &self.ctx, self.lump, self.base)
    }

    /// An index list, decoded into the arena when there is one.
    fn indices(&self) -> Result<Cow<'a, [u32]>> {
        let LumpInput { lump, base, wide, .. } = *self;
        Ok(match self.arena {
            Some(a) => Cow::Borrowed(read_indices_into(
                &self.data,
                wide,
                &self.ctx,
                lump,
                base,
                ToArena(a),
            )?),
            None => Cow::Owned(read_indices(&self.data, wide, &self.ctx, lump, base)?),
        })
    }

    /// Samples of `size` bytes (see [`byte_records`]).
    fn byte_records<T: Record + Copy>(&self, size: usize) -> Result<Cow<'a, [T]>> {
        byte_records(&self.data, &self.ctx, self.lump, self.base, size)
    }

    fn visibility(&self) -> Result<Option<VisRows>> {
        if self.data.is_empty() {
            return Ok(None);
        }
        Ok(Some(VisRows::parse(&self.data, self.ctx.endian, self.base)?))
    }

    fn occlusion(&self) -> Result<Option<Occlusion>> {
        if self.data.is_empty() {
            return Ok(None);
        }
        Ok(Some(Occlusion::parse(&self.data, &self.ctx, self.base)?))
    }

    /// The collision models, borrowing from the file unless the lump was decompressed.
    fn phys_collide(&self) -> Result<Option<PhysCollideView<'a>>> {
        if self.data.is_empty() {
            return Ok(None);
        }
        Ok(Some(match file_bytes(&self.data) {
            Some(b) => PhysCollideView::parse(b, self.ctx.endian, self.base)?,
            None => PhysCollideView::parse(&self.data, self.ctx.endian, self.base)?.into_static(),
        }))
    }

    /// The displacement collision, borrowing from the file unless the lump was decompressed.
    fn phys_disp(&self) -> Result<PhysDispView<'a>> {
        Ok(match file_bytes(&self.data) {
            Some(b) => PhysDispView::parse(b, self.ctx.endian, self.base)?,
            None => PhysDispView::parse(&self.data, self.ctx.endian, self.base)?.into_static(),
        })
    }
}

impl<'a> BspView<'a> {
    /// Every lump empty and absent, lump versions zero.
    pub fn bare(version: i32) -> BspView<'a> {
        macro_rules! bare {
            ($($lump:ident $f:ident),*) => {
                BspView {
                    version,
                    revision: 0,
                    endian: Endian::Little,
                    order: LumpOrder::Standard,
                    lump_versions: [0; HEADER_LUMPS],
                    raw: BTreeMap::new(),
                    tails: BTreeMap::new(),
                    $($f: Absent::absent(),)*
                }
            };
        }
        lump_fields!(bare)
    }

    /// Opens and parses a whole file (header, every lump, game lumps), borrowing from `data`.
    pub fn parse(data: &'a [u8]) -> Result<BspView<'a>> {
        BspView::from_file(&BspFile::parse(data)?)
    }

    /// Parses every lump of an opened file.
    pub fn from_file(file: &BspFile<'a>) -> Result<BspView<'a>> {
        BspView::from_file_lumps(file, &|_| true, None)
    }

    /// [`BspView::parse`], decoding the records that cannot be viewed in place into `arena`
    /// (one allocation instead of one per lump) instead of `Vec`s: every typed lump is then
    /// `Cow::Borrowed`. Size the arena with [`BspView::arena_hint`].
    pub fn parse_in(data: &'a [u8], arena: &'a Bump) -> Result<BspView<'a>> {
        BspView::from_file_in(&BspFile::parse(data)?, arena)
    }

    /// [`BspView::from_file`] with decoded records in `arena` (see [`BspView::parse_in`]).
    pub fn from_file_in(file: &BspFile<'a>, arena: &'a Bump) -> Result<BspView<'a>> {
        BspView::from_file_lumps(file, &|_| true, Some(arena))
    }

    /// About how many bytes [`BspView::from_file_in`] decodes into its arena for `file`: twice
    /// the stored size of every lump it cannot view in place (records widen by at most 2x),
    /// capped at eight times the file's size (a damaged LZMA size does not ask for gigabytes;
    /// the arena grows past the hint if it must).
    pub fn arena_hint(file: &BspFile<'_>) -> usize {
        let little = file.endian() == Endian::Little;
        (0..HEADER_LUMPS)
            .map(|l| {
                let e = file.entry(l);
                if e.len == 0 || l == GAME_LUMP {
                    return 0;
                }
                let compressed = file.is_compressed(l);
                let len = if compressed { e.fourcc } else { e.len } as usize;
                let in_place = little && !compressed && e.offset.is_multiple_of(4);
                if in_place && !DECODED_LUMPS.contains(&l) {
                    0
                } else {
                    2 * len + 16
                }
            })
            .fold(0usize, usize::saturating_add)
            .min(file.data().len().saturating_mul(8))
    }

    /// Parses only the lumps `wanted` selects (the others stay empty).
    pub fn parse_only(data: &'a [u8], wanted: &dyn Fn(usize) -> bool) -> Result<BspView<'a>> {
        BspView::from_file_lumps(&BspFile::parse(data)?, wanted, None)
    }

    pub(crate) fn from_file_lumps(
        file: &BspFile<'a>,
        wanted: &dyn Fn(usize) -> bool,
        arena: Option<&'a Bump>,
    ) -> Result<BspView<'a>> {
        let h = &file.header;
        let mut view = BspView::bare(h.version);
        view.revision = h.revision;
        view.endian = h.endian;
        view.order = h.order;
        for (i, e) in h.lumps.iter().enumerate() {
            view.lump_versions[i] = e.version;
        }
        for lump in (0..HEADER_LUMPS).filter(|&l| wanted(l)) {
            view.parse_file_lump(file, lump, arena)?;
        }
        Ok(view)
    }

    /// Parses lump `lump` of `file` (the game lump included) into this view.
    fn parse_file_lump(&mut self, file: &BspFile<'a>, lump: usize, arena: Option<&'a Bump>) -> Result<()> {
        let h = &file.header;
        let entry = h.lumps[lump];
        if lump == GAME_LUMP {
            let stored = file.stored(lump);
            let relative = crate::gamelump::has_relative_offsets(stored, entry.offset, h.endian);
            let base = if relative { 0 } else { entry.offset };
            self.game_lumps = GameLumps::parse_stored(stored, base, relative, &self.ctx(lump))?;
            return Ok(());
        }
        if entry.len == 0 {
            if !EMPTY_MAY_BE_RAW[lump] {
                // Absent: parsing no bytes would leave the bare value (empty, `None`).
                return Ok(());
            }
            return self.parse_lump_in(lump, Cow::Borrowed(&[]), entry.offset as u64, arena);
        }
        let data = file.lump(lump)?;
        self.parse_lump_in(lump, data, entry.offset as u64, arena)
    }

    /// The layout context of `lump` in this BSP.
    pub fn ctx(&self, lump: usize) -> Ctx {
        lump_ctx(self.endian, self.version, &self.lump_versions, lump)
    }

    /// Parses one lump's uncompressed bytes into its typed field (not the game lump). `base` is
    /// the lump's file offset, for errors. Borrowed bytes stay borrowed where the layout allows.
    pub fn parse_lump(&mut self, lump: usize, data: Cow<'a, [u8]>, base: u64) -> Result<()> {
        self.parse_lump_in(lump, data, base, None)
    }

    /// [`BspView::parse_lump`], decoding into `arena` when there is one.
    pub fn parse_lump_in(
        &mut self,
        lump: usize,
        data: Cow<'a, [u8]>,
        base: u64,
        arena: Option<&'a Bump>,
    ) -> Result<()> {
        let input = self.lump_input(lump, data, base, arena);
        match subject(lump) {
            Subject::Geometry => self.parse_geometry_lump(input),
            Subject::Tree => self.parse_tree_lump(input),
            Subject::Texture => self.parse_texture_lump(input),
            Subject::Displacement => self.parse_displacement_lump(input),
            Subject::Lighting => self.parse_lighting_lump(input),
            Subject::Overlay => self.parse_overlay_lump(input),
            Subject::OwnFormat => self.parse_own_format_lump(input),
        }
    }

    fn lump_input(
        &self,
        lump: usize,
        data: Cow<'a, [u8]>,
        base: u64,
        arena: Option<&'a Bump>,
    ) -> LumpInput<'a> {
        LumpInput {
            lump,
            data,
            base,
            ctx: self.ctx(lump),
            arena,
            // Versions whose layouts the corpus confirms fail loudly on a bad record size; for
            // other branches (Dota 2 betas v22-24, Contagion v27, ...) such a lump stays bytes.
            strict: matches!(self.version, 17..=21 | 25 | 42),
            wide: wide_indices(self.version, &self.lump_versions, lump),
        }
    }

    /// Planes, vertices, edges, faces, vertex normals, clip portal vertices and primitives.
    fn parse_geometry_lump(&mut self, input: LumpInput<'a>) -> Result<()> {
        match input.lump {
            PLANES => self.records_or_raw(input, |v| &mut v.planes)?,
            VERTEXES => self.vertexes = input.records()?,
            EDGES => self.records_or_raw(input, |v| &mut v.edges)?,
            SURFEDGES => self.surfedges = input.scalars()?,
            FACES => self.records_or_raw(input, |v| &mut v.faces)?,
            ORIGINALFACES => self.records_or_raw(input, |v| &mut v.original_faces)?,
            FACES_HDR => self.records_or_raw(input, |v| &mut v.faces_hdr)?,
            FACEIDS => self.face_ids = input.indices()?,
            VERTNORMALS => self.vert_normals = input.records()?,
            VERTNORMALINDICES => self.vert_normal_indices = input.indices()?,
            CLIPPORTALVERTS => self.clip_portal_verts = input.records()?,
            PRIMITIVES => self.records_or_raw(input, |v| &mut v.primitives)?,
            PRIMVERTS => self.prim_verts = input.records()?,
            PRIMINDICES => self.prim_indices = input.indices()?,
            _ => self.keep_raw(input),
        }
        Ok(())
    }

    /// The BSP tree and what its leaves hold: nodes, leafs, models, brushes, areas, water.
    fn parse_tree_lump(&mut self, input: LumpInput<'a>) -> Result<()> {
        match input.lump {
            NODES => self.records_or_raw(input, |v| &mut v.nodes)?,
            LEAFS => self.records_or_raw(input, |v| &mut v.leafs)?,
            MODELS => self.records_or_raw(input, |v| &mut v.models)?,
            LEAFFACES => self.leaf_faces = input.indices()?,
            LEAFBRUSHES => self.leaf_brushes = input.indices()?,
            BRUSHES => self.records_or_raw(input, |v| &mut v.brushes)?,
            BRUSHSIDES => self.records_or_raw(input, |v| &mut v.brush_sides)?,
            AREAS => self.records_or_raw(input, |v| &mut v.areas)?,
            AREAPORTALS => self.records_or_raw(input, |v| &mut v.area_portals)?,
            LEAFWATERDATA => self.records_or_raw(input, |v| &mut v.leaf_water_data)?,
            LEAFMINDISTTOWATER => self.leaf_min_dist_to_water = input.scalars()?,
            _ => self.keep_raw(input),
        }
        Ok(())
    }

    /// Texture data and info, the material name strings, macro texture indices.
    fn parse_texture_lump(&mut self, input: LumpInput<'a>) -> Result<()> {
        match input.lump {
            TEXDATA => self.records_or_raw(input, |v| &mut v.texdata)?,
            TEXINFO => self.records_or_raw(input, |v| &mut v.texinfo)?,
            TEXDATA_STRING_DATA => self.texdata_string_data = input.data,
            TEXDATA_STRING_TABLE => self.texdata_string_table = input.scalars()?,
            FACE_MACRO_TEXTURE_INFO => self.face_macro_texture_info = input.scalars()?,
            _ => self.keep_raw(input),
        }
        Ok(())
    }

    /// Displacement infos, vertices, triangle flags and lightmap sample positions.
    fn parse_displacement_lump(&mut self, input: LumpInput<'a>) -> Result<()> {
        match input.lump {
            DISPINFO => self.records_or_raw(input, |v| &mut v.disp_info)?,
            DISP_VERTS => self.records_or_raw(input, |v| &mut v.disp_verts)?,
            DISP_TRIS => self.disp_tris = input.scalars()?,
            DISP_LIGHTMAP_SAMPLE_POSITIONS => self.disp_lightmap_sample_positions = input.data,
            _ => self.keep_raw(input),
        }
        Ok(())
    }

    /// Lightmap samples, world lights, per-leaf ambient lighting and cubemap samples.
    fn parse_lighting_lump(&mut self, input: LumpInput<'a>) -> Result<()> {
        match input.lump {
            LIGHTING => self.lighting = self.samples_and_tail(input)?,
            LIGHTING_HDR => self.lighting_hdr = self.samples_and_tail(input)?,
            WORLDLIGHTS => self.records_or_raw(input, |v| &mut v.world_lights)?,
            WORLDLIGHTS_HDR => self.records_or_raw(input, |v| &mut v.world_lights_hdr)?,
            LEAF_AMBIENT_INDEX_HDR => self.records_or_raw(input, |v| &mut v.leaf_ambient_index_hdr)?,
            LEAF_AMBIENT_INDEX => self.records_or_raw(input, |v| &mut v.leaf_ambient_index)?,
            LEAF_AMBIENT_LIGHTING_HDR | LEAF_AMBIENT_LIGHTING
                if crate::records::leaf_ambient_is_legacy(input.ctx.lump_version, input.data.len()) =>
            {
                // Per-leaf light cubes of 24 bytes: no typed layout; kept as bytes (a warning
                // of `check::quirks`).
                self.raw.insert(input.lump, input.data);
            }
            LEAF_AMBIENT_LIGHTING_HDR => self.leaf_ambient_lighting_hdr = input.byte_records(28)?,
            LEAF_AMBIENT_LIGHTING => self.leaf_ambient_lighting = input.byte_records(28)?,
            CUBEMAPS => self.records_or_raw(input, |v| &mut v.cubemaps)?,
            _ => self.keep_raw(input),
        }
        Ok(())
    }

    /// Overlays, water overlays, their fade distances and system levels.
    fn parse_overlay_lump(&mut self, input: LumpInput<'a>) -> Result<()> {
        match input.lump {
            OVERLAYS => self.overlays_or_raw(input, |r: OverlayRecord| r.0, |v| &mut v.overlays)?,
            WATEROVERLAYS => {
                self.overlays_or_raw(input, |r: WaterOverlayRecord| r.0, |v| &mut v.water_overlays)?
            }
            OVERLAY_FADES => self.records_or_raw(input, |v| &mut v.overlay_fades)?,
            OVERLAY_SYSTEM_LEVELS => self.records_or_raw(input, |v| &mut v.overlay_system_levels)?,
            _ => self.keep_raw(input),
        }
        Ok(())
    }

    /// Lumps with a format of their own (entities, visibility, occlusion, physics, the
    /// pakfile, map flags); any other lump is kept as bytes.
    fn parse_own_format_lump(&mut self, input: LumpInput<'a>) -> Result<()> {
        match input.lump {
            ENTITIES => self.entities = Entities::parse(input.data, input.lump, input.base)?,
            VISIBILITY => self.visibility = input.visibility()?,
            OCCLUSION => self.occlusion = input.occlusion()?,
            PHYSCOLLIDE => self.phys_collide = input.phys_collide()?,
            PHYSDISP if !input.data.is_empty() && input.ctx.lump_version == 0 => {
                self.phys_disp = Some(input.phys_disp()?)
            }
            PAKFILE => self.pakfile = input.data,
            MAP_FLAGS if input.data.len() == 4 => self.map_flags = Some(input.scalars::<i32>()?[0] as u32),
            _ => self.keep_raw(input),
        }
        Ok(())
    }

    /// A lump without a typed layout: its bytes, if any, kept as they are.
    fn keep_raw(&mut self, input: LumpInput<'a>) {
        if !input.data.is_empty() {
            self.raw.insert(input.lump, input.data);
        }
    }

    /// Records whose layout some lump versions lack: into `field` when they parse, otherwise
    /// the bytes are kept raw (or, for a strict BSP version, a bad record size is an error).
    fn records_or_raw<T: Record + Copy>(
        &mut self,
        input: LumpInput<'a>,
        field: fn(&mut Self) -> &mut Cow<'a, [T]>,
    ) -> Result<()> {
        let read = |i: &LumpInput<'a>| read_records_cow(&i.data, &i.ctx, i.lump, i.base, i.arena);
        if let Some(v) = self.typed_or_raw(input, read)? {
            *field(self) = v;
        }
        Ok(())
    }

    /// [`BspView::records_or_raw`] for the overlay lumps, whose records wrap an [`Overlay`].
    fn overlays_or_raw<R: Record>(
        &mut self,
        input: LumpInput<'a>,
        unwrap: fn(R) -> Overlay,
        field: fn(&mut Self) -> &mut Cow<'a, [Overlay]>,
    ) -> Result<()> {
        let read = |i: &LumpInput<'a>| {
            Ok(read_records::<R>(&i.data, &i.ctx, i.lump, i.base)?
                .map(|v| Cow::Owned(v.into_iter().map(unwrap).collect())))
        };
        if let Some(v) = self.typed_or_raw(input, read)? {
            *field(self) = v;
        }
        Ok(())
    }

    /// What `read` makes of the lump; when it has no layout for it (`None`), or fails in a
    /// BSP version that is not strict, the bytes are kept raw instead.
    fn typed_or_raw<T>(
        &mut self,
        input: LumpInput<'a>,
        read: impl FnOnce(&LumpInput<'a>) -> Result<Option<T>>,
    ) -> Result<Option<T>> {
        match read(&input) {
            Ok(Some(v)) => return Ok(Some(v)),
            Err(e) if input.strict => return Err(e),
            Ok(None) | Err(_) => {}
        }
        self.raw.insert(input.lump, input.data);
        Ok(None)
    }

    /// A lighting lump: whole 4-byte samples, and any bytes after the last one kept as the
    /// lump's tail. The engine copies the lump as one block and faces address it by byte
    /// offset, so a length one to three bytes past a whole sample loads (seen in real maps).
    fn samples_and_tail(&mut self, input: LumpInput<'a>) -> Result<Cow<'a, [ColorRgbExp32]>> {
        let LumpInput {
            lump,
            data,
            base,
            ctx,
            ..
        } = input;
        let whole = data.len() - data.len() % 4;
        let (samples, tail) = match data {
            Cow::Borrowed(b) => (Cow::Borrowed(&b[..whole]), Cow::Borrowed(&b[whole..])),
            Cow::Owned(mut v) => {
                let tail = v.split_off(whole);
                (Cow::Owned(v), Cow::Owned(tail))
            }
        };
        if tail.is_empty() {
            self.tails.remove(&lump);
        } else {
            self.tails.insert(lump, tail);
        }
        byte_records(&samples, &ctx, lump, base, 4)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The skip in `parse_file_lump` is exact: every other lump parses no bytes to its bare
    /// value, whatever the BSP and lump versions.
    #[test]
    fn absent_lumps_parse_to_their_bare_value() {
        for version in [17, 19, 20, 21, 22, 25, 27, 29] {
            for lump_version in 0..4 {
                for lump in (0..HEADER_LUMPS).filter(|&l| l != GAME_LUMP && !EMPTY_MAY_BE_RAW[l]) {
                    let mut bare = BspView::bare(version);
                    bare.lump_versions = [lump_version; HEADER_LUMPS];
                    let mut view = bare.clone();
                    view.parse_lump(lump, Cow::Borrowed(&[]), 0).unwrap();
                    assert!(view == bare, "lump {lump} v{lump_version} in BSP v{version}");
                }
            }
        }
    }
}
