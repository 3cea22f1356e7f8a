//! Faces: the visible parts of brush sides, made from portals between different contents
//! (Valve's `MakeFaces`), merged, subdivided to the lightmap limit; detail faces clipped
//! against each other and filtered into the world tree (Valve's `MergeDetailTree`).

use srcmap_geom::{DVec3, Plane, PlaneId, PlaneSet, Winding};

use crate::brush::Brush;
use crate::contents::*;
use crate::ids::{BrushId, SideRef, TexinfoId};
use crate::portals::Portals;
use crate::tree::{NodeId, Tree};

/// Valve's `MAX_BRUSH_LIGHTMAP_DIM_WITHOUT_BORDER`: a face spans at most this many luxels.
pub const MAX_LIGHTMAP_DIM: f64 = 32.0;

#[derive(Debug, Clone)]
pub struct Face {
    pub plane: PlaneId,
    pub texinfo: TexinfoId,
    pub winding: Winding,
    /// The node whose plane the face lies on; `None` for detail faces (leaf faces only).
    pub node: Option<NodeId>,
    pub contents: u32,
    /// The map brush side the face shows; `None` for a displacement's base face, whose
    /// brush is not in the brush table.
    pub side: Option<SideRef>,
    /// The VMF side id (Hammer's face id).
    pub hammer_id: i64,
    /// Leaves that see this face.
    pub leaves: Vec<NodeId>,
    /// The water surface seen from below: Valve draws it with the water's `$bottommaterial`,
    /// or not at all.
    pub water_underside: bool,
}

/// What face making needs to know about texinfos.
pub trait TexinfoLookup {
    fn flags(&self, texinfo: TexinfoId) -> u32;
    /// The lightmap axes in luxels per world unit.
    fn lightmap_vecs(&self, texinfo: TexinfoId) -> [DVec3; 2];
}

/// Faces of a model from its tree's portals. `world` selects Valve's plane choice (the
/// world writes each face on the positive/negative twin; brush models on the side's own).
pub fn make_faces(tree: &Tree, portals: &Portals, brushes: &[Brush], world: bool) -> Vec<Face> {
    let mut faces = Vec::new();
    // Valve's order: leaves front-first, each leaf's portals in list order.
    for leaf in tree.preorder() {
        let ln = tree.node(leaf);
        if !ln.is_leaf() || leaf == tree.outside || ln.contents & CONTENTS_SOLID != 0 {
            continue;
        }
        for &pi in &ln.portals {
            let p = &portals.portals[pi as usize];
            let Some(on) = p.on_node else { continue };
            let Some(side_ref) = p.side else { continue };
            let s = if p.nodes[0] == leaf { 0 } else { 1 };
            let here = tree.node(p.nodes[s]).contents;
            let there = tree.node(p.nodes[1 - s]).contents;
            // Don't show the insides of windows or grates: from inside one, the face looks
            // out at what the brush is not.
            let delta = Contents(here ^ there).visible().0;
            if [CONTENTS_WINDOW, CONTENTS_GRATE]
                .into_iter()
                .any(|c| here & c != 0 && delta == c)
            {
                continue;
            }
            let side = &brushes[side_ref.brush.idx()].sides[side_ref.side as usize];
            let node_plane = tree.node(on).plane.expect("portal on a node").positive();
            let plane = if world {
                PlaneId(node_plane.0 | s as u32)
            } else {
                side.plane
            };
            let winding = if s == 1 {
                p.winding.reversed()
            } else {
                p.winding.clone()
            };
            faces.push(Face {
                plane,
                texinfo: side.texinfo,
                winding,
                node: Some(on),
                contents: here,
                side: Some(side_ref),
                hammer_id: side.vmf_id,
                leaves: vec![leaf],
                water_underside: here & CONTENTS_WATER != 0 && delta == CONTENTS_WATER,
            });
        }
    }
    faces
}

/// Merge coplanar faces on the same node with the same texinfo that share an edge, while
/// the result stays convex, in the order of Valve's `MergeFaceList` (greedy merging depends
/// on it): `faces` come in the order they were made, and Valve's list of a node holds them
/// newest first. Faces from sides carrying different overlays (`overlays_by_side`, by VMF
/// side id) stay apart, so no overlay spreads.
pub fn merge_faces(
    faces: Vec<Face>,
    planes: &PlaneSet,
    overlays_by_side: &std::collections::HashMap<i64, Vec<u32>>,
) -> Vec<Face> {
    use std::collections::HashMap;
    // Faces that cannot merge never meet in Valve's loop either, so each group (node, plane,
    // texinfo, contents) merges on its own, in the same relative order.
    let mut groups: HashMap<(Option<NodeId>, PlaneId, TexinfoId, u32), Vec<Face>> = HashMap::new();
    let mut order = Vec::new();
    for f in faces {
        let key = (f.node, f.plane, f.texinfo, f.contents);
        let g = groups.entry(key).or_default();
        if g.is_empty() {
            order.push(key);
        }
        g.push(f);
    }
    let mut out = Vec::new();
    for key in order {
        let mut list = groups.remove(&key).unwrap_or_default();
        list.reverse();
        let normal = planes.get(key.1).normal;
        merge_face_list(&mut list, normal, overlays_by_side);
        out.extend(list);
    }
    for f in &mut out {
        f.leaves.sort_unstable();
        f.leaves.dedup();
    }
    out
}

/// Valve's `MergeFaceList` on one list: each live face, in turn, joins the first live face
/// before it that it can; the result goes to the end of the list (and is tried again from
/// there), and the two are dead. What is left alive is the merged list, in list order.
fn merge_face_list(
    list: &mut Vec<Face>,
    normal: DVec3,
    overlays_by_side: &std::collections::HashMap<i64, Vec<u32>>,
) {
    let mut bounds: Vec<srcmap_geom::Bounds> = list.iter().map(|f| f.winding.bounds()).collect();
    let mut alive = vec![true; list.len()];
    let mut i = 0;
    while i < list.len() {
        if alive[i] {
            for j in 0..i {
                if !alive[j]
                    || overlays_by_side.get(&list[i].hammer_id) != overlays_by_side.get(&list[j].hammer_id)
                    || !bounds[i].overlaps(&bounds[j], 0.02)
                {
                    continue;
                }
                let Some(w) = try_merge(&list[i].winding, &list[j].winding, normal) else {
                    continue;
                };
                alive[i] = false;
                alive[j] = false;
                let mut merged = list[i].clone();
                merged.leaves.extend_from_slice(&list[j].leaves);
                bounds.push(w.bounds());
                merged.winding = w;
                list.push(merged);
                alive.push(true);
                break;
            }
        }
        i += 1;
    }
    let mut keep = alive.into_iter();
    list.retain(|_| keep.next().unwrap_or(false));
}

const CONTINUOUS_EPSILON: f64 = 0.005;

/// Join two convex polygons sharing an edge (in opposite directions) if the union is
/// convex (q2's `TryMergeWinding`).
fn try_merge(f1: &Winding, f2: &Winding, normal: DVec3) -> Option<Winding> {
    let (n1, n2) = (f1.points.len(), f2.points.len());
    let close = |a: DVec3, b: DVec3| (a - b).abs().max_element() < 0.01;
    let mut found = None;
    'search: for i in 0..n1 {
        let p1 = f1.points[i];
        let p2 = f1.points[(i + 1) % n1];
        for j in 0..n2 {
            let p3 = f2.points[j];
            let p4 = f2.points[(j + 1) % n2];
            if close(p1, p4) && close(p2, p3) {
                found = Some((i, j));
                break 'search;
            }
        }
    }
    let (i, j) = found?;
    let p1 = f1.points[i];
    let p2 = f1.points[(i + 1) % n1];
    // Check the corners where the polygons join stay convex; note which become colinear.
    let back = f1.points[(i + n1 - 1) % n1];
    let delta = p1 - back;
    let planenormal = normal.cross(delta).normalize_or_zero();
    let next = f2.points[(j + 2) % n2];
    let dot = (next - p1).dot(planenormal);
    if dot > CONTINUOUS_EPSILON {
        return None;
    }
    let keep1 = dot < -CONTINUOUS_EPSILON;
    let back = f1.points[(i + 2) % n1];
    let delta = back - p2;
    let planenormal = normal.cross(delta).normalize_or_zero();
    let next = f2.points[(j + n2 - 1) % n2];
    let dot = (next - p2).dot(planenormal);
    if dot > CONTINUOUS_EPSILON {
        return None;
    }
    let keep2 = dot < -CONTINUOUS_EPSILON;
    // f1 from p2 round to just before p1, then f2 from its copy of p1 round to just
    // before its copy of p2; a corner that became colinear is dropped.
    let mut pts = Vec::with_capacity(n1 + n2);
    for k in 1..n1 {
        let idx = (i + k) % n1;
        if k == 1 && !keep2 {
            continue;
        }
        pts.push(f1.points[idx]);
    }
    for k in 1..n2 {
        let idx = (j + k) % n2;
        if k == 1 && !keep1 {
            continue;
        }
        pts.push(f2.points[idx]);
    }
    (pts.len() >= 3).then(|| Winding::new(pts))
}

/// Split faces whose lightmap would span more than [`MAX_LIGHTMAP_DIM`] luxels (Valve's
/// `SubdivideFace`). Faces that get no lightmap are left whole.
pub fn subdivide_faces(faces: Vec<Face>, tex: &dyn TexinfoLookup) -> Vec<Face> {
    let mut out = Vec::with_capacity(faces.len());
    let mut work = faces;
    while let Some(f) = work.pop() {
        if tex.flags(f.texinfo) & (SURF_NOLIGHT | SURF_SKY | SURF_WARP | SURF_NODRAW) != 0 {
            out.push(f);
            continue;
        }
        let vecs = tex.lightmap_vecs(f.texinfo);
        let mut split = None;
        for v in vecs {
            let len = v.length();
            if len < 1e-9 {
                continue;
            }
            let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
            for &p in &f.winding.points {
                let d = p.dot(v);
                lo = lo.min(d);
                hi = hi.max(d);
            }
            if hi - lo > MAX_LIGHTMAP_DIM {
                let normal = v / len;
                split = Some(Plane::new(normal, (lo + MAX_LIGHTMAP_DIM - 1.0) / len));
                break;
            }
        }
        let Some(plane) = split else {
            out.push(f);
            continue;
        };
        match f.winding.split(&plane, 0.1) {
            (Some(a), Some(b)) => {
                work.push(Face {
                    winding: a,
                    ..f.clone()
                });
                work.push(Face { winding: b, ..f });
            }
            _ => out.push(f),
        }
    }
    out
}

/// Detail brush faces: each side's polygon minus the parts inside other detail brushes
/// (a lower-numbered brush wins where two coincide). As Valve, the caller merges and
/// subdivides them, then keeps those with some part in a non-solid world leaf
/// ([`filter_into_leaves`]). Also files each detail brush into the non-solid leaves it
/// touches.
pub fn detail_faces(tree: &mut Tree, planes: &PlaneSet, brushes: &[Brush], detail: &[BrushId]) -> Vec<Face> {
    use rayon::prelude::*;
    let pieces = crate::tree::chop_detail(planes, brushes, detail);
    const TRANSPARENT: u32 = CONTENTS_WINDOW | CONTENTS_GRATE | CONTENTS_WATER | CONTENTS_SLIME;
    let per_piece: Vec<Vec<Face>> = pieces
        .par_iter()
        .enumerate()
        .map(|(pi, p)| {
            let mut out = Vec::new();
            if p.contents & ALL_VISIBLE_CONTENTS == 0 {
                return out;
            }
            // Valve's GetListOfCutBrushes.
            let cutters: Vec<&crate::tree::DetailPiece> = pieces
                .iter()
                .enumerate()
                .filter(|(ci, c)| {
                    *ci != pi
                        && (c.contents & TRANSPARENT == 0 || p.contents & TRANSPARENT != 0)
                        && c.contents & ALL_VISIBLE_CONTENTS != 0
                        && c.bounds.overlaps(&p.bounds, 0.0)
                })
                .map(|(_, c)| c)
                .collect();
            for (si, plane, w) in &p.sides {
                let side = &brushes[p.orig.idx()].sides[*si as usize];
                if side.bevel {
                    continue;
                }
                if cutters.iter().any(|c| covers(planes, c, *plane, w)) {
                    continue;
                }
                out.push(Face {
                    plane: *plane,
                    texinfo: side.texinfo,
                    winding: w.clone(),
                    node: None,
                    contents: p.contents,
                    side: Some(SideRef {
                        brush: p.orig,
                        side: *si,
                    }),
                    hammer_id: side.vmf_id,
                    leaves: Vec::new(),
                    water_underside: false,
                });
            }
            out
        })
        .collect();
    let faces: Vec<Face> = per_piece.into_iter().flatten().collect();
    let filed: Vec<Vec<NodeId>> = detail
        .par_iter()
        .map(|&bi| crate::tree::brush_leaves(tree, planes, &brushes[bi.idx()], bi))
        .collect();
    for (&bi, leaves) in detail.iter().zip(filed) {
        for l in leaves {
            tree.nodes[l.idx()].brushes.push(bi);
        }
    }
    faces
}

/// Valve's `ClipFaceToBrush` as `ComputeVisibleBrushSides` uses it: a detail face is hidden
/// only when one other detail brush with a side on the face's plane covers all of it
/// (a face only partly covered is kept whole: details are not fragmented).
fn covers(planes: &PlaneSet, c: &crate::tree::DetailPiece, plane: PlaneId, w: &Winding) -> bool {
    let Some(found) = c
        .planes
        .iter()
        .position(|(p, bevel)| !bevel && p.positive() == plane.positive())
    else {
        return false;
    };
    let mut cur = w.clone();
    for (i, (p, bevel)) in c.planes.iter().enumerate() {
        if i == found || *bevel {
            continue;
        }
        let (front, back) = cur.split(planes.get(*p), 0.001);
        let (front, back) = match (front, back) {
            (None, None) => (None, Some(cur.clone())),
            fb => fb,
        };
        match back {
            Some(b) if !b.is_tiny(0.2) => {
                if front.is_some_and(|f| !f.is_tiny(0.2)) {
                    return false;
                }
                cur = b;
            }
            _ => return false,
        }
    }
    true
}

/// Find the non-solid leaves each face touches; faces entirely in solid are dropped.
pub fn filter_into_leaves(tree: &Tree, planes: &PlaneSet, faces: &mut Vec<Face>) {
    for f in faces.iter_mut() {
        let mut leaves = Vec::new();
        filter_winding(tree, planes, tree.head, &f.winding, f.plane, &mut leaves);
        f.leaves = leaves;
    }
    faces.retain(|f| !f.leaves.is_empty());
}

fn filter_winding(
    tree: &Tree,
    planes: &PlaneSet,
    n: NodeId,
    w: &Winding,
    wplane: PlaneId,
    out: &mut Vec<NodeId>,
) {
    let node = tree.node(n);
    let Some(pnum) = node.plane else {
        if node.contents & CONTENTS_SOLID == 0 {
            out.push(n);
        }
        return;
    };
    let plane = planes.get(pnum);
    match w.split(plane, 0.001) {
        (None, None) => {
            let c = if planes.get(wplane).normal.dot(plane.normal) > 0.0 {
                0
            } else {
                1
            };
            filter_winding(tree, planes, node.children[c], w, wplane, out);
        }
        (f, b) => {
            if let Some(f) = f {
                filter_winding(tree, planes, node.children[0], &f, wplane, out);
            }
            if let Some(b) = b {
                filter_winding(tree, planes, node.children[1], &b, wplane, out);
            }
        }
    }
}
