//! `func_occluder`: the occlusion lump. Valve clips every occluder brush against the others
//! in a tree of their own, makes that tree's faces like a brush model's, and writes each
//! occluder's drawn faces as polygons; their vertices come first in the vertex lump.

use std::collections::HashSet;

use srcmap_bsp::flags::{CONTENTS_AREAPORTAL, SURF_NODRAW, SURF_TRIGGER};
use srcmap_bsp::{OccluderData, OccluderPolyData, Occlusion};
use srcmap_geom::{Bounds, DVec3, PlaneSet};

use crate::brush::Brush;
use crate::faces::{self, Face, TexinfoLookup};
use crate::ids::BrushId;
use crate::portals::{self, Portals};
use crate::texinfo::Texinfos;
use crate::tree::{self, NodeId, Pass, Tree};

/// The faces of the occluders' tree and which of them each occluder writes.
#[derive(Default)]
pub(crate) struct OccluderFaces {
    /// Every face of the occluder tree: all of them are welded (before the world's faces).
    pub faces: Vec<Face>,
    /// Per occluder, in map order: indices into `faces` of its polygons, in lump order.
    pub polys: Vec<Vec<usize>>,
}

/// The occluders' faces. `occluders` holds each occluder's brushes, in map order.
pub(crate) fn build(
    planes: &PlaneSet,
    brushes: &[Brush],
    tex: &Texinfos,
    occluders: &[Vec<BrushId>],
) -> OccluderFaces {
    let all: Vec<BrushId> = occluders.iter().flatten().copied().collect();
    if all.is_empty() {
        return OccluderFaces {
            faces: Vec::new(),
            polys: vec![Vec::new(); occluders.len()],
        };
    }
    let faces = occluder_tree_faces(planes, brushes, tex, &all);
    let polys = occluders
        .iter()
        .map(|own| {
            let own: HashSet<BrushId> = own.iter().copied().collect();
            (0..faces.len())
                .filter(|&i| {
                    let f = &faces[i];
                    f.side.is_some_and(|s| own.contains(&s.brush)) && writes_polygon(tex, f)
                })
                .collect()
        })
        .collect();
    OccluderFaces { faces, polys }
}

/// The faces of the tree of all occluder brushes, made, merged and subdivided like a brush
/// model's, in Valve's order: gathered node by node (node, front subtree, back subtree),
/// then that list walked backwards.
fn occluder_tree_faces(planes: &PlaneSet, brushes: &[Brush], tex: &Texinfos, all: &[BrushId]) -> Vec<Face> {
    let mut bounds = Bounds::EMPTY;
    for &b in all {
        bounds = bounds.union(&brushes[b.idx()].bounds);
    }
    let mut t = tree::build_tree(planes, brushes, all, Pass::First, bounds, false);
    let mut p = portals::make_portals(&mut t, planes);
    portals::portal_sides(&t, planes, &mut p, brushes);
    let made = faces::make_faces(&t, &p, brushes, false);
    // Occluder faces carry no overlays.
    let merged = faces::merge_faces(made, planes, &std::collections::HashMap::new());
    let mut faces = faces::subdivide_faces(merged, tex);
    let order = preorder(&t);
    faces.sort_by_key(|f| f.node.map_or(usize::MAX, |n| order[n.idx()]));
    faces.reverse();
    faces
}

/// Nodraw faces are no occluder polygons, but triggers are, and so is the occluder tool
/// texture (which Valve's own material marks to be kept).
fn writes_polygon(tex: &Texinfos, f: &Face) -> bool {
    let flags = tex.flags(f.texinfo);
    if flags & SURF_NODRAW == 0 || flags & SURF_TRIGGER != 0 {
        return true;
    }
    let texdata = tex.list[f.texinfo.0 as usize].texdata;
    usize::try_from(texdata)
        .ok()
        .and_then(|td| tex.strings.get(td))
        .is_some_and(|name| name.eq_ignore_ascii_case("tools/toolsoccluder"))
}

/// Each node's position in a front-first preorder walk of the tree.
fn preorder(t: &Tree) -> Vec<usize> {
    let mut order = vec![usize::MAX; t.nodes.len()];
    for (i, n) in t.preorder().into_iter().enumerate() {
        order[n.idx()] = i;
    }
    order
}

/// The lump's records, areas unset (-1). `polys` are the welded vertex indices of every
/// occluder-tree face, `vertexes` the vertex lump.
pub(crate) fn records(occ: &OccluderFaces, polys: &[Vec<u32>], vertexes: &[[f32; 3]]) -> Occlusion {
    let mut out = Occlusion::default();
    for own in &occ.polys {
        let mut data = OccluderData {
            flags: 0,
            first_poly: out.polys.len() as i32,
            poly_count: 0,
            mins: [f32::MAX; 3],
            maxs: [-f32::MAX; 3],
            area: -1,
        };
        for &fi in own {
            let idx = &polys[fi];
            if idx.len() < 3 {
                continue;
            }
            push_poly(&mut out, &mut data, idx, occ.faces[fi].plane.0 as i32, vertexes);
        }
        data.poly_count = out.polys.len() as i32 - data.first_poly;
        out.occluders.push(data);
    }
    out
}

/// Append a polygon of vertex indices `idx` on `plane` to the lump, growing the occluder's
/// bounds around its vertices.
fn push_poly(out: &mut Occlusion, data: &mut OccluderData, idx: &[u32], plane: i32, vertexes: &[[f32; 3]]) {
    out.polys.push(OccluderPolyData {
        first_vertex_index: out.vertex_indices.len() as i32,
        vertex_count: idx.len() as i32,
        plane,
    });
    for &v in idx {
        out.vertex_indices.push(v as i32);
        let p = vertexes[v as usize];
        data.mins = std::array::from_fn(|a| data.mins[a].min(p[a]));
        data.maxs = std::array::from_fn(|a| data.maxs[a].max(p[a]));
    }
}

/// Each occluder's area: that of the world leaves its vertices lie in and of the leaves
/// next to those, first without looking across areaportals, then (if nothing was found)
/// across them. Returns the indices of the occluders that straddle areas.
pub(crate) fn assign_areas(
    occlusion: &mut Occlusion,
    vertexes: &[[f32; 3]],
    tree: &Tree,
    portals: &Portals,
    planes: &PlaneSet,
    area_of_node: &[u32],
) -> Vec<usize> {
    let near = AreasNear {
        vertexes,
        tree,
        portals,
        planes,
        area_of_node,
    };
    let mut straddling = Vec::new();
    for (i, o) in occlusion.occluders.iter_mut().enumerate() {
        let polys = &occlusion.polys[o.first_poly as usize..(o.first_poly + o.poly_count) as usize];
        if near.assign(o, polys, &occlusion.vertex_indices) {
            straddling.push(i);
        }
    }
    straddling
}

/// What finding the areas around an occluder's vertices needs.
struct AreasNear<'a> {
    vertexes: &'a [[f32; 3]],
    tree: &'a Tree,
    portals: &'a Portals,
    planes: &'a PlaneSet,
    area_of_node: &'a [u32],
}

impl AreasNear<'_> {
    /// Set the occluder's area to the first one found around its polygons, first without
    /// crossing areaportals, then (if none) across them; whether another area was found too.
    fn assign(&self, o: &mut OccluderData, polys: &[OccluderPolyData], vertex_indices: &[i32]) -> bool {
        let mut straddles = false;
        for cross_areaportals in [false, true] {
            for a in self.areas(polys, vertex_indices, cross_areaportals) {
                if o.area <= 0 {
                    o.area = a;
                } else if a != 0 && o.area != a {
                    straddles = true;
                }
            }
            if o.area > 0 {
                break;
            }
        }
        straddles
    }

    fn area(&self, n: NodeId) -> i32 {
        self.area_of_node.get(n.idx()).copied().unwrap_or(0) as i32
    }

    /// For each vertex of the polygons, in order: the area of its world leaf, then those of
    /// the leaves across the leaf's live node portals (not into areaportals unless
    /// `cross_areaportals`).
    fn areas(&self, polys: &[OccluderPolyData], vertex_indices: &[i32], cross_areaportals: bool) -> Vec<i32> {
        let mut out = Vec::new();
        for poly in polys {
            let first = poly.first_vertex_index as usize;
            for &v in &vertex_indices[first..first + poly.vertex_count as usize] {
                let p = self.vertexes[v as usize];
                let leaf =
                    (self.tree).leaf_at(self.planes, DVec3::new(p[0] as f64, p[1] as f64, p[2] as f64));
                out.push(self.area(leaf));
                self.neighbour_areas(leaf, cross_areaportals, &mut out);
            }
        }
        out
    }

    /// The areas of the leaves across `leaf`'s live node portals.
    fn neighbour_areas(&self, leaf: NodeId, cross_areaportals: bool, out: &mut Vec<i32>) {
        let (tree, portals) = (self.tree, self.portals);
        for &pi in &tree.node(leaf).portals {
            let portal = &portals.portals[pi as usize];
            if !portals.alive[pi as usize] || portal.on_node.is_none() {
                continue;
            }
            let other = if portal.nodes[0] == leaf {
                portal.nodes[1]
            } else {
                portal.nodes[0]
            };
            if !cross_areaportals && tree.node(other).contents & CONTENTS_AREAPORTAL != 0 {
                continue;
            }
            out.push(self.area(other));
        }
    }
}
