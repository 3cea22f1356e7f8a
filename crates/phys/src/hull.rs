//! A displacement's packed outer hull: what Valve's vbsp stores per displacement in the
//! physdisp lump (`CollideWrite` of a VPhysics virtual mesh built with `buildOuterHull`).
//!
//! The engine rebuilds the displacement's triangle mesh from the displacement itself; the lump
//! only carries the convex hull around it, every element one byte (vertex indices are the
//! displacement's own vertex indices, so at most 256 vertices: power 3 and below).
//!
//! Layout, as every blob of the corpus has it (952 blobs in 10 maps):
//! - `u32` header word (1 in every corpus blob);
//! - `u8` triangle count `F`, `u8` (meaning not established; equals `F` in all but one corpus
//!   blob), `u8` edge count `E`, `u8` (meaning not established; between the vertex and edge
//!   counts);
//! - `F` triangles of 4 bytes: one byte taken as IVP's pierce triangle index (always below `F`),
//!   then the indices of its three edges;
//! - one byte (meaning not established);
//! - `E` edges of 2 bytes: start and end vertex. Each edge belongs to two triangles, running as
//!   stored in one and reversed in the other.

use serde::Serialize;

use crate::error::{PhysError, Result};

/// Bytes before the triangles.
pub const HULL_HEADER_SIZE: usize = 8;

/// One hull triangle: its three edges, chained head to tail (an edge may run reversed).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct PackedTriangle {
    /// Taken as IVP's pierce index (a triangle of the hull); kept as read.
    pub pierce_index: u8,
    pub edges: [u8; 3],
}

/// One displacement's packed outer hull.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PackedHull {
    /// The first word (1 in Valve's output).
    pub header_word: u32,
    /// The byte after the triangle count (meaning not established; kept for write-back).
    pub header_byte_5: u8,
    /// The byte after the edge count (meaning not established; kept for write-back).
    pub header_byte_7: u8,
    pub triangles: Vec<PackedTriangle>,
    /// The byte between triangles and edges (meaning not established; kept for write-back).
    pub byte_after_triangles: u8,
    /// Each edge's start and end vertex (indices into the displacement's vertices).
    pub edges: Vec<[u8; 2]>,
}

/// The blob holds exactly what its counts say; returns where its edges start.
fn check_hull_size(data: &[u8], base: u64) -> Result<usize> {
    let short = |need: usize| {
        PhysError::new(
            base,
            "packed hull",
            format!("{} bytes, its counts need {need}", data.len()),
        )
    };
    if data.len() < HULL_HEADER_SIZE {
        return Err(short(HULL_HEADER_SIZE));
    }
    let triangle_count = data[4] as usize;
    let edge_count = data[6] as usize;
    let edges_at = HULL_HEADER_SIZE + 4 * triangle_count + 1;
    let need = edges_at + 2 * edge_count;
    if data.len() < need {
        return Err(short(need));
    }
    if data.len() > need {
        return Err(PhysError::new(
            base + need as u64,
            "packed hull",
            format!("{} bytes left after {edge_count} edges", data.len() - need),
        ));
    }
    Ok(edges_at)
}

impl PackedHull {
    /// Reads one blob; `base` is the absolute offset of `data[0]` (for errors).
    pub fn parse(data: &[u8], base: u64) -> Result<PackedHull> {
        let edges_at = check_hull_size(data, base)?;
        let triangles = data[HULL_HEADER_SIZE..edges_at - 1]
            .chunks_exact(4)
            .map(|t| PackedTriangle {
                pierce_index: t[0],
                edges: [t[1], t[2], t[3]],
            })
            .collect();
        Ok(PackedHull {
            header_word: u32::from_le_bytes([data[0], data[1], data[2], data[3]]),
            header_byte_5: data[5],
            header_byte_7: data[7],
            triangles,
            byte_after_triangles: data[edges_at - 1],
            edges: data[edges_at..].chunks_exact(2).map(|e| [e[0], e[1]]).collect(),
        })
    }

    /// The blob's bytes. Counts come from the vectors, so at most 255 triangles and edges
    /// ([`PackedHull::verify`] reports more).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out =
            Vec::with_capacity(HULL_HEADER_SIZE + 4 * self.triangles.len() + 1 + 2 * self.edges.len());
        out.extend_from_slice(&self.header_word.to_le_bytes());
        out.push(self.triangles.len() as u8);
        out.push(self.header_byte_5);
        out.push(self.edges.len() as u8);
        out.push(self.header_byte_7);
        for t in &self.triangles {
            out.push(t.pierce_index);
            out.extend_from_slice(&t.edges);
        }
        out.push(self.byte_after_triangles);
        for e in &self.edges {
            out.extend_from_slice(e);
        }
        out
    }

    /// Each triangle's three corners in order (following its edges head to tail), or `None`
    /// for a triangle whose edges are out of range or do not close.
    pub fn triangle_corners(&self, t: usize) -> Option<[u8; 3]> {
        let tri = self.triangles.get(t)?;
        let e = tri.edges.map(|i| self.edges.get(i as usize).copied());
        let [Some(a), Some(b), Some(c)] = e else {
            return None;
        };
        // The first edge fixes the direction: try it as stored, then reversed.
        for first in [a, [a[1], a[0]]] {
            let next = |from: u8, e: [u8; 2]| {
                if e[0] == from {
                    Some(e[1])
                } else if e[1] == from {
                    Some(e[0])
                } else {
                    None
                }
            };
            if let Some(p2) = next(first[1], b)
                && next(p2, c) == Some(first[0])
            {
                return Some([first[0], first[1], p2]);
            }
        }
        None
    }

    /// Structural problems: counts that do not fit a byte, edges or pierce indices out of
    /// range, edges touching a vertex at or past `vertex_count`, triangles whose edges do not
    /// close, an edge not in exactly two triangles, or one running the same way in both.
    pub fn verify(&self, vertex_count: usize) -> Vec<String> {
        let mut bad = Vec::new();
        if self.triangles.len() > 255 || self.edges.len() > 255 {
            bad.push(format!(
                "{} triangles and {} edges: counts must fit a byte",
                self.triangles.len(),
                self.edges.len()
            ));
        }
        for (i, e) in self.edges.iter().enumerate() {
            if e.iter().any(|&v| v as usize >= vertex_count) || e[0] == e[1] {
                bad.push(format!(
                    "edge {i} {e:?}: degenerate or past the displacement's {vertex_count} vertices"
                ));
            }
        }
        let runs = self.verify_triangles(&mut bad);
        for (i, r) in runs.iter().enumerate() {
            if *r != [1, 1] {
                bad.push(format!(
                    "edge {i}: in {} triangles as stored and {} reversed (a closed hull has one of each)",
                    r[0], r[1]
                ));
            }
        }
        bad
    }

    /// Checks each triangle's pierce index and that its edges close; returns per edge how often
    /// it runs as stored and how often reversed.
    fn verify_triangles(&self, bad: &mut Vec<String>) -> Vec<[u32; 2]> {
        let mut runs = vec![[0u32; 2]; self.edges.len()];
        for (t, tri) in self.triangles.iter().enumerate() {
            if tri.pierce_index as usize >= self.triangles.len() {
                bad.push(format!(
                    "triangle {t}: pierce index {} out of range",
                    tri.pierce_index
                ));
            }
            let Some(c) = self.triangle_corners(t) else {
                bad.push(format!(
                    "triangle {t}: edges {:?} do not form a closed triangle",
                    tri.edges
                ));
                continue;
            };
            for k in 0..3 {
                let e = tri.edges[k] as usize;
                let forward = self.edges[e] == [c[k], c[(k + 1) % 3]];
                runs[e][usize::from(!forward)] += 1;
            }
        }
        runs
    }

    /// The displacement vertices the hull touches, ascending.
    pub fn vertices(&self) -> Vec<u8> {
        let mut v: Vec<u8> = self.edges.iter().flatten().copied().collect();
        v.sort_unstable();
        v.dedup();
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tetrahedron over vertices 0..4, as Valve lays one out (corpus c1_cave, displacement 9).
    fn tetrahedron() -> Vec<u8> {
        let mut b = vec![1, 0, 0, 0, 4, 4, 6, 6];
        b.extend_from_slice(&[0, 0, 1, 2, 3, 2, 3, 4, 2, 4, 5, 0, 1, 1, 5, 3]);
        b.push(0);
        b.extend_from_slice(&[24, 0, 0, 20, 20, 24, 20, 4, 4, 24, 4, 0]);
        b
    }

    #[test]
    fn tetrahedron_reads_verifies_and_writes_back() {
        let b = tetrahedron();
        let h = PackedHull::parse(&b, 0).unwrap();
        assert_eq!(h.triangles.len(), 4);
        assert_eq!(h.edges.len(), 6);
        assert_eq!(h.verify(25), Vec::<String>::new());
        assert_eq!(h.vertices(), vec![0, 4, 20, 24]);
        assert_eq!(h.triangle_corners(0), Some([24, 0, 20]));
        assert_eq!(h.to_bytes(), b);
        // A vertex past the displacement's is reported.
        assert!(!h.verify(24).is_empty());
    }

    #[test]
    fn short_and_long_blobs_are_errors() {
        let b = tetrahedron();
        let e = PackedHull::parse(&b[..b.len() - 1], 100).unwrap_err();
        assert_eq!(e.offset, 100);
        let mut long = b.clone();
        long.push(0);
        let e = PackedHull::parse(&long, 100).unwrap_err();
        assert_eq!(e.offset, 100 + b.len() as u64);
    }
}
