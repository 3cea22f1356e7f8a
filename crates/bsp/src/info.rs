//! What `srcmap info` reports of a BSP: the header, every stored lump with its size and record
//! count, the game lumps, the map's state ([`crate::state`]), entities and static props by
//! class and model, the compiled features (displacements, cubemaps, overlays, occluders, water),
//! the pakfile's entries and the materials. Serialisable for `--json`.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::error::Result;
use crate::file::{BspFile, LumpOrder};
use crate::gamelump::StaticProps;
use crate::lump::{self, HEADER_LUMPS, lump_name};
use crate::pak::Pak;
use crate::state::{MapState, VisPass};
use crate::{Bsp, BspDocument, Endian};

/// One stored lump.
#[derive(Debug, Serialize)]
pub struct LumpReport {
    pub index: usize,
    pub name: &'static str,
    pub version: u32,
    pub offset: u32,
    pub stored_bytes: u32,
    /// Uncompressed size.
    pub bytes: usize,
    pub compressed: bool,
    /// Records, for lumps that are record arrays.
    pub records: Option<usize>,
}

/// One game lump of the directory.
#[derive(Debug, Serialize)]
pub struct GameLumpReport {
    pub id: String,
    pub version: u16,
    pub flags: u16,
    pub bytes: usize,
    pub compressed: bool,
}

/// One pakfile entry (shared by `info` and `pak list`).
#[derive(Debug, Serialize)]
pub struct PakReport {
    pub name: String,
    pub size: u32,
    pub stored_size: u32,
    pub method: &'static str,
}

/// `srcmap info`'s report of a BSP.
#[derive(Debug, Serialize)]
pub struct InfoReport {
    pub file: String,
    pub format: &'static str,
    pub version: i32,
    pub revision: i32,
    pub endian: &'static str,
    pub lump_order: &'static str,
    pub file_bytes: usize,
    /// Visibility, lighting, leak and feature counts (`srcmap_bsp::state`).
    pub state: MapState,
    pub lumps: Vec<LumpReport>,
    pub game_lumps: Vec<GameLumpReport>,
    pub static_prop_layout: Option<String>,
    pub entities: usize,
    pub entities_by_class: BTreeMap<String, usize>,
    pub static_props: usize,
    pub static_props_by_model: BTreeMap<String, usize>,
    pub displacements: DispReport,
    pub cubemaps: CubemapReport,
    pub overlays: OverlayReport,
    pub occluders: OccluderReport,
    pub water: WaterReport,
    pub pakfile: Vec<PakReport>,
    pub materials: Vec<String>,
}

#[derive(Debug, Serialize)]
pub struct DispReport {
    pub dispinfos: usize,
    /// Dispinfos per power (2, 3 and 4 in valid maps).
    pub by_power: BTreeMap<i32, usize>,
    pub verts: usize,
    pub tris: usize,
    pub sample_position_bytes: usize,
}

#[derive(Debug, Serialize)]
pub struct CubemapReport {
    /// CUBEMAPS samples (one per `env_cubemap`).
    pub samples: usize,
    /// Texdata `maps/<map>/<material>_<x>_<y>_<z>`: materials patched to name a cubemap.
    pub patched_materials: usize,
    /// Of those, the ones whose patch VMT is in the pakfile.
    pub patched_in_pakfile: usize,
}

#[derive(Debug, Serialize)]
pub struct OverlayReport {
    /// OVERLAYS records (one per `info_overlay`).
    pub overlays: usize,
    /// The faces they list, all overlays together.
    pub faces: usize,
    /// WATEROVERLAYS records and the faces they list.
    pub water_overlays: usize,
    pub water_overlay_faces: usize,
}

#[derive(Debug, Serialize)]
pub struct OccluderReport {
    /// Occluders in the OCCLUSION lump (one per `func_occluder`).
    pub occluders: usize,
    pub polygons: usize,
    pub vertex_indices: usize,
}

#[derive(Debug, Serialize)]
pub struct WaterReport {
    /// LEAFWATERDATA entries: one per water volume.
    pub volumes: usize,
    /// Leaves that name one of them.
    pub leaves: usize,
}

impl InfoReport {
    /// The report of the BSP file `data`, named `file`. Which vvis pass made the PVS cannot be
    /// told from the lumps alone: `vis_pass` tells it (`srcmap_vvis::vis_pass`).
    pub fn of(file: String, data: &[u8], vis_pass: impl FnOnce(&Bsp) -> VisPass) -> Result<InfoReport> {
        let bsp_file = BspFile::parse(data)?;
        let bsp = Bsp::from_file(&bsp_file)?;
        let game_lumps = game_lump_reports(&bsp_file)?;
        let pak = Pak::parse(&bsp.pakfile, bsp_file.header.lumps[lump::PAKFILE].offset as u64)?;
        let materials = material_names(&bsp);
        let (h, sp) = (&bsp_file.header, bsp.game_lumps.static_props());
        Ok(InfoReport {
            file,
            format: "bsp",
            version: h.version,
            revision: h.revision,
            endian: endian_name(h.endian),
            lump_order: order_name(h.order),
            file_bytes: data.len(),
            state: map_state(&bsp, vis_pass),
            lumps: lump_reports(&bsp_file, &bsp),
            game_lumps,
            static_prop_layout: sp.map(|s| format!("{:?}", s.layout)),
            entities: bsp.entities.len(),
            entities_by_class: entities_by_class(&bsp),
            static_props: sp.map_or(0, |s| s.props.len()),
            static_props_by_model: sp.map(static_props_by_model).unwrap_or_default(),
            displacements: DispReport::of(&bsp),
            cubemaps: CubemapReport::of(&bsp, &materials, &pak),
            overlays: OverlayReport::of(&bsp),
            occluders: OccluderReport::of(&bsp),
            water: WaterReport::of(&bsp),
            pakfile: pak_reports(&pak),
            materials,
        })
    }
}

/// The map's state, with the vvis pass told by `vis_pass`.
fn map_state(bsp: &Bsp, vis_pass: impl FnOnce(&Bsp) -> VisPass) -> MapState {
    let mut state = MapState::of(bsp);
    state.visibility.pass = vis_pass(bsp);
    state
}

fn endian_name(endian: Endian) -> &'static str {
    if endian == Endian::Little {
        "little (VBSP)"
    } else {
        "big (PSBV, console)"
    }
}

fn order_name(order: LumpOrder) -> &'static str {
    if order == LumpOrder::L4d2 {
        "l4d2"
    } else {
        "standard"
    }
}

/// Lumps that are byte streams rather than record arrays show no record count.
const BYTES_ONLY: [usize; 4] = [
    lump::PAKFILE,
    lump::TEXDATA_STRING_DATA,
    lump::DISP_LIGHTMAP_SAMPLE_POSITIONS,
    lump::MAP_FLAGS,
];

/// One row per stored lump: where it is, its size, and its record count where it has records.
pub fn lump_reports(file: &BspFile<'_>, bsp: &Bsp) -> Vec<LumpReport> {
    let mut lumps = Vec::new();
    for i in 0..HEADER_LUMPS {
        let e = file.header.lumps[i];
        if e.len == 0 {
            continue;
        }
        let typed = !bsp.raw.contains_key(&i) && !BYTES_ONLY.contains(&i);
        lumps.push(LumpReport {
            index: i,
            name: lump_name(i),
            version: e.version,
            offset: e.offset,
            stored_bytes: e.len,
            bytes: crate::lzma::uncompressed_size(file.stored(i))
                .filter(|_| file.is_compressed(i))
                .map_or(e.len as usize, |n| n as usize),
            compressed: file.is_compressed(i),
            records: typed.then(|| crate::check::count(bsp, i)),
        });
    }
    lumps
}

/// The game lump directory, less empty entries of id 0.
fn game_lump_reports(file: &BspFile<'_>) -> Result<Vec<GameLumpReport>> {
    let raw = BspDocument::from_file(file).raw_game_lumps()?;
    Ok(raw
        .entries
        .iter()
        .filter(|g| g.id != 0 || !g.data.is_empty())
        .map(|g| GameLumpReport {
            id: crate::gamelump::id_name(g.id),
            version: g.version,
            flags: g.flags,
            bytes: g.len as usize,
            compressed: g.is_compressed(),
        })
        .collect())
}

fn entities_by_class(bsp: &Bsp) -> BTreeMap<String, usize> {
    let mut by_class = BTreeMap::new();
    for e in &bsp.entities {
        *by_class
            .entry(e.classname().unwrap_or("(none)").to_string())
            .or_insert(0) += 1;
    }
    by_class
}

fn static_props_by_model(sp: &StaticProps) -> BTreeMap<String, usize> {
    let mut by_model = BTreeMap::new();
    for p in &sp.props {
        *by_model
            .entry(sp.model_of(p).unwrap_or("(bad index)").to_string())
            .or_insert(0) += 1;
    }
    by_model
}

/// The texdata materials, sorted and deduplicated without regard to case.
fn material_names(bsp: &Bsp) -> Vec<String> {
    let mut materials: Vec<String> = (0..bsp.texdata.len())
        .filter_map(|i| bsp.texdata_name(i).map(str::to_string))
        .collect();
    materials.sort_by_key(|m| m.to_ascii_lowercase());
    materials.dedup_by(|a, b| a.eq_ignore_ascii_case(b));
    materials
}

/// One report line per pakfile entry (shared by `info` and `pak list`).
pub fn pak_reports(pak: &Pak<'_>) -> Vec<PakReport> {
    pak.entries
        .iter()
        .map(|e| PakReport {
            name: e.name.clone(),
            size: e.size,
            stored_size: e.compressed_size,
            method: e.method_name(),
        })
        .collect()
}

/// Whether a texdata name is a cubemap-patched material (`maps/<map>/<material>_<x>_<y>_<z>`).
fn is_cubemap_patch(name: &str) -> bool {
    let name = name.replace('\\', "/");
    if !name.get(..5).is_some_and(|p| p.eq_ignore_ascii_case("maps/")) {
        return false;
    }
    let parts: Vec<&str> = name.rsplitn(4, '_').collect();
    parts.len() == 4 && parts[..3].iter().all(|p| p.parse::<i32>().is_ok())
}

impl CubemapReport {
    fn of(bsp: &Bsp, materials: &[String], pak: &Pak<'_>) -> CubemapReport {
        let patched: Vec<&String> = materials.iter().filter(|m| is_cubemap_patch(m)).collect();
        CubemapReport {
            samples: bsp.cubemaps.len(),
            patched_materials: patched.len(),
            patched_in_pakfile: patched
                .iter()
                .filter(|m| pak.find(&format!("materials/{m}.vmt")).is_some())
                .count(),
        }
    }
}

impl DispReport {
    fn of(bsp: &Bsp) -> DispReport {
        DispReport {
            dispinfos: bsp.disp_info.len(),
            by_power: bsp.disp_info.iter().fold(BTreeMap::new(), |mut m, d| {
                *m.entry(d.power).or_insert(0) += 1;
                m
            }),
            verts: bsp.disp_verts.len(),
            tris: bsp.disp_tris.len(),
            sample_position_bytes: bsp.disp_lightmap_sample_positions.len(),
        }
    }
}

impl OverlayReport {
    fn of(bsp: &Bsp) -> OverlayReport {
        // A corrupt count never claims more faces than the record has slots for.
        let listed = |list: &[crate::Overlay]| -> usize {
            list.iter().map(|o| o.face_count().min(o.faces.len())).sum()
        };
        OverlayReport {
            overlays: bsp.overlays.len(),
            faces: listed(&bsp.overlays),
            water_overlays: bsp.water_overlays.len(),
            water_overlay_faces: listed(&bsp.water_overlays),
        }
    }
}

impl OccluderReport {
    fn of(bsp: &Bsp) -> OccluderReport {
        let o = bsp.occlusion.as_ref();
        OccluderReport {
            occluders: o.map_or(0, |o| o.occluders.len()),
            polygons: o.map_or(0, |o| o.polys.len()),
            vertex_indices: o.map_or(0, |o| o.vertex_indices.len()),
        }
    }
}

impl WaterReport {
    fn of(bsp: &Bsp) -> WaterReport {
        WaterReport {
            volumes: bsp.leaf_water_data.len(),
            leaves: bsp.leafs.iter().filter(|l| l.leaf_water_data != -1).count(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cubemap_patches_are_named_by_map_and_three_coordinates() {
        assert!(is_cubemap_patch("maps/c1/tools/glass_12_-3_40"));
        assert!(is_cubemap_patch("MAPS\\c1\\glass_1_2_3"));
        assert!(!is_cubemap_patch("maps/c1/glass_1_2"));
        assert!(!is_cubemap_patch("glass/window_1_2_3"));
    }

    #[test]
    fn a_small_map_reports_its_lumps_and_entities() {
        let mut bsp = Bsp::new(20);
        bsp.vertexes = vec![[1.0, 2.0, 3.0]; 40];
        let mut world = crate::Entity::default();
        world.set("classname", "worldspawn");
        bsp.entities.push(world);
        let data = bsp.to_bytes().unwrap();
        let report = InfoReport::of("a.bsp".into(), &data, |_| VisPass::None).unwrap();
        assert_eq!(report.file_bytes, data.len());
        assert_eq!(report.entities_by_class.get("worldspawn"), Some(&1));
        let vertexes = report.lumps.iter().find(|l| l.index == lump::VERTEXES).unwrap();
        assert_eq!((vertexes.records, vertexes.bytes), (Some(40), 480));
        assert_eq!(report.state.visibility.pass, VisPass::None);
        assert!(InfoReport::of("x".into(), b"VBSP", |_| VisPass::None).is_err());
    }
}
