//! Writing a new VMAP: the root settings, the world, entities and polygon meshes as elements of
//! a fresh DMX document, laid out with the attributes Hammer's own files carry (vmap.md §2–3).
//! Ids are deterministic, so the same input always gives the same bytes.

use srcmap_dmx::{Dmx, ElemRef, Element, Guid, Header, PrefixElement, Value};

use crate::halfedge::{BuildError, HalfEdges};
use crate::{Connection, Vmap};

/// The `format vmap N` written (Hammer of CS2 and s&box open it; VRF writes the same).
pub const WRITTEN_FORMAT_VERSION: u32 = 29;

/// One face of a mesh to write: a vertex loop counter-clockwise seen from the front, its
/// texture parameters and one row of corner data per corner.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FaceSource {
    pub vertices: Vec<u32>,
    /// Index into [`MeshSource::materials`].
    pub material: u32,
    /// `textureAxisU` / `textureAxisV`: axis xyz and shift w.
    pub axis_u: [f32; 4],
    pub axis_v: [f32; 4],
    /// World units per texel along U and V.
    pub scale: [f32; 2],
    pub texcoords: Vec<[f32; 2]>,
    pub normals: Vec<[f32; 3]>,
    pub tangents: Vec<[f32; 4]>,
    /// Blend paint per corner (`VertexPaintBlendParams:0`), for displacements' alpha.
    pub blend: Option<Vec<[f32; 4]>>,
}

/// A polygon mesh to write: mesh-local positions, faces, materials and edge flags.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MeshSource {
    pub positions: Vec<[f32; 3]>,
    pub faces: Vec<FaceSource>,
    /// Material paths (`materials/….vmat`).
    pub materials: Vec<String>,
}

/// Where a node stands: world-space origin, angles and scales.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Placement {
    pub origin: [f32; 3],
    pub angles: [f32; 3],
    pub scales: [f32; 3],
}

impl Default for Placement {
    fn default() -> Placement {
        Placement {
            origin: [0.0; 3],
            angles: [0.0; 3],
            scales: [1.0; 3],
        }
    }
}

/// A VMAP under construction. Element 0 is the root.
#[derive(Debug, Clone)]
pub struct VmapWriter {
    doc: Dmx,
    next_seed: u64,
    world: u32,
}

impl Default for VmapWriter {
    fn default() -> Self {
        Self::new()
    }
}

impl VmapWriter {
    /// A map with an empty world (keyvalues2 4 until written in another encoding).
    pub fn new() -> VmapWriter {
        let header = Header::new("keyvalues2", 4, "vmap", WRITTEN_FORMAT_VERSION);
        let mut w = VmapWriter {
            doc: Dmx::new(header, Element::new("CMapRootElement", "", Guid::from_seed(0))),
            next_seed: 1,
            world: 0,
        };
        w.doc.prefix.push(PrefixElement {
            id: None,
            attrs: Vec::new(),
        });
        w.root_settings();
        w
    }

    /// The world element.
    pub fn world(&self) -> u32 {
        self.world
    }

    fn add(&mut self, class: &str, name: &str, attrs: Vec<(&str, Value)>) -> u32 {
        let mut e = Element::new(class, name, Guid::from_seed(self.next_seed));
        self.next_seed += 1;
        for (k, v) in attrs {
            e.set(k, v);
        }
        self.doc.elements.push(e);
        (self.doc.elements.len() - 1) as u32
    }

    fn set(&mut self, element: u32, name: &str, value: Value) {
        self.doc.elements[element as usize].set(name, value);
    }

    fn push_ref(&mut self, element: u32, attr: &str, child: u32) {
        let e = &mut self.doc.elements[element as usize];
        match e.get_mut(attr) {
            Some(Value::ElementArray(v)) => v.push(ElemRef::Local(child)),
            _ => e.set(attr, Value::ElementArray(vec![ElemRef::Local(child)])),
        }
    }

    fn root_settings(&mut self) {
        let camera = self.add(
            "CStoredCamera",
            "",
            vec![
                ("position", Value::Vector3([0.0, -1000.0, 1000.0])),
                ("lookat", Value::Vector3([0.0; 3])),
            ],
        );
        let cameras = self.add(
            "CStoredCameras",
            "",
            vec![
                ("activecamera", Value::Int(-1)),
                ("cameras", Value::ElementArray(Vec::new())),
            ],
        );
        let world = self.add("CMapWorld", "", Vec::new());
        self.world = world;
        let settings = root_values(camera, cameras, world);
        for (k, v) in settings {
            self.set(0, k, v);
        }
        self.node_values(world, 0, &Placement::default());
        self.entity_values(world, &[("classname".into(), "worldspawn".into())], &[]);
        for (k, v) in world_values() {
            self.set(world, k, v);
        }
        let extras = self.root_elements();
        for (k, v) in extras {
            self.set(0, k, v);
        }
    }

    /// The visibility manager, map variables and root selection set.
    fn root_elements(&mut self) -> Vec<(&'static str, Value)> {
        let empty_strings = || Value::StringArray(Vec::new());
        let vis = self.add(
            "CVisibilityMgr",
            "",
            vec![
                ("nodes", Value::ElementArray(Vec::new())),
                ("hiddenFlags", Value::IntArray(Vec::new())),
            ],
        );
        let vars = self.add(
            "CMapVariableSet",
            "",
            vec![
                ("variableNames", empty_strings()),
                ("variableValues", empty_strings()),
                ("variableTypeNames", empty_strings()),
                ("variableTypeParameters", empty_strings()),
                ("m_ChoiceGroups", Value::ElementArray(Vec::new())),
            ],
        );
        let selection = self.add(
            "CMapSelectionSet",
            "",
            vec![
                ("children", Value::ElementArray(Vec::new())),
                ("selectionSetName", Value::String(String::new())),
                ("selectionSetData", Value::Element(ElemRef::Null)),
            ],
        );
        vec![
            ("visbility", Value::Element(ElemRef::Local(vis))),
            ("mapVariables", Value::Element(ElemRef::Local(vars))),
            ("rootSelectionSet", Value::Element(ElemRef::Local(selection))),
            ("m_ReferencedMeshSnapshots", Value::ElementArray(Vec::new())),
            ("m_bIsCordoning", Value::Bool(false)),
            ("m_bCordonsVisible", Value::Bool(false)),
            ("nodeInstanceData", Value::ElementArray(Vec::new())),
        ]
    }

    /// The attributes every map node has.
    fn node_values(&mut self, node: u32, node_id: i32, at: &Placement) {
        let reference = u64::from_le_bytes(
            Guid::from_seed(self.next_seed ^ 0x5EED).0[..8]
                .try_into()
                .unwrap_or_default(),
        );
        let values = [
            ("origin", Value::Vector3(at.origin)),
            ("angles", Value::QAngle(at.angles)),
            ("scales", Value::Vector3(at.scales)),
            ("nodeID", Value::Int(node_id)),
            ("referenceID", Value::UInt64(reference)),
            ("children", Value::ElementArray(Vec::new())),
            ("editorOnly", Value::Bool(false)),
            ("force_hidden", Value::Bool(false)),
            ("transformLocked", Value::Bool(false)),
            ("variableTargetKeys", Value::StringArray(Vec::new())),
            ("variableNames", Value::StringArray(Vec::new())),
        ];
        for (k, v) in values {
            self.set(node, k, v);
        }
    }

    /// The relay plugs and connections entities and prefabs both have.
    fn relay_values(&mut self, node: u32, connections: &[Connection]) {
        let plugs = self.add("DmePlugList", "", plug_list_values());
        let links: Vec<ElemRef> = connections
            .iter()
            .map(|c| ElemRef::Local(self.add("DmeConnectionData", "", connection_values(c))))
            .collect();
        self.set(node, "relayPlugData", Value::Element(ElemRef::Local(plugs)));
        self.set(node, "connectionsData", Value::ElementArray(links));
    }

    /// Entity attributes: plugs, connections and key values.
    fn entity_values(&mut self, node: u32, keys: &[(String, String)], connections: &[Connection]) {
        self.relay_values(node, connections);
        // A key called `name` is the element's own name: DMX keeps no attribute of that name.
        let name = keys
            .iter()
            .find(|(k, _)| k == "name")
            .map_or("", |(_, v)| v.as_str());
        let props: Vec<(&str, Value)> = keys
            .iter()
            .filter(|(k, _)| k != "name")
            .map(|(k, v)| (k.as_str(), Value::String(v.clone())))
            .collect();
        let props = self.add("EditGameClassProps", name, props);
        self.set(node, "entity_properties", Value::Element(ElemRef::Local(props)));
    }

    /// Adds a key value to the world's `entity_properties`.
    pub fn set_world_key(&mut self, key: &str, value: &str) {
        self.set_key(self.world, key, value);
    }

    /// Sets a key value in an entity node's `entity_properties`.
    pub fn set_key(&mut self, entity: u32, key: &str, value: &str) {
        let props = self
            .doc
            .elements
            .get(entity as usize)
            .and_then(|e| e.get("entity_properties"))
            .cloned();
        if let Some(Value::Element(ElemRef::Local(p))) = props {
            self.set(p, key, Value::String(value.to_string()));
        }
    }

    /// Adds a `CMapEntity` under `parent` with these key values (classname among them).
    pub fn add_entity(
        &mut self,
        parent: u32,
        node_id: i32,
        at: &Placement,
        keys: &[(String, String)],
        connections: &[Connection],
    ) -> u32 {
        let e = self.add("CMapEntity", "", Vec::new());
        self.node_values(e, node_id, at);
        self.entity_values(e, keys, connections);
        self.set(e, "hitNormal", Value::Vector3([0.0, 0.0, 1.0]));
        self.set(e, "isProceduralEntity", Value::Bool(false));
        self.push_ref(parent, "children", e);
        e
    }

    /// Adds a plain node of `class` (`CMapPrefab`, `CMapGroup`, …) with extra attributes.
    pub fn add_node(
        &mut self,
        parent: u32,
        class: &str,
        node_id: i32,
        at: &Placement,
        attrs: Vec<(&str, Value)>,
    ) -> u32 {
        let e = self.add(class, "", Vec::new());
        self.node_values(e, node_id, at);
        for (k, v) in attrs {
            self.set(e, k, v);
        }
        self.push_ref(parent, "children", e);
        e
    }

    /// Adds a `CMapPrefab` under `parent`: a node with relay plugs and `connections`, then
    /// `attrs` (`targetMapPath`, `targetName`, …) in the order Hammer writes them.
    pub fn add_prefab(
        &mut self,
        parent: u32,
        node_id: i32,
        at: &Placement,
        connections: &[Connection],
        attrs: Vec<(&str, Value)>,
    ) -> u32 {
        let e = self.add("CMapPrefab", "", Vec::new());
        self.node_values(e, node_id, at);
        self.relay_values(e, connections);
        self.set(e, "target", Value::Element(ElemRef::Null));
        for (k, v) in attrs {
            self.set(e, k, v);
        }
        self.push_ref(parent, "children", e);
        e
    }

    /// Adds a `CMapSelectionSet` named `name` selecting `objects` (node elements) under
    /// `parent`, a set added before, or the root selection set when `None`.
    pub fn add_selection_set(&mut self, parent: Option<u32>, name: &str, objects: &[u32]) -> u32 {
        let selected = objects.iter().map(|&o| ElemRef::Local(o)).collect();
        let data = self.add(
            "CObjectSelectionSetDataElement",
            "objectSelectionSetData",
            vec![("selectedObjects", Value::ElementArray(selected))],
        );
        let set = self.add(
            "CMapSelectionSet",
            "",
            vec![
                ("children", Value::ElementArray(Vec::new())),
                ("setType", Value::Int(0)),
                ("selectionSetName", Value::String(name.to_string())),
                ("selectionSetData", Value::Element(ElemRef::Local(data))),
            ],
        );
        let root = match self.doc.elements[0].get("rootSelectionSet") {
            Some(Value::Element(ElemRef::Local(r))) => Some(*r),
            _ => None,
        };
        if let Some(parent) = parent.or(root) {
            self.push_ref(parent, "children", set);
        }
        set
    }

    /// Sets an attribute of any element (the root is element 0), e.g. `m_bIsCordoning`.
    pub fn set_attribute(&mut self, element: u32, name: &str, value: Value) {
        self.set(element, name, value);
    }

    /// Names an element (the DMX element's own `name`, as Hammer names a cordon).
    pub fn set_element_name(&mut self, element: u32, name: &str) {
        self.doc.elements[element as usize].name = name.to_string();
    }

    /// A string attribute on a node that Hammer does not read, for data a converter carries
    /// through a VMAP (e.g. what a Source 1 displacement needs to come back unchanged).
    pub fn set_string(&mut self, node: u32, name: &str, value: &str) {
        self.set(node, name, Value::String(value.to_string()));
    }

    /// Hides a node in Hammer (`force_hidden`).
    pub fn hide(&mut self, node: u32) {
        self.set(node, "force_hidden", Value::Bool(true));
    }

    /// Adds a `CMapMesh` under `parent`, its polygon mesh built from `mesh` with `smoothing`
    /// as edge flags (0 = by angle, 1 = soft, 2 = hard) per undirected edge in the order
    /// [`HalfEdges::from_faces`] pairs them (see [`mesh_edges`]).
    pub fn add_mesh(
        &mut self,
        parent: u32,
        node_id: i32,
        at: &Placement,
        mesh: &MeshSource,
        edge_flags: impl Fn(u32, u32) -> i32,
    ) -> Result<u32, BuildError> {
        let topology = mesh_edges(mesh)?;
        let data = self.polygon_mesh(mesh, &topology, edge_flags);
        let node = self.add("CMapMesh", "", Vec::new());
        self.node_values(node, node_id, at);
        for (k, v) in map_mesh_values(data) {
            self.set(node, k, v);
        }
        self.push_ref(parent, "children", node);
        Ok(node)
    }

    /// The `CDmePolygonMesh` element with its data arrays and streams.
    fn polygon_mesh(
        &mut self,
        mesh: &MeshSource,
        t: &HalfEdges,
        edge_flags: impl Fn(u32, u32) -> i32,
    ) -> u32 {
        let h = t.half_edge_count();
        let ints = |n: usize| Value::IntArray((0..n as i32).collect());
        let vertex_data = self.vertex_data(mesh);
        let corner_data = self.corner_data(mesh, t);
        let edge_data = self.edge_data(t, edge_flags);
        let face_data = self.face_data(mesh);
        let subdivision = self.add(
            "CDmePolygonMeshSubdivisionData",
            "subdivisionData",
            vec![
                ("subdivisionLevels", Value::IntArray(vec![0; h])),
                ("streams", Value::ElementArray(Vec::new())),
            ],
        );
        let local = |e: u32| Value::Element(ElemRef::Local(e));
        let attrs = vec![
            ("vertexEdgeIndices", Value::IntArray(t.vertex_edge.clone())),
            ("vertexDataIndices", ints(mesh.positions.len())),
            ("edgeVertexIndices", Value::IntArray(t.edge_vertex.clone())),
            ("edgeOppositeIndices", Value::IntArray(t.edge_opposite.clone())),
            ("edgeNextIndices", Value::IntArray(t.edge_next.clone())),
            ("edgeFaceIndices", Value::IntArray(t.edge_face.clone())),
            (
                "edgeDataIndices",
                Value::IntArray((0..h as i32).map(|x| x / 2).collect()),
            ),
            ("edgeVertexDataIndices", ints(h)),
            ("faceEdgeIndices", Value::IntArray(t.face_edge.clone())),
            ("faceDataIndices", ints(mesh.faces.len())),
            ("materials", Value::StringArray(mesh.materials.clone())),
            ("vertexData", local(vertex_data)),
            ("faceVertexData", local(corner_data)),
            ("edgeData", local(edge_data)),
            ("faceData", local(face_data)),
            ("subdivisionData", local(subdivision)),
        ];
        self.add("CDmePolygonMesh", "meshData", attrs)
    }

    fn vertex_data(&mut self, mesh: &MeshSource) -> u32 {
        let position = self.stream("position", 3, Value::Vector3Array(mesh.positions.clone()));
        self.data_array("vertexData", mesh.positions.len(), vec![position])
    }

    /// Corner rows, one per half-edge (boundary half-edges get zero rows).
    fn corner_data(&mut self, mesh: &MeshSource, t: &HalfEdges) -> u32 {
        let h = t.half_edge_count();
        let (mut uv, mut normal, mut tangent) = (vec![[0.0; 2]; h], vec![[0.0; 3]; h], vec![[0.0; 4]; h]);
        let mut blend = mesh
            .faces
            .iter()
            .any(|f| f.blend.is_some())
            .then(|| vec![[0.0; 4]; h]);
        for (f, face) in mesh.faces.iter().enumerate() {
            for (i, he) in corner_half_edges(t, f, face.vertices.len())
                .into_iter()
                .enumerate()
            {
                uv[he] = face.texcoords.get(i).copied().unwrap_or_default();
                normal[he] = face.normals.get(i).copied().unwrap_or_default();
                tangent[he] = face.tangents.get(i).copied().unwrap_or_default();
                if let (Some(b), Some(src)) = (blend.as_mut(), face.blend.as_ref()) {
                    b[he] = src.get(i).copied().unwrap_or_default();
                }
            }
        }
        let mut streams = vec![
            self.stream("texcoord", 1, Value::Vector2Array(uv)),
            self.stream("normal", 1, Value::Vector3Array(normal)),
            self.stream("tangent", 1, Value::Vector4Array(tangent)),
        ];
        if let Some(b) = blend {
            streams.push(self.paint_stream(b));
        }
        self.data_array("faceVertexData", h, streams)
    }

    fn edge_data(&mut self, t: &HalfEdges, edge_flags: impl Fn(u32, u32) -> i32) -> u32 {
        let flags: Vec<i32> = (0..t.half_edge_count() / 2)
            .map(|k| edge_flags(t.edge_vertex[2 * k] as u32, t.edge_vertex[2 * k + 1] as u32))
            .collect();
        let n = flags.len();
        let s = self.stream("flags", 3, Value::IntArray(flags));
        self.data_array("edgeData", n, vec![s])
    }

    fn face_data(&mut self, mesh: &MeshSource) -> u32 {
        let f = &mesh.faces;
        let streams = vec![
            self.stream(
                "textureScale",
                0,
                Value::Vector2Array(f.iter().map(|x| x.scale).collect()),
            ),
            self.stream(
                "textureAxisU",
                0,
                Value::Vector4Array(f.iter().map(|x| x.axis_u).collect()),
            ),
            self.stream(
                "textureAxisV",
                0,
                Value::Vector4Array(f.iter().map(|x| x.axis_v).collect()),
            ),
            self.stream(
                "materialindex",
                8,
                Value::IntArray(f.iter().map(|x| x.material as i32).collect()),
            ),
            self.stream("flags", 3, Value::IntArray(vec![0; f.len()])),
            self.stream("lightmapScaleBias", 1, Value::IntArray(vec![0; f.len()])),
        ];
        self.data_array("faceData", f.len(), streams)
    }

    fn stream(&mut self, semantic: &str, state_flags: i32, data: Value) -> u32 {
        self.stream_named(semantic, semantic, 0, state_flags, data)
    }

    /// Blend paint: vertex buffer 1, no standard attribute name (as Hammer writes it).
    fn paint_stream(&mut self, data: Vec<[f32; 4]>) -> u32 {
        self.stream_named("VertexPaintBlendParams", "", 1, 1, Value::Vector4Array(data))
    }

    fn stream_named(
        &mut self,
        semantic: &str,
        standard: &str,
        buffer: i32,
        state_flags: i32,
        data: Value,
    ) -> u32 {
        let attrs = vec![
            ("standardAttributeName", Value::String(standard.to_string())),
            ("semanticName", Value::String(semantic.to_string())),
            ("semanticIndex", Value::Int(0)),
            ("vertexBufferLocation", Value::Int(buffer)),
            ("dataStateFlags", Value::Int(state_flags)),
            ("subdivisionBinding", Value::Element(ElemRef::Null)),
            ("data", data),
        ];
        self.add("CDmePolygonMeshDataStream", &format!("{semantic}:0"), attrs)
    }

    fn data_array(&mut self, name: &str, size: usize, streams: Vec<u32>) -> u32 {
        let streams = Value::ElementArray(streams.into_iter().map(ElemRef::Local).collect());
        self.add(
            "CDmePolygonMeshDataArray",
            name,
            vec![("size", Value::Int(size as i32)), ("streams", streams)],
        )
    }

    /// The finished map; `map_asset_references` lists `references` (vmat and vmdl paths).
    pub fn finish(mut self, references: Vec<String>) -> Vmap {
        if let Some(p) = self.doc.prefix.first_mut() {
            p.attrs.push(srcmap_dmx::Attribute {
                name: "map_asset_references".into(),
                value: Value::StringArray(references),
            });
        }
        Vmap { doc: self.doc }
    }
}

/// The half-edge topology `mesh` will be written with.
pub fn mesh_edges(mesh: &MeshSource) -> Result<HalfEdges, BuildError> {
    let loops: Vec<Vec<u32>> = mesh.faces.iter().map(|f| f.vertices.clone()).collect();
    HalfEdges::from_faces(mesh.positions.len(), &loops)
}

/// The half-edge arriving at each corner of face `f`, in the face's own corner order (the loop
/// from `face_edge` starts with the edge from corner 0 to corner 1, which arrives at corner 1).
fn corner_half_edges(t: &HalfEdges, f: usize, corners: usize) -> Vec<usize> {
    let loop_ = t.face_half_edges(f);
    (0..corners).map(|i| loop_[(i + corners - 1) % corners]).collect()
}

fn root_values(camera: u32, cameras: u32, world: u32) -> Vec<(&'static str, Value)> {
    vec![
        ("isprefab", Value::Bool(false)),
        ("editorbuild", Value::Int(8632)),
        ("editorversion", Value::Int(400)),
        ("showgrid", Value::Bool(true)),
        ("snaprotationangle", Value::Int(15)),
        ("gridspacing", Value::Float(64.0)),
        ("show3dgrid", Value::Bool(true)),
        ("itemFile", Value::String(String::new())),
        ("defaultcamera", Value::Element(ElemRef::Local(camera))),
        ("3dcameras", Value::Element(ElemRef::Local(cameras))),
        ("world", Value::Element(ElemRef::Local(world))),
    ]
}

fn world_values() -> Vec<(&'static str, Value)> {
    vec![
        ("nextDecalID", Value::Int(0)),
        ("fixupEntityNames", Value::Bool(true)),
        ("mapUsageType", Value::String("standard".into())),
    ]
}

fn plug_list_values() -> Vec<(&'static str, Value)> {
    vec![
        ("names", Value::StringArray(Vec::new())),
        ("dataTypes", Value::IntArray(Vec::new())),
        ("plugTypes", Value::IntArray(Vec::new())),
        ("descriptions", Value::StringArray(Vec::new())),
    ]
}

fn connection_values(c: &Connection) -> Vec<(&'static str, Value)> {
    vec![
        ("outputName", Value::String(c.output.clone())),
        ("targetType", Value::Int(c.target_type)),
        ("targetName", Value::String(c.target.clone())),
        ("inputName", Value::String(c.input.clone())),
        ("overrideParam", Value::String(c.param.clone())),
        ("delay", Value::Float(c.delay)),
        ("timesToFire", Value::Int(c.times_to_fire)),
    ]
}

/// A `CMapMesh`'s own attributes around its `meshData` (the defaults Hammer writes).
fn map_mesh_values(mesh_data: u32) -> Vec<(&'static str, Value)> {
    let s = |v: &str| Value::String(v.to_string());
    vec![
        ("cubeMapName", s("")),
        ("lightGroup", s("")),
        ("visexclude", Value::Bool(false)),
        ("disablemerging", Value::Bool(false)),
        ("renderwithdynamic", Value::Bool(false)),
        ("disableHeightDisplacement", Value::Bool(false)),
        ("fademindist", Value::Float(-1.0)),
        ("fademaxdist", Value::Float(0.0)),
        ("bakelighting", Value::Bool(true)),
        ("precomputelightprobes", Value::Bool(true)),
        ("renderToCubemaps", Value::Bool(true)),
        ("disableShadows", Value::Bool(false)),
        ("smoothingAngle", Value::Float(40.0)),
        ("tintColor", Value::Color([255, 255, 255, 255])),
        ("renderAmt", Value::Int(255)),
        ("physicsType", s("default")),
        ("physicsGroup", s("")),
        ("physicsInteractsAs", s("")),
        ("physicsInteractsWith", s("")),
        ("physicsInteractsExclude", s("")),
        ("meshData", Value::Element(ElemRef::Local(mesh_data))),
        ("useAsOccluder", Value::Bool(false)),
        ("physicsSimplificationOverride", Value::Bool(false)),
        ("physicsSimplificationError", Value::Float(0.0)),
    ]
}
