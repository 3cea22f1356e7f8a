//! Faces: the visible parts of brush sides, made from portals between different contents
//! (Valve's `MakeFaces`), merged, subdivided to the lightmap limit; detail faces clipped
//! against each other and filtered into the world tree (Valve's `MergeDetailTree`).

use srcmap_geom::{DVec3, Plane, PlaneId, PlaneSet, Split, Winding};

use crate::brush::{Brush, BrushSide};
use crate::contents::*;
use crate::ids::{BrushId, SideRef, TexinfoId};
use crate::portals::{Portal, Portals};
use crate::tree::{DetailPiece, NodeId, Tree};

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

impl Face {
    /// A face showing brush side `side` (`side_ref`) on `plane`, not yet on a node or in a leaf.
    fn of_side(side: &BrushSide, side_ref: SideRef, plane: PlaneId, winding: Winding, contents: u32) -> Face {
        Face {
            plane,
            texinfo: side.texinfo,
            winding,
            node: None,
            contents,
            side: Some(side_ref),
            hammer_id: side.vmf_id,
            leaves: Vec::new(),
            water_underside: false,
        }
    }
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
            faces.extend(portal_face(tree, brushes, p, leaf, world));
        }
    }
    faces
}

/// The face portal `p` shows into `leaf`: its side's polygon facing the leaf. `None` for a
/// portal without a side (or not on a node), and for the insides of windows and grates:
/// from inside one, the face looks out at what the brush is not.
fn portal_face(tree: &Tree, brushes: &[Brush], p: &Portal, leaf: NodeId, world: bool) -> Option<Face> {
    let on = p.on_node?;
    let side_ref = p.side?;
    let s = if p.nodes[0] == leaf { 0 } else { 1 };
    let here = tree.node(p.nodes[s]).contents;
    let there = tree.node(p.nodes[1 - s]).contents;
    let delta = Contents(here ^ there).visible().0;
    if inside_of_window_or_grate(here, delta) {
        return None;
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
    Some(Face {
        node: Some(on),
        leaves: vec![leaf],
        water_underside: here & CONTENTS_WATER != 0 && delta == CONTENTS_WATER,
        ..Face::of_side(side, side_ref, plane, winding, here)
    })
}

/// Whether a face from contents `here` (differing in visible contents `delta` from the other
/// side) would show the inside of a window or grate.
fn inside_of_window_or_grate(here: u32, delta: u32) -> bool {
    [CONTENTS_WINDOW, CONTENTS_GRATE]
        .into_iter()
        .any(|c| here & c != 0 && delta == c)
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
    // Faces that cannot merge never meet in Valve's loop either, so each group (node, plane,
    // texinfo, contents) merges on its own, in the same relative order.
    let (mut groups, order) = merge_groups(faces);
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

/// Which faces may merge: node, plane, texinfo, contents.
type MergeKey = (Option<NodeId>, PlaneId, TexinfoId, u32);

/// The faces grouped by [`MergeKey`], and the keys in order of first face.
fn merge_groups(faces: Vec<Face>) -> (std::collections::HashMap<MergeKey, Vec<Face>>, Vec<MergeKey>) {
    let mut groups: std::collections::HashMap<MergeKey, Vec<Face>> = std::collections::HashMap::new();
    let mut order = Vec::new();
    for f in faces {
        let key = (f.node, f.plane, f.texinfo, f.contents);
        let g = groups.entry(key).or_default();
        if g.is_empty() {
            order.push(key);
        }
        g.push(f);
    }
    (groups, order)
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
        let found = if alive[i] {
            first_merge(list, &bounds, &alive, i, normal, overlays_by_side)
        } else {
            None
        };
        if let Some((j, w)) = found {
            alive[i] = false;
            alive[j] = false;
            let mut merged = list[i].clone();
            merged.leaves.extend_from_slice(&list[j].leaves);
            bounds.push(w.bounds());
            merged.winding = w;
            list.push(merged);
            alive.push(true);
        }
        i += 1;
    }
    let mut keep = alive.into_iter();
    list.retain(|_| keep.next().unwrap_or(false));
}

/// The first live face before face `i` that it merges with (same overlays, overlapping
/// bounds, a shared edge, a convex union), and the merged polygon.
fn first_merge(
    list: &[Face],
    bounds: &[srcmap_geom::Bounds],
    alive: &[bool],
    i: usize,
    normal: DVec3,
    overlays_by_side: &std::collections::HashMap<i64, Vec<u32>>,
) -> Option<(usize, Winding)> {
    (0..i).find_map(|j| {
        let mergeable = alive[j]
            && overlays_by_side.get(&list[i].hammer_id) == overlays_by_side.get(&list[j].hammer_id)
            && bounds[i].overlaps(&bounds[j], 0.02);
        mergeable
            .then(|| try_merge(&list[i].winding, &list[j].winding, normal))
            .flatten()
            .map(|w| (j, w))
    })
}

const CONTINUOUS_EPSILON: f64 = 0.005;

/// Join two convex polygons sharing an edge (in opposite directions) if the union is
/// convex (q2's `TryMergeWinding`).
fn try_merge(f1: &Winding, f2: &Winding, normal: DVec3) -> Option<Winding> {
    let (n1, n2) = (f1.points.len(), f2.points.len());
    let (i, j) = shared_edge(f1, f2)?;
    let p1 = f1.points[i];
    let p2 = f1.points[(i + 1) % n1];
    // Check the corners where the polygons join stay convex; note which become colinear.
    let back = f1.points[(i + n1 - 1) % n1];
    let keep1 = joined_corner(normal, p1 - back, p1, f2.points[(j + 2) % n2])?;
    let back = f1.points[(i + 2) % n1];
    let keep2 = joined_corner(normal, back - p2, p2, f2.points[(j + n2 - 1) % n2])?;
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

/// The first edge `i` of `f1` that is edge `j` of `f2` run the other way.
fn shared_edge(f1: &Winding, f2: &Winding) -> Option<(usize, usize)> {
    let (n1, n2) = (f1.points.len(), f2.points.len());
    let close = |a: DVec3, b: DVec3| (a - b).abs().max_element() < 0.01;
    for i in 0..n1 {
        let p1 = f1.points[i];
        let p2 = f1.points[(i + 1) % n1];
        for j in 0..n2 {
            let p3 = f2.points[j];
            let p4 = f2.points[(j + 1) % n2];
            if close(p1, p4) && close(p2, p3) {
                return Some((i, j));
            }
        }
    }
    None
}

/// A corner `at` where two polygons join, between an edge along `delta` of one and the
/// point `next` of the other: `None` when it turns concave, else whether it stays a corner
/// (`false`: it became colinear).
fn joined_corner(normal: DVec3, delta: DVec3, at: DVec3, next: DVec3) -> Option<bool> {
    let planenormal = normal.cross(delta).normalize_or_zero();
    let dot = (next - at).dot(planenormal);
    if dot > CONTINUOUS_EPSILON {
        return None;
    }
    Some(dot < -CONTINUOUS_EPSILON)
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
        let Some(plane) = lightmap_split(&f.winding, tex.lightmap_vecs(f.texinfo)) else {
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

/// Where a polygon's lightmap spans more than [`MAX_LIGHTMAP_DIM`] luxels along a
/// lightmap axis (`vecs`, the first such): the plane that cuts that many off its low end.
fn lightmap_split(w: &Winding, vecs: [DVec3; 2]) -> Option<Plane> {
    for v in vecs {
        let len = v.length();
        if len < 1e-9 {
            continue;
        }
        let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
        for &p in &w.points {
            let d = p.dot(v);
            lo = lo.min(d);
            hi = hi.max(d);
        }
        if hi - lo > MAX_LIGHTMAP_DIM {
            let normal = v / len;
            return Some(Plane::new(normal, (lo + MAX_LIGHTMAP_DIM - 1.0) / len));
        }
    }
    None
}

/// Detail brush faces: each side's polygon minus the parts inside other detail brushes
/// (a lower-numbered brush wins where two coincide). As Valve, the caller merges and
/// subdivides them, then keeps those with some part in a non-solid world leaf
/// ([`filter_into_leaves`]). Also files each detail brush into the non-solid leaves it
/// touches.
pub fn detail_faces(tree: &mut Tree, planes: &PlaneSet, brushes: &[Brush], detail: &[BrushId]) -> Vec<Face> {
    use rayon::prelude::*;
    let pieces = crate::tree::chop_detail(planes, brushes, detail);
    let per_piece: Vec<Vec<Face>> = (0..pieces.len())
        .into_par_iter()
        .map(|pi| piece_faces(planes, brushes, &pieces, pi))
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

/// The faces of detail piece `pi`: its visible, non-bevel sides that no other visible piece
/// covers.
fn piece_faces(planes: &PlaneSet, brushes: &[Brush], pieces: &[DetailPiece], pi: usize) -> Vec<Face> {
    let p = &pieces[pi];
    let mut out = Vec::new();
    if p.contents & ALL_VISIBLE_CONTENTS == 0 {
        return out;
    }
    let cutters = cutters_of(pieces, pi);
    for (si, plane, w) in &p.sides {
        let side = &brushes[p.orig.idx()].sides[*si as usize];
        if side.bevel {
            continue;
        }
        if cutters.iter().any(|c| covers(planes, c, *plane, w)) {
            continue;
        }
        let side_ref = SideRef {
            brush: p.orig,
            side: *si,
        };
        out.push(Face::of_side(side, side_ref, *plane, w.clone(), p.contents));
    }
    out
}

/// Valve's `GetListOfCutBrushes`: the other visible pieces whose bounds overlap piece
/// `pi`'s; transparent ones cut only transparent pieces.
fn cutters_of(pieces: &[DetailPiece], pi: usize) -> Vec<&DetailPiece> {
    const TRANSPARENT: u32 = CONTENTS_WINDOW | CONTENTS_GRATE | CONTENTS_WATER | CONTENTS_SLIME;
    let p = &pieces[pi];
    pieces
        .iter()
        .enumerate()
        .filter(|(ci, c)| {
            *ci != pi
                && (c.contents & TRANSPARENT == 0 || p.contents & TRANSPARENT != 0)
                && c.contents & ALL_VISIBLE_CONTENTS != 0
                && c.bounds.overlaps(&p.bounds, 0.0)
        })
        .map(|(_, c)| c)
        .collect()
}

/// Valve's `ClipFaceToBrush` as `ComputeVisibleBrushSides` uses it: a detail face is hidden
/// only when one other detail brush with a side on the face's plane covers all of it
/// (a face only partly covered is kept whole: details are not fragmented).
fn covers(planes: &PlaneSet, c: &DetailPiece, plane: PlaneId, w: &Winding) -> bool {
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
        let (front, back) = match cur.into_split(planes.get(*p), 0.001) {
            Ok(parts) => parts,
            Err(on) => (None, Some(on)),
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
        let filter = LeafFilter {
            tree,
            planes,
            wplane: f.plane,
        };
        filter.filter(tree.head, &f.winding, &mut leaves);
        f.leaves = leaves;
    }
    faces.retain(|f| !f.leaves.is_empty());
}

/// A face's polygon on its way down the tree to the leaves it touches.
struct LeafFilter<'a> {
    tree: &'a Tree,
    planes: &'a PlaneSet,
    /// The face's plane.
    wplane: PlaneId,
}

impl LeafFilter<'_> {
    /// Push the non-solid leaves under `n` that the piece `w` of the face touches.
    fn filter(&self, n: NodeId, w: &Winding, out: &mut Vec<NodeId>) {
        let node = self.tree.node(n);
        let Some(pnum) = node.plane else {
            if node.contents & CONTENTS_SOLID == 0 {
                out.push(n);
            }
            return;
        };
        let plane = self.planes.get(pnum);
        match w.split_or_whole(plane, 0.001) {
            Split::On => {
                // On the node's plane: down the side the polygon faces.
                let c = if self.planes.get(self.wplane).normal.dot(plane.normal) > 0.0 {
                    0
                } else {
                    1
                };
                self.filter(node.children[c], w, out);
            }
            Split::Front => self.filter(node.children[0], w, out),
            Split::Back => self.filter(node.children[1], w, out),
            Split::Cut(f, b) => {
                for (piece, child) in [(f, node.children[0]), (b, node.children[1])] {
                    if let Some(piece) = piece {
                        self.filter(child, &piece, out);
                    }
                }
            }
        }
    }
}
