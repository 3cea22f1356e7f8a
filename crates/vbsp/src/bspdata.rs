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

struct W(Vec<u8>);

impl W {
    fn f32(&mut self, v: f32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn i32(&mut self, v: i32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn i16(&mut self, v: i16) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn u16(&mut self, v: u16) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    fn vec3(&mut self, v: [f32; 3]) {
        for x in v {
            self.f32(x);
        }
    }
}

fn face_bytes(faces: &[DFace]) -> Vec<u8> {
    let mut w = W(Vec::with_capacity(faces.len() * 56));
    for f in faces {
        w.u16(f.plane);
        w.u8(f.side);
        w.u8(f.on_node);
        w.i32(f.first_edge);
        w.i16(f.num_edges);
        w.i16(f.texinfo);
        w.i16(f.dispinfo);
        w.i16(f.fog_volume);
        for s in f.styles {
            w.u8(s);
        }
        w.i32(f.light_offset);
        w.f32(f.area);
        w.i32(f.lightmap_mins[0]);
        w.i32(f.lightmap_mins[1]);
        w.i32(f.lightmap_size[0]);
        w.i32(f.lightmap_size[1]);
        w.i32(f.orig_face);
        w.u16(0); // numPrims
        w.u16(0); // firstPrimID
        w.u32(f.smoothing_groups);
    }
    w.0
}

impl BspData {
    /// Every lump this compiler writes: (index, version, bytes).
    pub fn lumps(&self) -> Vec<(usize, u32, Vec<u8>)> {
        let mut out = Vec::new();
        let mut ents = self.entities.clone().into_bytes();
        ents.push(0);
        out.push((lump::ENTITIES, 0, ents));

        let mut w = W(Vec::new());
        for p in &self.planes {
            w.vec3(p.normal);
            w.f32(p.dist);
            w.i32(p.kind);
        }
        out.push((lump::PLANES, 0, w.0));

        let mut w = W(Vec::new());
        for t in &self.texdata {
            w.vec3(t.reflectivity);
            w.i32(t.name_id);
            w.i32(t.width);
            w.i32(t.height);
            w.i32(t.width);
            w.i32(t.height);
        }
        out.push((lump::TEXDATA, 0, w.0));

        let mut w = W(Vec::new());
        for v in &self.vertexes {
            w.vec3(*v);
        }
        out.push((lump::VERTEXES, 0, w.0));
        out.push((lump::VISIBILITY, 0, self.visibility.clone()));

        let mut w = W(Vec::new());
        for n in &self.nodes {
            w.i32(n.plane);
            w.i32(n.children[0]);
            w.i32(n.children[1]);
            for x in n.mins {
                w.i16(x);
            }
            for x in n.maxs {
                w.i16(x);
            }
            w.u16(n.first_face);
            w.u16(n.num_faces);
            w.i16(n.area);
            w.i16(0);
        }
        out.push((lump::NODES, 0, w.0));

        let mut w = W(Vec::new());
        for t in &self.texinfo {
            for row in t.texture_vecs.iter().chain(&t.lightmap_vecs) {
                for x in row {
                    w.f32(*x);
                }
            }
            w.i32(t.flags);
            w.i32(t.texdata);
        }
        out.push((lump::TEXINFO, 0, w.0));
        out.push((lump::FACES, 1, face_bytes(&self.faces)));
        out.push((lump::ORIGINALFACES, 0, face_bytes(&self.orig_faces)));

        let mut w = W(Vec::new());
        for id in &self.face_ids {
            w.u16(*id);
        }
        out.push((lump::FACEIDS, 0, w.0));

        let mut w = W(Vec::new());
        for l in &self.leafs {
            w.i32(l.contents);
            w.i16(l.cluster);
            // area:9, flags:7 packed into one 16-bit field.
            w.u16((l.area & 0x1ff) | ((l.flags & 0x7f) << 9));
            for x in l.mins {
                w.i16(x);
            }
            for x in l.maxs {
                w.i16(x);
            }
            w.u16(l.first_leaf_face);
            w.u16(l.num_leaf_faces);
            w.u16(l.first_leaf_brush);
            w.u16(l.num_leaf_brushes);
            w.i16(l.water_data);
            w.i16(0);
        }
        out.push((lump::LEAFS, 1, w.0));

        let mut w = W(Vec::new());
        for e in &self.edges {
            w.u16(e[0]);
            w.u16(e[1]);
        }
        out.push((lump::EDGES, 0, w.0));
        let mut w = W(Vec::new());
        for s in &self.surfedges {
            w.i32(*s);
        }
        out.push((lump::SURFEDGES, 0, w.0));

        let mut w = W(Vec::new());
        for m in &self.models {
            w.vec3(m.mins);
            w.vec3(m.maxs);
            w.vec3(m.origin);
            w.i32(m.head_node);
            w.i32(m.first_face);
            w.i32(m.num_faces);
        }
        out.push((lump::MODELS, 0, w.0));

        let mut w = W(Vec::new());
        for x in &self.leaf_faces {
            w.u16(*x);
        }
        out.push((lump::LEAFFACES, 0, w.0));
        let mut w = W(Vec::new());
        for x in &self.leaf_brushes {
            w.u16(*x);
        }
        out.push((lump::LEAFBRUSHES, 0, w.0));

        let mut w = W(Vec::new());
        for b in &self.brushes {
            w.i32(b.first_side);
            w.i32(b.num_sides);
            w.i32(b.contents);
        }
        out.push((lump::BRUSHES, 0, w.0));
        let mut w = W(Vec::new());
        for s in &self.brush_sides {
            w.u16(s.plane);
            w.i16(s.texinfo);
            w.i16(s.dispinfo);
            w.u8(s.bevel);
            w.u8(0); // thin
        }
        out.push((lump::BRUSHSIDES, 0, w.0));

        let mut w = W(Vec::new());
        for a in &self.areas {
            w.i32(a.num_portals);
            w.i32(a.first_portal);
        }
        out.push((lump::AREAS, 0, w.0));
        let mut w = W(Vec::new());
        for a in &self.area_portals {
            w.u16(a.key);
            w.u16(a.other_area);
            w.u16(a.first_clip_vert);
            w.u16(a.num_clip_verts);
            w.i32(a.plane);
        }
        out.push((lump::AREAPORTALS, 0, w.0));
        let mut w = W(Vec::new());
        for v in &self.clip_portal_verts {
            w.vec3(*v);
        }
        out.push((lump::CLIPPORTALVERTS, 0, w.0));

        // Texture names: NUL-terminated strings and their offsets.
        let mut data = Vec::new();
        let mut table = W(Vec::new());
        for s in &self.texdata_strings {
            table.i32(data.len() as i32);
            data.extend_from_slice(s.as_bytes());
            data.push(0);
        }
        out.push((lump::TEXDATA_STRING_DATA, 0, data));
        out.push((lump::TEXDATA_STRING_TABLE, 0, table.0));

        // An empty game lump directory (no static props yet).
        out.push((lump::GAME_LUMP, 0, 0i32.to_le_bytes().to_vec()));
        // An empty zip (end of central directory only), which every reader accepts.
        let mut zip = vec![0x50, 0x4b, 0x05, 0x06];
        zip.extend_from_slice(&[0u8; 18]);
        out.push((lump::PAKFILE, 0, zip));

        let mut w = W(Vec::new());
        for _ in &self.leafs {
            w.u16(0);
        }
        out.push((lump::LEAFMINDISTTOWATER, 0, w.0));
        out
    }

    /// A complete version-20 BSP file (little-endian), lumps in index order, each
    /// aligned to four bytes.
    pub fn to_bytes(&self, map_revision: i32) -> Vec<u8> {
        const HEADER: usize = 4 + 4 + 64 * 16 + 4;
        let mut file = vec![0u8; HEADER];
        file[0..4].copy_from_slice(b"VBSP");
        file[4..8].copy_from_slice(&20i32.to_le_bytes());
        let mut lumps = self.lumps();
        lumps.sort_by_key(|l| l.0);
        for (idx, version, data) in lumps {
            while file.len() % 4 != 0 {
                file.push(0);
            }
            let ofs = file.len();
            let at = 8 + idx * 16;
            let (o, l) = if data.is_empty() {
                (0, 0)
            } else {
                (ofs as i32, data.len() as i32)
            };
            file[at..at + 4].copy_from_slice(&o.to_le_bytes());
            file[at + 4..at + 8].copy_from_slice(&l.to_le_bytes());
            file[at + 8..at + 12].copy_from_slice(&(version as i32).to_le_bytes());
            file.extend_from_slice(&data);
        }
        file[HEADER - 4..HEADER].copy_from_slice(&map_revision.to_le_bytes());
        file
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

    /// Texture name of a face.
    pub fn face_material(&self, face: &DFace) -> &str {
        let ti = &self.texinfo[face.texinfo as usize];
        &self.texdata_strings[self.texdata[ti.texdata as usize].name_id as usize]
    }
}
