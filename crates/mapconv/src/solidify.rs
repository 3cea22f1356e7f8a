//! Convex pieces of a polygon mesh by a solid-leaf BSP of its own face planes (vmap.md §5.4a):
//! each face plane splits the faces once; a region behind every face around it is solid. A
//! convex mesh gives one piece bounded by all its face planes; a non-convex one gives pieces
//! whose sides lie on face planes, some of them inside the mesh (cut faces).

use srcmap_geom::{Bounds, DVec3, Plane, Side, Winding, polyhedron_faces};

/// Points this close to a plane lie on it.
pub const EPS: f64 = 0.01;
/// Candidate splitters tried per node (evenly spread over the faces), to bound the work.
const CANDIDATES: usize = 24;

/// One mesh face as a polygon in world space, clockwise seen from outside (geom's windings).
#[derive(Debug, Clone)]
pub struct Polygon {
    pub winding: Winding,
    pub plane: Plane,
}

/// A convex piece: its planes (normals out), the last [`BOX_PLANES`] of them from the box
/// around the mesh (they bound nothing unless the mesh is open there).
#[derive(Debug, Clone)]
pub struct Piece {
    pub planes: Vec<Plane>,
    /// A slab's face plane: its only side that shows a mesh face (the others are cuts, even
    /// where they lie on another face's plane, as a thin wall's back does).
    pub front: Option<Plane>,
}

/// Planes of the bounding box appended to every piece (they bound pieces an open mesh leaves
/// unbounded; in a closed mesh they touch nothing).
pub const BOX_PLANES: usize = 6;

/// The convex pieces of the solid the polygons bound.
pub fn pieces(polygons: Vec<Polygon>) -> Vec<Piece> {
    let mut bounds = Bounds::EMPTY;
    for p in polygons.iter().flat_map(|p| p.winding.points.iter()) {
        bounds.add_point(*p);
    }
    let bounds = bounds.expanded(1.0);
    if let Some(planes) = convex_planes(&polygons) {
        return piece(planes, &bounds).into_iter().collect();
    }
    let mut out = Vec::new();
    let mut stack = vec![(polygons, Vec::new())];
    while let Some((polys, path)) = stack.pop() {
        let Some(split) = choose_splitter(&polys) else {
            continue;
        };
        let plane = polys[split].plane;
        let (front, back) = partition(polys, &plane);
        let behind = with(&path, plane);
        if back.is_empty() {
            out.extend(piece(behind, &bounds));
        } else {
            stack.push((back, behind));
        }
        if !front.is_empty() {
            stack.push((front, with(&path, plane.flipped())));
        }
    }
    out
}

/// Whether every corner lies behind every face plane.
pub fn is_convex(polys: &[Polygon]) -> bool {
    convex_planes(polys).is_some()
}

/// The distinct face planes when every corner lies behind all of them (a convex solid: one
/// piece, found without building the tree).
fn convex_planes(polys: &[Polygon]) -> Option<Vec<Plane>> {
    let mut planes: Vec<Plane> = Vec::new();
    for p in polys {
        if !planes.iter().any(|q| q.approx_eq(&p.plane, 1e-6, EPS)) {
            planes.push(p.plane);
        }
    }
    let convex = planes.iter().all(|plane| {
        polys
            .iter()
            .flat_map(|p| &p.winding.points)
            .all(|&v| plane.distance(v) <= EPS)
    });
    convex.then_some(planes)
}

fn with(path: &[Plane], plane: Plane) -> Vec<Plane> {
    let mut p = path.to_vec();
    p.push(plane);
    p
}

/// The piece bounded by `planes` and the box, unless it is empty.
fn piece(path: Vec<Plane>, bounds: &Bounds) -> Option<Piece> {
    // A face's plane and the flipped plane of an opposite face on it can both bound a piece.
    let mut planes: Vec<Plane> = Vec::with_capacity(path.len() + BOX_PLANES);
    for p in path {
        if !planes.iter().any(|q| q.approx_eq(&p, 1e-6, EPS)) {
            planes.push(p);
        }
    }
    planes.extend(box_planes(bounds));
    let faces = polyhedron_faces(&planes);
    if faces.iter().filter(|f| f.is_some()).count() < 4 {
        return None;
    }
    Some(Piece { planes, front: None })
}

fn box_planes(b: &Bounds) -> [Plane; BOX_PLANES] {
    [
        Plane::new(DVec3::X, b.maxs.x),
        Plane::new(-DVec3::X, -b.mins.x),
        Plane::new(DVec3::Y, b.maxs.y),
        Plane::new(-DVec3::Y, -b.mins.y),
        Plane::new(DVec3::Z, b.maxs.z),
        Plane::new(-DVec3::Z, -b.mins.z),
    ]
}

/// The polygon whose plane splits the fewest others (among evenly spread candidates; the
/// first that splits none ends the search).
fn choose_splitter(polys: &[Polygon]) -> Option<usize> {
    let step = (polys.len() / CANDIDATES).max(1);
    let mut best: Option<(usize, usize)> = None;
    for i in (0..polys.len()).step_by(step) {
        let limit = best.map_or(usize::MAX, |b| b.1);
        let splits = polys
            .iter()
            .filter(|p| p.winding.classify(&polys[i].plane, EPS) == Side::Cross)
            .take(limit)
            .count();
        if splits < limit {
            best = Some((i, splits));
        }
        if splits == 0 {
            break;
        }
    }
    best.map(|b| b.0)
}

/// The polygons in front of and behind `plane`; those on it facing the same way are used up,
/// those facing the other way bound the front.
fn partition(polys: Vec<Polygon>, plane: &Plane) -> (Vec<Polygon>, Vec<Polygon>) {
    let (mut front, mut back) = (Vec::new(), Vec::new());
    for p in polys {
        match p.winding.classify(plane, EPS) {
            Side::On if p.plane.normal.dot(plane.normal) > 0.0 => {}
            Side::On | Side::Front => front.push(p),
            Side::Back => back.push(p),
            Side::Cross => {
                let (f, b) = p.winding.split(plane, EPS);
                let part = |w: Winding| Polygon {
                    winding: w,
                    ..p.clone()
                };
                front.extend(f.map(part));
                back.extend(b.map(part));
            }
        }
    }
    (front, back)
}

/// The part of a polygon (any shape) behind every plane but `skip`: its area inside a piece.
pub fn area_inside(w: &Winding, planes: &[Plane], skip: usize) -> f64 {
    let mut w = w.clone();
    for (i, p) in planes.iter().enumerate() {
        if i == skip {
            continue;
        }
        match w.classify(p, EPS) {
            Side::Front => return 0.0,
            Side::Cross => match w.split(p, EPS).1 {
                Some(b) => w = b,
                None => return 0.0,
            },
            _ => {}
        }
    }
    w.area()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The faces of an axis-aligned box, clockwise from outside.
    fn box_polygons(min: DVec3, max: DVec3) -> Vec<Polygon> {
        let planes = [
            Plane::new(DVec3::X, max.x),
            Plane::new(-DVec3::X, -min.x),
            Plane::new(DVec3::Y, max.y),
            Plane::new(-DVec3::Y, -min.y),
            Plane::new(DVec3::Z, max.z),
            Plane::new(-DVec3::Z, -min.z),
        ];
        polyhedron_faces(&planes)
            .into_iter()
            .zip(planes)
            .map(|(w, plane)| Polygon {
                winding: w.unwrap(),
                plane,
            })
            .collect()
    }

    #[test]
    fn a_box_is_one_piece() {
        let p = pieces(box_polygons(DVec3::ZERO, DVec3::splat(64.0)));
        assert_eq!(p.len(), 1);
        assert_eq!(polyhedron_faces(&p[0].planes).iter().flatten().count(), 6);
    }

    #[test]
    fn an_l_shape_is_cut_into_convex_pieces_of_the_same_volume() {
        // An L: a 64-cube and a 64 × 64 × 32 slab beside it, as one closed surface made of the
        // union's faces (the shared wall removed, the touching faces split at the joint).
        let a = box_polygons(DVec3::ZERO, DVec3::splat(64.0));
        let b = box_polygons(DVec3::new(64.0, 0.0, 0.0), DVec3::new(128.0, 64.0, 32.0));
        let mut polys: Vec<Polygon> = a.into_iter().filter(|p| p.plane.normal != DVec3::X).collect();
        polys.extend(b.into_iter().filter(|p| p.plane.normal != -DVec3::X));
        let wall = Winding::new(vec![
            DVec3::new(64.0, 0.0, 64.0),
            DVec3::new(64.0, 64.0, 64.0),
            DVec3::new(64.0, 64.0, 32.0),
            DVec3::new(64.0, 0.0, 32.0),
        ]);
        let plane = wall.plane().unwrap();
        polys.push(Polygon { winding: wall, plane });
        let pieces = pieces(polys);
        assert!(pieces.len() >= 2);
        let volume: f64 = pieces.iter().map(|p| volume(&p.planes)).sum();
        assert!(
            (volume - (64.0f64.powi(3) + 64.0 * 64.0 * 32.0)).abs() < 1e-6,
            "{volume}"
        );
        let box_sides = |p: &Piece| {
            polyhedron_faces(&p.planes)[p.planes.len() - BOX_PLANES..]
                .iter()
                .flatten()
                .count()
        };
        assert!(
            pieces.iter().all(|p| box_sides(p) == 0),
            "a closed mesh never reaches its box"
        );
    }

    fn volume(planes: &[Plane]) -> f64 {
        polyhedron_faces(planes)
            .iter()
            .flatten()
            .map(|w| {
                let p = &w.points;
                (1..p.len() - 1)
                    .map(|i| p[0].dot(p[i + 1].cross(p[i])) / 6.0)
                    .sum::<f64>()
            })
            .sum()
    }
}
