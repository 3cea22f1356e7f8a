//! The map state (`srcmap_bsp::state`) against the corpus: every figure agrees with the lumps'
//! own sizes and counts, or with the corpus manifest (written by another reader), and the maps
//! without vis or light are reported so. Skips with a message when `SRCMAP_CORPUS` is unset.

mod common;

use std::collections::BTreeMap;

use srcmap_bsp::state::{LeakState, MapState, VisPass};
use srcmap_bsp::{Bsp, BspFile, lump};

/// The manifest's `format_detail` column for each corpus BSP, by file path under the root.
fn manifest(root: &std::path::Path) -> BTreeMap<String, String> {
    let text = std::fs::read_to_string(root.join("MANIFEST.tsv")).expect("corpus MANIFEST.tsv");
    text.lines()
        .filter_map(|l| {
            let cols: Vec<&str> = l.split('\t').collect();
            (cols.len() > 4 && cols[1] == "bsp").then(|| (cols[0].to_string(), cols[4].to_string()))
        })
        .collect()
}

/// `key=N` from a manifest description.
fn figure(detail: &str, key: &str) -> Option<usize> {
    detail
        .split_whitespace()
        .find_map(|w| w.strip_prefix(key)?.strip_prefix('=')?.parse().ok())
}

/// The manifest's game lumps (`sprpv6+dprpv4+????v0`) as `id vN`, the unnamed dummy left out.
fn manifest_game_lumps(detail: &str) -> Vec<String> {
    let Some(list) = detail
        .split_whitespace()
        .find_map(|w| w.strip_prefix("gamelumps="))
    else {
        return Vec::new();
    };
    list.split('+')
        .filter(|g| !g.starts_with("????"))
        .map(|g| {
            let g = g.trim_end_matches("(lzma)");
            let (id, version) = g.split_at(4);
            format!("{id} {version}")
        })
        .collect()
}

/// The corpus maps Valve's vbsp compiled leaked: no VISIBILITY lump, and the whole world,
/// solid leaves too, in cluster 0 (found by looking at every map's leaves, listed here so
/// a change in the analysis shows).
const LEAKED: [&str; 5] = [
    "bsp/blerenderr+Room-With-a-Box/background01.bsp",
    "bsp/blerenderr+Room-With-a-Box/boxinaroom.bsp",
    "bsp/dhaynespls+Half-Life-3/c1_cave.bsp",
    "bsp/fakuivan+tf2_mapping_ghost/test.bsp",
    "bsp/snake-biscuits+bsp_tool/tf2_test_displacement_decompile.bsp",
];

#[test]
fn map_state_agrees_with_the_lumps_and_the_manifest() {
    let Some(root) = common::corpus_root() else {
        eprintln!("SRCMAP_CORPUS is not set: skipping the map state corpus test");
        return;
    };
    let (mut maps, mut unvised, mut unlit, mut leaked) = (0, 0, 0, Vec::new());
    for (rel, detail) in manifest(&root) {
        if !(detail.starts_with("VBSP") || detail.starts_with("PSBV")) {
            continue;
        }
        let data = std::fs::read(root.join(&rel)).unwrap_or_else(|e| panic!("{rel}: {e}"));
        let file = BspFile::parse(&data).unwrap_or_else(|e| panic!("{rel}: {e}"));
        let bsp = Bsp::from_file(&file).unwrap_or_else(|e| panic!("{rel}: {e}"));
        let state = MapState::of(&bsp);
        let lump_len = |i: usize| file.lump(i).unwrap_or_else(|e| panic!("{rel}: {e}")).len();
        maps += 1;

        // Visibility: the lump's own cluster count, or none when the lump is empty.
        let vis = file.lump(lump::VISIBILITY).unwrap();
        let v = &state.visibility;
        if vis.len() >= 4 {
            let clusters = u32::from_le_bytes(vis[..4].try_into().unwrap());
            let clusters = if file.header.endian == srcmap_bsp::Endian::Big {
                clusters.swap_bytes()
            } else {
                clusters
            };
            assert!(v.present, "{rel}: a VISIBILITY lump, reported absent");
            assert_eq!(v.clusters, clusters, "{rel}: cluster count");
            assert_eq!(v.pass, VisPass::Unknown, "{rel}");
            assert!(
                v.pvs_density > 0.0 && v.pvs_density <= 1.0,
                "{rel}: density {}",
                v.pvs_density
            );
            assert_eq!(
                state.leak,
                LeakState::Sealed,
                "{rel}: vvis ran, so the map was sealed"
            );
        } else {
            assert!(!v.present, "{rel}: no VISIBILITY lump, reported present");
            assert_eq!(v.pass, VisPass::None, "{rel}");
            unvised += 1;
        }
        if state.leak == LeakState::Leaked {
            leaked.push(rel.clone());
            assert_eq!(v.clusters, 1, "{rel}: a leaked world is one cluster");
        }

        // Lighting: four bytes a luxel, in each lump.
        assert_eq!(
            state.lighting.ldr.samples,
            lump_len(lump::LIGHTING) / 4,
            "{rel}: LDR luxels"
        );
        assert_eq!(
            state.lighting.hdr.samples,
            lump_len(lump::LIGHTING_HDR) / 4,
            "{rel}: HDR luxels"
        );
        for set in [&state.lighting.ldr, &state.lighting.hdr] {
            assert_eq!(
                set.present(),
                set.lit_faces > 0,
                "{rel}: luxels without lit faces or back"
            );
        }
        if !state.lighting.ldr.present() && !state.lighting.hdr.present() {
            unlit += 1;
        }

        // Counts: the manifest's (another reader's) and the fixed-size records' own.
        let c = &state.counts;
        assert_eq!(Some(c.entities), figure(&detail, "ents"), "{rel}: entities");
        assert_eq!(
            Some(c.displacements),
            figure(&detail, "dispinfos"),
            "{rel}: displacements"
        );
        assert_eq!(
            c.brush_models,
            lump_len(lump::MODELS) / 48 - 1,
            "{rel}: brush models"
        );
        assert_eq!(c.cubemaps, lump_len(lump::CUBEMAPS) / 16, "{rel}: cubemaps");
        if file.header.version <= 21 {
            assert_eq!(c.overlays, lump_len(lump::OVERLAYS) / 352, "{rel}: overlays");
        }
        let versions: Vec<String> = state
            .game_lumps
            .iter()
            .map(|g| format!("{} v{}", g.id, g.version))
            .collect();
        assert_eq!(
            versions,
            manifest_game_lumps(&detail),
            "{rel}: game lump versions"
        );
        let sprp = state.game_lumps.iter().any(|g| g.id == "sprp");
        assert!(
            sprp || c.static_props == 0,
            "{rel}: static props without a sprp lump"
        );
    }
    assert_eq!(maps, 36, "Source BSPs in the corpus");
    assert_eq!(leaked, LEAKED, "maps compiled leaked");
    // The unvised maps: the five leaked ones, and five sealed ones vvis never ran on.
    assert_eq!(unvised, 10);
    // The three tool-texture maps, rot_main and jump_edgebugtest have neither lightmap.
    assert_eq!(unlit, 5);
}
