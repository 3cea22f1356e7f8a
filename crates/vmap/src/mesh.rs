//! `CDmePolygonMesh`: Hammer's half-edge mesh (vmap.md §3).
//!
//! Half-edge `h` points at its head vertex `edge_vertex[h]`; its twin is `edge_opposite[h]`, so
//! its origin is `edge_vertex[edge_opposite[h]]`. `edge_next[h]` continues around the same face
//! (or open boundary, face −1). Each face names one of its half-edges; walking `edge_next` from
//! it yields the face's corners counter-clockwise seen from the front.

use srcmap_dmx::{Dmx, ElemRef, Value};

use crate::VmapError;

/// One `CDmePolygonMeshDataStream`.
#[derive(Debug, Clone, PartialEq)]
pub struct DataStream {
    pub element: u32,
    /// `semantic:index`, e.g. `texcoord:0`.
    pub name: String,
    pub semantic_name: String,
    pub semantic_index: i32,
    pub data_state_flags: i32,
    /// The rows: a typed array value (`vector3_array`, `int_array`, …).
    pub data: Value,
}

/// One `CDmePolygonMeshDataArray`: `size` rows shared by several streams.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DataArray {
    pub element: Option<u32>,
    pub size: i32,
    pub streams: Vec<DataStream>,
}

impl DataArray {
    pub fn stream(&self, name: &str) -> Option<&DataStream> {
        self.streams.iter().find(|s| s.name == name)
    }
}

/// Rows in a data array (a negative size counts as none).
fn array_size(a: &DataArray) -> usize {
    a.size.max(0) as usize
}

/// A polygon mesh read from the document.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PolygonMesh {
    pub element: u32,
    pub vertex_edge: Vec<i32>,
    pub vertex_data: Vec<i32>,
    pub edge_vertex: Vec<i32>,
    pub edge_opposite: Vec<i32>,
    pub edge_next: Vec<i32>,
    pub edge_face: Vec<i32>,
    pub edge_data: Vec<i32>,
    pub edge_vertex_data: Vec<i32>,
    pub face_edge: Vec<i32>,
    pub face_data: Vec<i32>,
    pub materials: Vec<String>,
    pub vertex_data_array: DataArray,
    pub face_vertex_data_array: DataArray,
    pub edge_data_array: DataArray,
    pub face_data_array: DataArray,
}

/// One corner of a face: the half-edge arriving at it, its vertex and its data rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Corner {
    pub half_edge: u32,
    pub vertex: u32,
    /// Row in `vertexData` (positions).
    pub vertex_row: i32,
    /// Row in `faceVertexData` (texcoords, normals, tangents: per corner).
    pub face_vertex_row: i32,
}

/// A violated half-edge invariant.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TopologyError {
    #[error("array {name} has {len} entries, expected {expected}")]
    Length {
        name: &'static str,
        len: usize,
        expected: usize,
    },
    #[error("{count} half-edges: they come in twin pairs, so the count must be even")]
    OddHalfEdges { count: usize },
    #[error("{array}[{index}] = {value} is out of range 0..{limit}")]
    Range {
        array: &'static str,
        index: usize,
        value: i32,
        limit: usize,
    },
    #[error("half-edge {h}: opposite {opp} does not point back (its opposite is {back})")]
    Opposite { h: usize, opp: usize, back: i32 },
    #[error("half-edge {h}: next {next} does not start where {h} ends (vertex {head})")]
    NextStart { h: usize, next: usize, head: i32 },
    #[error("half-edge {h}: next {next} lies in face {next_face}, not face {face}")]
    NextFace {
        h: usize,
        next: usize,
        face: i32,
        next_face: i32,
    },
    #[error("half-edge {h} is the next of {count} half-edges (must be exactly one)")]
    NotPermutation { h: usize, count: usize },
    #[error("face {face}: its loop from half-edge {start} does not close within {limit} steps")]
    OpenLoop { face: usize, start: usize, limit: usize },
    #[error("face {face} has {in_loop} half-edges in its loop but {owned} half-edges name it")]
    FaceCount {
        face: usize,
        in_loop: usize,
        owned: usize,
    },
    #[error("vertex {v}: its half-edge {h} leaves vertex {origin}, not {v}")]
    VertexEdge { v: usize, h: usize, origin: i32 },
}

/// Counts from a successful [`PolygonMesh::check`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TopologyStats {
    pub vertices: usize,
    pub half_edges: usize,
    pub faces: usize,
    /// Half-edges on open boundaries (face −1).
    pub boundary_half_edges: usize,
    /// Faces per corner count 3, 4, 5+ (triangles, quads, n-gons).
    pub triangles: usize,
    pub quads: usize,
    pub ngons: usize,
}

fn int_array(e: &srcmap_dmx::Element, name: &str) -> Vec<i32> {
    match e.get(name) {
        Some(Value::IntArray(v)) => v.clone(),
        _ => Vec::new(),
    }
}

/// The `CDmePolygonMeshDataArray` `r` refers to (empty when it is not a local element).
fn data_array(doc: &Dmx, r: Option<ElemRef>) -> DataArray {
    let Some(ElemRef::Local(i)) = r else {
        return DataArray::default();
    };
    let Some(e) = doc.elements.get(i as usize) else {
        return DataArray::default();
    };
    let streams = match e.get("streams") {
        Some(Value::ElementArray(v)) => v
            .iter()
            .filter_map(|r| match r {
                ElemRef::Local(j) => Some(*j),
                _ => None,
            })
            .filter_map(|j| data_stream(doc, j))
            .collect(),
        _ => Vec::new(),
    };
    DataArray {
        element: Some(i),
        size: e.get("size").and_then(Value::as_int).unwrap_or(0),
        streams,
    }
}

/// The `CDmePolygonMeshDataStream` at element `j` (`None` when out of range).
fn data_stream(doc: &Dmx, j: u32) -> Option<DataStream> {
    let s = doc.elements.get(j as usize)?;
    Some(DataStream {
        element: j,
        name: s.name.clone(),
        semantic_name: s
            .get("semanticName")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string(),
        semantic_index: s.get("semanticIndex").and_then(Value::as_int).unwrap_or(0),
        data_state_flags: s.get("dataStateFlags").and_then(Value::as_int).unwrap_or(0),
        data: s.get("data").cloned().unwrap_or(Value::IntArray(Vec::new())),
    })
}

/// The `CDmePolygonMesh` at `element`, checked to be one.
fn polygon_mesh_element(doc: &Dmx, element: u32) -> Result<&srcmap_dmx::Element, VmapError> {
    let e = doc
        .elements
        .get(element as usize)
        .ok_or_else(|| VmapError::Element {
            element,
            class: String::new(),
            message: "no such element".into(),
        })?;
    if e.class != "CDmePolygonMesh" {
        return Err(VmapError::Element {
            element,
            class: e.class.clone(),
            message: "not a CDmePolygonMesh".into(),
        });
    }
    Ok(e)
}

impl PolygonMesh {
    /// Reads the `CDmePolygonMesh` at `element`.
    pub fn read(doc: &Dmx, element: u32) -> Result<PolygonMesh, VmapError> {
        let e = polygon_mesh_element(doc, element)?;
        Ok(PolygonMesh {
            element,
            vertex_edge: int_array(e, "vertexEdgeIndices"),
            vertex_data: int_array(e, "vertexDataIndices"),
            edge_vertex: int_array(e, "edgeVertexIndices"),
            edge_opposite: int_array(e, "edgeOppositeIndices"),
            edge_next: int_array(e, "edgeNextIndices"),
            edge_face: int_array(e, "edgeFaceIndices"),
            edge_data: int_array(e, "edgeDataIndices"),
            edge_vertex_data: int_array(e, "edgeVertexDataIndices"),
            face_edge: int_array(e, "faceEdgeIndices"),
            face_data: int_array(e, "faceDataIndices"),
            materials: match e.get("materials") {
                Some(Value::StringArray(v)) => v.clone(),
                _ => Vec::new(),
            },
            vertex_data_array: data_array(doc, e.get("vertexData").and_then(Value::as_element)),
            face_vertex_data_array: data_array(doc, e.get("faceVertexData").and_then(Value::as_element)),
            edge_data_array: data_array(doc, e.get("edgeData").and_then(Value::as_element)),
            face_data_array: data_array(doc, e.get("faceData").and_then(Value::as_element)),
        })
    }

    pub fn vertex_count(&self) -> usize {
        self.vertex_edge.len()
    }
    pub fn half_edge_count(&self) -> usize {
        self.edge_vertex.len()
    }
    pub fn face_count(&self) -> usize {
        self.face_edge.len()
    }

    /// Origin vertex of half-edge `h` (the head of its twin).
    pub fn origin(&self, h: usize) -> Option<i32> {
        let opp = *self.edge_opposite.get(h)?;
        self.edge_vertex.get(usize::try_from(opp).ok()?).copied()
    }

    /// Mesh-local vertex positions (`position:0` of `vertexData`), indexed by data row.
    pub fn positions(&self) -> Option<&[[f32; 3]]> {
        match &self.vertex_data_array.stream("position:0")?.data {
            Value::Vector3Array(v) => Some(v),
            _ => None,
        }
    }

    /// Checks every half-edge invariant; returns counts, or every violation found.
    pub fn check(&self) -> Result<TopologyStats, Vec<TopologyError>> {
        let mut errs = Vec::new();
        self.check_lengths(&mut errs);
        if !errs.is_empty() {
            return Err(errs);
        }
        self.check_ranges(&mut errs);
        if !errs.is_empty() {
            return Err(errs);
        }
        let boundary = self.check_half_edges(&mut errs);
        self.check_vertex_edges(&mut errs);
        let (triangles, quads, ngons) = self.check_faces(&mut errs);
        if errs.is_empty() {
            Ok(TopologyStats {
                vertices: self.vertex_count(),
                half_edges: self.half_edge_count(),
                faces: self.face_count(),
                boundary_half_edges: boundary,
                triangles,
                quads,
                ngons,
            })
        } else {
            Err(errs)
        }
    }

    /// Every index array has one entry per vertex, half-edge or face, and half-edges pair up.
    fn check_lengths(&self, errs: &mut Vec<TopologyError>) {
        let (v, h, f) = (self.vertex_count(), self.half_edge_count(), self.face_count());
        let lengths: [(&'static str, usize, usize); 8] = [
            ("vertexDataIndices", self.vertex_data.len(), v),
            ("edgeOppositeIndices", self.edge_opposite.len(), h),
            ("edgeNextIndices", self.edge_next.len(), h),
            ("edgeFaceIndices", self.edge_face.len(), h),
            ("edgeDataIndices", self.edge_data.len(), h),
            ("edgeVertexDataIndices", self.edge_vertex_data.len(), h),
            ("faceDataIndices", self.face_data.len(), f),
            ("faceEdgeIndices", self.face_edge.len(), f),
        ];
        for (name, len, expected) in lengths {
            if len != expected {
                errs.push(TopologyError::Length { name, len, expected });
            }
        }
        if h % 2 != 0 {
            errs.push(TopologyError::OddHalfEdges { count: h });
        }
    }

    /// Every index points inside the array it indexes (−1 allowed where it means "none").
    fn check_ranges(&self, errs: &mut Vec<TopologyError>) {
        for (array, values, limit, minus_one_ok) in self.index_ranges() {
            for (index, &value) in values.iter().enumerate() {
                let ok = (value >= 0 && (value as usize) < limit) || (minus_one_ok && value == -1);
                if !ok {
                    errs.push(TopologyError::Range {
                        array,
                        index,
                        value,
                        limit,
                    });
                }
            }
        }
        self.check_face_data_range(errs);
    }

    /// Each index array (but `faceDataIndices`) with the limit of its values and whether −1
    /// ("none") is allowed.
    fn index_ranges(&self) -> [(&'static str, &[i32], usize, bool); 9] {
        let (v, h, f) = (self.vertex_count(), self.half_edge_count(), self.face_count());
        [
            ("vertexEdgeIndices", &self.vertex_edge, h, true),
            (
                "vertexDataIndices",
                &self.vertex_data,
                array_size(&self.vertex_data_array),
                false,
            ),
            ("edgeVertexIndices", &self.edge_vertex, v, false),
            ("edgeOppositeIndices", &self.edge_opposite, h, false),
            ("edgeNextIndices", &self.edge_next, h, false),
            ("edgeFaceIndices", &self.edge_face, f, true),
            (
                "edgeDataIndices",
                &self.edge_data,
                array_size(&self.edge_data_array),
                false,
            ),
            (
                "edgeVertexDataIndices",
                &self.edge_vertex_data,
                array_size(&self.face_vertex_data_array),
                false,
            ),
            ("faceEdgeIndices", &self.face_edge, h, false),
        ]
    }

    /// `faceDataIndices` all point inside the face data array.
    fn check_face_data_range(&self, errs: &mut Vec<TopologyError>) {
        for (index, &value) in self.face_data.iter().enumerate() {
            if value < 0 || value as usize >= array_size(&self.face_data_array) {
                errs.push(TopologyError::Range {
                    array: "faceDataIndices",
                    index,
                    value,
                    limit: array_size(&self.face_data_array),
                });
            }
        }
    }

    /// Twins pair up, `next` continues from the head on the same face and is a permutation;
    /// returns the number of boundary half-edges (face −1).
    fn check_half_edges(&self, errs: &mut Vec<TopologyError>) -> usize {
        let h = self.half_edge_count();
        let mut next_of = vec![0usize; h];
        let mut boundary = 0;
        for e in 0..h {
            let opp = self.edge_opposite[e] as usize;
            if opp == e || self.edge_opposite[opp] as usize != e {
                errs.push(TopologyError::Opposite {
                    h: e,
                    opp,
                    back: self.edge_opposite[opp],
                });
            }
            let next = self.edge_next[e] as usize;
            next_of[next] += 1;
            self.check_next(e, next, errs);
            if self.edge_face[e] < 0 {
                boundary += 1;
            }
        }
        for (e, &count) in next_of.iter().enumerate() {
            if count != 1 {
                errs.push(TopologyError::NotPermutation { h: e, count });
            }
        }
        boundary
    }

    /// Half-edge `next` follows `e`: it starts at `e`'s head and lies on the same face.
    fn check_next(&self, e: usize, next: usize, errs: &mut Vec<TopologyError>) {
        let head = self.edge_vertex[e];
        if self.origin(next) != Some(head) {
            errs.push(TopologyError::NextStart { h: e, next, head });
        }
        if self.edge_face[next] != self.edge_face[e] {
            errs.push(TopologyError::NextFace {
                h: e,
                next,
                face: self.edge_face[e],
                next_face: self.edge_face[next],
            });
        }
    }

    /// Each vertex's half-edge starts at that vertex.
    fn check_vertex_edges(&self, errs: &mut Vec<TopologyError>) {
        for (vtx, &e) in self.vertex_edge.iter().enumerate() {
            if e >= 0 {
                let origin = self.origin(e as usize).unwrap_or(-1);
                if origin != vtx as i32 {
                    errs.push(TopologyError::VertexEdge {
                        v: vtx,
                        h: e as usize,
                        origin,
                    });
                }
            }
        }
    }

    /// Each face's loop closes and holds exactly the half-edges that name the face; returns
    /// the count of triangles, quads and larger polygons.
    fn check_faces(&self, errs: &mut Vec<TopologyError>) -> (usize, usize, usize) {
        let h = self.half_edge_count();
        let owned = self.owned_half_edges();
        let (mut triangles, mut quads, mut ngons) = (0, 0, 0);
        for (face, &start) in self.face_edge.iter().enumerate() {
            let start = start as usize;
            let Some(n) = self.loop_length(start) else {
                errs.push(TopologyError::OpenLoop {
                    face,
                    start,
                    limit: h,
                });
                continue;
            };
            if n != owned[face] || self.edge_face[start] != face as i32 {
                errs.push(TopologyError::FaceCount {
                    face,
                    in_loop: n,
                    owned: owned[face],
                });
            }
            match n {
                3 => triangles += 1,
                4 => quads += 1,
                _ => ngons += 1,
            }
        }
        (triangles, quads, ngons)
    }

    /// Per face, the half-edges that name it.
    fn owned_half_edges(&self) -> Vec<usize> {
        let mut owned = vec![0usize; self.face_count()];
        for &face in &self.edge_face {
            if face >= 0 {
                owned[face as usize] += 1;
            }
        }
        owned
    }

    /// Half-edges in the `next` loop from `start`, or `None` when it does not come back
    /// within as many steps as there are half-edges.
    fn loop_length(&self, start: usize) -> Option<usize> {
        let h = self.half_edge_count();
        let mut e = start;
        let mut n = 0;
        loop {
            n += 1;
            e = self.edge_next[e] as usize;
            if e == start || n > h {
                break;
            }
        }
        (e == start).then_some(n)
    }

    /// The corners of face `face` in stored (counter-clockwise) order. Assumes a mesh that
    /// passed [`check`](Self::check); on broken data it stops instead of looping or panicking.
    pub fn face_corners(&self, face: usize) -> Vec<Corner> {
        let mut out = Vec::new();
        let Some(&start) = self.face_edge.get(face) else {
            return out;
        };
        let Ok(start) = usize::try_from(start) else {
            return out;
        };
        let mut e = start;
        for _ in 0..self.half_edge_count() {
            let Some(&vertex) = self.edge_vertex.get(e) else {
                break;
            };
            let vertex = vertex.max(0) as u32;
            out.push(Corner {
                half_edge: e as u32,
                vertex,
                vertex_row: self.vertex_data.get(vertex as usize).copied().unwrap_or(-1),
                face_vertex_row: self.edge_vertex_data.get(e).copied().unwrap_or(-1),
            });
            match self.edge_next.get(e).map(|&n| usize::try_from(n)) {
                Some(Ok(n)) if n != start => e = n,
                _ => break,
            }
        }
        out
    }

    /// The face's polygon as mesh-local positions.
    pub fn face_polygon(&self, face: usize) -> Vec<[f32; 3]> {
        let Some(pos) = self.positions() else {
            return Vec::new();
        };
        self.face_corners(face)
            .iter()
            .filter_map(|c| pos.get(usize::try_from(c.vertex_row).ok()?).copied())
            .collect()
    }

    /// A per-corner attribute (`texcoord:0`, `normal:0`, `tangent:0`, … from `faceVertexData`,
    /// or `position:0` from `vertexData`) as a scalar value.
    pub fn corner_value(&self, stream: &str, corner: &Corner) -> Option<Value> {
        if let Some(s) = self.face_vertex_data_array.stream(stream) {
            return s.data.array_item(usize::try_from(corner.face_vertex_row).ok()?);
        }
        let s = self.vertex_data_array.stream(stream)?;
        s.data.array_item(usize::try_from(corner.vertex_row).ok()?)
    }

    /// A per-face attribute (`materialindex:0`, `textureAxisU:0`, …) from `faceData`.
    pub fn face_value(&self, stream: &str, face: usize) -> Option<Value> {
        let row = usize::try_from(*self.face_data.get(face)?).ok()?;
        self.face_data_array.stream(stream)?.data.array_item(row)
    }

    /// The material path of a face (`materials[materialindex]`).
    pub fn face_material(&self, face: usize) -> Option<&str> {
        let idx = self.face_value("materialindex:0", face)?.as_int()?;
        self.materials.get(usize::try_from(idx).ok()?).map(String::as_str)
    }

    /// Newell normal (not normalised) of a face, from mesh-local positions.
    pub fn face_normal(&self, face: usize) -> [f32; 3] {
        let p = self.face_polygon(face);
        let mut n = [0.0f32; 3];
        for i in 0..p.len() {
            let (a, b) = (p[i], p[(i + 1) % p.len()]);
            n[0] += (a[1] - b[1]) * (a[2] + b[2]);
            n[1] += (a[2] - b[2]) * (a[0] + b[0]);
            n[2] += (a[0] - b[0]) * (a[1] + b[1]);
        }
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One open quad: 4 vertices, 4 twin pairs, one face and a boundary loop.
    fn quad() -> PolygonMesh {
        let rows = |n: i32| DataArray {
            element: None,
            size: n,
            streams: Vec::new(),
        };
        PolygonMesh {
            vertex_edge: vec![0, 2, 4, 6],
            vertex_data: vec![0, 1, 2, 3],
            edge_vertex: vec![1, 0, 2, 1, 3, 2, 0, 3],
            edge_opposite: vec![1, 0, 3, 2, 5, 4, 7, 6],
            edge_next: vec![2, 7, 4, 1, 6, 3, 0, 5],
            edge_face: vec![0, -1, 0, -1, 0, -1, 0, -1],
            edge_data: vec![0, 0, 1, 1, 2, 2, 3, 3],
            edge_vertex_data: (0..8).collect(),
            face_edge: vec![0],
            face_data: vec![0],
            vertex_data_array: rows(4),
            face_vertex_data_array: rows(8),
            edge_data_array: rows(4),
            face_data_array: rows(1),
            ..Default::default()
        }
    }

    #[test]
    fn a_valid_quad_passes_and_walks_in_order() {
        let m = quad();
        let s = m.check().unwrap();
        assert_eq!(
            (s.vertices, s.half_edges, s.faces, s.boundary_half_edges, s.quads),
            (4, 8, 1, 4, 1)
        );
        let verts: Vec<u32> = m.face_corners(0).iter().map(|c| c.vertex).collect();
        assert_eq!(verts, [1, 2, 3, 0]);
    }

    #[test]
    fn broken_topology_is_reported_not_panicked() {
        let mut m = quad();
        m.edge_opposite[0] = 2;
        assert!(
            m.check()
                .unwrap_err()
                .iter()
                .any(|e| matches!(e, TopologyError::Opposite { .. }))
        );
        let mut m = quad();
        m.edge_next[0] = 4;
        let errs = m.check().unwrap_err();
        assert!(
            errs.iter()
                .any(|e| matches!(e, TopologyError::NotPermutation { .. }))
        );
        let mut m = quad();
        m.edge_next = vec![99; 8];
        assert!(m.check().is_err());
        assert!(m.face_corners(0).len() <= 8);
        let mut m = quad();
        m.edge_face.pop();
        assert!(matches!(m.check().unwrap_err()[0], TopologyError::Length { .. }));
    }
}
