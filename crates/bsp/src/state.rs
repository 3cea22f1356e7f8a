//! What state a compiled map is in: whether vvis ran (and on how many clusters), whether vrad
//! lit it (LDR, HDR or both), whether vbsp found a leak, and how many of each compiled feature
//! it holds. Every answer is read from the map's own lumps; where the file cannot tell, the
//! answer says so rather than guess.
//!
//! The evidence, from how Valve's tools write a map (SDK 2013 `utils/vbsp`, `utils/vvis`):
//! - vbsp writes no visibility data; vvis fills the VISIBILITY lump (cluster count, then the
//!   PVS and PAS rows). An empty lump means vvis never ran.
//! - vbsp numbers the clusters only when it writes the portal file, which it skips when the
//!   map leaks (`if (!leaked) WritePortalFile`). The nodes are allocated zeroed, so every
//!   leaf of a leaked world keeps cluster 0 — solid leaves included, which a sealed map marks
//!   -1 — and vvis, finding no portal file, cannot run.
//! - `vvis -fast` keeps each portal's flood-fill estimate instead of running the exact pass.
//!   The result has the same form as a full vis (only denser rows), so the lump alone does not
//!   tell the two apart: [`VisPass::Unknown`] here; `srcmap_vvis::vis_pass` rebuilds the
//!   portal flood from the map's tree and compares.

use serde::Serialize;

use crate::Bsp;
use crate::gamelump::{GameLumpData, id_name};

/// The state of a compiled map.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MapState {
    pub visibility: VisState,
    pub lighting: LightingState,
    pub leak: LeakState,
    pub counts: FeatureCounts,
    /// Each game lump's id and version (`sprp` v10, `dprp` v4, ...), in directory order.
    pub game_lumps: Vec<GameLumpVersion>,
}

/// Whether vvis ran, and what its data covers.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VisState {
    /// The VISIBILITY lump holds PVS data.
    pub present: bool,
    /// Clusters the PVS covers (the lump's own count); without vis, the clusters vbsp
    /// numbered in the leaves (the highest cluster + 1, as vrad counts them).
    pub clusters: u32,
    /// `-fast` or full, where the file can tell.
    pub pass: VisPass,
    /// Of all cluster pairs, the fraction the PVS says can see each other (0 without vis).
    pub pvs_density: f64,
}

/// Which vvis pass made the PVS. The lump alone cannot tell (both have the same form):
/// [`MapState::of`] says [`VisPass::Unknown`]; `srcmap_vvis::vis_pass` tells by comparing the
/// PVS with the portal flood of the map's own tree and, where affordable, a full pass of its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum VisPass {
    /// No visibility data.
    None,
    /// Some cluster's PVS is strictly inside its portal flood: the exact pass culled it.
    Full,
    /// Every row equals the portal flood, and a full pass culls more than 1% of its pairs:
    /// `vvis -fast`.
    Fast,
    /// Every row equals the portal flood and a full pass culls nothing more: both passes give
    /// this PVS.
    Either,
    /// Every row equals the portal flood, and the full pass was not run (too much work for a
    /// report) or culls under 1% (how far two full passes may differ): `-fast`, or a full pass
    /// with (almost) nothing to cull.
    PortalFlood,
    /// Not told (the portals rebuilt from the tree disagree with the lump, or not compared).
    Unknown,
}

/// Which lightmaps vrad wrote.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LightingState {
    pub ldr: LightmapState,
    pub hdr: LightmapState,
    /// `light*` entities vrad saw (WORLDLIGHTS records, LDR and HDR).
    pub world_lights: usize,
    pub world_lights_hdr: usize,
}

/// One set of lightmaps (LDR or HDR).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LightmapState {
    /// Luxels in the lighting lump (4 bytes each).
    pub samples: usize,
    /// Faces of that set whose lightmap lies in the lump.
    pub lit_faces: usize,
}

impl LightmapState {
    pub fn present(&self) -> bool {
        self.samples > 0
    }
}

/// Whether the map was compiled leaked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LeakState {
    /// Vis data present (vvis runs only on a sealed map), or vbsp numbered clusters and
    /// marked solid leaves -1 (it does both only when writing the portal file of a sealed map).
    Sealed,
    /// No vis data, and every world leaf, solid ones included, in cluster 0: the portal file
    /// was never written.
    Leaked,
    /// The outside was not filled: a non-solid world leaf touches the world's bounding box
    /// (the head node's), which only the void outside the map can. vbsp leaves it so on a
    /// leak it was told to let through (`--allowleak`) or with no entity in open space.
    #[serde(rename = "leaked")]
    Unfilled,
    /// No vis data and no world leaf to tell by.
    Unknown,
}

/// Record counts of the compiled features.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct FeatureCounts {
    pub entities: usize,
    /// Models other than the world (func_* brush entities).
    pub brush_models: usize,
    pub static_props: usize,
    pub detail_props: usize,
    pub displacements: usize,
    pub overlays: usize,
    pub water_overlays: usize,
    pub cubemaps: usize,
    pub leaves: usize,
}

/// One game lump's id and version.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GameLumpVersion {
    pub id: String,
    pub version: u16,
}

impl MapState {
    pub fn of(bsp: &Bsp) -> MapState {
        MapState {
            visibility: VisState::of(bsp),
            lighting: LightingState::of(bsp),
            leak: LeakState::of(bsp),
            counts: FeatureCounts::of(bsp),
            game_lumps: bsp
                .game_lumps
                .lumps
                .iter()
                .map(|g| GameLumpVersion {
                    id: id_name(g.id),
                    version: g.version,
                })
                .collect(),
        }
    }
}

/// Leaves of the world model (model 0), by walking its node tree; empty when the tree is
/// absent or broken (a cycle or an index out of range ends the walk).
fn world_leaves(bsp: &Bsp) -> Vec<usize> {
    let Some(world) = bsp.models.first() else {
        return Vec::new();
    };
    let mut leaves = Vec::new();
    let mut stack = vec![world.head_node];
    // Each node is visited at most once in a tree; more steps than nodes means a cycle.
    let mut steps = 0usize;
    while let Some(n) = stack.pop() {
        steps += 1;
        if steps > bsp.nodes.len() + bsp.leafs.len() + 1 {
            return Vec::new();
        }
        if n < 0 {
            let leaf = (-1 - n) as usize;
            if leaf >= bsp.leafs.len() {
                return Vec::new();
            }
            leaves.push(leaf);
        } else {
            let Some(node) = bsp.nodes.get(n as usize) else {
                return Vec::new();
            };
            stack.extend(node.children);
        }
    }
    leaves
}

impl VisState {
    fn of(bsp: &Bsp) -> VisState {
        match &bsp.visibility {
            Some(vis) if vis.num_clusters > 0 => {
                let n = vis.num_clusters as f64;
                VisState {
                    present: true,
                    clusters: vis.num_clusters,
                    pass: VisPass::Unknown,
                    pvs_density: visible_pairs(vis) as f64 / (n * n),
                }
            }
            _ => VisState {
                present: false,
                clusters: bsp
                    .leafs
                    .iter()
                    .map(|l| l.cluster.saturating_add(1))
                    .max()
                    .unwrap_or(0)
                    .max(0) as u32,
                pass: VisPass::None,
                pvs_density: 0.0,
            },
        }
    }
}

/// Cluster pairs the PVS says can see each other (bits past the cluster count not counted);
/// linear in the rows' bytes.
pub fn visible_pairs(vis: &crate::Visibility) -> u64 {
    let n = vis.num_clusters as usize;
    vis.pvs
        .iter()
        .take(n)
        .map(|row| {
            (0..vis.row_len())
                .map(|i| (row.get(i).copied().unwrap_or(0) & row_mask(n, i)).count_ones() as u64)
                .sum::<u64>()
        })
        .sum()
}

/// The bits of byte `i` of a row that stand for one of `n` clusters.
pub fn row_mask(n: usize, i: usize) -> u8 {
    let bits = n.saturating_sub(i * 8).min(8);
    if bits == 8 { 0xff } else { (1u8 << bits) - 1 }
}

impl LightingState {
    fn of(bsp: &Bsp) -> LightingState {
        let set = |samples: usize, faces: &[crate::Face]| LightmapState {
            samples,
            lit_faces: faces
                .iter()
                .filter(|f| f.light_offset >= 0 && (f.light_offset as usize) < samples * 4)
                .count(),
        };
        // HDR faces are their own lump when vbsp wrote one; otherwise the LDR faces index both.
        let hdr_faces = if bsp.faces_hdr.is_empty() {
            &bsp.faces
        } else {
            &bsp.faces_hdr
        };
        LightingState {
            ldr: set(bsp.lighting.len(), &bsp.faces),
            hdr: set(bsp.lighting_hdr.len(), hdr_faces),
            world_lights: bsp.world_lights.len(),
            world_lights_hdr: bsp.world_lights_hdr.len(),
        }
    }
}

impl LeakState {
    fn of(bsp: &Bsp) -> LeakState {
        let leaves = world_leaves(bsp);
        let vis = bsp.visibility.as_ref().is_some_and(|v| v.num_clusters > 0);
        if !vis && !leaves.is_empty() && leaves.iter().all(|&l| bsp.leafs[l].cluster == 0) {
            LeakState::Leaked
        } else if outside_open(bsp, &leaves) {
            LeakState::Unfilled
        } else if vis || !leaves.is_empty() {
            LeakState::Sealed
        } else {
            LeakState::Unknown
        }
    }
}

/// Whether a non-solid world leaf reaches a face of the world's box (the head node's bounds):
/// every point of the map's inside lies strictly within the brushes' extent, so such a leaf
/// is the void outside, which a filled map has made solid.
fn outside_open(bsp: &Bsp, leaves: &[usize]) -> bool {
    let Some(head) = bsp
        .models
        .first()
        .and_then(|m| bsp.nodes.get(m.head_node.max(0) as usize))
    else {
        return false;
    };
    leaves.iter().map(|&l| &bsp.leafs[l]).any(|leaf| {
        leaf.contents & 1 == 0 && (0..3).any(|k| leaf.mins[k] <= head.mins[k] || leaf.maxs[k] >= head.maxs[k])
    })
}

impl FeatureCounts {
    fn of(bsp: &Bsp) -> FeatureCounts {
        let detail_props = bsp
            .game_lumps
            .lumps
            .iter()
            .map(|g| match &g.data {
                GameLumpData::DetailProps(d) => d.objects.len(),
                _ => 0,
            })
            .sum();
        FeatureCounts {
            entities: bsp.entities.len(),
            brush_models: bsp.models.len().saturating_sub(1),
            static_props: bsp.game_lumps.static_props().map_or(0, |s| s.props.len()),
            detail_props,
            displacements: bsp.disp_info.len(),
            overlays: bsp.overlays.len(),
            water_overlays: bsp.water_overlays.len(),
            cubemaps: bsp.cubemaps.len(),
            leaves: bsp.leafs.len(),
        }
    }
}

/// The map's state as `srcmap info` tells it: one line each for visibility, lighting, the
/// leak, the feature counts and the game lump versions, each ending in a newline.
impl std::fmt::Display for MapState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "visibility: {}", self.visibility_text())?;
        writeln!(f, "lighting: {}", self.lighting)?;
        writeln!(f, "leak: {}", self.leak.describe())?;
        writeln!(f, "features: {}", self.counts)?;
        writeln!(f, "game lump versions: {}", self.game_lump_versions())
    }
}

impl MapState {
    /// What the visibility lump holds, or why there is none.
    fn visibility_text(&self) -> String {
        let v = &self.visibility;
        if v.present {
            format!(
                "{} clusters, PVS density {:.1}%, {}",
                v.clusters,
                v.pvs_density * 100.0,
                v.pass.describe()
            )
        } else if self.leak == LeakState::Leaked {
            "none (the map leaked: vbsp wrote no portal file for vvis)".to_string()
        } else {
            format!("none (vvis has not run; vbsp numbered {} clusters)", v.clusters)
        }
    }

    /// `sprp v10, dprp v4`, or `none`.
    fn game_lump_versions(&self) -> String {
        let versions: Vec<String> = self
            .game_lumps
            .iter()
            .map(|g| format!("{} v{}", g.id, g.version))
            .collect();
        if versions.is_empty() {
            "none".to_string()
        } else {
            versions.join(", ")
        }
    }
}

impl VisPass {
    /// What the pass means for the PVS, as `srcmap info` says it.
    pub fn describe(self) -> &'static str {
        match self {
            VisPass::Full => "full vis (the PVS is inside the portal flood: the exact pass culled it)",
            VisPass::Fast => {
                "vvis -fast (the PVS is the portal flood, which a full pass culls by more than 1%)"
            }
            VisPass::Either => "-fast and full give this same PVS (the portal flood, nothing to cull)",
            VisPass::PortalFlood => {
                "the PVS is the portal flood: vvis -fast, or a full pass with (almost) nothing to cull (not told apart)"
            }
            VisPass::None | VisPass::Unknown => {
                "-fast or full: not told (a PVS too big to compare here, or portals rebuilt from the tree that disagree with the lump)"
            }
        }
    }
}

impl LeakState {
    /// The leak state and the evidence for it, as `srcmap info` says it.
    pub fn describe(self) -> &'static str {
        match self {
            LeakState::Sealed => "none (sealed)",
            LeakState::Leaked => {
                "leaked (no vis data, and every world leaf, solid ones too, in cluster 0: vbsp wrote no portal file)"
            }
            LeakState::Unfilled => {
                "leaked (the outside was not filled: an open leaf reaches the world's box; compiled with --allowleak, or with no entity in open space)"
            }
            LeakState::Unknown => "unknown (no vis data and no world leaves)",
        }
    }
}

/// `LDR 1,000 luxels on 20 faces; HDR none; world lights: 3 LDR, 3 HDR` (numbers ungrouped).
impl std::fmt::Display for LightingState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "LDR {}; HDR {}; world lights: {} LDR, {} HDR",
            self.ldr, self.hdr, self.world_lights, self.world_lights_hdr
        )
    }
}

/// `N luxels on M faces`, or `none`.
impl std::fmt::Display for LightmapState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.present() {
            write!(f, "{} luxels on {} faces", self.samples, self.lit_faces)
        } else {
            f.write_str("none")
        }
    }
}

/// Every count with its name: `3 entities, 0 brush models, ...`.
impl std::fmt::Display for FeatureCounts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} entities, {} brush models, {} static props, {} detail props, {} displacements, {} overlays ({} water), {} cubemaps, {} leaves",
            self.entities,
            self.brush_models,
            self.static_props,
            self.detail_props,
            self.displacements,
            self.overlays,
            self.water_overlays,
            self.cubemaps,
            self.leaves
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Leaf, Model, Node, Visibility};

    /// A world of one node over two leaves (after Valve's error leaf 0): a solid one in
    /// `solid_cluster` and an empty one in cluster 0.
    fn world(solid_cluster: i32) -> Bsp {
        let mut bsp = Bsp::new(20);
        bsp.models.push(Model {
            head_node: 0,
            ..Default::default()
        });
        bsp.nodes.push(Node {
            children: [-2, -3],
            mins: [-64.0; 3],
            maxs: [64.0; 3],
            ..Default::default()
        });
        let leaf = |contents, cluster, mins, maxs| Leaf {
            contents,
            cluster,
            mins,
            maxs,
            ..Default::default()
        };
        bsp.leafs = vec![
            leaf(1, 0, [0.0; 3], [0.0; 3]),
            leaf(1, solid_cluster, [-64.0; 3], [64.0; 3]),
            leaf(0, 0, [-32.0; 3], [32.0; 3]),
        ];
        bsp
    }

    #[test]
    fn an_open_leaf_on_the_worlds_box_is_an_unfilled_outside() {
        let mut bsp = world(-1);
        bsp.leafs[2].cluster = 1;
        assert_eq!(MapState::of(&bsp).leak, LeakState::Sealed);
        bsp.leafs[2].maxs[0] = 64.0;
        let state = MapState::of(&bsp);
        assert_eq!(state.leak, LeakState::Unfilled);
        assert!(
            state
                .to_string()
                .contains("leak: leaked (the outside was not filled")
        );
        // A solid leaf there is the filled outside.
        bsp.leafs[2].contents = 1;
        assert_eq!(MapState::of(&bsp).leak, LeakState::Sealed);
    }

    #[test]
    fn leak_is_told_by_the_solid_leaves_cluster() {
        assert_eq!(MapState::of(&world(0)).leak, LeakState::Leaked);
        let sealed = MapState::of(&world(-1));
        assert_eq!(sealed.leak, LeakState::Sealed);
        assert!(!sealed.visibility.present);
        assert_eq!(sealed.visibility.clusters, 1);
        // A tree that loops back on itself tells nothing.
        let mut cycle = world(0);
        cycle.nodes[0].children = [0, -3];
        assert_eq!(MapState::of(&cycle).leak, LeakState::Unknown);
    }

    #[test]
    fn vis_data_means_sealed_and_density_ignores_padding_bits() {
        let mut bsp = world(0);
        // Three clusters; row 0 sees 0 and 1, rows 1 and 2 see everything; the high padding
        // bits of each byte are set and must not count.
        bsp.visibility = Some(Visibility {
            num_clusters: 3,
            pvs: vec![vec![0b1111_1011], vec![0xff], vec![0xff]],
            pas: vec![vec![0xff]; 3],
        });
        let state = MapState::of(&bsp);
        assert_eq!(state.leak, LeakState::Sealed);
        assert_eq!(state.visibility.clusters, 3);
        assert_eq!(visible_pairs(bsp.visibility.as_ref().unwrap()), 8);
        assert!((state.visibility.pvs_density - 8.0 / 9.0).abs() < 1e-12);
        assert_eq!(state.visibility.pass, VisPass::Unknown);
    }

    #[test]
    fn the_state_reads_as_info_prints_it() {
        let text = MapState::of(&world(0)).to_string();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines,
            [
                "visibility: none (the map leaked: vbsp wrote no portal file for vvis)",
                "lighting: LDR none; HDR none; world lights: 0 LDR, 0 HDR",
                "leak: leaked (no vis data, and every world leaf, solid ones too, in cluster 0: vbsp wrote no portal file)",
                "features: 0 entities, 0 brush models, 0 static props, 0 detail props, 0 displacements, 0 overlays (0 water), 0 cubemaps, 3 leaves",
                "game lump versions: sprp v10, dprp v4",
            ]
        );
        assert!(text.ends_with('\n'));
        let mut bare = MapState::of(&world(0));
        bare.game_lumps.clear();
        assert!(bare.to_string().ends_with("\ngame lump versions: none\n"));
        let sealed = MapState::of(&world(-1)).to_string();
        assert!(sealed.starts_with("visibility: none (vvis has not run; vbsp numbered 1 clusters)\n"));
    }
}
