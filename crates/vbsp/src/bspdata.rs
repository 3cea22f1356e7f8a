//! The BSP the compiler writes: srcmap-bsp's typed records (version 20), with the queries
//! the compiler and its tests make of them.

use std::ops::{Deref, DerefMut};

use srcmap_bsp::{Bsp, Face, Leaf};

/// The compiled BSP: srcmap-bsp's [`Bsp`] (through `Deref`), written with the map's
/// revision, which the compile does not know.
#[derive(Debug, Clone, PartialEq)]
pub struct BspData(pub Bsp);

impl Default for BspData {
    fn default() -> Self {
        BspData(Bsp::new(20))
    }
}

impl Deref for BspData {
    type Target = Bsp;
    fn deref(&self) -> &Bsp {
        &self.0
    }
}

impl DerefMut for BspData {
    fn deref_mut(&mut self) -> &mut Bsp {
        &mut self.0
    }
}

impl BspData {
    /// A complete version-20 BSP file, written by the format crate.
    pub fn to_bytes(&self, map_revision: i32) -> Result<Vec<u8>, crate::CompileError> {
        self.to_bsp(map_revision)
            .to_bytes()
            .map_err(|e| crate::CompileError::Map(format!("writing the BSP: {e}")))
    }

    /// The BSP with the map's revision, ready to serialise or check.
    pub fn to_bsp(&self, map_revision: i32) -> Bsp {
        self.clone().into_bsp(map_revision)
    }

    /// [`BspData::to_bsp`] without the copy.
    pub fn into_bsp(self, map_revision: i32) -> Bsp {
        let mut bsp = self.0;
        bsp.revision = map_revision;
        bsp
    }

    /// The leaf of `model`'s tree containing `p`, as the engine finds it.
    pub fn leaf_at(&self, model: usize, p: [f64; 3]) -> Option<&Leaf> {
        let mut n = self.models.get(model)?.head_node;
        let mut guard = 0;
        while n >= 0 {
            let node = self.nodes.get(n as usize)?;
            let pl = self.planes.get(node.plane as usize)?;
            let d = pl.normal[0] as f64 * p[0] + pl.normal[1] as f64 * p[1] + pl.normal[2] as f64 * p[2]
                - pl.dist as f64;
            n = node.children[if d >= 0.0 { 0 } else { 1 }];
            guard += 1;
            if guard > 100_000 {
                return None;
            }
        }
        self.leafs.get((-1 - n) as usize)
    }

    /// Bounds of the drawn faces (not sky, not nodraw) in the world's open leaves outside
    /// the given areas.
    pub fn world_bounds_no_skybox(&self, skip_areas: &[u32]) -> Option<([f32; 3], [f32; 3])> {
        let mut mins = [f32::INFINITY; 3];
        let mut maxs = [f32::NEG_INFINITY; 3];
        let mut stack = vec![self.models.first()?.head_node];
        while let Some(n) = stack.pop() {
            if n >= 0 {
                let node = self.nodes.get(n as usize)?;
                stack.extend(node.children);
                continue;
            }
            let leaf = self.leafs.get((-1 - n) as usize)?;
            if leaf.contents & crate::contents::CONTENTS_SOLID as i32 != 0
                || skip_areas.contains(&leaf.area(self.version))
            {
                continue;
            }
            let faces = &self.leaf_faces[leaf.first_leaf_face as usize..][..leaf.num_leaf_faces as usize];
            for &fi in faces {
                let f = &self.faces[fi as usize];
                let flags = self.texinfo[f.texinfo as usize].flags as u32;
                if flags & (crate::contents::SURF_SKY | crate::contents::SURF_NODRAW) != 0 {
                    continue;
                }
                for i in 0..f.num_edges {
                    let se = self.surfedges[(f.first_edge + i) as usize];
                    for v in self.edges[se.unsigned_abs() as usize].0 {
                        let p = self.vertexes[v as usize];
                        for a in 0..3 {
                            mins[a] = mins[a].min(p[a]);
                            maxs[a] = maxs[a].max(p[a]);
                        }
                    }
                }
            }
        }
        (mins[0] <= maxs[0]).then_some((mins, maxs))
    }

    /// Texture name of a face.
    pub fn face_material(&self, face: &Face) -> &str {
        self.texdata_name(self.texinfo[face.texinfo as usize].texdata as usize)
            .expect("the compiler names every texdata")
    }
}
