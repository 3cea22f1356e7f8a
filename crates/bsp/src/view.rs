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
    Ctx, Record, ToArena, file_bytes, read_indices, read_indices_into, read_records, read_records_cow,
    read_scalars,
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

impl<'a> BspView<'a> {
    /// Every lump empty and absent, lump versions zero.
    pub fn bare(version: i32) -> BspView<'a> {
        BspView {
            version,
            revision: 0,
            endian: Endian::Little,
            order: LumpOrder::Standard,
            lump_versions: [0; HEADER_LUMPS],
            entities: Entities::default(),
            planes: Cow::Borrowed(&[]),
            texdata: Cow::Borrowed(&[]),
            vertexes: Cow::Borrowed(&[]),
            visibility: None,
            nodes: Cow::Borrowed(&[]),
            texinfo: Cow::Borrowed(&[]),
            faces: Cow::Borrowed(&[]),
            lighting: Cow::Borrowed(&[]),
            occlusion: None,
            leafs: Cow::Borrowed(&[]),
            face_ids: Cow::Borrowed(&[]),
            edges: Cow::Borrowed(&[]),
            surfedges: Cow::Borrowed(&[]),
            models: Cow::Borrowed(&[]),
            world_lights: Cow::Borrowed(&[]),
            leaf_faces: Cow::Borrowed(&[]),
            leaf_brushes: Cow::Borrowed(&[]),
            brushes: Cow::Borrowed(&[]),
            brush_sides: Cow::Borrowed(&[]),
            areas: Cow::Borrowed(&[]),
            area_portals: Cow::Borrowed(&[]),
            disp_info: Cow::Borrowed(&[]),
            original_faces: Cow::Borrowed(&[]),
            phys_collide: None,
            phys_disp: None,
            vert_normals: Cow::Borrowed(&[]),
            vert_normal_indices: Cow::Borrowed(&[]),
            disp_verts: Cow::Borrowed(&[]),
            disp_lightmap_sample_positions: Cow::Borrowed(&[]),
            game_lumps: GameLumps::default(),
            leaf_water_data: Cow::Borrowed(&[]),
            primitives: Cow::Borrowed(&[]),
            prim_verts: Cow::Borrowed(&[]),
            prim_indices: Cow::Borrowed(&[]),
            pakfile: Cow::Borrowed(&[]),
            clip_portal_verts: Cow::Borrowed(&[]),
            cubemaps: Cow::Borrowed(&[]),
            texdata_string_data: Cow::Borrowed(&[]),
            texdata_string_table: Cow::Borrowed(&[]),
            overlays: Cow::Borrowed(&[]),
            leaf_min_dist_to_water: Cow::Borrowed(&[]),
            face_macro_texture_info: Cow::Borrowed(&[]),
            disp_tris: Cow::Borrowed(&[]),
            water_overlays: Cow::Borrowed(&[]),
            leaf_ambient_index_hdr: Cow::Borrowed(&[]),
            leaf_ambient_index: Cow::Borrowed(&[]),
            lighting_hdr: Cow::Borrowed(&[]),
            world_lights_hdr: Cow::Borrowed(&[]),
            leaf_ambient_lighting_hdr: Cow::Borrowed(&[]),
            leaf_ambient_lighting: Cow::Borrowed(&[]),
            faces_hdr: Cow::Borrowed(&[]),
            map_flags: None,
            overlay_fades: Cow::Borrowed(&[]),
            overlay_system_levels: Cow::Borrowed(&[]),
            raw: BTreeMap::new(),
            tails: BTreeMap::new(),
        }
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
        const DECODED: [usize; 20] = [
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
                if in_place && !DECODED.contains(&l) {
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
        let ctx = self.ctx(lump);
        // Versions whose layouts the corpus confirms fail loudly on a bad record size; for
        // other branches (Dota 2 betas v22-24, Contagion v27, ...) such a lump stays bytes.
        let strict = matches!(self.version, 17..=21 | 25 | 42);
        let wide = wide_indices(self.version, &self.lump_versions, lump);
        macro_rules! recs {
            ($field:ident) => {
                match read_records_cow(&data, &ctx, lump, base, arena) {
                    Ok(Some(v)) => self.$field = v,
                    Ok(None) => {
                        self.raw.insert(lump, data);
                    }
                    Err(e) if strict => return Err(e),
                    Err(_) => {
                        self.raw.insert(lump, data);
                    }
                }
            };
        }
        macro_rules! wrapped {
            ($field:ident, $ty:ident) => {
                match read_records::<$ty>(&data, &ctx, lump, base) {
                    Ok(Some(v)) => self.$field = Cow::Owned(v.into_iter().map(|r| r.0).collect()),
                    Ok(None) => {
                        self.raw.insert(lump, data);
                    }
                    Err(e) if strict => return Err(e),
                    Err(_) => {
                        self.raw.insert(lump, data);
                    }
                }
            };
        }
        macro_rules! indices {
            () => {
                match arena {
                    Some(a) => Cow::Borrowed(read_indices_into(
                        &data,
                        wide,
                        &ctx,
                        lump,
                        base,
                        ToArena(a),
                    )?),
                    None => Cow::Owned(read_indices(&data, wide, &ctx, lump, base)?),
                }
            };
        }
        match lump {
            ENTITIES => self.entities = Entities::parse(data, lump, base)?,
            PLANES => recs!(planes),
            TEXDATA => recs!(texdata),
            VERTEXES => self.vertexes = read_records_cow(&data, &ctx, lump, base, arena)?.unwrap_or_default(),
            VISIBILITY => {
                self.visibility = if data.is_empty() {
                    None
                } else {
                    Some(VisRows::parse(&data, ctx.endian, base)?)
                }
            }
            NODES => recs!(nodes),
            TEXINFO => recs!(texinfo),
            FACES => recs!(faces),
            LIGHTING => self.lighting = self.samples_and_tail(data, &ctx, lump, base)?,
            OCCLUSION => {
                self.occlusion = if data.is_empty() {
                    None
                } else {
                    Some(Occlusion::parse(&data, &ctx, base)?)
                }
            }
            LEAFS => recs!(leafs),
            FACEIDS => self.face_ids = indices!(),
            EDGES => recs!(edges),
            SURFEDGES => self.surfedges = read_scalars(&data, &ctx, lump, base)?,
            MODELS => recs!(models),
            WORLDLIGHTS => recs!(world_lights),
            LEAFFACES => self.leaf_faces = indices!(),
            LEAFBRUSHES => self.leaf_brushes = indices!(),
            BRUSHES => recs!(brushes),
            BRUSHSIDES => recs!(brush_sides),
            AREAS => recs!(areas),
            AREAPORTALS => recs!(area_portals),
            DISPINFO => recs!(disp_info),
            ORIGINALFACES => recs!(original_faces),
            PHYSCOLLIDE => {
                self.phys_collide = if data.is_empty() {
                    None
                } else if let Some(b) = file_bytes(&data) {
                    Some(PhysCollideView::parse(b, ctx.endian, base)?)
                } else {
                    Some(PhysCollideView::parse(&data, ctx.endian, base)?.into_static())
                }
            }
            PHYSDISP if !data.is_empty() && ctx.lump_version == 0 => {
                self.phys_disp = Some(match file_bytes(&data) {
                    Some(b) => PhysDispView::parse(b, ctx.endian, base)?,
                    None => PhysDispView::parse(&data, ctx.endian, base)?.into_static(),
                })
            }
            VERTNORMALS => {
                self.vert_normals = read_records_cow(&data, &ctx, lump, base, arena)?.unwrap_or_default()
            }
            VERTNORMALINDICES => self.vert_normal_indices = indices!(),
            DISP_VERTS => recs!(disp_verts),
            DISP_LIGHTMAP_SAMPLE_POSITIONS => self.disp_lightmap_sample_positions = data,
            LEAFWATERDATA => recs!(leaf_water_data),
            PRIMITIVES => recs!(primitives),
            PRIMVERTS => {
                self.prim_verts = read_records_cow(&data, &ctx, lump, base, arena)?.unwrap_or_default()
            }
            PRIMINDICES => self.prim_indices = indices!(),
            PAKFILE => self.pakfile = data,
            CLIPPORTALVERTS => {
                self.clip_portal_verts = read_records_cow(&data, &ctx, lump, base, arena)?.unwrap_or_default()
            }
            CUBEMAPS => recs!(cubemaps),
            TEXDATA_STRING_DATA => self.texdata_string_data = data,
            TEXDATA_STRING_TABLE => self.texdata_string_table = read_scalars(&data, &ctx, lump, base)?,
            OVERLAYS => wrapped!(overlays, OverlayRecord),
            LEAFMINDISTTOWATER => self.leaf_min_dist_to_water = read_scalars(&data, &ctx, lump, base)?,
            FACE_MACRO_TEXTURE_INFO => self.face_macro_texture_info = read_scalars(&data, &ctx, lump, base)?,
            DISP_TRIS => self.disp_tris = read_scalars(&data, &ctx, lump, base)?,
            WATEROVERLAYS => wrapped!(water_overlays, WaterOverlayRecord),
            LEAF_AMBIENT_INDEX_HDR => recs!(leaf_ambient_index_hdr),
            LEAF_AMBIENT_INDEX => recs!(leaf_ambient_index),
            LIGHTING_HDR => self.lighting_hdr = self.samples_and_tail(data, &ctx, lump, base)?,
            WORLDLIGHTS_HDR => recs!(world_lights_hdr),
            LEAF_AMBIENT_LIGHTING_HDR | LEAF_AMBIENT_LIGHTING
                if crate::records::leaf_ambient_is_legacy(ctx.lump_version, data.len()) =>
            {
                // Per-leaf light cubes of 24 bytes: no typed layout; kept as bytes (a warning
                // of `check::quirks`).
                self.raw.insert(lump, data);
            }
            LEAF_AMBIENT_LIGHTING_HDR => {
                self.leaf_ambient_lighting_hdr = byte_records(&data, &ctx, lump, base, 28)?
            }
            LEAF_AMBIENT_LIGHTING => self.leaf_ambient_lighting = byte_records(&data, &ctx, lump, base, 28)?,
            FACES_HDR => recs!(faces_hdr),
            MAP_FLAGS if data.len() == 4 => {
                self.map_flags = Some(read_scalars::<i32>(&data, &ctx, lump, base)?[0] as u32)
            }
            OVERLAY_FADES => recs!(overlay_fades),
            OVERLAY_SYSTEM_LEVELS => recs!(overlay_system_levels),
            _ => {
                if !data.is_empty() {
                    self.raw.insert(lump, data);
                }
            }
        }
        Ok(())
    }

    /// A lighting lump: whole 4-byte samples, and any bytes after the last one kept as the
    /// lump's tail. The engine copies the lump as one block and faces address it by byte
    /// offset, so a length one to three bytes past a whole sample loads (seen in real maps).
    fn samples_and_tail(
        &mut self,
        data: Cow<'a, [u8]>,
        ctx: &Ctx,
        lump: usize,
        base: u64,
    ) -> Result<Cow<'a, [ColorRgbExp32]>> {
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
        byte_records(&samples, ctx, lump, base, 4)
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
