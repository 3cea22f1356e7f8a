//! [`Bsp`]: every lump as typed values with public fields, parsed from a file or built from
//! scratch, and serialised back.

use std::collections::BTreeMap;

use srcmap_bytes::Endian;

use std::borrow::Cow;

use crate::codec::{Ctx, write_indices, write_records};
use crate::entities::{Entity, write_entities};
use crate::error::Result;
use crate::file::{BspFile, LumpOrder};
use crate::gamelump::GameLumps;
use crate::lump::*;
use crate::occlusion::Occlusion;
use crate::physics::PhysCollide;
use crate::records::*;
use crate::view::{BspView, IntoOwnedLump, lump_fields};
use crate::vis::Visibility;

/// A Source BSP, every lump typed. Index fields are widened to `u32`/`i32` where some game
/// widened them; writing checks they fit the file's layout.
#[derive(Debug, Clone, PartialEq)]
pub struct Bsp {
    pub version: i32,
    pub revision: i32,
    pub endian: Endian,
    pub order: LumpOrder,
    /// `lump_t.version` of every lump; selects record layouts on write.
    pub lump_versions: [u32; HEADER_LUMPS],
    pub entities: Vec<Entity>,
    /// The entity text was not UTF-8 and is written back as Latin-1 bytes.
    pub entities_latin1: bool,
    pub planes: Vec<Plane>,
    pub texdata: Vec<TexData>,
    pub vertexes: Vec<Vector>,
    pub visibility: Option<Visibility>,
    pub nodes: Vec<Node>,
    pub texinfo: Vec<TexInfo>,
    pub faces: Vec<Face>,
    pub lighting: Vec<ColorRgbExp32>,
    pub occlusion: Option<Occlusion>,
    pub leafs: Vec<Leaf>,
    pub face_ids: Vec<u32>,
    pub edges: Vec<Edge>,
    pub surfedges: Vec<i32>,
    pub models: Vec<Model>,
    pub world_lights: Vec<WorldLight>,
    pub leaf_faces: Vec<u32>,
    pub leaf_brushes: Vec<u32>,
    pub brushes: Vec<Brush>,
    pub brush_sides: Vec<BrushSide>,
    pub areas: Vec<Area>,
    pub area_portals: Vec<AreaPortal>,
    pub disp_info: Vec<DispInfo>,
    pub original_faces: Vec<Face>,
    pub phys_collide: Option<PhysCollide>,
    /// Displacement collision (lump 28); Strata's v2 layout stays in `raw`.
    pub phys_disp: Option<crate::physics::PhysDisp>,
    pub vert_normals: Vec<Vector>,
    pub vert_normal_indices: Vec<u32>,
    pub disp_verts: Vec<DispVert>,
    /// Encoded sample positions (a byte stream indexed by `DispInfo::lightmap_sample_position_start`).
    pub disp_lightmap_sample_positions: Vec<u8>,
    pub game_lumps: GameLumps,
    pub leaf_water_data: Vec<LeafWaterData>,
    pub primitives: Vec<Primitive>,
    pub prim_verts: Vec<Vector>,
    pub prim_indices: Vec<u32>,
    /// The pakfile: a zip archive (see [`crate::pak`]).
    pub pakfile: Vec<u8>,
    pub clip_portal_verts: Vec<Vector>,
    pub cubemaps: Vec<Cubemap>,
    /// NUL-terminated material names, indexed by byte offset from the string table.
    pub texdata_string_data: Vec<u8>,
    pub texdata_string_table: Vec<i32>,
    pub overlays: Vec<Overlay>,
    pub leaf_min_dist_to_water: Vec<u16>,
    pub face_macro_texture_info: Vec<u16>,
    /// Per displacement triangle, its [`crate::flags::disp_tag`] bits.
    pub disp_tris: Vec<u16>,
    pub water_overlays: Vec<Overlay>,
    pub leaf_ambient_index_hdr: Vec<LeafAmbientIndex>,
    pub leaf_ambient_index: Vec<LeafAmbientIndex>,
    pub lighting_hdr: Vec<ColorRgbExp32>,
    pub world_lights_hdr: Vec<WorldLight>,
    pub leaf_ambient_lighting_hdr: Vec<LeafAmbientLighting>,
    pub leaf_ambient_lighting: Vec<LeafAmbientLighting>,
    pub faces_hdr: Vec<Face>,
    pub map_flags: Option<u32>,
    pub overlay_fades: Vec<OverlayFade>,
    pub overlay_system_levels: Vec<OverlaySystemLevel>,
    /// Lumps kept as uncompressed bytes: those without a typed layout (22-25, 28, 32, 49, 57,
    /// 62, 63) and those whose version has no known layout. Takes precedence on write.
    pub raw: BTreeMap<usize, Vec<u8>>,
    /// Bytes past the last whole record of a lump the engine reads as a plain byte block
    /// (lighting: faces address it by byte offset), kept so an untouched write is
    /// byte-identical. Written after the lump's records; whoever rewrites the lump removes its
    /// tail. A warning of [`crate::check::quirks`].
    pub tails: BTreeMap<usize, Vec<u8>>,
}

impl Default for Bsp {
    fn default() -> Self {
        Bsp::new(crate::versions::COMPILE_BSP_VERSION)
    }
}

impl Bsp {
    /// An empty BSP of `version` with the lump versions Valve's tools write for it
    /// (for v20: faces 1, lighting 1, occlusion 2, leafs 1; v19 and older: leafs 0 with ambient
    /// cubes). The game lump holds an empty `sprp` and `dprp`.
    pub fn new(version: i32) -> Bsp {
        use crate::versions::*;
        let mut lump_versions = [0u32; HEADER_LUMPS];
        lump_versions[FACES] = FACES_VERSION;
        lump_versions[LIGHTING] = LIGHTING_VERSION;
        lump_versions[OCCLUSION] = OCCLUSION_VERSION;
        lump_versions[LEAFS] = LEAFS_VERSION_WITH_AMBIENT;
        let modern = version >= FIRST_BSP_VERSION_WITHOUT_LEAF_AMBIENT;
        if modern {
            lump_versions[LEAFS] = LEAFS_VERSION;
            lump_versions[LIGHTING_HDR] = LIGHTING_VERSION;
            lump_versions[LEAF_AMBIENT_LIGHTING_HDR] = LEAF_AMBIENT_VERSION;
            lump_versions[LEAF_AMBIENT_LIGHTING] = LEAF_AMBIENT_VERSION;
            lump_versions[FACES_HDR] = FACES_VERSION;
        }
        let sprp = if modern {
            STATIC_PROPS_VERSION
        } else {
            STATIC_PROPS_VERSION_BEFORE_20
        };
        Bsp {
            lump_versions,
            occlusion: Some(Occlusion::default()),
            game_lumps: GameLumps::empty(sprp),
            pakfile: crate::pak::empty_zip(),
            ..Bsp::bare(version)
        }
    }

    /// Every lump empty and absent, lump versions zero: the start of a parse (no allocation).
    fn bare(version: i32) -> Bsp {
        macro_rules! bare {
            ($($lump:ident $f:ident),*) => {
                Bsp {
                    version,
                    revision: 0,
                    endian: Endian::Little,
                    order: LumpOrder::Standard,
                    lump_versions: [0; HEADER_LUMPS],
                    entities_latin1: false,
                    raw: BTreeMap::new(),
                    tails: BTreeMap::new(),
                    $($f: Default::default(),)*
                }
            };
        }
        lump_fields!(bare)
    }

    /// Parses a whole file (header, every lump, game lumps).
    pub fn parse(data: &[u8]) -> Result<Bsp> {
        Bsp::from_file(&BspFile::parse(data)?)
    }

    /// Parses every lump of an opened file.
    pub fn from_file(file: &BspFile<'_>) -> Result<Bsp> {
        Bsp::from_file_lumps(file, &|_| true)
    }

    /// Parses only the lumps `wanted` selects (the others stay empty): for tools that need, say,
    /// geometry without lighting. Writing such a partial `Bsp` drops the lumps left out.
    pub fn parse_only(data: &[u8], wanted: &dyn Fn(usize) -> bool) -> Result<Bsp> {
        Bsp::from_file_lumps(&BspFile::parse(data)?, wanted)
    }

    fn from_file_lumps(file: &BspFile<'_>, wanted: &dyn Fn(usize) -> bool) -> Result<Bsp> {
        Ok(BspView::from_file_lumps(file, wanted, None)?.into_owned())
    }

    /// The layout context of `lump` in this BSP.
    pub fn ctx(&self, lump: usize) -> Ctx {
        crate::view::lump_ctx(self.endian, self.version, &self.lump_versions, lump)
    }

    /// Strata Source widened the index lists of these lumps (and face ids always).
    fn wide_indices(&self, lump: usize) -> bool {
        crate::view::wide_indices(self.version, &self.lump_versions, lump)
    }

    /// Parses one lump's uncompressed bytes into its typed field (not the game lump), through
    /// [`BspView::parse_lump`].
    pub fn parse_lump(&mut self, lump: usize, data: &[u8], base: u64) -> Result<()> {
        let mut view = BspView::bare(self.version);
        view.endian = self.endian;
        view.lump_versions = self.lump_versions;
        view.parse_lump(lump, Cow::Borrowed(data), base)?;
        self.take_lump(&mut view.into_owned(), lump);
        Ok(())
    }

    /// Serialises one lump (uncompressed). The game lump's offsets are relative to its start.
    pub fn lump_bytes(&self, lump: usize) -> Result<Vec<u8>> {
        if let Some(raw) = self.raw.get(&lump) {
            return Ok(raw.clone());
        }
        let mut bytes = self.typed_lump_bytes(lump)?;
        if let Some(tail) = self.tails.get(&lump) {
            bytes.extend_from_slice(tail);
        }
        Ok(bytes)
    }

    /// [`Bsp::lump_bytes`] of the typed value alone, without a kept tail.
    fn typed_lump_bytes(&self, lump: usize) -> Result<Vec<u8>> {
        let ctx = self.ctx(lump);
        match subject(lump) {
            Subject::Geometry => self.geometry_lump_bytes(lump, &ctx),
            Subject::Tree => self.tree_lump_bytes(lump, &ctx),
            Subject::Texture => self.texture_lump_bytes(lump, &ctx),
            Subject::Displacement => self.displacement_lump_bytes(lump, &ctx),
            Subject::Lighting => self.lighting_lump_bytes(lump, &ctx),
            Subject::Overlay => self.overlay_lump_bytes(lump, &ctx),
            Subject::OwnFormat => self.own_format_lump_bytes(lump, &ctx),
        }
    }

    /// Planes, vertices, edges, faces, vertex normals, clip portal vertices and primitives.
    fn geometry_lump_bytes(&self, lump: usize, ctx: &Ctx) -> Result<Vec<u8>> {
        let wide = self.wide_indices(lump);
        Ok(match lump {
            PLANES => write_records(&self.planes, ctx, lump)?,
            VERTEXES => write_records(&self.vertexes, ctx, lump)?,
            EDGES => write_records(&self.edges, ctx, lump)?,
            SURFEDGES => i32_bytes(&self.surfedges, ctx),
            FACES => write_records(&self.faces, ctx, lump)?,
            ORIGINALFACES => write_records(&self.original_faces, ctx, lump)?,
            FACES_HDR => write_records(&self.faces_hdr, ctx, lump)?,
            FACEIDS => write_indices(&self.face_ids, wide, ctx, lump)?,
            VERTNORMALS => write_records(&self.vert_normals, ctx, lump)?,
            VERTNORMALINDICES => write_indices(&self.vert_normal_indices, wide, ctx, lump)?,
            CLIPPORTALVERTS => write_records(&self.clip_portal_verts, ctx, lump)?,
            PRIMITIVES => write_records(&self.primitives, ctx, lump)?,
            PRIMVERTS => write_records(&self.prim_verts, ctx, lump)?,
            PRIMINDICES => write_indices(&self.prim_indices, wide, ctx, lump)?,
            _ => Vec::new(),
        })
    }

    /// The BSP tree and what its leaves hold: nodes, leafs, models, brushes, areas, water.
    fn tree_lump_bytes(&self, lump: usize, ctx: &Ctx) -> Result<Vec<u8>> {
        let wide = self.wide_indices(lump);
        Ok(match lump {
            NODES => write_records(&self.nodes, ctx, lump)?,
            LEAFS => write_records(&self.leafs, ctx, lump)?,
            MODELS => write_records(&self.models, ctx, lump)?,
            LEAFFACES => write_indices(&self.leaf_faces, wide, ctx, lump)?,
            LEAFBRUSHES => write_indices(&self.leaf_brushes, wide, ctx, lump)?,
            BRUSHES => write_records(&self.brushes, ctx, lump)?,
            BRUSHSIDES => write_records(&self.brush_sides, ctx, lump)?,
            AREAS => write_records(&self.areas, ctx, lump)?,
            AREAPORTALS => write_records(&self.area_portals, ctx, lump)?,
            LEAFWATERDATA => write_records(&self.leaf_water_data, ctx, lump)?,
            LEAFMINDISTTOWATER => u16_bytes(&self.leaf_min_dist_to_water, ctx),
            _ => Vec::new(),
        })
    }

    /// Texture data and info, the material name strings, macro texture indices.
    fn texture_lump_bytes(&self, lump: usize, ctx: &Ctx) -> Result<Vec<u8>> {
        Ok(match lump {
            TEXDATA => write_records(&self.texdata, ctx, lump)?,
            TEXINFO => write_records(&self.texinfo, ctx, lump)?,
            TEXDATA_STRING_DATA => self.texdata_string_data.clone(),
            TEXDATA_STRING_TABLE => i32_bytes(&self.texdata_string_table, ctx),
            FACE_MACRO_TEXTURE_INFO => u16_bytes(&self.face_macro_texture_info, ctx),
            _ => Vec::new(),
        })
    }

    /// Displacement infos, vertices, triangle flags and lightmap sample positions.
    fn displacement_lump_bytes(&self, lump: usize, ctx: &Ctx) -> Result<Vec<u8>> {
        Ok(match lump {
            DISPINFO => write_records(&self.disp_info, ctx, lump)?,
            DISP_VERTS => write_records(&self.disp_verts, ctx, lump)?,
            DISP_TRIS => u16_bytes(&self.disp_tris, ctx),
            DISP_LIGHTMAP_SAMPLE_POSITIONS => self.disp_lightmap_sample_positions.clone(),
            _ => Vec::new(),
        })
    }

    /// Lightmap samples, world lights, per-leaf ambient lighting and cubemap samples.
    fn lighting_lump_bytes(&self, lump: usize, ctx: &Ctx) -> Result<Vec<u8>> {
        Ok(match lump {
            LIGHTING => write_records(&self.lighting, ctx, lump)?,
            LIGHTING_HDR => write_records(&self.lighting_hdr, ctx, lump)?,
            WORLDLIGHTS => write_records(&self.world_lights, ctx, lump)?,
            WORLDLIGHTS_HDR => write_records(&self.world_lights_hdr, ctx, lump)?,
            LEAF_AMBIENT_INDEX_HDR => write_records(&self.leaf_ambient_index_hdr, ctx, lump)?,
            LEAF_AMBIENT_INDEX => write_records(&self.leaf_ambient_index, ctx, lump)?,
            LEAF_AMBIENT_LIGHTING_HDR => write_records(&self.leaf_ambient_lighting_hdr, ctx, lump)?,
            LEAF_AMBIENT_LIGHTING => write_records(&self.leaf_ambient_lighting, ctx, lump)?,
            CUBEMAPS => write_records(&self.cubemaps, ctx, lump)?,
            _ => Vec::new(),
        })
    }

    /// Overlays, water overlays, their fade distances and system levels.
    fn overlay_lump_bytes(&self, lump: usize, ctx: &Ctx) -> Result<Vec<u8>> {
        Ok(match lump {
            OVERLAYS => {
                let v: Vec<OverlayRecord> = self.overlays.iter().cloned().map(OverlayRecord).collect();
                write_records(&v, ctx, lump)?
            }
            WATEROVERLAYS => {
                let v: Vec<WaterOverlayRecord> = self
                    .water_overlays
                    .iter()
                    .cloned()
                    .map(WaterOverlayRecord)
                    .collect();
                write_records(&v, ctx, lump)?
            }
            OVERLAY_FADES => write_records(&self.overlay_fades, ctx, lump)?,
            OVERLAY_SYSTEM_LEVELS => write_records(&self.overlay_system_levels, ctx, lump)?,
            _ => Vec::new(),
        })
    }

    /// Lumps with a format of their own (entities, visibility, occlusion, physics, the game
    /// lump, the pakfile, map flags); any other lump has no typed value to write.
    fn own_format_lump_bytes(&self, lump: usize, ctx: &Ctx) -> Result<Vec<u8>> {
        Ok(match lump {
            ENTITIES if !self.entities.is_empty() => write_entities(&self.entities, self.entities_latin1),
            VISIBILITY => self
                .visibility
                .as_ref()
                .map(|v| v.to_bytes(ctx.endian))
                .unwrap_or_default(),
            OCCLUSION => self
                .occlusion
                .as_ref()
                .map(|o| o.to_bytes(ctx))
                .unwrap_or_default(),
            PHYSCOLLIDE | PHYSDISP => self.physics_lump_bytes(lump, ctx)?,
            GAME_LUMP if !self.game_lumps.lumps.is_empty() => self.game_lumps.to_bytes(ctx)?,
            PAKFILE => self.pakfile.clone(),
            MAP_FLAGS => self
                .map_flags
                .map(|f| i32_bytes(&[f as i32], ctx))
                .unwrap_or_default(),
            _ => Vec::new(),
        })
    }

    /// The collision models and the displacement collision.
    fn physics_lump_bytes(&self, lump: usize, ctx: &Ctx) -> Result<Vec<u8>> {
        Ok(match lump {
            PHYSCOLLIDE => self
                .phys_collide
                .as_ref()
                .map(|p| p.to_bytes(ctx.endian))
                .unwrap_or_default(),
            PHYSDISP => match &self.phys_disp {
                Some(p) => p.to_bytes(ctx.endian)?,
                None => Vec::new(),
            },
            _ => Vec::new(),
        })
    }

    /// The leaf of `model`'s tree holding point `p`, as the engine finds it: from the model's
    /// head node, to the front child when `p` is on or in front of the node's plane. `None` when
    /// an index is out of range or the walk does not end (a cyclic tree).
    pub fn leaf_index_at(&self, model: usize, p: [f64; 3]) -> Option<usize> {
        let mut n = self.models.get(model)?.head_node;
        for _ in 0..=self.nodes.len() {
            if n < 0 {
                let leaf = (-1 - n) as usize;
                return (leaf < self.leafs.len()).then_some(leaf);
            }
            let node = self.nodes.get(n as usize)?;
            let pl = self.planes.get(usize::try_from(node.plane).ok()?)?;
            let d = pl.normal[0] as f64 * p[0] + pl.normal[1] as f64 * p[1] + pl.normal[2] as f64 * p[2]
                - pl.dist as f64;
            n = node.children[if d >= 0.0 { 0 } else { 1 }];
        }
        None
    }

    /// The leaf record of [`Bsp::leaf_index_at`].
    pub fn leaf_at(&self, model: usize, p: [f64; 3]) -> Option<&crate::Leaf> {
        self.leaf_index_at(model, p).map(|i| &self.leafs[i])
    }

    /// The material name of texdata `index` (through the string table).
    pub fn texdata_name(&self, index: usize) -> Option<&str> {
        let td = self.texdata.get(index)?;
        let ofs = *self.texdata_string_table.get(usize::try_from(td.name_id).ok()?)?;
        let data = self.texdata_string_data.get(usize::try_from(ofs).ok()?..)?;
        let end = data.iter().position(|&b| b == 0).unwrap_or(data.len());
        std::str::from_utf8(&data[..end]).ok()
    }

    /// A brush's sides, as its first side and count name them (a negative start or count
    /// reads as 0; a range past the lump ends where the lump does).
    pub fn sides_of<'a>(&'a self, brush: &Brush) -> impl Iterator<Item = &'a BrushSide> + 'a {
        self.brush_sides
            .iter()
            .skip(brush.first_side.max(0) as usize)
            .take(brush.num_sides.max(0) as usize)
    }

    /// A model's faces, as its first face and count name them (clamped as [`Bsp::sides_of`]).
    pub fn faces_of<'a>(&'a self, model: &Model) -> impl Iterator<Item = &'a Face> + 'a {
        self.faces
            .iter()
            .skip(model.first_face.max(0) as usize)
            .take(model.num_faces.max(0) as usize)
    }

    /// Adds a material name to the string data and table (reusing an existing entry) and
    /// returns its string table index, for `TexData::name_id`.
    pub fn add_texdata_name(&mut self, name: &str) -> i32 {
        for (i, &ofs) in self.texdata_string_table.iter().enumerate() {
            let Ok(ofs) = usize::try_from(ofs) else { continue };
            let Some(data) = self.texdata_string_data.get(ofs..) else {
                continue;
            };
            let end = data.iter().position(|&b| b == 0).unwrap_or(data.len());
            if data[..end].eq_ignore_ascii_case(name.as_bytes()) {
                return i as i32;
            }
        }
        let ofs = self.texdata_string_data.len() as i32;
        self.texdata_string_data.extend_from_slice(name.as_bytes());
        self.texdata_string_data.push(0);
        self.texdata_string_table.push(ofs);
        (self.texdata_string_table.len() - 1) as i32
    }

    /// A face's vertex positions in winding (surfedge) order: `None` when an edge, surfedge or
    /// vertex index is out of range.
    pub fn face_vertices(&self, face: &crate::Face) -> Option<Vec<[f32; 3]>> {
        let first = usize::try_from(face.first_edge).ok()?;
        let count = usize::try_from(face.num_edges).ok()?;
        let surfedges = self.surfedges.get(first..first.checked_add(count)?)?;
        surfedges
            .iter()
            .map(|&se| {
                let edge = self.edges.get(se.unsigned_abs() as usize)?;
                let v = if se >= 0 { edge.0[0] } else { edge.0[1] };
                self.vertexes.get(v as usize).copied()
            })
            .collect()
    }

    /// The face indices of brush model `model`, clipped to the `face_count` faces there are
    /// (empty for a negative or out-of-range model).
    pub fn model_face_range(&self, model: usize, face_count: usize) -> std::ops::Range<usize> {
        let Some(m) = self.models.get(model) else {
            return 0..0;
        };
        match (usize::try_from(m.first_face), usize::try_from(m.num_faces)) {
            (Ok(first), Ok(n)) => first.min(face_count)..first.saturating_add(n).min(face_count),
            _ => 0..0,
        }
    }

    /// The lightmap samples of face `index` (LDR or HDR lump, HDR faces for HDR when present).
    pub fn face_lighting(&self, index: usize, hdr: bool) -> Option<crate::lighting::FaceLighting> {
        let faces = if hdr && !self.faces_hdr.is_empty() {
            &self.faces_hdr
        } else {
            &self.faces
        };
        let face = faces.get(index)?;
        let bumped = usize::try_from(face.texinfo)
            .ok()
            .and_then(|t| self.texinfo.get(t))
            .is_some_and(|t| {
                crate::flags::SurfaceFlags::from_record(t.flags)
                    .contains(crate::flags::SurfaceFlags::BUMPLIGHT)
            });
        crate::lighting::face_lighting(
            face,
            bumped,
            if hdr { &self.lighting_hdr } else { &self.lighting },
        )
    }
}

impl BspView<'_> {
    /// The owned [`Bsp`]: borrowed records and bytes are copied, decoded ones moved.
    pub fn into_owned(self) -> Bsp {
        let latin1 = self.entities.latin1();
        macro_rules! build {
            ($($lump:ident $f:ident),*) => {
                Bsp {
                    version: self.version,
                    revision: self.revision,
                    endian: self.endian,
                    order: self.order,
                    lump_versions: self.lump_versions,
                    entities_latin1: latin1,
                    raw: self.raw.into_iter().map(|(l, b)| (l, b.into_owned())).collect(),
                    tails: self.tails.into_iter().map(|(l, b)| (l, b.into_owned())).collect(),
                    $($f: self.$f.into_owned_lump(),)*
                }
            };
        }
        lump_fields!(build)
    }
}

impl Bsp {
    /// Moves lump `lump`'s typed value (and its raw bytes, if kept raw) from `from` into `self`.
    pub(crate) fn take_lump(&mut self, from: &mut Bsp, lump: usize) {
        macro_rules! take {
            ($($l:ident $f:ident),*) => {
                match lump {
                    $($l => self.$f = std::mem::take(&mut from.$f),)*
                    _ => {}
                }
            };
        }
        lump_fields!(take);
        if lump == ENTITIES {
            self.entities_latin1 = from.entities_latin1;
        }
        for (to, from) in [(&mut self.raw, &mut from.raw), (&mut self.tails, &mut from.tails)] {
            match from.remove(&lump) {
                Some(bytes) => {
                    to.insert(lump, bytes);
                }
                None => {
                    to.remove(&lump);
                }
            }
        }
    }
}

/// A plain `i32` list lump in the file's byte order.
fn i32_bytes(v: &[i32], ctx: &Ctx) -> Vec<u8> {
    let mut w = srcmap_bytes::Writer::with_capacity(ctx.endian, v.len() * 4);
    for &x in v {
        w.i32(x);
    }
    w.into_inner()
}

/// A plain `u16` list lump in the file's byte order.
fn u16_bytes(v: &[u16], ctx: &Ctx) -> Vec<u8> {
    let mut w = srcmap_bytes::Writer::with_capacity(ctx.endian, v.len() * 2);
    for &x in v {
        w.u16(x);
    }
    w.into_inner()
}
