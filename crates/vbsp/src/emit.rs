//! From trees, faces and brushes to BSP records: vertex welding, T-junction fixing,
//! edges, nodes (solid subtrees pruned), leaves, models, the entity lump.

use std::collections::HashMap;

use srcmap_bsp as bsp;
use srcmap_geom::{DVec3, PlaneSet};

use crate::brush::Brush;
use crate::contents::*;
use crate::diag::{VbspError, check_limit};
use crate::faces::Face;
use crate::occluders::OccluderFaces;
use crate::texinfo::Texinfos;
use crate::tree::{NodeId, Tree};
use crate::types::{Clusters, Ent};

/// `sky_area` marks the areas of the 3D skybox: all their leaves share one cluster, as in
/// Valve's `NumberLeafs`.
/// `viscluster` names the func_viscluster a leaf (by its bounds) belongs to, if any: such
/// leaves share that cluster.
pub fn assign_clusters(
    tree: &Tree,
    leaf_area: &[u32],
    sky_area: &dyn Fn(u32) -> bool,
    viscluster: &dyn Fn(&srcmap_geom::Bounds) -> Option<usize>,
) -> Clusters {
    let mut of_node = vec![-1; tree.nodes.len()];
    let mut numbers = ClusterNumbers::default();
    let solid = solid_subtrees(tree);
    let mut stack = vec![tree.head];
    while let Some(n) = stack.pop() {
        let node = tree.node(n);
        if node.is_leaf() || solid[n.idx()] {
            if node.contents & CONTENTS_SOLID == 0 && !solid[n.idx()] {
                let area = leaf_area.get(n.idx()).copied().unwrap_or(0);
                of_node[n.idx()] = match viscluster(&node.bounds) {
                    Some(v) => numbers.of_viscluster(v),
                    None if area != 0 && sky_area(area) => numbers.of_sky(),
                    None => numbers.next(),
                };
            }
            continue;
        }
        stack.push(node.children[1]);
        stack.push(node.children[0]);
    }
    Clusters {
        of_node,
        count: numbers.count,
        leaked: false,
        skybox_leaves: numbers.sky_leaves,
    }
}

/// Cluster numbers as they are handed out: one per leaf, but one for all the 3D skybox
/// and one per func_viscluster.
#[derive(Default)]
struct ClusterNumbers {
    count: usize,
    sky: Option<i32>,
    /// Leaves given the 3D skybox's one cluster.
    sky_leaves: usize,
    vis: HashMap<usize, i32>,
}

impl ClusterNumbers {
    fn next(&mut self) -> i32 {
        self.count += 1;
        self.count as i32 - 1
    }

    fn of_sky(&mut self) -> i32 {
        self.sky_leaves += 1;
        if let Some(c) = self.sky {
            return c;
        }
        let c = self.next();
        self.sky = Some(c);
        c
    }

    fn of_viscluster(&mut self, v: usize) -> i32 {
        match self.vis.get(&v) {
            Some(&c) => c,
            None => {
                let c = self.next();
                self.vis.insert(v, c);
                c
            }
        }
    }
}

/// Nodes whose every leaf is solid (Valve's `PruneNodes` turns them into one solid leaf).
fn solid_subtrees(tree: &Tree) -> Vec<bool> {
    let mut solid = vec![false; tree.nodes.len()];
    // Children come after their parents in the arena: walk backwards.
    for i in (0..tree.nodes.len()).rev() {
        let n = &tree.nodes[i];
        solid[i] = match n.plane {
            None => n.contents & CONTENTS_SOLID != 0,
            Some(_) => solid[n.children[0].idx()] && solid[n.children[1].idx()],
        };
    }
    solid
}

pub struct ModelIn<'a> {
    pub tree: &'a Tree,
    pub faces: Vec<Face>,
    pub detail_faces: Vec<Face>,
    /// Displacement faces: their base quads, in dispinfo order (only the world has them).
    pub disp_faces: Vec<Face>,
    pub clusters: Option<&'a Clusters>,
}

/// The entity lump's records, in order.
pub fn entity_lump(ents: &[Ent]) -> Vec<bsp::Entity> {
    ents.iter()
        .map(|e| bsp::Entity {
            pairs: e.keyvalues.clone(),
        })
        .collect()
}

/// Node and leaf bounds as stored: shorts, rounded outwards and clamped.
fn bounds16(b: &srcmap_geom::Bounds) -> ([f32; 3], [f32; 3]) {
    let short = |v: f64| v.clamp(-32768.0, 32767.0) as i16 as f32;
    (
        [b.mins.x, b.mins.y, b.mins.z].map(|v| short(v.floor())),
        [b.maxs.x, b.maxs.y, b.maxs.z].map(|v| short(v.ceil())),
    )
}

/// A map keyed by small integers or arrays of them (weld keys, grid cells, edges), only
/// looked up, never iterated, so its order cannot reach the output: FxHash rather than the
/// default SipHash, which was 2-4% of vbsp's instructions, most of it in the T-junction
/// search's cell lookups.
type CellMap<K, V> = rustc_hash::FxHashMap<K, V>;

struct Welder {
    verts: Vec<DVec3>,
    map: CellMap<[i64; 3], u32>,
}

impl Welder {
    fn snap(p: DVec3) -> DVec3 {
        let mut q = p;
        for i in 0..3 {
            let r = q[i].round();
            if (q[i] - r).abs() < 0.01 {
                q[i] = r;
            }
        }
        q
    }

    fn key(p: DVec3) -> [i64; 3] {
        [
            (p.x * 8.0).round() as i64,
            (p.y * 8.0).round() as i64,
            (p.z * 8.0).round() as i64,
        ]
    }

    /// A face's points welded, repeats (and a last point equal to the first) dropped.
    fn add_polygon(&mut self, f: &Face) -> Vec<u32> {
        let mut idx: Vec<u32> = f.winding.points.iter().map(|&p| self.add(p)).collect();
        idx.dedup();
        while idx.len() > 1 && idx.first() == idx.last() {
            idx.pop();
        }
        idx
    }

    fn add(&mut self, p: DVec3) -> u32 {
        let p = Self::snap(p);
        let k = Self::key(p);
        *self.map.entry(k).or_insert_with(|| {
            self.verts.push(p);
            (self.verts.len() - 1) as u32
        })
    }
}

/// The side of the cells of the grid that finds the vertices near an edge.
const WELD_CELL: f64 = 64.0;

/// The grid cell of a point.
fn weld_cell(p: DVec3) -> [i32; 3] {
    [
        (p.x / WELD_CELL).floor() as i32,
        (p.y / WELD_CELL).floor() as i32,
        (p.z / WELD_CELL).floor() as i32,
    ]
}

/// Whether a weld cell may hold a point within 0.1 of the line through `pa` along the unit
/// `dir`: its centre lies within half its diagonal (55.43) and 0.1 of the line, with room for
/// rounding. A long slanted edge's box holds many cells far from the edge; skipping them
/// leaves the points found, and their order, as they were.
fn cell_near_line(cell: [i32; 3], pa: DVec3, dir: DVec3) -> bool {
    const REACH: f64 = 56.0;
    let centre = (DVec3::new(cell[0] as f64, cell[1] as f64, cell[2] as f64) + 0.5) * WELD_CELL;
    let d = centre - pa;
    (d - dir * d.dot(dir)).length_squared() <= REACH * REACH
}

/// Weld the faces' points and split edges at vertices of other faces lying on them, so
/// that no T-junction leaves a crack (Valve's `FixTjuncs`). Displacement base faces are
/// welded afterwards and take no part in the fixing: their edges are not split and their
/// corners split no one (as Valve, which writes them after the fix).
fn weld_and_fix(all: &[&Face], disp: &[&Face]) -> (Vec<DVec3>, Vec<Vec<u32>>, Vec<Vec<u32>>) {
    // Vertex 0 is left as an error vertex at the origin, as Valve's BeginBSPFile leaves
    // it; it welds with nothing.
    let mut w = Welder {
        verts: vec![DVec3::ZERO],
        map: CellMap::default(),
    };
    let mut polys: Vec<Vec<u32>> = all.iter().map(|f| w.add_polygon(f)).collect();
    let mut grid: CellMap<[i32; 3], Vec<u32>> = CellMap::default();
    for (i, &v) in w.verts.iter().enumerate().skip(1) {
        grid.entry(weld_cell(v)).or_default().push(i as u32);
    }
    let verts = &w.verts;
    use rayon::prelude::*;
    polys.par_iter_mut().for_each(|poly| {
        if poly.len() >= 3 {
            *poly = split_t_junctions(poly, verts, &grid);
        }
    });
    let disp_polys = disp
        .iter()
        .map(|f| f.winding.points.iter().map(|&p| w.add(p)).collect())
        .collect();
    (w.verts, polys, disp_polys)
}

/// Of the vertices `list` (the ends `ends` left out), those within 0.1 of the segment from
/// `pa` along `dir` for `len` and more than 0.1 from its ends, with their distance along it.
#[inline]
fn on_segment<'v>(
    list: &'v [u32],
    ends: (u32, u32),
    pa: DVec3,
    dir: DVec3,
    len: f64,
    verts: &'v [DVec3],
) -> impl Iterator<Item = (f64, u32)> + 'v {
    list.iter().filter_map(move |&v| {
        if v == ends.0 || v == ends.1 {
            return None;
        }
        let d = verts[v as usize] - pa;
        let t = d.dot(dir);
        if t <= 0.1 || t >= len - 0.1 {
            return None;
        }
        ((d - dir * t).length() < 0.1).then_some((t, v))
    })
}

/// The polygon with, on each edge, the vertices lying on it (in order along it).
fn split_t_junctions(poly: &[u32], verts: &[DVec3], grid: &CellMap<[i32; 3], Vec<u32>>) -> Vec<u32> {
    let mut out = Vec::with_capacity(poly.len());
    for i in 0..poly.len() {
        let (a, b) = (poly[i], poly[(i + 1) % poly.len()]);
        out.push(a);
        out.extend(vertices_on_edge(a, b, verts, grid));
    }
    out.dedup();
    out
}

/// The vertices (but its ends) within 0.1 of the edge from `a` to `b` and more than 0.1
/// from its ends, in order from `a`; none for an edge shorter than 0.1 or one crossing
/// more than 4096 cells.
fn vertices_on_edge(a: u32, b: u32, verts: &[DVec3], grid: &CellMap<[i32; 3], Vec<u32>>) -> Vec<u32> {
    let (pa, pb) = (verts[a as usize], verts[b as usize]);
    let dir = pb - pa;
    let len = dir.length();
    if len < 0.1 {
        return Vec::new();
    }
    let dir = dir / len;
    let (ca, cb) = (weld_cell(pa.min(pb)), weld_cell(pa.max(pb)));
    let cells = (cb[0] - ca[0] + 1) as i64 * (cb[1] - ca[1] + 1) as i64 * (cb[2] - ca[2] + 1) as i64;
    if cells > 4096 {
        return Vec::new();
    }
    let mut on: Vec<(f64, u32)> = Vec::new();
    for x in ca[0]..=cb[0] {
        for y in ca[1]..=cb[1] {
            for z in ca[2]..=cb[2] {
                if !cell_near_line([x, y, z], pa, dir) {
                    continue;
                }
                let list = grid.get(&[x, y, z]).map_or(&[][..], Vec::as_slice);
                on.extend(on_segment(list, (a, b), pa, dir, len, verts));
            }
        }
    }
    on.sort_by(|x, y| x.0.total_cmp(&y.0));
    on.into_iter().map(|(_, v)| v).collect()
}

struct Emitter {
    out: bsp::Bsp,
    edge_map: CellMap<(u32, u32), i32>,
    /// Leaves of the model being emitted, waiting for their face lists.
    leaf_nodes: Vec<(usize, NodeId)>,
    /// The world's leaves: (leaf index, tree node).
    world_leaves: WorldLeaves,
    /// Area of each tree node of the model being emitted.
    leaf_area: Vec<u32>,
    /// The VMF side id of each emitted face, unclamped (FACEIDS holds shorts).
    face_sides: Vec<i64>,
}

/// The world's leaves as emitted: (leaf index, tree node).
pub type WorldLeaves = Vec<(usize, NodeId)>;

/// What [`emit`] wrote: the BSP, and how its faces and leaves came from the trees.
pub(crate) struct Emitted {
    pub bsp: bsp::Bsp,
    /// The VMF side id of each face, unclamped (FACEIDS holds shorts).
    pub face_sides: Vec<i64>,
    /// The world's leaves: (leaf index, tree node).
    pub world_leaves: WorldLeaves,
}

/// The BSP records of the models (the world first), their brushes, planes, texinfos and
/// areas, and the occluders. Every lump's limit is checked.
pub(crate) fn emit(
    planes: &PlaneSet,
    brushes: &[Brush],
    tex: &Texinfos,
    models: Vec<ModelIn<'_>>,
    areas: &crate::areas::Areas,
    occluders: &OccluderFaces,
) -> Result<Emitted, VbspError> {
    let mut e = Emitter::new();
    write_planes(&mut e.out, planes)?;
    write_texinfo(&mut e.out, tex)?;
    write_brushes(&mut e.out, brushes)?;
    write_reserved_records(&mut e.out);
    write_areas(&mut e.out, areas)?;
    let welded = weld_models(&models, occluders);
    write_vertices(&mut e.out, &welded, occluders)?;
    let mut polys = welded.polys.into_iter();
    let mut disp_polys = welded.disp_polys.into_iter();
    for m in &models {
        let model_polys: Vec<Vec<u32>> = (polys.by_ref())
            .take(m.faces.len() + m.detail_faces.len())
            .collect();
        let m_disp_polys: Vec<Vec<u32>> = disp_polys.by_ref().take(m.disp_faces.len()).collect();
        e.emit_model(m, &model_polys, m_disp_polys, tex, &areas.of_node)?;
    }
    finish_records(&mut e.out, &models);
    check_final_limits(&e.out)?;
    Ok(Emitted {
        bsp: e.out,
        face_sides: e.face_sides,
        world_leaves: e.world_leaves,
    })
}

/// The welded vertices, and the occluders' records over them.
fn write_vertices(o: &mut bsp::Bsp, welded: &Welded, occluders: &OccluderFaces) -> Result<(), VbspError> {
    check_limit("vertexes", welded.verts.len(), 65536)?;
    o.vertexes = (welded.verts.iter())
        .map(|v| [v.x as f32, v.y as f32, v.z as f32])
        .collect();
    o.occlusion = Some(crate::occluders::records(
        occluders,
        &welded.occluder_polys,
        &o.vertexes,
    ));
    Ok(())
}

fn write_planes(o: &mut bsp::Bsp, planes: &PlaneSet) -> Result<(), VbspError> {
    check_limit("planes", planes.len(), 65536)?;
    o.planes = planes
        .planes()
        .iter()
        .enumerate()
        .map(|(i, p)| bsp::Plane {
            normal: [p.normal.x as f32, p.normal.y as f32, p.normal.z as f32],
            dist: p.dist as f32,
            kind: planes.plane_type(srcmap_geom::PlaneId(i as u32)) as i32,
        })
        .collect();
    Ok(())
}

fn write_texinfo(o: &mut bsp::Bsp, tex: &Texinfos) -> Result<(), VbspError> {
    check_limit("texinfo", tex.list.len(), 12288)?;
    check_limit("texdata", tex.texdata.len(), 2048)?;
    o.texinfo = tex.list.clone();
    o.texdata = tex.texdata.clone();
    for (i, name) in tex.strings.iter().enumerate() {
        let id = o.add_texdata_name(name);
        // Texinfos already merged names differing only in case: ids are string indices.
        debug_assert_eq!(id as usize, i);
    }
    Ok(())
}

fn write_brushes(o: &mut bsp::Bsp, brushes: &[Brush]) -> Result<(), VbspError> {
    for b in brushes {
        o.brushes.push(bsp::Brush {
            first_side: o.brush_sides.len() as i32,
            num_sides: b.sides.len() as i32,
            contents: b.contents as i32,
        });
        for s in &b.sides {
            o.brush_sides.push(bsp::BrushSide {
                plane: s.plane.0,
                texinfo: s.texinfo.0 as i32,
                dispinfo: 0,
                bevel: s.bevel as u16,
                pad: 0,
            });
        }
    }
    check_limit("brush sides", o.brush_sides.len(), 65536)
}

/// Edge 0 and leaf 0, which no face or tree names as its own.
fn write_reserved_records(o: &mut bsp::Bsp) {
    // Edge 0 is never used: a surfedge of 0 could not say which way it runs.
    o.edges.push(bsp::Edge([0, 0]));
    // Leaf 0 is the shared solid leaf. Valve's vbsp never sets its cluster, so it keeps
    // the 0 of a zeroed array; no tree reaches it, and the solid leaf is skipped by vvis's
    // water pass and vrad's ambient sampling alike.
    o.leafs.push(bsp::Leaf {
        contents: CONTENTS_SOLID as i32,
        cluster: 0,
        leaf_water_data: -1,
        ..Default::default()
    });
}

fn write_areas(o: &mut bsp::Bsp, areas: &crate::areas::Areas) -> Result<(), VbspError> {
    check_limit("areas", areas.areas.len(), 256)?;
    check_limit("area portals", areas.portals.len(), 1024)?;
    o.areas = areas.areas.clone();
    o.area_portals = areas.portals.clone();
    o.clip_portal_verts = areas.clip_verts.clone();
    Ok(())
}

/// The welded vertices and each face's polygon over them.
struct Welded {
    verts: Vec<DVec3>,
    /// The models' faces then detail faces, model by model.
    polys: Vec<Vec<u32>>,
    /// The displacement faces, model by model.
    disp_polys: Vec<Vec<u32>>,
    occluder_polys: Vec<Vec<u32>>,
}

/// Welds every model's faces. Valve emits the occluder tree's vertices first (after the
/// error vertex), welded among themselves only.
fn weld_models(models: &[ModelIn<'_>], occluders: &OccluderFaces) -> Welded {
    let all_faces: Vec<&Face> = models
        .iter()
        .flat_map(|m| m.faces.iter().chain(&m.detail_faces))
        .collect();
    let disp_faces: Vec<&Face> = models.iter().flat_map(|m| &m.disp_faces).collect();
    let occluder_faces: Vec<&Face> = occluders.faces.iter().collect();
    let (occluder_verts, occluder_polys, _) = weld_and_fix(&occluder_faces, &[]);
    let (mut verts, mut polys, mut disp_polys) = weld_and_fix(&all_faces, &disp_faces);
    if occluder_verts.len() > 1 {
        let shift = occluder_verts.len() as u32 - 1;
        for i in polys.iter_mut().chain(disp_polys.iter_mut()).flatten() {
            *i += shift;
        }
        verts.splice(0..1, occluder_verts);
    }
    Welded {
        verts,
        polys,
        disp_polys,
        occluder_polys,
    }
}

/// The original faces, the all-visible visibility and the water distances, once every
/// model is written.
fn finish_records(o: &mut bsp::Bsp, models: &[ModelIn<'_>]) {
    o.original_faces = o.faces.clone();
    for (i, f) in o.faces.iter_mut().enumerate() {
        f.orig_face = i as i32;
    }
    // The world's clusters (the first model's) size the visibility lump.
    let clusters = models.first().and_then(|m| m.clusters);
    let num_clusters = clusters.filter(|c| !c.leaked).map_or(0, |c| c.count);
    o.visibility = all_visible(num_clusters);
    // No water is measured here: every leaf gets the lump's entry, zero.
    o.leaf_min_dist_to_water = vec![0; o.leafs.len()];
}

fn check_final_limits(o: &bsp::Bsp) -> Result<(), VbspError> {
    check_limit("faces", o.faces.len(), 65536)?;
    check_limit("nodes", o.nodes.len(), 65536)?;
    check_limit("leafs", o.leafs.len(), 65536)?;
    check_limit("edges", o.edges.len(), 256000)?;
    check_limit("surfedges", o.surfedges.len(), 512000)?;
    check_limit("leaf faces", o.leaf_faces.len(), 65536)?;
    check_limit("leaf brushes", o.leaf_brushes.len(), 65536)?;
    check_limit("models", o.models.len(), 1024)
}

/// The faces on each tree node (by index in `faces`).
fn faces_by_node(faces: &[Face]) -> HashMap<NodeId, Vec<usize>> {
    let mut by_node: HashMap<NodeId, Vec<usize>> = HashMap::new();
    for (i, f) in faces.iter().enumerate() {
        if let Some(n) = f.node {
            by_node.entry(n).or_default().push(i);
        }
    }
    by_node
}

/// Visibility in which every cluster sees and hears every other (until vis runs).
fn all_visible(n: usize) -> Option<bsp::Visibility> {
    if n == 0 {
        return None;
    }
    let row: Vec<u8> = (0..n.div_ceil(8))
        .map(|i| {
            let bits = (n - i * 8).min(8);
            if bits == 8 { 0xff } else { (1u8 << bits) - 1 }
        })
        .collect();
    Some(bsp::Visibility {
        num_clusters: n as u32,
        pvs: vec![row.clone(); n],
        pas: vec![row; n],
    })
}

impl Emitter {
    fn new() -> Self {
        Emitter {
            out: bsp::Bsp::new(bsp::versions::COMPILE_BSP_VERSION),
            edge_map: CellMap::default(),
            leaf_nodes: Vec::new(),
            world_leaves: Vec::new(),
            leaf_area: Vec::new(),
            face_sides: Vec::new(),
        }
    }

    /// One model: its nodes and leaves from its tree's head, its faces on the nodes, its
    /// detail faces, its displacement faces (which follow the others and are in no leaf's
    /// list), the leaves' face lists, and its record.
    fn emit_model(
        &mut self,
        m: &ModelIn<'_>,
        polys: &[Vec<u32>],
        disp_polys: Vec<Vec<u32>>,
        tex: &Texinfos,
        world_areas: &[u32],
    ) -> Result<(), VbspError> {
        let solid = solid_subtrees(m.tree);
        let by_node = faces_by_node(&m.faces);
        let mut leaf_faces: HashMap<NodeId, Vec<u32>> = HashMap::new();
        let first_face = self.out.faces.len();
        // Only the world's leaves have areas.
        self.leaf_area = if m.clusters.is_some() {
            world_areas.to_vec()
        } else {
            Vec::new()
        };
        let head = self.emit_node(m, m.tree.head, &solid, &by_node, polys, tex, &mut leaf_faces)?;
        for (i, f) in m.detail_faces.iter().enumerate() {
            self.emit_leaf_face(f, &polys[m.faces.len() + i], tex, false, &mut leaf_faces);
        }
        for (i, (f, poly)) in m.disp_faces.iter().zip(disp_polys).enumerate() {
            self.emit_face(f, &poly, tex, false, Some(i as u32));
        }
        // Leaf face lists are filled once every face of the model has its number.
        self.fill_leaf_faces(m, &leaf_faces);
        let head_node = if head >= 0 { head } else { self.wrap_leaf(head) };
        self.push_model(m, head_node, first_face);
        Ok(())
    }

    /// Writes a face and files it in the face lists of the leaves it is in.
    fn emit_leaf_face(
        &mut self,
        f: &Face,
        poly: &[u32],
        tex: &Texinfos,
        on_node: bool,
        leaf_faces: &mut HashMap<NodeId, Vec<u32>>,
    ) {
        if let Some(fi) = self.emit_face(f, poly, tex, on_node, None) {
            for &l in &f.leaves {
                leaf_faces.entry(l).or_default().push(fi);
            }
        }
    }

    /// The model's record: the bounds of its faces (of its tree when it has none).
    fn push_model(&mut self, m: &ModelIn<'_>, head_node: i32, first_face: usize) {
        let mut bounds = srcmap_geom::Bounds::EMPTY;
        for f in m.faces.iter().chain(&m.detail_faces) {
            bounds = bounds.union(&f.winding.bounds());
        }
        if bounds.is_empty() {
            bounds = m.tree.bounds;
        }
        self.out.models.push(bsp::Model {
            mins: [bounds.mins.x as f32, bounds.mins.y as f32, bounds.mins.z as f32],
            maxs: [bounds.maxs.x as f32, bounds.maxs.y as f32, bounds.maxs.z as f32],
            origin: [0.0; 3],
            head_node,
            first_face: first_face as i32,
            num_faces: (self.out.faces.len() - first_face) as i32,
        });
    }

    #[allow(clippy::too_many_arguments)]
    fn emit_node(
        &mut self,
        m: &ModelIn<'_>,
        n: NodeId,
        solid: &[bool],
        by_node: &HashMap<NodeId, Vec<usize>>,
        polys: &[Vec<u32>],
        tex: &Texinfos,
        leaf_faces: &mut HashMap<NodeId, Vec<u32>>,
    ) -> Result<i32, VbspError> {
        let node = m.tree.node(n);
        if node.is_leaf() || solid[n.idx()] {
            return Ok(self.emit_leaf(m, n, solid));
        }
        let idx = self.out.nodes.len();
        self.out.nodes.push(node_record(node));
        let first = self.out.faces.len();
        for &fi in by_node.get(&n).into_iter().flatten() {
            self.emit_leaf_face(&m.faces[fi], &polys[fi], tex, true, leaf_faces);
        }
        let count = self.out.faces.len() - first;
        self.out.nodes[idx].first_face = first as u32;
        self.out.nodes[idx].num_faces = count as u32;
        let c0 = self.emit_node(m, node.children[0], solid, by_node, polys, tex, leaf_faces)?;
        let c1 = self.emit_node(m, node.children[1], solid, by_node, polys, tex, leaf_faces)?;
        self.out.nodes[idx].children = [c0, c1];
        Ok(idx as i32)
    }

    /// A leaf for tree node `n` (a whole solid subtree when pruned); returns `-(leaf+1)`.
    /// Faces are filled in later by [`Emitter::fill_leaf_faces`].
    fn emit_leaf(&mut self, m: &ModelIn<'_>, n: NodeId, solid: &[bool]) -> i32 {
        let node = m.tree.node(n);
        let brush_list = brushes_below(m.tree, n);
        let contents = if solid[n.idx()] {
            CONTENTS_SOLID | node_contents_all(m.tree, n)
        } else {
            node.contents
        };
        let cluster = m.clusters.map(|c| c.of_node[n.idx()]).unwrap_or(-1);
        let (mins, maxs) = bounds16(&node.bounds);
        let first_brush = self.out.leaf_brushes.len();
        self.out.leaf_brushes.extend(&brush_list);
        let area = self.leaf_area.get(n.idx()).copied().unwrap_or(0);
        let leaf = bsp::Leaf {
            contents: contents as i32,
            cluster,
            // Valve assumes every leaf sees the sky (flag 1) until vrad knows better.
            area_flags: bsp::Leaf::pack_area_flags(area, 1),
            mins,
            maxs,
            first_leaf_brush: first_brush as u32,
            num_leaf_brushes: brush_list.len() as u32,
            leaf_water_data: -1,
            ..Default::default()
        };
        let idx = self.out.leafs.len();
        self.out.leafs.push(leaf);
        self.leaf_nodes.push((idx, n));
        -(idx as i32) - 1
    }

    fn fill_leaf_faces(&mut self, m: &ModelIn<'_>, leaf_faces: &HashMap<NodeId, Vec<u32>>) {
        let pending = std::mem::take(&mut self.leaf_nodes);
        if m.clusters.is_some() {
            self.world_leaves.extend(pending.iter().copied());
        }
        for (idx, n) in pending {
            let list = leaf_faces.get(&n).map(|v| v.as_slice()).unwrap_or(&[]);
            let mut list = list.to_vec();
            list.sort_unstable();
            list.dedup();
            let _ = m;
            self.out.leafs[idx].first_leaf_face = self.out.leaf_faces.len() as u32;
            self.out.leafs[idx].num_leaf_faces = list.len() as u32;
            self.out.leaf_faces.extend(&list);
        }
    }

    /// The world's head must be a node; a tree that is a single leaf gets a node above it.
    fn wrap_leaf(&mut self, leaf_ref: i32) -> i32 {
        let idx = self.out.nodes.len();
        self.out.nodes.push(bsp::Node {
            plane: 0,
            children: [leaf_ref, leaf_ref],
            ..Default::default()
        });
        idx as i32
    }

    /// Writes one face; `dispinfo` for a displacement's base face, which is kept even when
    /// nodraw (as Valve: the displacement's own surface is what draws).
    fn emit_face(
        &mut self,
        f: &Face,
        poly: &[u32],
        tex: &Texinfos,
        on_node: bool,
        dispinfo: Option<u32>,
    ) -> Option<u32> {
        let ti = &tex.list[f.texinfo.idx()];
        let flags = ti.flags as u32;
        let hidden = if dispinfo.is_some() {
            SURF_HINT | SURF_SKIP
        } else {
            SURF_NODRAW | SURF_HINT | SURF_SKIP
        };
        if flags & hidden != 0 || poly.len() < 3 {
            return None;
        }
        let first_edge = self.add_edges(poly);
        let (mins, size) = self.lightmap_extents(poly, ti);
        let lit = flags & (SURF_NOLIGHT | SURF_SKY) == 0;
        let idx = self.out.faces.len() as u32;
        let mut face = face_record(f, first_edge, poly.len(), lit, (mins, size));
        face.on_node = on_node as u8;
        face.dispinfo = dispinfo.map_or(-1, |d| d as i32);
        self.out.faces.push(face);
        self.record_face_side(f.hammer_id);
        Some(idx)
    }
}

impl Emitter {
    /// The VMF side a face was made from: in FACEIDS (Valve's `unsigned short
    /// hammerfaceid`, assigned the side's int id: its low 16 bits, as in Valve's BSPs, where
    /// subway01's side 97387 is 31851) and in full for the finishing passes.
    fn record_face_side(&mut self, hammer_id: i64) {
        self.out.face_ids.push(u32::from(hammer_id as u16));
        self.face_sides.push(hammer_id);
    }

    /// The polygon's surfedges: each edge shared with a face written before (running the
    /// other way) is used backwards, others are new. Returns the first surfedge.
    fn add_edges(&mut self, poly: &[u32]) -> i32 {
        let first_edge = self.out.surfedges.len() as i32;
        for i in 0..poly.len() {
            let (a, b) = (poly[i], poly[(i + 1) % poly.len()]);
            let se = match self.edge_map.remove(&(b, a)) {
                Some(e) => -e,
                None => {
                    let e = self.out.edges.len() as i32;
                    self.out.edges.push(bsp::Edge([a, b]));
                    self.edge_map.insert((a, b), e);
                    e
                }
            };
            self.out.surfedges.push(se);
        }
        first_edge
    }

    /// The polygon's lightmap extents in luxels along the texinfo's lightmap axes: the
    /// first luxel and the size.
    fn lightmap_extents(&self, poly: &[u32], ti: &bsp::TexInfo) -> ([i32; 2], [i32; 2]) {
        let verts: Vec<DVec3> = poly
            .iter()
            .map(|&v| {
                let p = self.out.vertexes[v as usize];
                DVec3::new(p[0] as f64, p[1] as f64, p[2] as f64)
            })
            .collect();
        let mut mins = [0i32; 2];
        let mut size = [0i32; 2];
        for axis in 0..2 {
            let lv = ti.lightmap_vecs[axis];
            let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
            for v in &verts {
                let s = v.x * lv[0] as f64 + v.y * lv[1] as f64 + v.z * lv[2] as f64 + lv[3] as f64;
                lo = lo.min(s);
                hi = hi.max(s);
            }
            mins[axis] = lo.floor() as i32;
            size[axis] = (hi.ceil() - lo.floor()) as i32;
        }
        (mins, size)
    }
}

/// A node's record: its plane and bounds (faces and children come later).
fn node_record(node: &crate::tree::Node) -> bsp::Node {
    let (mins, maxs) = bounds16(&node.bounds);
    bsp::Node {
        plane: node.plane.map(|p| p.0 as i32).unwrap_or(0),
        mins,
        maxs,
        ..Default::default()
    }
}

/// A face's record (not on a node, no displacement): its edges from `first_edge`, lit or
/// not, with its lightmap extents (first luxel, size).
fn face_record(
    f: &Face,
    first_edge: i32,
    num_edges: usize,
    lit: bool,
    (mins, size): ([i32; 2], [i32; 2]),
) -> bsp::Face {
    bsp::Face {
        // Valve stores the face's own plane (either twin) and its parity.
        plane: f.plane.0,
        side: f.plane.is_flipped() as u8,
        on_node: 0,
        first_edge,
        num_edges: num_edges as i32,
        texinfo: f.texinfo.0 as i32,
        dispinfo: -1,
        surface_fog_volume_id: -1,
        styles: if lit { [0, 255, 255, 255] } else { [255; 4] },
        light_offset: -1,
        area: f.winding.area() as f32,
        lightmap_mins: mins,
        lightmap_size: if lit { size } else { [0, 0] },
        ..Default::default()
    }
}

/// The brushes of every leaf below `n`, sorted, once each.
fn brushes_below(tree: &Tree, n: NodeId) -> Vec<u32> {
    let mut brush_list: Vec<u32> = Vec::new();
    let mut stack = vec![n];
    while let Some(k) = stack.pop() {
        let kn = tree.node(k);
        if kn.is_leaf() {
            brush_list.extend(kn.brushes.iter().map(|b| b.0));
        } else {
            stack.extend(kn.children);
        }
    }
    brush_list.sort_unstable();
    brush_list.dedup();
    brush_list
}

/// Union of the contents of every leaf below `n`.
fn node_contents_all(tree: &Tree, n: NodeId) -> u32 {
    let node = tree.node(n);
    match node.plane {
        None => node.contents,
        Some(_) => node_contents_all(tree, node.children[0]) | node_contents_all(tree, node.children[1]),
    }
}

/// Valve's `ComputeBoundsNoSkybox`: bounds of the drawn faces (not sky, not nodraw) in the world's open leaves outside
/// the given areas, and of the displacements (`disp_boxes`, mins and maxs) that reach such a leaf.
pub fn world_bounds_no_skybox(
    bsp: &bsp::Bsp,
    skip_areas: &[u32],
    disp_boxes: &[(glam::Vec3, glam::Vec3)],
) -> Option<([f32; 3], [f32; 3])> {
    let mut extent = Extent {
        mins: [f32::INFINITY; 3],
        maxs: [f32::NEG_INFINITY; 3],
    };
    let mut stack = vec![bsp.models.first()?.head_node];
    while let Some(n) = stack.pop() {
        if n >= 0 {
            let node = bsp.nodes.get(n as usize)?;
            stack.extend(node.children);
            continue;
        }
        let leaf = bsp.leafs.get((-1 - n) as usize)?;
        if leaf.contents & crate::contents::CONTENTS_SOLID as i32 != 0
            || skip_areas.contains(&leaf.area(bsp.version))
        {
            continue;
        }
        extent.add_drawn_faces(bsp, leaf);
    }
    for &(lo, hi) in disp_boxes {
        if box_reaches_open_leaf(bsp, skip_areas, lo.to_array(), hi.to_array()) {
            extent.add_box(lo.to_array(), hi.to_array());
        }
    }
    (extent.mins[0] <= extent.maxs[0]).then_some((extent.mins, extent.maxs))
}

/// Bounds grown point by point.
struct Extent {
    mins: [f32; 3],
    maxs: [f32; 3],
}

impl Extent {
    /// The vertices of the leaf's faces that are drawn (not sky, not nodraw).
    fn add_drawn_faces(&mut self, bsp: &bsp::Bsp, leaf: &bsp::Leaf) {
        let faces = &bsp.leaf_faces[leaf.first_leaf_face as usize..][..leaf.num_leaf_faces as usize];
        for &fi in faces {
            let f = &bsp.faces[fi as usize];
            let flags = bsp.texinfo[f.texinfo as usize].flags as u32;
            if flags & (crate::contents::SURF_SKY | crate::contents::SURF_NODRAW) != 0 {
                continue;
            }
            for i in 0..f.num_edges {
                let se = bsp.surfedges[(f.first_edge + i) as usize];
                for v in bsp.edges[se.unsigned_abs() as usize].0 {
                    self.add_box(bsp.vertexes[v as usize], bsp.vertexes[v as usize]);
                }
            }
        }
    }

    fn add_box(&mut self, lo: [f32; 3], hi: [f32; 3]) {
        for a in 0..3 {
            self.mins[a] = self.mins[a].min(lo[a]);
            self.maxs[a] = self.maxs[a].max(hi[a]);
        }
    }
}

/// The box's extreme distances along a plane normal: (nearest, farthest).
fn box_extent_along(normal: [f32; 3], lo: [f32; 3], hi: [f32; 3]) -> (f32, f32) {
    let (mut near, mut far) = (0.0f32, 0.0f32);
    for a in 0..3 {
        let (l, h) = (lo[a] * normal[a], hi[a] * normal[a]);
        near += l.min(h);
        far += l.max(h);
    }
    (near, far)
}

/// Whether the box reaches a leaf of the world that is not solid and not in `skip_areas`.
fn box_reaches_open_leaf(bsp: &bsp::Bsp, skip_areas: &[u32], lo: [f32; 3], hi: [f32; 3]) -> bool {
    let Some(model) = bsp.models.first() else {
        return false;
    };
    let mut stack = vec![model.head_node];
    while let Some(n) = stack.pop() {
        if n < 0 {
            let Some(leaf) = bsp.leafs.get((-1 - n) as usize) else {
                continue;
            };
            if leaf.contents & crate::contents::CONTENTS_SOLID as i32 == 0
                && !skip_areas.contains(&leaf.area(bsp.version))
            {
                return true;
            }
            continue;
        }
        let Some(node) = bsp.nodes.get(n as usize) else {
            continue;
        };
        let Some(plane) = bsp.planes.get(node.plane as usize) else {
            continue;
        };
        let (near, far) = box_extent_along(plane.normal, lo, hi);
        if far >= plane.dist {
            stack.push(node.children[0]);
        }
        if near < plane.dist {
            stack.push(node.children[1]);
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cells_skipped_hold_no_point_on_the_edge() {
        // Points on and beside long slanted edges, and the edges' vertices found through the
        // grid agree with a scan of every point.
        let ends = [
            (DVec3::new(-700.0, -300.0, 10.0), DVec3::new(900.0, 650.0, 400.0)),
            (DVec3::new(0.0, 0.0, 0.0), DVec3::new(1000.0, 1.0, -777.0)),
        ];
        let mut verts = vec![DVec3::ZERO];
        let mut edges = Vec::new();
        for &(a, b) in &ends {
            edges.push((verts.len() as u32, verts.len() as u32 + 1));
            verts.extend([a, b]);
            for k in 1..40 {
                let on = a + (b - a) * (k as f64 / 40.0);
                let off = DVec3::new(0.05 * (k % 3) as f64, 0.07 * (k % 2) as f64, 0.3 * (k % 5) as f64);
                verts.extend([on, on + off, on + DVec3::splat(60.0)]);
            }
        }
        let mut grid: CellMap<[i32; 3], Vec<u32>> = CellMap::default();
        for (i, &v) in verts.iter().enumerate().skip(1) {
            grid.entry(weld_cell(v)).or_default().push(i as u32);
        }
        for (e, &(a, b)) in edges.iter().enumerate() {
            let (pa, pb) = (verts[a as usize], verts[b as usize]);
            let len = (pb - pa).length();
            let all: Vec<u32> = (1..verts.len() as u32).collect();
            let mut scan: Vec<(f64, u32)> =
                on_segment(&all, (a, b), pa, (pb - pa) / len, len, &verts).collect();
            scan.sort_by(|x, y| x.0.total_cmp(&y.0));
            let scan: Vec<u32> = scan.into_iter().map(|(_, v)| v).collect();
            assert!(scan.len() > 20, "edge {e}: {} points on it", scan.len());
            assert_eq!(vertices_on_edge(a, b, &verts, &grid), scan, "edge {e}");
        }
    }
}
