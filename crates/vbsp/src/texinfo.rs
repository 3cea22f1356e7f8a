//! The texinfo table: texture and lightmap axes per side, deduplicated, with the texdata
//! (material name, size, reflectivity) each one names.

use std::collections::HashMap;

use srcmap_bsp::{TexData, TexInfo};
use srcmap_geom::DVec3;

use crate::contents::MaterialFacts;
use crate::faces;
use crate::ids::TexinfoId;
use crate::input::MapSide;

pub(crate) struct Texinfos {
    pub list: Vec<TexInfo>,
    map: HashMap<[u32; 18], u32>,
    pub texdata: Vec<TexData>,
    pub strings: Vec<String>,
    texdata_map: HashMap<String, u32>,
    /// A patched copy's texdata → the texdata it was cloned from.
    cloned_from: HashMap<u32, u32>,
}

impl Texinfos {
    pub fn new() -> Texinfos {
        Texinfos {
            list: Vec::new(),
            map: HashMap::new(),
            texdata: Vec::new(),
            strings: Vec::new(),
            texdata_map: HashMap::new(),
            cloned_from: HashMap::new(),
        }
    }

    pub fn texdata(&mut self, name: &str, info: &MaterialFacts) -> u32 {
        let key = name.to_ascii_lowercase();
        if let Some(&i) = self.texdata_map.get(&key) {
            return i;
        }
        let i = self.texdata.len() as u32;
        self.strings.push(name.to_string());
        self.texdata.push(TexData {
            reflectivity: info.reflectivity,
            name_id: i as i32,
            width: info.width as i32,
            height: info.height as i32,
            view_width: info.width as i32,
            view_height: info.height as i32,
        });
        self.texdata_map.insert(key, i);
        i
    }

    /// A texdata named `name` with the size and reflectivity of texdata `from` (a patched
    /// material keeps its original's); true when it is new.
    pub fn clone_texdata(&mut self, from: u32, name: &str) -> (u32, bool) {
        let key = name.to_ascii_lowercase();
        if let Some(&i) = self.texdata_map.get(&key) {
            return (i, false);
        }
        let i = self.texdata.len() as u32;
        self.strings.push(name.to_string());
        self.texdata.push(TexData {
            name_id: i as i32,
            ..self.texdata[from as usize]
        });
        self.texdata_map.insert(key, i);
        self.cloned_from.insert(i, from);
        (i, true)
    }

    /// The material a texdata shows, through any patched copies: the original's name.
    pub fn original_material(&self, mut texdata: u32) -> &str {
        while let Some(&from) = self.cloned_from.get(&texdata) {
            texdata = from;
        }
        &self.strings[texdata as usize]
    }

    pub fn add(&mut self, t: TexInfo) -> TexinfoId {
        let mut key = [0u32; 18];
        for (i, row) in t.texture_vecs.iter().chain(&t.lightmap_vecs).enumerate() {
            for (j, x) in row.iter().enumerate() {
                key[i * 4 + j] = x.to_bits();
            }
        }
        key[16] = t.flags as u32;
        key[17] = t.texdata as u32;
        TexinfoId(*self.map.entry(key).or_insert_with(|| {
            self.list.push(t);
            (self.list.len() - 1) as u32
        }))
    }
}

impl faces::TexinfoLookup for Texinfos {
    fn flags(&self, texinfo: TexinfoId) -> u32 {
        self.list[texinfo.idx()].flags as u32
    }
    fn lightmap_vecs(&self, texinfo: TexinfoId) -> [DVec3; 2] {
        let l = &self.list[texinfo.idx()].lightmap_vecs;
        [0, 1].map(|i| DVec3::new(l[i][0] as f64, l[i][1] as f64, l[i][2] as f64))
    }
}

/// The texinfo of a map side, for geometry moved by `-offset` (brush entities are built
/// around their origin).
pub fn texinfo_for(side: &MapSide, offset: DVec3, flags: u32, texdata: u32) -> TexInfo {
    let lm = if side.lightmap_scale > 0.0 {
        side.lightmap_scale
    } else {
        16.0
    };
    let mut t = TexInfo {
        flags: flags as i32,
        texdata: texdata as i32,
        ..Default::default()
    };
    for (i, ax) in [side.uaxis, side.vaxis].iter().enumerate() {
        let scale = if ax.scale.abs() > 1e-6 { ax.scale } else { 1.0 };
        let tv = ax.axis / scale;
        // Geometry moved by -offset keeps its texture: shift by the offset's projection.
        let shift = ax.shift + tv.dot(offset);
        t.texture_vecs[i] = [tv.x as f32, tv.y as f32, tv.z as f32, shift as f32];
        let lv = ax.axis / lm;
        t.lightmap_vecs[i] = [lv.x as f32, lv.y as f32, lv.z as f32, (shift * scale / lm) as f32];
    }
    t
}
