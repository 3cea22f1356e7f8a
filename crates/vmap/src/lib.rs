//! Source 2 VMAP maps: a typed view over a DMX document.
//!
//! A [`Vmap`] owns its [`Dmx`] document, so writing it back goes through the DMX writer and is
//! byte-exact when nothing changed. The view reads attributes by name and tolerates type drift
//! between Hammer builds (vmap 16 to 40); anything it does not model stays in the document.
//!
//! - [`Vmap::nodes`] walks the map tree under `world` (entities, meshes, groups, instances,
//!   prefabs, …) with parent and depth.
//! - [`Entity`] gives key values (`entity_properties`) and I/O connections (`DmeConnectionData`).
//! - [`Vmap::selection_sets`], [`Vmap::map_variables`].
//! - [`PolygonMesh`] reads a `CDmePolygonMesh` (half-edge arrays plus data streams), checks its
//!   topology ([`PolygonMesh::check`]) and walks each face as a polygon with per-corner
//!   attributes ([`PolygonMesh::face_corners`], [`PolygonMesh::corner_value`]).
//! - Edits ([`Vmap::set_origin`], [`Vmap::set_key_value`]) change the document in place.
//! - New maps: [`VmapWriter`] builds a document from entities and polygon meshes
//!   ([`MeshSource`]), their half-edge topology made by [`HalfEdges::from_faces`].

mod halfedge;
mod mesh;
mod write;

pub use halfedge::{BuildError, HalfEdges};
pub use mesh::{Corner, DataArray, DataStream, PolygonMesh, TopologyError, TopologyStats};
pub use srcmap_dmx::{Dmx, DmxError, ElemRef, Element, Guid, Value};
pub use write::{FaceSource, MeshSource, Placement, VmapWriter, WRITTEN_FORMAT_VERSION, mesh_edges};

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum VmapError {
    #[error(transparent)]
    Dmx(#[from] DmxError),
    #[error("not a VMAP: {0}")]
    NotAVmap(String),
    #[error("element {element} ({class}): {message}")]
    Element {
        element: u32,
        class: String,
        message: String,
    },
}

/// A VMAP document.
#[derive(Debug, Clone, PartialEq)]
pub struct Vmap {
    pub doc: Dmx,
}

/// A map node found under `world`, with its place in the tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NodeRef {
    /// Element index in the document.
    pub element: u32,
    /// Parent node's element index (`None` for the world itself).
    pub parent: Option<u32>,
    pub depth: u32,
}

/// One entity I/O connection.
#[derive(Debug, Clone, PartialEq)]
pub struct Connection {
    pub output: String,
    /// VRF's `EntityIOTargetType` (7 = name or class name).
    pub target_type: i32,
    pub target: String,
    pub input: String,
    pub param: String,
    pub delay: f32,
    /// −1 = always.
    pub times_to_fire: i32,
}

/// A selection set and what it selects.
#[derive(Debug, Clone, PartialEq)]
pub struct SelectionSet {
    pub element: u32,
    pub name: String,
    /// Nested sets (element indexes).
    pub children: Vec<u32>,
    /// Selected nodes (object sets) or meshes (face sets).
    pub selected: Vec<u32>,
    /// Face indexes of a face selection set.
    pub faces: Vec<i32>,
}

/// One map variable (`CMapVariableSet` parallel arrays).
#[derive(Debug, Clone, PartialEq)]
pub struct MapVariable {
    pub name: String,
    pub value: Option<String>,
    /// Type name (vmap ≥ 29) or numeric type (older builds), as text.
    pub type_name: Option<String>,
}

/// The root element's map settings (`CMapRootElement`); missing values are `None`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RootInfo {
    pub is_prefab: Option<bool>,
    pub editor_build: Option<i32>,
    pub editor_version: Option<i32>,
    pub show_grid: Option<bool>,
    pub grid_spacing: Option<f32>,
    pub item_file: Option<String>,
    /// `defaultcamera`: position and look-at point.
    pub default_camera: Option<([f32; 3], [f32; 3])>,
    /// `world.mapUsageType` (`standard`, `skybox`, …).
    pub map_usage_type: Option<String>,
}

/// Map node classes the view knows by role.
pub const ENTITY_CLASSES: [&str; 2] = ["CMapEntity", "CMapWorld"];

impl Vmap {
    /// Reads a `.vmap` in any DMX encoding.
    pub fn read(data: &[u8]) -> Result<Vmap, VmapError> {
        Vmap::from_dmx(Dmx::read(data)?)
    }

    /// Wraps a document whose root is a `CMap*` element.
    pub fn from_dmx(doc: Dmx) -> Result<Vmap, VmapError> {
        match doc.root() {
            Some(r) if r.class.starts_with("CMap") => Ok(Vmap { doc }),
            Some(r) => Err(VmapError::NotAVmap(format!(
                "root element is a {} (expected CMapRootElement)",
                r.class
            ))),
            None => Err(VmapError::NotAVmap("no root element".into())),
        }
    }

    /// Writes in the document's own encoding (byte-exact when unmodified).
    pub fn write(&self) -> Result<Vec<u8>, VmapError> {
        Ok(self.doc.write()?)
    }

    pub fn element(&self, i: u32) -> Option<&Element> {
        self.doc.elements.get(i as usize)
    }

    fn child_ref(&self, i: u32, attr: &str) -> Option<u32> {
        match self.element(i)?.get(attr)? {
            Value::Element(ElemRef::Local(j)) => Some(*j),
            _ => None,
        }
    }

    fn refs(&self, i: u32, attr: &str) -> Vec<u32> {
        match self.element(i).and_then(|e| e.get(attr)) {
            Some(Value::ElementArray(v)) => v
                .iter()
                .filter_map(|r| match r {
                    ElemRef::Local(j) => Some(*j),
                    _ => None,
                })
                .collect(),
            Some(Value::Element(ElemRef::Local(j))) => vec![*j],
            _ => Vec::new(),
        }
    }

    /// `format vmap N` from the header.
    pub fn format_version(&self) -> u32 {
        self.doc.header.format_version
    }

    pub fn root(&self) -> &Element {
        &self.doc.elements[0]
    }

    /// The root's settings.
    pub fn root_info(&self) -> RootInfo {
        let r = self.root();
        let camera = self
            .child_ref(0, "defaultcamera")
            .and_then(|c| self.element(c))
            .and_then(|c| Some((c.get("position")?.as_vector3()?, c.get("lookat")?.as_vector3()?)));
        RootInfo {
            is_prefab: r.get("isprefab").and_then(Value::as_bool),
            editor_build: r.get("editorbuild").and_then(Value::as_int),
            editor_version: r.get("editorversion").and_then(Value::as_int),
            show_grid: r.get("showgrid").and_then(Value::as_bool),
            grid_spacing: r.get("gridspacing").and_then(Value::as_float),
            item_file: r.get("itemFile").and_then(Value::to_text),
            default_camera: camera,
            map_usage_type: self
                .world()
                .and_then(|w| self.element(w))
                .and_then(|w| w.get("mapUsageType"))
                .and_then(Value::to_text),
        }
    }

    /// The `world` element (`CMapWorld`).
    pub fn world(&self) -> Option<u32> {
        self.child_ref(0, "world")
    }

    /// Every map node under `world` (world first), depth-first in `children` order. Shared
    /// children are visited once.
    pub fn nodes(&self) -> Vec<NodeRef> {
        let mut out = Vec::new();
        let Some(world) = self.world() else { return out };
        let mut seen = vec![false; self.doc.elements.len()];
        let mut stack = vec![NodeRef {
            element: world,
            parent: None,
            depth: 0,
        }];
        while let Some(n) = stack.pop() {
            // Out-of-range references (possible after an edit) are skipped, not followed.
            match seen.get_mut(n.element as usize) {
                Some(s) if !*s => *s = true,
                _ => continue,
            }
            out.push(n);
            let kids = self.refs(n.element, "children");
            for &k in kids.iter().rev() {
                if (k as usize) < seen.len() && !seen[k as usize] {
                    stack.push(NodeRef {
                        element: k,
                        parent: Some(n.element),
                        depth: n.depth + 1,
                    });
                }
            }
        }
        out
    }

    /// Nodes of one class (`CMapGroup`, `CMapInstance`, `CMapPrefab`, `CMapMesh`, …).
    pub fn nodes_of(&self, class: &str) -> Vec<NodeRef> {
        self.nodes()
            .into_iter()
            .filter(|n| self.doc.elements[n.element as usize].class == class)
            .collect()
    }

    pub fn entities(&self) -> Vec<Entity<'_>> {
        self.nodes()
            .into_iter()
            .filter(|n| ENTITY_CLASSES.contains(&self.doc.elements[n.element as usize].class.as_str()))
            .map(|n| Entity { vmap: self, node: n })
            .collect()
    }

    pub fn groups(&self) -> Vec<NodeRef> {
        self.nodes_of("CMapGroup")
    }
    pub fn instances(&self) -> Vec<NodeRef> {
        self.nodes_of("CMapInstance")
    }
    pub fn prefabs(&self) -> Vec<NodeRef> {
        self.nodes_of("CMapPrefab")
    }
    /// `CMapPrefab` nodes through the entity view, for their transform and connections (a
    /// prefab has no key values).
    pub fn prefab_entities(&self) -> Vec<Entity<'_>> {
        self.prefabs()
            .into_iter()
            .map(|n| Entity { vmap: self, node: n })
            .collect()
    }

    /// `CMapMesh` nodes and their `meshData` element.
    pub fn meshes(&self) -> Vec<(NodeRef, u32)> {
        self.nodes_of("CMapMesh")
            .into_iter()
            .filter_map(|n| Some((n, self.child_ref(n.element, "meshData")?)))
            .collect()
    }

    /// Every `CDmePolygonMesh` in the document, reachable from a map node or not.
    pub fn polygon_mesh_elements(&self) -> Vec<u32> {
        (0..self.doc.elements.len() as u32)
            .filter(|&i| self.doc.elements[i as usize].class == "CDmePolygonMesh")
            .collect()
    }

    /// Reads a `CDmePolygonMesh` element.
    pub fn polygon_mesh(&self, element: u32) -> Result<PolygonMesh, VmapError> {
        PolygonMesh::read(&self.doc, element)
    }

    /// Origin, angles and scales of a node (missing values read as identity).
    pub fn transform(&self, node: u32) -> ([f32; 3], [f32; 3], [f32; 3]) {
        let e = self.element(node);
        let v = |name: &str, d: [f32; 3]| {
            e.and_then(|e| e.get(name))
                .and_then(Value::as_vector3)
                .unwrap_or(d)
        };
        (
            v("origin", [0.0; 3]),
            v("angles", [0.0; 3]),
            v("scales", [1.0; 3]),
        )
    }

    /// Selection sets under `rootSelectionSet` (nested ones included), depth-first.
    pub fn selection_sets(&self) -> Vec<SelectionSet> {
        let mut out = Vec::new();
        let Some(root) = self.child_ref(0, "rootSelectionSet") else {
            return out;
        };
        let mut stack = vec![root];
        let mut seen = std::collections::HashSet::new();
        while let Some(s) = stack.pop() {
            if !seen.insert(s) {
                continue;
            }
            let set = self.selection_set(s);
            stack.extend(set.children.iter().rev().copied());
            out.push(set);
        }
        out
    }

    /// The selection set at element `s`: its name, child sets, selected objects and faces.
    fn selection_set(&self, s: u32) -> SelectionSet {
        let e = &self.doc.elements[s as usize];
        let (selected, faces) = match self.child_ref(s, "selectionSetData") {
            Some(d) => {
                let mut sel = self.refs(d, "selectedObjects");
                sel.extend(self.refs(d, "meshes"));
                let faces = match self.element(d).and_then(|e| e.get("faces")) {
                    Some(Value::IntArray(f)) => f.clone(),
                    _ => Vec::new(),
                };
                (sel, faces)
            }
            None => (Vec::new(), Vec::new()),
        };
        SelectionSet {
            element: s,
            name: e
                .get("selectionSetName")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string(),
            children: self.refs(s, "children"),
            selected,
            faces,
        }
    }

    /// Map variables (`mapVariables`).
    pub fn map_variables(&self) -> Vec<MapVariable> {
        let Some(set) = self.child_ref(0, "mapVariables") else {
            return Vec::new();
        };
        let e = &self.doc.elements[set as usize];
        let strings = |name: &str| match e.get(name) {
            Some(Value::StringArray(v)) => v.clone(),
            Some(Value::IntArray(v)) => v.iter().map(|x| x.to_string()).collect(),
            _ => Vec::new(),
        };
        let names = strings("variableNames");
        let values = strings("variableValues");
        let mut types = strings("variableTypeNames");
        if types.is_empty() {
            types = strings("variableTypes");
        }
        names
            .into_iter()
            .enumerate()
            .map(|(i, name)| MapVariable {
                name,
                value: values.get(i).cloned(),
                type_name: types.get(i).cloned(),
            })
            .collect()
    }

    /// Moves a node.
    pub fn set_origin(&mut self, node: u32, origin: [f32; 3]) -> Result<(), VmapError> {
        let e = self
            .doc
            .elements
            .get_mut(node as usize)
            .ok_or_else(|| VmapError::Element {
                element: node,
                class: String::new(),
                message: "no such element".into(),
            })?;
        e.set("origin", Value::Vector3(origin));
        Ok(())
    }

    /// Replaces a mesh's vertex positions (`position:0` of its `vertexData`, mesh-local), row
    /// for row: the topology and every other stream stay as they are.
    pub fn set_mesh_positions(&mut self, mesh_element: u32, positions: &[[f32; 3]]) -> Result<(), VmapError> {
        let mesh = self.polygon_mesh(mesh_element)?;
        let err = |message: String| VmapError::Element {
            element: mesh_element,
            class: "CDmePolygonMesh".into(),
            message,
        };
        let stream = mesh
            .vertex_data_array
            .stream("position:0")
            .ok_or_else(|| err("no position:0 stream in vertexData".into()))?;
        let rows = mesh.positions().map_or(0, <[_]>::len);
        if rows != positions.len() {
            return Err(err(format!(
                "{} positions given for {rows} rows",
                positions.len()
            )));
        }
        self.doc.elements[stream.element as usize].set("data", Value::Vector3Array(positions.to_vec()));
        Ok(())
    }

    /// Sets an entity key value (in its `entity_properties`), adding the key if needed.
    pub fn set_key_value(&mut self, entity: u32, key: &str, value: &str) -> Result<(), VmapError> {
        let props = self
            .child_ref(entity, "entity_properties")
            .ok_or_else(|| VmapError::Element {
                element: entity,
                class: self.element(entity).map(|e| e.class.clone()).unwrap_or_default(),
                message: "has no entity_properties".into(),
            })?;
        self.doc.elements[props as usize].set(key, Value::String(value.to_string()));
        Ok(())
    }
}

/// An entity node (`CMapEntity` or the world).
#[derive(Debug, Clone, Copy)]
pub struct Entity<'a> {
    vmap: &'a Vmap,
    pub node: NodeRef,
}

impl<'a> Entity<'a> {
    pub fn element(&self) -> &'a Element {
        &self.vmap.doc.elements[self.node.element as usize]
    }

    fn props(&self) -> Option<&'a Element> {
        self.vmap
            .child_ref(self.node.element, "entity_properties")
            .and_then(|i| self.vmap.element(i))
    }

    /// Key values as text, in stored order; a `name` key is the properties element's own name
    /// (DMX has no attribute of that name), listed first when not empty.
    pub fn key_values(&self) -> Vec<(&'a str, String)> {
        let Some(p) = self.props() else { return Vec::new() };
        let name = (!p.name.is_empty()).then(|| ("name", p.name.clone()));
        name.into_iter()
            .chain(
                p.attrs
                    .iter()
                    .filter_map(|a| Some((a.name.as_str(), a.value.to_text()?))),
            )
            .collect()
    }

    pub fn get(&self, key: &str) -> Option<String> {
        let p = self.props()?;
        if key == "name" && !p.name.is_empty() {
            return Some(p.name.clone());
        }
        p.get(key)?.to_text()
    }

    pub fn classname(&self) -> Option<String> {
        self.get("classname")
    }

    pub fn transform(&self) -> ([f32; 3], [f32; 3], [f32; 3]) {
        self.vmap.transform(self.node.element)
    }

    /// I/O connections (`connectionsData`).
    pub fn connections(&self) -> Vec<Connection> {
        self.vmap
            .refs(self.node.element, "connectionsData")
            .into_iter()
            .filter_map(|c| self.vmap.element(c))
            .map(|c| {
                let s = |n: &str| c.get(n).and_then(Value::as_str).unwrap_or("").to_string();
                Connection {
                    output: s("outputName"),
                    target_type: c.get("targetType").and_then(Value::as_int).unwrap_or(7),
                    target: s("targetName"),
                    input: s("inputName"),
                    param: s("overrideParam"),
                    delay: c.get("delay").and_then(Value::as_float).unwrap_or(0.0),
                    times_to_fire: c.get("timesToFire").and_then(Value::as_int).unwrap_or(-1),
                }
            })
            .collect()
    }
}
