//! What vvis derives from the finished PVS for water: leaves that may see a fog volume
//! (`CalcVisibleFogVolumes`: `CONTENTS_TESTFOGVOLUME`) and each leaf's distance to the nearest
//! visible water surface (`CalcDistanceFromLeavesToWater`: the LEAFMINDISTTOWATER lump).

use srcmap_bsp::flags::{Contents, SurfaceFlags};
use srcmap_bsp::{Bsp, Leaf, Visibility};

const FAR: u16 = 65535;

fn contents(leaf: &Leaf) -> Contents {
    Contents::from_record(leaf.contents)
}

/// Recomputes leaf fog-test flags and distances to water from `vis`, as vvis does after the
/// PVS. Leaves the BSP's leaf count unchanged; `leaf_min_dist_to_water` gets one entry per leaf.
pub fn update_water(bsp: &mut Bsp, vis: &Visibility) {
    let cluster_leaves = cluster_leaves(bsp, vis.num_clusters as usize);
    for leaf in &mut bsp.leafs {
        leaf.contents = contents(leaf).without(Contents::TESTFOGVOLUME).to_record();
    }
    mark_fog_tests(bsp, vis, &cluster_leaves);
    // vvis `CalcDistanceFromLeavesToWater`.
    let dists: Vec<u16> = (0..bsp.leafs.len())
        .map(|i| distance_to_water(bsp, vis, &cluster_leaves, i))
        .collect();
    bsp.leaf_min_dist_to_water = dists;
}

/// Each cluster's leaves, in leaf order.
fn cluster_leaves(bsp: &Bsp, n_clusters: usize) -> Vec<Vec<usize>> {
    let mut cluster_leaves: Vec<Vec<usize>> = vec![Vec::new(); n_clusters];
    for (i, leaf) in bsp.leafs.iter().enumerate() {
        if leaf.cluster >= 0 && (leaf.cluster as usize) < n_clusters {
            cluster_leaves[leaf.cluster as usize].push(i);
        }
    }
    cluster_leaves
}

/// The leaves of the other clusters `cluster` sees, cluster by cluster.
fn visible_leaves<'c>(
    vis: &'c Visibility,
    cluster_leaves: &'c [Vec<usize>],
    cluster: usize,
) -> impl Iterator<Item = usize> + 'c {
    cluster_leaves
        .iter()
        .enumerate()
        .filter(move |&(j, _)| j != cluster && vis.can_see(cluster, j))
        .flat_map(|(_, leaves)| leaves.iter().copied())
}

/// vvis `CalcVisibleFogVolumes`: a dry leaf seen from a wet one must test fog at run time.
fn mark_fog_tests(bsp: &mut Bsp, vis: &Visibility, cluster_leaves: &[Vec<usize>]) {
    for i in 0..bsp.leafs.len() {
        let leaf = &bsp.leafs[i];
        if contents(leaf).intersects(Contents::TESTFOGVOLUME | Contents::SOLID | Contents::SLIME)
            || leaf.leaf_water_data == -1
            || leaf.cluster < 0
        {
            continue;
        }
        for k in visible_leaves(vis, cluster_leaves, leaf.cluster as usize) {
            let other = &mut bsp.leafs[k];
            if !contents(other).intersects(Contents::SOLID) && other.leaf_water_data == -1 {
                other.contents = (contents(other) | Contents::TESTFOGVOLUME).to_record();
            }
        }
    }
}

fn sees_water_boundary(bsp: &Bsp, leaf: usize) -> bool {
    let l = &bsp.leafs[leaf];
    contents(l).intersects(Contents::TESTFOGVOLUME) || l.leaf_water_data != -1
}

fn distance_to_water(bsp: &Bsp, vis: &Visibility, cluster_leaves: &[Vec<usize>], leaf: usize) -> u16 {
    if !sees_water_boundary(bsp, leaf) || bsp.leafs[leaf].cluster < 0 {
        return FAR;
    }
    let l = &bsp.leafs[leaf];
    let mut min_dist = FAR as f32;
    for k in visible_leaves(vis, cluster_leaves, l.cluster as usize) {
        if !sees_water_boundary(bsp, k) {
            continue;
        }
        let other = &bsp.leafs[k];
        let first = other.first_leaf_face as usize;
        for n in 0..other.num_leaf_faces as usize {
            let Some(face) = bsp
                .leaf_faces
                .get(first + n)
                .and_then(|&f| water_face(bsp, f as usize))
            else {
                continue;
            };
            let (fmin, fmax) = face_bounds(bsp, face.first_edge, face.num_edges);
            min_dist = min_dist.min(box_distance(l.mins, l.maxs, fmin, fmax));
        }
    }
    min_dist as u16
}

/// Face `face_id`, when it is a water surface (`SURF_WARP`).
fn water_face(bsp: &Bsp, face_id: usize) -> Option<&srcmap_bsp::Face> {
    let face = bsp.faces.get(face_id)?;
    let texinfo = usize::try_from(face.texinfo)
        .ok()
        .and_then(|t| bsp.texinfo.get(t))?;
    SurfaceFlags::from_record(texinfo.flags)
        .intersects(SurfaceFlags::WARP)
        .then_some(face)
}

fn face_bounds(bsp: &Bsp, first_edge: i32, num_edges: i32) -> ([f32; 3], [f32; 3]) {
    let (mut lo, mut hi) = ([f32::MAX; 3], [f32::MIN; 3]);
    for i in first_edge.max(0)..first_edge.max(0) + num_edges.max(0) {
        let Some(&se) = bsp.surfedges.get(i as usize) else {
            continue;
        };
        let Some(edge) = bsp.edges.get(se.unsigned_abs() as usize) else {
            continue;
        };
        for v in edge.0 {
            if let Some(p) = bsp.vertexes.get(v as usize) {
                for a in 0..3 {
                    lo[a] = lo[a].min(p[a]);
                    hi[a] = hi[a].max(p[a]);
                }
            }
        }
    }
    (lo, hi)
}

/// vvis `GetMinDistanceBetweenBoundingBoxes`.
fn box_distance(min1: [f32; 3], max1: [f32; 3], min2: [f32; 3], max2: [f32; 3]) -> f32 {
    let intersecting = (0..3).all(|i| min1[i] <= max2[i] && max1[i] >= min2[i]);
    if intersecting {
        return 0.0;
    }
    let mut axis = [0f32; 3];
    for i in 0..3 {
        if !(min1[i] <= max2[i] && max1[i] >= min2[i]) {
            axis[i] = (min1[i] - max2[i]).max(min2[i] - max1[i]);
        }
    }
    (axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]).sqrt()
}
