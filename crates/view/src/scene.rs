//! What the page needs beside the mesh, from the BSP: the tree (to find the leaf and cluster
//! under the camera), each drawn face's clusters (to highlight what a cluster can see), the
//! PVS rows, area portals, the leak path and the vis portals. Positions stay in Source
//! coordinates (inches, Z up); the page converts them as the glTF export does.

use glam::Vec3;
use serde_json::{Value, json};
use srcmap_bsp::Bsp;
use srcmap_export::MapMesh;
use srcmap_vvis::portals::Portals;

/// The page's data: `scene.json` and the PVS rows (`pvs.bin`).
#[derive(Debug, Clone, PartialEq)]
pub struct Scene {
    pub json: Value,
    /// Decoded PVS, `num_clusters` rows of `ceil(num_clusters / 8)` bytes; empty without vis.
    pub pvs: Vec<u8>,
}

/// Player starts, tried in this order for the first camera position.
const STARTS: &[&str] = &[
    "info_player_start",
    "info_player_teamspawn",
    "info_player_terrorist",
    "info_player_counterterrorist",
    "info_player_deathmatch",
    "info_player_combine",
    "info_player_rebel",
];

/// Eye height above a player start, in inches.
const EYE_HEIGHT: f64 = 64.0;

fn flat(points: &[[f64; 3]]) -> Vec<f64> {
    points.iter().flatten().copied().collect()
}

/// The clusters each drawn face lies in: from the leaves that list it, else (brush models,
/// displacements) the leaf at its centroid, pushed off the face along its normal.
fn face_clusters(bsp: &Bsp, mesh: &MapMesh) -> Vec<Vec<i32>> {
    let by_face = listed_clusters(bsp);
    mesh.face_vertices
        .iter()
        .map(|(face, range)| {
            let mut clusters = by_face.get(*face).cloned().unwrap_or_default();
            if clusters.is_empty()
                && let Some(cluster) = centroid_cluster(bsp, mesh, range)
            {
                clusters.push(cluster);
            }
            clusters.sort_unstable();
            clusters
        })
        .collect()
}

/// Per face, the clusters of the leaves that list it (in leaf order, each once).
fn listed_clusters(bsp: &Bsp) -> Vec<Vec<i32>> {
    let faces = srcmap_export::mesh::faces_of(bsp);
    let mut by_face: Vec<Vec<i32>> = vec![Vec::new(); faces.len()];
    for leaf in &bsp.leafs {
        if leaf.cluster < 0 {
            continue;
        }
        let first = leaf.first_leaf_face as usize;
        let listed = bsp
            .leaf_faces
            .get(first..first.saturating_add(leaf.num_leaf_faces as usize))
            .unwrap_or(&[]);
        for &f in listed {
            if let Some(c) = by_face.get_mut(f as usize)
                && !c.contains(&leaf.cluster)
            {
                c.push(leaf.cluster);
            }
        }
    }
    by_face
}

/// The cluster of the leaf at the centroid of a face's vertices (`range`), pushed two units
/// off the face along its mean normal; `None` in solid or outside.
fn centroid_cluster(bsp: &Bsp, mesh: &MapMesh, range: &std::ops::Range<u32>) -> Option<i32> {
    let verts = &mesh.world_positions[range.start as usize..range.end as usize];
    let normals = &mesh.vertices[range.start as usize..range.end as usize];
    let n = verts.len().max(1) as f32;
    let centroid = verts.iter().copied().sum::<Vec3>() / n;
    let normal = normals.iter().map(|v| v.normal).sum::<Vec3>().normalize_or_zero();
    let p = centroid + normal * 2.0;
    let leaf = bsp.leaf_at(0, [p.x as f64, p.y as f64, p.z as f64])?;
    (leaf.cluster >= 0).then_some(leaf.cluster)
}

/// The camera's first place: a player start at eye height, looking along its yaw; else above
/// a corner of the map's bounds, looking at its middle. `[x, y, z, yaw, pitch]`, degrees.
fn start_camera(bsp: &Bsp, mesh: &MapMesh) -> [f64; 5] {
    let vec3 = |s: &str| -> Option<[f64; 3]> {
        let v: Vec<f64> = s.split_whitespace().filter_map(|t| t.parse().ok()).collect();
        (v.len() == 3 && v.iter().all(|c| c.is_finite())).then(|| [v[0], v[1], v[2]])
    };
    for class in STARTS {
        if let Some((o, a)) = bsp.entities.iter().find_map(|e| {
            (e.classname() == Some(class)).then_some(())?;
            Some((
                vec3(e.get("origin")?)?,
                e.get("angles").and_then(vec3).unwrap_or([0.0; 3]),
            ))
        }) {
            return [o[0], o[1], o[2] + EYE_HEIGHT, a[1], 0.0];
        }
    }
    let Some((lo, hi)) = mesh.bounds() else {
        return [0.0; 5];
    };
    let (lo, hi) = (lo.as_dvec3(), hi.as_dvec3());
    let mid = (lo + hi) / 2.0;
    let eye = glam::DVec3::new(lo.x, lo.y, hi.z);
    let d = mid - eye;
    let yaw = d.y.atan2(d.x).to_degrees();
    let pitch = (-d.z).atan2(d.truncate().length()).to_degrees();
    [eye.x, eye.y, eye.z, yaw, pitch]
}

/// The PVS rows, each padded or cut to the row length; without vis, none (and a note).
fn pvs_rows(vis: Option<&srcmap_bsp::Visibility>, notes: &mut Vec<String>) -> Vec<u8> {
    match vis {
        Some(v) => {
            let row_len = v.row_len();
            let mut rows = vec![0u8; v.num_clusters as usize * row_len];
            for (row, out) in v.pvs.iter().zip(rows.chunks_exact_mut(row_len)) {
                let n = row.len().min(row_len);
                out[..n].copy_from_slice(&row[..n]);
            }
            rows
        }
        None => {
            notes.push("the map has no visibility: no PVS to show".to_string());
            Vec::new()
        }
    }
}

/// The tree's nodes: `[normal x, y, z, dist, front child, back child]`.
fn tree_nodes(bsp: &Bsp) -> Vec<Value> {
    bsp.nodes
        .iter()
        .map(|n| {
            let plane = usize::try_from(n.plane).ok().and_then(|p| bsp.planes.get(p));
            let (normal, dist) = plane.map_or(([0.0; 3], 0.0), |p| (p.normal, p.dist));
            json!([
                normal[0],
                normal[1],
                normal[2],
                dist,
                n.children[0],
                n.children[1]
            ])
        })
        .collect()
}

/// The area portals with a polygon, the first record of each portal key only.
fn area_portals(bsp: &Bsp) -> Vec<Value> {
    let mut seen_keys = Vec::new();
    bsp.area_portals
        .iter()
        .filter(|p| {
            let first = !seen_keys.contains(&p.portal_key);
            seen_keys.push(p.portal_key);
            first
        })
        .filter_map(|p| {
            let first = p.first_clip_portal_vert as usize;
            let points = bsp
                .clip_portal_verts
                .get(first..first.checked_add(p.num_clip_portal_verts as usize)?)?;
            // VBSP writes record 0 as an unused entry without vertices; a record with
            // fewer than three draws no polygon.
            if points.len() < 3 {
                return None;
            }
            let points: Vec<[f64; 3]> = points.iter().map(|v| v.map(f64::from)).collect();
            Some(json!({"key": p.portal_key, "points": flat(&points)}))
        })
        .collect()
}

/// Each leaf's `[cluster, area]`.
fn leafs(bsp: &Bsp) -> Vec<Value> {
    bsp.leafs
        .iter()
        .map(|l| json!([l.cluster, l.area(bsp.version)]))
        .collect()
}

/// Each drawn face's `[first vertex, end vertex, clusters]`.
fn faces(bsp: &Bsp, mesh: &MapMesh) -> Vec<Value> {
    mesh.face_vertices
        .iter()
        .zip(face_clusters(bsp, mesh))
        .map(|((_, range), clusters)| json!([range.start, range.end, clusters]))
        .collect()
}

/// The vis portals: their two clusters and their polygon.
fn vis_portals(portals: &Portals) -> Vec<Value> {
    portals
        .portals
        .iter()
        .map(|q| json!({"clusters": q.clusters, "points": flat(&q.points)}))
        .collect()
}

impl Scene {
    /// The page's data for `bsp` drawn as `mesh`, with the leak path and vis portals when
    /// they were found beside the map. `notes` are shown on the page (with the mesh's own).
    pub fn build(
        bsp: &Bsp,
        mesh: &MapMesh,
        leak: Option<&[[f64; 3]]>,
        portals: Option<&Portals>,
        notes: &[String],
    ) -> Scene {
        let mut notes: Vec<String> = mesh.notes.iter().chain(notes).cloned().collect();
        let vis = bsp.visibility.as_ref().filter(|v| v.num_clusters > 0);
        let pvs = pvs_rows(vis, &mut notes);
        let head = bsp.models.first().map_or(-1, |m| m.head_node);
        let json = json!({
            "triangles": mesh.triangles,
            "faces_drawn": mesh.faces_drawn,
            "lit": mesh.atlas.lit_faces() > 0,
            "num_clusters": vis.map_or(0, |v| v.num_clusters),
            "head_node": head,
            "nodes": tree_nodes(bsp),
            "leafs": leafs(bsp),
            "faces": faces(bsp, mesh),
            "area_portals": area_portals(bsp),
            "leak": leak.map(flat),
            "portals": portals.map(vis_portals),
            "camera": start_camera(bsp, mesh),
            "notes": notes,
        });
        Scene { json, pvs }
    }
}
