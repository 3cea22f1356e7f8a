//! Half-edge topology built from polygons (vmap.md §3): the index arrays of a
//! `CDmePolygonMesh`, twins allocated as pairs (2k, 2k+1) as Hammer expects.

use std::collections::HashMap;

/// Why polygons cannot form a half-edge mesh.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BuildError {
    #[error("face {face} has {corners} corners (at least 3 needed)")]
    TooFewCorners { face: usize, corners: usize },
    #[error("face {face} names vertex {vertex}, but there are {count} vertices")]
    VertexRange { face: usize, vertex: u32, count: usize },
    #[error("face {face} repeats vertex {vertex}")]
    RepeatedVertex { face: usize, vertex: u32 },
    #[error("faces {first} and {second} both run from vertex {from} to {to}: not 2-manifold")]
    SharedDirectedEdge {
        first: usize,
        second: usize,
        from: u32,
        to: u32,
    },
}

/// The topology arrays of a polygon mesh; data rows are the identity (vertex `v` uses row `v`,
/// half-edge `h` corner row `h` and edge row `h / 2`, face `f` row `f`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct HalfEdges {
    pub vertex_edge: Vec<i32>,
    pub edge_vertex: Vec<i32>,
    pub edge_opposite: Vec<i32>,
    pub edge_next: Vec<i32>,
    pub edge_face: Vec<i32>,
    pub face_edge: Vec<i32>,
}

impl HalfEdges {
    /// Builds the mesh of `faces` (vertex loops, counter-clockwise seen from the front) over
    /// `vertex_count` vertices; edges with a face on one side only get a boundary loop.
    pub fn from_faces(vertex_count: usize, faces: &[Vec<u32>]) -> Result<HalfEdges, BuildError> {
        let mut b = Builder::new(vertex_count);
        for (f, face) in faces.iter().enumerate() {
            check_face(f, face, vertex_count)?;
            b.add_face(f, face)?;
        }
        b.link_boundaries();
        Ok(b.mesh)
    }

    pub fn half_edge_count(&self) -> usize {
        self.edge_vertex.len()
    }

    /// The half-edge of face `f` that ends at its `i`-th corner (loop order from `face_edge`).
    pub fn face_half_edges(&self, f: usize) -> Vec<usize> {
        let start = self.face_edge[f] as usize;
        let mut out = vec![start];
        let mut h = self.edge_next[start] as usize;
        while h != start && out.len() <= self.edge_next.len() {
            out.push(h);
            h = self.edge_next[h] as usize;
        }
        out
    }
}

fn check_face(face: usize, loop_: &[u32], count: usize) -> Result<(), BuildError> {
    if loop_.len() < 3 {
        return Err(BuildError::TooFewCorners {
            face,
            corners: loop_.len(),
        });
    }
    for (i, &v) in loop_.iter().enumerate() {
        if v as usize >= count {
            return Err(BuildError::VertexRange {
                face,
                vertex: v,
                count,
            });
        }
        if loop_[..i].contains(&v) {
            return Err(BuildError::RepeatedVertex { face, vertex: v });
        }
    }
    Ok(())
}

struct Builder {
    mesh: HalfEdges,
    /// Undirected edge (low, high) → its pair's first half-edge, which runs low → high.
    pairs: HashMap<(u32, u32), usize>,
}

impl Builder {
    fn new(vertex_count: usize) -> Builder {
        Builder {
            mesh: HalfEdges {
                vertex_edge: vec![-1; vertex_count],
                ..HalfEdges::default()
            },
            pairs: HashMap::new(),
        }
    }

    /// The half-edge from `a` to `b`, allocating its twin pair on first use.
    fn half_edge(&mut self, a: u32, b: u32) -> usize {
        let key = (a.min(b), a.max(b));
        let m = &mut self.mesh;
        let first = *self.pairs.entry(key).or_insert_with(|| {
            let h = m.edge_vertex.len();
            m.edge_vertex.extend([key.1 as i32, key.0 as i32]);
            m.edge_opposite.extend([h as i32 + 1, h as i32]);
            m.edge_next.extend([-1, -1]);
            m.edge_face.extend([-1, -1]);
            h
        });
        if a < b { first } else { first + 1 }
    }

    fn add_face(&mut self, f: usize, face: &[u32]) -> Result<(), BuildError> {
        let n = face.len();
        let loop_: Vec<usize> = (0..n)
            .map(|i| self.half_edge(face[i], face[(i + 1) % n]))
            .collect();
        for (i, &h) in loop_.iter().enumerate() {
            let owner = self.mesh.edge_face[h];
            if owner >= 0 {
                return Err(BuildError::SharedDirectedEdge {
                    first: owner as usize,
                    second: f,
                    from: face[i],
                    to: face[(i + 1) % n],
                });
            }
            self.mesh.edge_face[h] = f as i32;
            self.mesh.edge_next[h] = loop_[(i + 1) % n] as i32;
            self.mesh.vertex_edge[face[i] as usize] = h as i32;
        }
        self.mesh.face_edge.push(loop_[0] as i32);
        Ok(())
    }

    /// Links each boundary half-edge (no face) to a boundary half-edge leaving its head.
    fn link_boundaries(&mut self) {
        let m = &mut self.mesh;
        let mut leaving: HashMap<i32, Vec<usize>> = HashMap::new();
        for h in (0..m.edge_vertex.len()).filter(|&h| m.edge_face[h] < 0) {
            let origin = m.edge_vertex[m.edge_opposite[h] as usize];
            leaving.entry(origin).or_default().push(h);
        }
        for (v, e) in m.vertex_edge.iter_mut().enumerate() {
            if let Some(&h) = leaving.get(&(v as i32)).and_then(|l| l.first()) {
                *e = h as i32;
            }
        }
        for h in 0..m.edge_vertex.len() {
            if m.edge_face[h] < 0 {
                let next = leaving.get_mut(&m.edge_vertex[h]).and_then(Vec::pop);
                m.edge_next[h] = next.map_or(h as i32, |n| n as i32);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cube_faces() -> Vec<Vec<u32>> {
        // Vertices 0..8 at the corners (bit 0 = x, bit 1 = y, bit 2 = z); loops CCW from outside.
        vec![
            vec![0, 2, 3, 1],
            vec![4, 5, 7, 6],
            vec![0, 1, 5, 4],
            vec![2, 6, 7, 3],
            vec![0, 4, 6, 2],
            vec![1, 3, 7, 5],
        ]
    }

    #[test]
    fn a_cube_is_closed_with_twin_pairs() {
        let m = HalfEdges::from_faces(8, &cube_faces()).unwrap();
        assert_eq!(m.half_edge_count(), 24);
        assert!(m.edge_face.iter().all(|&f| f >= 0));
        for h in 0..24 {
            assert_eq!(m.edge_opposite[h] as usize, h ^ 1);
            let next = m.edge_next[h] as usize;
            assert_eq!(m.edge_vertex[m.edge_opposite[next] as usize], m.edge_vertex[h]);
        }
        assert_eq!(m.face_half_edges(3).len(), 4);
    }

    #[test]
    fn an_open_box_gets_a_boundary_loop() {
        let mut faces = cube_faces();
        faces.pop();
        let m = HalfEdges::from_faces(8, &faces).unwrap();
        let boundary: Vec<usize> = (0..m.half_edge_count()).filter(|&h| m.edge_face[h] < 0).collect();
        assert_eq!(boundary.len(), 4);
        let mut h = boundary[0];
        for _ in 0..4 {
            h = m.edge_next[h] as usize;
            assert!(m.edge_face[h] < 0);
        }
        assert_eq!(h, boundary[0]);
    }

    #[test]
    fn a_flipped_face_is_not_manifold() {
        let mut faces = cube_faces();
        faces[0].reverse();
        let err = HalfEdges::from_faces(8, &faces).unwrap_err();
        assert!(matches!(err, BuildError::SharedDirectedEdge { .. }));
        assert!(matches!(
            HalfEdges::from_faces(3, &[vec![0, 1]]),
            Err(BuildError::TooFewCorners { .. })
        ));
    }
}
