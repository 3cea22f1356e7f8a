//! The Valve Map Format: a typed view over a lossless KeyValues [`Document`].
//!
//! [`Vmf::parse`] reads every class Hammer writes — `versioninfo`, `visgroups` (nested),
//! `viewsettings`, `world` and `entity` (ordered keyvalues, parsed `connections`, the `editor`
//! block, `group`s), `solid`s and their `side`s (plane points, material, texture axes, rotation,
//! lightmap scale, smoothing groups, `dispinfo` with all its row blocks, Hammer++'s
//! `vertices_plus`), both kinds of `hidden` blocks, `cameras`, `cordon` and `cordons`. Blocks it
//! does not know stay in the document untouched.
//!
//! The typed view is a snapshot with [`NodeId`]s back into the document. Edits go through
//! [`Vmf`]'s setters, which change the document and the snapshot together, so
//! [`Vmf::to_bytes`] writes an edited file that differs from the input only where it was edited,
//! and an unedited one byte for byte.
//!
//! ```
//! let text = "world\n{\n\t\"id\" \"1\"\n\t\"classname\" \"worldspawn\"\n}\n";
//! let mut vmf = srcmap_vmf::Vmf::parse(text).unwrap();
//! assert_eq!(vmf.world.classname, "worldspawn");
//! vmf.set_value(srcmap_vmf::EntityRef::World, "skyname", "sky_day01_01");
//! assert_eq!(srcmap_vmf::Vmf::parse(vmf.to_text()).unwrap().world.get("skyname"), Some("sky_day01_01"));
//! ```

mod read;
mod values;
mod write;

pub use srcmap_kv::{Document, NodeId};
pub use values::format_number;
pub use write::{VmfWriter, block_solid, format_f32};

/// Hammer's displacement triangle tag bits (`COREDISPTRI_TAG_*`, the VMF's `triangle_tags`): a
/// plain bit, or a force bit whose value bit wins over the plain one.
pub mod hammer_tag {
    pub const WALKABLE: i32 = 1 << 0;
    pub const FORCE_WALKABLE: i32 = 1 << 1;
    pub const FORCE_WALKABLE_VALUE: i32 = 1 << 2;
    pub const BUILDABLE: i32 = 1 << 3;
    pub const FORCE_BUILDABLE: i32 = 1 << 4;
    pub const FORCE_BUILDABLE_VALUE: i32 = 1 << 5;
}

use std::collections::BTreeMap;

/// A VMF error: where (1-based line and column) and what.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{line}:{column}: {message}")]
pub struct VmfError {
    pub offset: usize,
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl From<srcmap_kv::KvError> for VmfError {
    fn from(e: srcmap_kv::KvError) -> Self {
        VmfError {
            offset: e.offset,
            line: e.line,
            column: e.column,
            message: e.message,
        }
    }
}

/// `versioninfo`: which Hammer saved the file and how often.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct VersionInfo {
    pub node: Option<NodeId>,
    pub editor_version: i64,
    pub editor_build: i64,
    pub map_version: i64,
    pub format_version: i64,
    pub prefab: bool,
}

/// A visgroup with its nested children.
#[derive(Debug, Clone, PartialEq)]
pub struct VisGroup {
    pub node: NodeId,
    pub name: String,
    pub id: i64,
    pub color: [u8; 3],
    pub children: Vec<VisGroup>,
}

/// The `editor` block of an entity or solid.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Editor {
    pub node: Option<NodeId>,
    pub color: [u8; 3],
    pub visgroup_ids: Vec<i64>,
    pub group_id: Option<i64>,
    pub visgroup_shown: bool,
    pub visgroup_auto_shown: bool,
    pub comments: Option<String>,
    pub logical_pos: Option<[f64; 2]>,
}

/// One output of an entity: `"OnTrigger" "target,Input,param,delay,times"` (Hammer separates the
/// fields with commas, newer Hammers with the ESC character).
#[derive(Debug, Clone, PartialEq)]
pub struct Connection {
    pub node: NodeId,
    pub output: String,
    pub target: String,
    pub input: String,
    pub parameter: String,
    pub delay: f64,
    /// -1 fires always.
    pub times_to_fire: i64,
    /// `','` or `'\x1b'`, as found.
    pub separator: char,
}

/// `[x y z shift] scale`: one texture axis of a side.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct TextureAxis {
    pub axis: [f64; 3],
    pub shift: f64,
    pub scale: f64,
}

/// A displacement on a side, with every row block.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DispInfo {
    pub node: Option<NodeId>,
    pub power: u32,
    pub start_position: [f64; 3],
    pub flags: i64,
    pub elevation: f64,
    pub subdiv: bool,
    /// Per vertex, `(2^power + 1)^2` of each, row-major.
    pub normals: Vec<[f32; 3]>,
    pub distances: Vec<f32>,
    pub offsets: Vec<[f32; 3]>,
    pub offset_normals: Vec<[f32; 3]>,
    pub alphas: Vec<f32>,
    /// Per triangle, `2 * (2^power)^2`.
    pub triangle_tags: Vec<i32>,
    /// The ten words of `allowed_verts`.
    pub allowed_verts: Vec<i32>,
}

impl DispInfo {
    /// Vertices along one edge: `2^power + 1`.
    pub fn vertices_per_row(&self) -> usize {
        (1usize << self.power.min(4)) + 1
    }
}

/// One face of a brush.
#[derive(Debug, Clone, PartialEq)]
pub struct Side {
    pub node: NodeId,
    pub id: i64,
    /// Three points on the plane, clockwise seen from outside the brush (Hammer's order).
    pub plane: [[f64; 3]; 3],
    pub material: String,
    pub uaxis: TextureAxis,
    pub vaxis: TextureAxis,
    pub rotation: f64,
    pub lightmap_scale: f64,
    pub smoothing_groups: u32,
    pub dispinfo: Option<Box<DispInfo>>,
    /// Hammer++'s exact face vertices (`vertices_plus`), when present.
    pub vertices_plus: Option<Vec<[f64; 3]>>,
}

/// A brush.
#[derive(Debug, Clone, PartialEq)]
pub struct Solid {
    pub node: NodeId,
    pub id: i64,
    pub sides: Vec<Side>,
    pub editor: Option<Editor>,
    /// Inside a `hidden` block (hidden by a visgroup in Hammer; still compiled).
    pub hidden: bool,
}

/// A `group` in the world: brushes and entities grouped in Hammer.
#[derive(Debug, Clone, PartialEq)]
pub struct Group {
    pub node: NodeId,
    pub id: i64,
    pub editor: Option<Editor>,
}

/// The world or an entity.
#[derive(Debug, Clone, PartialEq)]
pub struct Entity {
    pub node: NodeId,
    pub id: i64,
    pub classname: String,
    /// Every key/value pair in file order, `id` and `classname` included, duplicates kept.
    pub keyvalues: Vec<(String, String)>,
    pub connections: Vec<Connection>,
    pub solids: Vec<Solid>,
    pub groups: Vec<Group>,
    pub editor: Option<Editor>,
    /// Inside a top-level `hidden` block.
    pub hidden: bool,
}

impl Entity {
    /// The first value of `key` (ASCII case-insensitive, as the engine compares keys).
    pub fn get(&self, key: &str) -> Option<&str> {
        self.keyvalues
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(key))
            .map(|(_, v)| v.as_str())
    }

    /// The `origin` key as three numbers.
    pub fn origin(&self) -> Option<[f64; 3]> {
        self.get("origin").and_then(values::parse_vec3)
    }
}

/// A Hammer camera.
#[derive(Debug, Clone, PartialEq)]
pub struct Camera {
    pub node: NodeId,
    pub position: [f64; 3],
    pub look: [f64; 3],
}

/// `cameras`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Cameras {
    pub node: Option<NodeId>,
    pub active: i64,
    pub cameras: Vec<Camera>,
}

/// The old single `cordon` block.
#[derive(Debug, Clone, PartialEq)]
pub struct Cordon {
    pub node: NodeId,
    pub name: Option<String>,
    pub active: bool,
    /// `(mins, maxs)` of each box (the old single cordon has one).
    pub boxes: Vec<([f64; 3], [f64; 3])>,
}

/// The newer `cordons` block: several named cordons of several boxes.
#[derive(Debug, Clone, PartialEq)]
pub struct Cordons {
    pub node: NodeId,
    pub active: bool,
    pub cordons: Vec<Cordon>,
}

/// A parsed VMF: the lossless document and the typed view of it.
#[derive(Debug, Clone)]
pub struct Vmf {
    doc: Document,
    /// Sides and displacements a lenient parse dropped, each with its position and ids (always
    /// empty after a strict parse, which fails on the first of them instead).
    pub problems: Vec<VmfError>,
    pub version_info: Option<VersionInfo>,
    pub visgroups: Vec<VisGroup>,
    /// `viewsettings` key/values in order.
    pub view_settings: Vec<(String, String)>,
    pub world: Entity,
    /// Every entity but the world, in file order; those in top-level `hidden` blocks included
    /// (with `hidden` set) where they stand in the file.
    pub entities: Vec<Entity>,
    pub cameras: Option<Cameras>,
    pub cordon: Option<Cordon>,
    pub cordons: Option<Cordons>,
}

/// Which entity an edit addresses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntityRef {
    World,
    /// Index into [`Vmf::entities`].
    Entity(usize),
}

/// Which side an edit addresses: entity, index of the solid in it, index of the side.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SideRef {
    pub entity: EntityRef,
    pub solid: usize,
    pub side: usize,
}

impl Vmf {
    /// Parses VMF text.
    pub fn parse(text: impl Into<String>) -> Result<Vmf, VmfError> {
        Self::from_document(Document::parse_with(text, Self::KV_OPTIONS)?)
    }

    /// VMF values are raw (backslashes in paths are plain characters) except `\"`, which VMF
    /// writers use for a quote inside a value.
    pub const KV_OPTIONS: srcmap_kv::ParseOptions = srcmap_kv::ParseOptions {
        escapes: false,
        quote_escapes: true,
    };

    /// Parses VMF bytes (a non-UTF-8 byte is an error with its position).
    pub fn parse_bytes(bytes: &[u8]) -> Result<Vmf, VmfError> {
        Self::from_document(Document::parse_bytes_with(bytes, Self::KV_OPTIONS)?)
    }

    /// Builds the typed view over an already parsed document.
    pub fn from_document(doc: Document) -> Result<Vmf, VmfError> {
        read::read(doc, false)
    }

    /// Like [`Vmf::parse_bytes`], but a malformed side (plane, texture axis, number) or
    /// displacement is dropped from the typed view and recorded in [`Vmf::problems`] instead of
    /// failing the whole file, as a compiler that skips bad brushes wants. Syntax errors still fail.
    pub fn parse_lenient(bytes: &[u8]) -> Result<Vmf, VmfError> {
        read::read(Document::parse_bytes_with(bytes, Self::KV_OPTIONS)?, true)
    }

    pub fn document(&self) -> &Document {
        &self.doc
    }

    /// Gives the document back (for edits the typed setters do not cover; re-read it with
    /// [`Vmf::from_document`] afterwards).
    pub fn into_document(self) -> Document {
        self.doc
    }

    /// The file bytes: the input verbatim when nothing was edited.
    pub fn to_bytes(&self) -> Vec<u8> {
        self.doc.to_bytes()
    }

    pub fn to_text(&self) -> String {
        self.doc.to_text()
    }

    /// The world followed by every other entity.
    pub fn all_entities(&self) -> impl Iterator<Item = &Entity> {
        std::iter::once(&self.world).chain(self.entities.iter())
    }

    pub fn entity(&self, which: EntityRef) -> &Entity {
        match which {
            EntityRef::World => &self.world,
            EntityRef::Entity(i) => &self.entities[i],
        }
    }

    fn entity_mut(&mut self, which: EntityRef) -> &mut Entity {
        match which {
            EntityRef::World => &mut self.world,
            EntityRef::Entity(i) => &mut self.entities[i],
        }
    }

    /// Sets an entity's key (the first one of that name), adding it when absent.
    pub fn set_value(&mut self, which: EntityRef, key: &str, value: &str) {
        if which == EntityRef::World && self.world.node == NodeId::ROOT {
            // A file without a world block gets one on its first world edit.
            self.world.node = self.doc.append_block(NodeId::ROOT, "world");
        }
        let node = self.entity(which).node;
        self.doc.set_value(node, key, value);
        let ent = self.entity_mut(which);
        match ent
            .keyvalues
            .iter_mut()
            .find(|(k, _)| k.eq_ignore_ascii_case(key))
        {
            Some((_, v)) => *v = value.to_owned(),
            None => ent.keyvalues.push((key.to_owned(), value.to_owned())),
        }
        if key.eq_ignore_ascii_case("classname") {
            ent.classname = value.to_owned();
        }
    }

    pub fn side(&self, at: SideRef) -> &Side {
        &self.entity(at.entity).solids[at.solid].sides[at.side]
    }

    /// Changes a side's material.
    pub fn set_material(&mut self, at: SideRef, material: &str) {
        let node = self.side(at).node;
        self.doc.set_value(node, "material", material);
        self.entity_mut(at.entity).solids[at.solid].sides[at.side].material = material.to_owned();
    }

    /// Changes a side's plane points (written as Hammer writes them: `(x y z) (x y z) (x y z)`).
    pub fn set_plane(&mut self, at: SideRef, plane: [[f64; 3]; 3]) {
        let node = self.side(at).node;
        self.doc.set_value(node, "plane", &values::format_plane(&plane));
        self.entity_mut(at.entity).solids[at.solid].sides[at.side].plane = plane;
    }

    /// Moves a whole solid by `offset` (its plane points; texture shifts are left alone).
    pub fn translate_solid(&mut self, entity: EntityRef, solid: usize, offset: [f64; 3]) {
        for side in 0..self.entity(entity).solids[solid].sides.len() {
            let at = SideRef { entity, solid, side };
            let mut plane = self.side(at).plane;
            for p in &mut plane {
                for (c, o) in p.iter_mut().zip(offset) {
                    *c += o;
                }
            }
            self.set_plane(at, plane);
        }
    }

    /// Map-wide statistics (what `srcmap info` prints).
    pub fn stats(&self) -> Stats {
        Stats::of(self)
    }
}

/// Counts and bounds of a map.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Stats {
    pub solids: usize,
    pub sides: usize,
    /// Entities other than the world.
    pub entities: usize,
    /// Entity count per class, sorted by class name.
    pub entities_by_class: Vec<(String, usize)>,
    pub displacements: usize,
    /// Distinct materials (upper-cased, as the engine compares them), with the number of sides.
    pub materials: Vec<(String, usize)>,
    /// `func_instance` entities, and the distinct instance files they name.
    pub instances: usize,
    pub instance_files: Vec<String>,
    pub hidden_solids: usize,
    pub hidden_entities: usize,
    pub visgroups: usize,
    /// Bounds of every plane point and entity origin, when there is any.
    pub bounds: Option<([f64; 3], [f64; 3])>,
}

impl Stats {
    fn of(vmf: &Vmf) -> Stats {
        let mut t = StatsTally::default();
        let mut s = Stats::default();
        for ent in vmf.all_entities() {
            if !std::ptr::eq(ent, &vmf.world) {
                t.add_entity(&mut s, ent);
            }
            for solid in &ent.solids {
                t.add_solid(&mut s, solid);
            }
        }
        s.entities = vmf.entities.len();
        s.entities_by_class = t.classes.into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
        let mut materials: BTreeMap<String, usize> = BTreeMap::new();
        for (name, n) in t.spelled {
            *materials.entry(name.to_ascii_uppercase()).or_default() += n;
        }
        s.materials = materials.into_iter().collect();
        s.instance_files = t.files.into_keys().map(str::to_owned).collect();
        fn count(groups: &[VisGroup]) -> usize {
            groups.iter().map(|g| 1 + count(&g.children)).sum()
        }
        s.visgroups = count(&vmf.visgroups);
        s.bounds = t.bounds;
        s
    }
}

/// What [`Stats::of`] gathers beside the plain counts: classes, material spellings, instance
/// files, bounds.
#[derive(Default)]
struct StatsTally<'v> {
    classes: BTreeMap<&'v str, usize>,
    /// Counted by exact spelling first (no allocation per side), merged case-insensitively
    /// after.
    spelled: std::collections::HashMap<&'v str, usize>,
    files: BTreeMap<&'v str, ()>,
    bounds: Option<([f64; 3], [f64; 3])>,
}

impl<'v> StatsTally<'v> {
    fn grow(&mut self, p: [f64; 3]) {
        let b = self.bounds.get_or_insert((p, p));
        for (i, c) in p.into_iter().enumerate() {
            b.0[i] = b.0[i].min(c);
            b.1[i] = b.1[i].max(c);
        }
    }

    /// A point entity or brush entity (not the world): its class, instance file, origin.
    fn add_entity(&mut self, s: &mut Stats, ent: &'v Entity) {
        *self.classes.entry(ent.classname.as_str()).or_default() += 1;
        s.hidden_entities += ent.hidden as usize;
        if ent.classname.eq_ignore_ascii_case("func_instance") {
            s.instances += 1;
            if let Some(f) = ent.get("file") {
                self.files.insert(f, ());
            }
        }
        if let Some(o) = ent.origin() {
            self.grow(o);
        }
    }

    /// A solid: its sides, their materials and plane points.
    fn add_solid(&mut self, s: &mut Stats, solid: &'v Solid) {
        s.solids += 1;
        s.hidden_solids += solid.hidden as usize;
        for side in &solid.sides {
            s.sides += 1;
            s.displacements += side.dispinfo.is_some() as usize;
            *self.spelled.entry(side.material.as_str()).or_default() += 1;
            for p in side.plane {
                self.grow(p);
            }
        }
    }
}
