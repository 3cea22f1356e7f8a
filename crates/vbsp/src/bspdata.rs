//! The BSP the compiler writes, as plain records (version 20), and their serialisation
//! into lump bytes.

/// Lump indices (Source 2007/2009 order).
pub mod lump {
    pub const ENTITIES: usize = 0;
    pub const PLANES: usize = 1;
    pub const TEXDATA: usize = 2;
    pub const VERTEXES: usize = 3;
    pub const VISIBILITY: usize = 4;
    pub const NODES: usize = 5;
    pub const TEXINFO: usize = 6;
    pub const FACES: usize = 7;
    pub const LEAFS: usize = 10;
    pub const FACEIDS: usize = 11;
    pub const EDGES: usize = 12;
    pub const SURFEDGES: usize = 13;
    pub const MODELS: usize = 14;
    pub const LEAFFACES: usize = 16;
    pub const LEAFBRUSHES: usize = 17;
    pub const BRUSHES: usize = 18;
    pub const BRUSHSIDES: usize = 19;
    pub const AREAS: usize = 20;
    pub const AREAPORTALS: usize = 21;
    pub const ORIGINALFACES: usize = 27;
    pub const GAME_LUMP: usize = 35;
    pub const PAKFILE: usize = 40;
    pub const CLIPPORTALVERTS: usize = 41;
    pub const TEXDATA_STRING_DATA: usize = 43;
    pub const TEXDATA_STRING_TABLE: usize = 44;
    pub const LEAFMINDISTTOWATER: usize = 46;
}

#[derive(Debug, Clone, Copy, Default)]
pub struct DPlane {
    pub normal: [f32; 3],
    pub dist: f32,
    pub kind: i32,
}

#[derive(Debug, Clone, Default)]
pub struct DTexdata {
    pub reflectivity: [f32; 3],
    pub name_id: i32,
    pub width: i32,
    pub height: i32,
}

#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct DTexinfo {
    pub texture_vecs: [[f32; 4]; 2],
    pub lightmap_vecs: [[f32; 4]; 2],
    pub flags: i32,
    pub texdata: i32,
}

#[derive(Debug, Clone, Copy, Default)]
pub struct DNode {
    pub plane: i32,
    pub children: [i32; 2],
    pub mins: [i16; 3],
    pub maxs: [i16; 3],
    pub first_face: u16,
    pub num_faces: u16,
    pub area: i16,
}

#[derive(Debug, Clone, Copy, Default)]
pub struct DFace {
    pub plane: u16,
    pub side: u8,
    pub on_node: u8,
    pub first_edge: i32,
    pub num_edges: i16,
    pub texinfo: i16,
    pub dispinfo: i16,
    pub fog_volume: i16,
    pub styles: [u8; 4],
    pub light_offset: i32,
    pub area: f32,
    pub lightmap_mins: [i32; 2],
    pub lightmap_size: [i32; 2],
    pub orig_face: i32,
    pub smoothing_groups: u32,
}

#[derive(Debug, Clone, Copy, Default)]
pub struct DLeaf {
    pub contents: i32,
    pub cluster: i16,
    pub area: u16,
    pub flags: u16,
    pub mins: [i16; 3],
    pub maxs: [i16; 3],
    pub first_leaf_face: u16,
    pub num_leaf_faces: u16,
    pub first_leaf_brush: u16,
    pub num_leaf_brushes: u16,
    pub water_data: i16,
}

#[derive(Debug, Clone, Copy, Default)]
pub struct DModel {
    pub mins: [f32; 3],
    pub maxs: [f32; 3],
    pub origin: [f32; 3],
    pub head_node: i32,
    pub first_face: i32,
    pub num_faces: i32,
}

#[derive(Debug, Clone, Copy, Default)]
pub struct DBrush {
    pub first_side: i32,
    pub num_sides: i32,
    pub contents: i32,
}

#[derive(Debug, Clone, Copy, Default)]
pub struct DBrushSide {
    pub plane: u16,
    pub texinfo: i16,
    pub dispinfo: i16,
    pub bevel: u8,
}

#[derive(Debug, Clone, Copy, Default)]
pub struct DArea {
    pub num_portals: i32,
    pub first_portal: i32,
}

#[derive(Debug, Clone, Copy, Default)]
pub struct DAreaPortal {
    pub key: u16,
    pub other_area: u16,
    pub first_clip_vert: u16,
    pub num_clip_verts: u16,
    pub plane: i32,
}

/// Everything the compiler puts in a BSP.
#[derive(Debug, Clone, Default)]
pub struct BspData {
    pub entities: String,
    pub planes: Vec<DPlane>,
    pub texdata: Vec<DTexdata>,
    pub texdata_strings: Vec<String>,
    pub vertexes: Vec<[f32; 3]>,
    /// The visibility lump's bytes.
    pub visibility: Vec<u8>,
    pub nodes: Vec<DNode>,
    pub texinfo: Vec<DTexinfo>,
    pub faces: Vec<DFace>,
    pub orig_faces: Vec<DFace>,
    pub face_ids: Vec<u16>,
    pub leafs: Vec<DLeaf>,
    pub edges: Vec<[u16; 2]>,
    pub surfedges: Vec<i32>,
    pub models: Vec<DModel>,
    pub leaf_faces: Vec<u16>,
    pub leaf_brushes: Vec<u16>,
    pub brushes: Vec<DBrush>,
    pub brush_sides: Vec<DBrushSide>,
    pub areas: Vec<DArea>,
    pub area_portals: Vec<DAreaPortal>,
    pub clip_portal_verts: Vec<[f32; 3]>,
}

impl BspData {
    /// A complete version-20 BSP file, written by the format crate.
    pub fn to_bytes(&self, map_revision: i32) -> Result<Vec<u8>, crate::CompileError> {
        self.to_bsp(map_revision)
            .to_bytes()
            .map_err(|e| crate::CompileError::Map(format!("writing the BSP: {e}")))
    }
}

impl BspData {
    /// The leaf of `model`'s tree containing `p`, as the engine finds it.
    pub fn leaf_at(&self, model: usize, p: [f64; 3]) -> Option<&DLeaf> {
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
                || skip_areas.contains(&(leaf.area as u32))
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
                for i in 0..f.num_edges as i32 {
                    let se = self.surfedges[(f.first_edge + i) as usize];
                    for v in self.edges[se.unsigned_abs() as usize] {
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
    pub fn face_material(&self, face: &DFace) -> &str {
        let ti = &self.texinfo[face.texinfo as usize];
        &self.texdata_strings[self.texdata[ti.texdata as usize].name_id as usize]
    }
}

fn face_to(f: &DFace) -> srcmap_bsp::Face {
    srcmap_bsp::Face {
        plane: f.plane as u32,
        side: f.side,
        on_node: f.on_node,
        first_edge: f.first_edge,
        num_edges: f.num_edges as i32,
        texinfo: f.texinfo as i32,
        dispinfo: f.dispinfo as i32,
        surface_fog_volume_id: f.fog_volume as i32,
        styles: f.styles,
        light_offset: f.light_offset,
        area: f.area,
        lightmap_mins: f.lightmap_mins,
        lightmap_size: f.lightmap_size,
        orig_face: f.orig_face,
        smoothing_groups: f.smoothing_groups,
        ..Default::default()
    }
}

impl BspData {
    /// The BSP as the format crate's typed view (version 20), ready to serialise or check.
    pub fn to_bsp(&self, map_revision: i32) -> srcmap_bsp::Bsp {
        use srcmap_bsp as b;
        let mut out = b::Bsp::new(20);
        out.revision = map_revision;
        out.entities = parse_entities(&self.entities);
        out.planes = self
            .planes
            .iter()
            .map(|p| b::Plane {
                normal: p.normal,
                dist: p.dist,
                kind: p.kind,
            })
            .collect();
        for name in &self.texdata_strings {
            out.add_texdata_name(name);
        }
        out.texdata = self
            .texdata
            .iter()
            .map(|t| b::TexData {
                reflectivity: t.reflectivity,
                name_id: t.name_id,
                width: t.width,
                height: t.height,
                view_width: t.width,
                view_height: t.height,
            })
            .collect();
        out.vertexes = self.vertexes.clone();
        if !self.visibility.is_empty() {
            let n = u32::from_le_bytes(self.visibility[0..4].try_into().unwrap_or([0; 4]));
            let row_at = 4 + n as usize * 8;
            let row = self.visibility[row_at..].to_vec();
            out.visibility = Some(b::Visibility {
                num_clusters: n,
                pvs: vec![row.clone(); n as usize],
                pas: vec![row; n as usize],
            });
        }
        out.nodes = self
            .nodes
            .iter()
            .map(|n| b::Node {
                plane: n.plane,
                children: n.children,
                mins: n.mins.map(|x| x as f32),
                maxs: n.maxs.map(|x| x as f32),
                first_face: n.first_face as u32,
                num_faces: n.num_faces as u32,
                area: n.area,
                pad: 0,
            })
            .collect();
        out.texinfo = self
            .texinfo
            .iter()
            .map(|t| b::TexInfo {
                texture_vecs: t.texture_vecs,
                lightmap_vecs: t.lightmap_vecs,
                flags: t.flags,
                texdata: t.texdata,
            })
            .collect();
        out.faces = self.faces.iter().map(face_to).collect();
        out.original_faces = self.orig_faces.iter().map(face_to).collect();
        out.face_ids = self.face_ids.iter().map(|&x| x as u32).collect();
        out.leafs = self
            .leafs
            .iter()
            .map(|l| b::Leaf {
                contents: l.contents,
                cluster: l.cluster as i32,
                area_flags: b::Leaf::pack_area_flags(l.area as u32, l.flags as u32),
                mins: l.mins.map(|x| x as f32),
                maxs: l.maxs.map(|x| x as f32),
                first_leaf_face: l.first_leaf_face as u32,
                num_leaf_faces: l.num_leaf_faces as u32,
                first_leaf_brush: l.first_leaf_brush as u32,
                num_leaf_brushes: l.num_leaf_brushes as u32,
                leaf_water_data: l.water_data as i32,
                ..Default::default()
            })
            .collect();
        out.edges = self
            .edges
            .iter()
            .map(|e| b::Edge([e[0] as u32, e[1] as u32]))
            .collect();
        out.surfedges = self.surfedges.clone();
        out.models = self
            .models
            .iter()
            .map(|m| b::Model {
                mins: m.mins,
                maxs: m.maxs,
                origin: m.origin,
                head_node: m.head_node,
                first_face: m.first_face,
                num_faces: m.num_faces,
            })
            .collect();
        out.leaf_faces = self.leaf_faces.iter().map(|&x| x as u32).collect();
        out.leaf_brushes = self.leaf_brushes.iter().map(|&x| x as u32).collect();
        out.brushes = self
            .brushes
            .iter()
            .map(|x| b::Brush {
                first_side: x.first_side,
                num_sides: x.num_sides,
                contents: x.contents,
            })
            .collect();
        out.brush_sides = self
            .brush_sides
            .iter()
            .map(|s| b::BrushSide {
                plane: s.plane as u32,
                texinfo: s.texinfo as i32,
                dispinfo: s.dispinfo as i32,
                bevel: s.bevel as u16,
                pad: 0,
            })
            .collect();
        out.areas = self
            .areas
            .iter()
            .map(|a| b::Area {
                num_area_portals: a.num_portals,
                first_area_portal: a.first_portal,
            })
            .collect();
        out.area_portals = self
            .area_portals
            .iter()
            .map(|a| b::AreaPortal {
                portal_key: a.key as u32,
                other_area: a.other_area as u32,
                first_clip_portal_vert: a.first_clip_vert as u32,
                num_clip_portal_verts: a.num_clip_verts as u32,
                plane: a.plane,
            })
            .collect();
        out.clip_portal_verts = self.clip_portal_verts.clone();
        out.leaf_min_dist_to_water = vec![0; self.leafs.len()];
        out
    }
}

/// Entity lump text back into key/value lists (our own writer's output: quoted pairs).
fn parse_entities(text: &str) -> Vec<srcmap_bsp::Entity> {
    let mut out = Vec::new();
    let mut cur: Option<Vec<(String, String)>> = None;
    for line in text.lines() {
        let line = line.trim();
        if line == "{" {
            cur = Some(Vec::new());
        } else if line == "}" {
            if let Some(pairs) = cur.take() {
                out.push(srcmap_bsp::Entity { pairs });
            }
        } else if let Some(pairs) = cur.as_mut() {
            let parts: Vec<&str> = line.split('"').collect();
            if parts.len() >= 5 {
                pairs.push((parts[1].to_string(), parts[3].to_string()));
            }
        }
    }
    out
}
