//! Displacements: a brush side with a `dispinfo` becomes a displacement face (its base face,
//! pointing at its DISPINFO record) instead of a brush face. As in Valve's VBSP, the brush
//! leaves the world (no tree split, no vis block, no brush-lump entry) and the records are
//! written in map order: DISPINFO, DISP_VERTS, DISP_TRIS, the lightmap sample positions,
//! neighbours and the allowed (LOD) vertices.

use std::collections::HashMap;

use glam::Vec3;
use srcmap_bsp as bsp;
use srcmap_disp::{DispGrid, MAX_POWER, MIN_POWER};
use srcmap_geom::{PlaneId, Winding};

use crate::diag::{Diagnostic, Where};
use crate::faces::Face;
use crate::ids::TexinfoId;
use crate::input::MapDisp;

use srcmap_bsp::flags::disp_tag::{BUILDABLE as TAG_BUILDABLE, WALKABLE as TAG_WALKABLE};
use srcmap_vmf::hammer_tag::{
    BUILDABLE as HAMMER_BUILDABLE, FORCE_BUILDABLE as HAMMER_FORCE_BUILDABLE,
    FORCE_BUILDABLE_VALUE as HAMMER_FORCE_BUILDABLE_VALUE, FORCE_WALKABLE as HAMMER_FORCE_WALKABLE,
    FORCE_WALKABLE_VALUE as HAMMER_FORCE_WALKABLE_VALUE, WALKABLE as HAMMER_WALKABLE,
};

/// Valve's `MAX_MAP_DISPINFO`.
const MAX_DISPINFO: usize = 2048;

/// A displacement side as the brush pass found it.
pub(crate) struct DispSide<'a> {
    pub at: Where,
    pub plane: PlaneId,
    pub texinfo: TexinfoId,
    /// The side's winding on its brush (the base face).
    pub winding: Winding,
    /// The same winding as Valve's float clipping makes it (see [`float_side_winding`]).
    pub float_winding: Option<Vec<Vec3>>,
    /// The brush's contents.
    pub contents: u32,
    pub hammer_id: i64,
    pub source: &'a MapDisp,
}

/// A displacement ready to write.
pub(crate) struct Disp {
    /// The base face; its `contents` are the brush's, which the dispinfo records.
    pub base: Face,
    pub flags: i64,
    pub start: Vec3,
    pub grid: DispGrid,
    /// Per vertex: unit vector and distance (Hammer's normal × distance + offset).
    pub field: Vec<(Vec3, f32)>,
    pub alphas: Vec<f32>,
    pub tags: Vec<u16>,
}

/// The BSP tags of Hammer's triangle tags: walkable and buildable, each forced where
/// Hammer says so.
pub fn bsp_tag(hammer: i32) -> u16 {
    let pick = |plain: i32, force: i32, value: i32| {
        if hammer & force != 0 {
            hammer & value != 0
        } else {
            hammer & plain != 0
        }
    };
    let mut tag = 0;
    if pick(
        HAMMER_WALKABLE,
        HAMMER_FORCE_WALKABLE,
        HAMMER_FORCE_WALKABLE_VALUE,
    ) {
        tag |= TAG_WALKABLE;
    }
    if pick(
        HAMMER_BUILDABLE,
        HAMMER_FORCE_BUILDABLE,
        HAMMER_FORCE_BUILDABLE_VALUE,
    ) {
        tag |= TAG_BUILDABLE;
    }
    tag
}

/// Half the side of the square every side's winding starts from (Valve's
/// `MAX_COORD_INTEGER * 4`).
const BASE_WINDING_HALF: f32 = 16384.0 * 4.0;

/// What Valve's clip keeps within of a plane (`BRUSH_CLIP_EPSILON`).
const BRUSH_CLIP_EPSILON: f32 = 0.01;

/// The winding of the side on plane `own` of a brush whose sides lie on `planes` (map order,
/// `own` among them), made as Valve's VBSP makes it: a huge square on the plane clipped by
/// every other side in single precision. A displacement's lightmap size is measured on this
/// winding, whose float error (up to a few thousandths of a unit where a sloped side cuts
/// the huge square) decides sizes that fall on a whole number of luxels. `None` when
/// nothing is left.
pub(crate) fn float_side_winding(
    planes: &[(srcmap_geom::DVec3, f64)],
    own: (srcmap_geom::DVec3, f64),
) -> Option<Vec<Vec3>> {
    let f = |(n, d): (srcmap_geom::DVec3, f64)| (Vec3::new(n.x as f32, n.y as f32, n.z as f32), d as f32);
    let (normal, dist) = f(own);
    let mut w = base_winding(normal, dist)?;
    for &(n, d) in planes {
        if (n, d) == own {
            continue;
        }
        // Keep what is behind the other side: clip by its plane turned around.
        let (n, d) = f((n, d));
        w = clip_float(&w, -n, -d)?;
    }
    Some(w)
}

/// A square of side 2·[`BASE_WINDING_HALF`] on the plane, around the point nearest the origin.
fn base_winding(normal: Vec3, dist: f32) -> Option<Vec<Vec3>> {
    let major = (0..3).max_by(|&a, &b| normal[a].abs().total_cmp(&normal[b].abs()))?;
    let mut up = if major == 2 { Vec3::X } else { Vec3::Z };
    up -= normal * up.dot(normal);
    up = up.normalize_or_zero();
    let origin = normal * dist;
    let right = up.cross(normal) * BASE_WINDING_HALF;
    let up = up * BASE_WINDING_HALF;
    Some(vec![
        origin - right + up,
        origin + right + up,
        origin + right - up,
        origin - right - up,
    ])
}

/// The part of `w` in front of the plane (within [`BRUSH_CLIP_EPSILON`] counts as on it),
/// with split points exact on axial planes.
fn clip_float(w: &[Vec3], normal: Vec3, dist: f32) -> Option<Vec<Vec3>> {
    let dists: Vec<f32> = w.iter().map(|p| p.dot(normal) - dist).collect();
    let sides: Vec<i32> = dists.iter().map(|&d| clip_side(d)).collect();
    if !sides.contains(&1) {
        return None;
    }
    if !sides.contains(&-1) {
        return Some(w.to_vec());
    }
    let mut out = Vec::with_capacity(w.len() + 4);
    for i in 0..w.len() {
        let j = (i + 1) % w.len();
        let (p, s) = (w[i], sides[i]);
        if s >= 0 {
            out.push(p);
        }
        if s == 0 || sides[j] == 0 || sides[j] == s {
            continue;
        }
        let t = dists[i] / (dists[i] - dists[j]);
        out.push(split_point(p, w[j], t, normal, dist));
    }
    Some(out)
}

/// Which side of the plane a point at distance `d` lies on: 1 in front, -1 behind, 0 on it
/// (within [`BRUSH_CLIP_EPSILON`]).
fn clip_side(d: f32) -> i32 {
    if d > BRUSH_CLIP_EPSILON {
        1
    } else if d < -BRUSH_CLIP_EPSILON {
        -1
    } else {
        0
    }
}

/// The point at `t` from `p` to `q`, exact on an axial plane.
fn split_point(p: Vec3, q: Vec3, t: f32, normal: Vec3, dist: f32) -> Vec3 {
    let mut mid = Vec3::ZERO;
    for k in 0..3 {
        mid[k] = if normal[k] == 1.0 {
            dist
        } else if normal[k] == -1.0 {
            -dist
        } else {
            p[k] + t * (q[k] - p[k])
        };
    }
    mid
}

fn v3(v: [f32; 3]) -> Vec3 {
    Vec3::from(v)
}

/// Checks each side's displacement and builds its grid; a side that cannot be built is
/// reported (with its brush and side ids) and left out, the rest of the map compiles.
pub(crate) fn prepare(sides: Vec<DispSide<'_>>, diags: &mut Vec<Diagnostic>) -> Vec<Disp> {
    let mut out = Vec::with_capacity(sides.len());
    for s in sides {
        if let Err(why) = check_side(&s, out.len()) {
            diags.push(Diagnostic::error(
                s.at.clone(),
                format!("displacement left out: {why}"),
            ));
            continue;
        }
        warn_short_rows(&s, diags);
        out.push(build(s));
    }
    out
}

/// Why a side's displacement cannot be built, when it cannot: a power Valve does not
/// have, a side that is not a quad, or one too many (`built` are built already).
fn check_side(s: &DispSide<'_>, built: usize) -> Result<(), String> {
    let power = s.source.power;
    if !(MIN_POWER..=MAX_POWER).contains(&power) {
        return Err(format!("power {power} is not 2, 3 or 4"));
    }
    let corners = s.winding.points.len();
    if corners != 4 {
        return Err(format!("its side has {corners} corners, a displacement needs 4"));
    }
    if built == MAX_DISPINFO {
        return Err(format!("more than {MAX_DISPINFO} displacements"));
    }
    Ok(())
}

/// Rows shorter or longer than the power needs are reported: short rows read as zeros
/// (Hammer's defaults), as Valve's loader leaves them. Missing offsets, alphas and
/// triangle tags are Hammer's way of saying all zero.
fn warn_short_rows(s: &DispSide<'_>, diags: &mut Vec<Diagnostic>) {
    let d = s.source;
    let count = srcmap_disp::vert_count(d.power);
    let tri_count = srcmap_disp::tri_count(d.power);
    for (name, len, want) in [
        ("normals", d.normals.len(), count),
        ("distances", d.distances.len(), count),
        ("offsets", d.offsets.len(), count),
        ("alphas", d.alphas.len(), count),
        ("triangle_tags", d.triangle_tags.len(), tri_count),
    ] {
        if len != want && !(len == 0 && matches!(name, "offsets" | "alphas" | "triangle_tags")) {
            diags.push(Diagnostic::warning(
                s.at.clone(),
                format!(
                    "displacement {name} has {len} values, power {} needs {want}: the rest read as 0",
                    d.power
                ),
            ));
        }
    }
}

impl DispSide<'_> {
    /// The displacement's base face: the side's quad, on no node and in no leaf.
    fn base_face(self) -> Face {
        Face {
            plane: self.plane,
            texinfo: self.texinfo,
            winding: self.winding,
            node: None,
            contents: self.contents,
            side: None,
            hammer_id: self.hammer_id,
            leaves: Vec::new(),
            water_underside: false,
        }
    }
}

/// A checked side's displacement: its rows, grid and base face.
fn build(s: DispSide<'_>) -> Disp {
    let d = s.source;
    let count = srcmap_disp::vert_count(d.power);
    let tri_count = srcmap_disp::tri_count(d.power);
    let field = offset_field(d, count);
    let alphas = (0..count)
        .map(|i| d.alphas.get(i).copied().unwrap_or(0.0))
        .collect();
    let tags = (0..tri_count)
        .map(|i| bsp_tag(d.triangle_tags.get(i).copied().unwrap_or(0)))
        .collect();
    let start = Vec3::from(d.start_position.as_vec3().to_array());
    let corners = srcmap_disp::rotate_corners(&grid_quad(&s), start);
    let grid = DispGrid::new(d.power, corners, &field);
    Disp {
        base: s.base_face(),
        flags: d.flags,
        start,
        grid,
        field,
        alphas,
        tags,
    }
}

/// Each vertex's displacement (normal times distance plus offset) as a unit direction and
/// a length.
fn offset_field(d: &MapDisp, count: usize) -> Vec<(Vec3, f32)> {
    (0..count)
        .map(|i| {
            let normal = d.normals.get(i).copied().map(v3).unwrap_or(Vec3::ZERO);
            let dist = d.distances.get(i).copied().unwrap_or(0.0);
            let offset = d.offsets.get(i).copied().map(v3).unwrap_or(Vec3::ZERO);
            let v = normal * dist + offset;
            let len = v.length();
            (if len > 0.0 { v / len } else { Vec3::ZERO }, len)
        })
        .collect()
}

/// The quad the grid stands on: the float winding when it has the same four corners
/// (within the clipping's error), else ours.
fn grid_quad(s: &DispSide<'_>) -> [Vec3; 4] {
    let ours: [Vec3; 4] = std::array::from_fn(|k| Vec3::from(s.winding.points[k].as_vec3().to_array()));
    match &s.float_winding {
        Some(w) if w.len() == 4 && w.iter().zip(&ours).all(|(a, b)| a.distance(*b) < 0.1) => {
            [w[0], w[1], w[2], w[3]]
        }
        _ => ours,
    }
}

/// Writes the displacement records for `disps`, whose faces `emit` already wrote (each
/// face's `dispinfo` is its displacement's index).
pub(crate) fn write_records(out: &mut bsp::Bsp, disps: &mut [Disp]) {
    let mut map_face = vec![None; disps.len()];
    for (fi, f) in out.faces.iter().enumerate() {
        if let Some(slot) = usize::try_from(f.dispinfo).ok().and_then(|d| map_face.get_mut(d)) {
            *slot = Some(fi);
        }
    }
    // Neighbours and the vertices each may drop for LOD, then the dropped ones moved onto
    // the mesh left without them (so that the engine's ray tests and overlays agree).
    let grids: Vec<DispGrid> = disps.iter().map(|d| d.grid.clone()).collect();
    let neighbors = srcmap_disp::neighbors::find_neighbors(&grids);
    let powers: Vec<u32> = disps.iter().map(|d| d.grid.power).collect();
    let allowed = srcmap_disp::allowed::allowed_verts(&powers, &neighbors);
    for (d, bits) in disps.iter_mut().zip(&allowed) {
        srcmap_disp::tesselate::snap(&mut d.grid, bits, &mut d.field);
    }
    out.disp_info.clear();
    out.disp_verts.clear();
    out.disp_tris.clear();
    for (i, (d, face)) in disps.iter().zip(&map_face).enumerate() {
        push_records(out, d, *face, allowed[i]);
        neighbors[i].store(&mut out.disp_info[i]);
    }
    lay_out_lightmaps(out, disps, &map_face);
}

/// One displacement's DISPINFO (on face `face`, allowed to drop `allowed_verts`), its
/// vertices and triangle tags.
fn push_records(out: &mut bsp::Bsp, d: &Disp, face: Option<usize>, allowed_verts: [u32; 10]) {
    out.disp_info.push(bsp::DispInfo {
        start_position: d.start.to_array(),
        disp_vert_start: out.disp_verts.len() as i32,
        disp_tri_start: out.disp_tris.len() as i32,
        power: d.grid.power as i32,
        // The high bit says the word holds flags, not a minimum tessellation.
        min_tess: (d.flags as i32) | i32::MIN,
        smoothing_angle: 0.0,
        contents: d.base.contents as i32,
        // Valve's "no face" marker (the face was never emitted).
        map_face: face.map_or(0xFFFE, |f| f as u32),
        lightmap_alpha_start: 0,
        allowed_verts,
        ..Default::default()
    });
    out.disp_verts.extend(
        d.field
            .iter()
            .zip(&d.alphas)
            .map(|(&(v, dist), &alpha)| bsp::DispVert {
                vec: v.to_array(),
                dist,
                alpha,
            }),
    );
    out.disp_tris.extend(&d.tags);
}

/// Each displacement face's lightmap as VBSP lays it over the grid: its size from the base
/// quad and where each sample lies on the grid. VBSP also makes a copy of the texinfo with
/// the lightmap axes swapped when the lightmap's long side runs against them, but only its
/// own displacement record uses it (no face does, and the unused copy is compacted away),
/// so the faces keep their texinfo here too.
fn lay_out_lightmaps(out: &mut bsp::Bsp, disps: &[Disp], map_face: &[Option<usize>]) {
    out.disp_lightmap_sample_positions.clear();
    // The bytes depend only on the power and the lightmap size, which most displacements share.
    let mut bytes_of: HashMap<(u32, u32, u32), Vec<u8>> = HashMap::new();
    for (i, (d, face)) in disps.iter().zip(map_face).enumerate() {
        out.disp_info[i].lightmap_sample_position_start = out.disp_lightmap_sample_positions.len() as i32;
        let Some(fi) = *face else { continue };
        let vecs = out.texinfo[out.faces[fi].texinfo as usize].lightmap_vecs;
        let axis = |k: usize| Vec3::new(vecs[k][0], vecs[k][1], vecs[k][2]);
        if let Some(size) = d.grid.lightmap_size(axis(0), axis(1)) {
            out.faces[fi].lightmap_size = size.face_size();
        }
        let [u, v] = out.faces[fi].lightmap_size.map(|n| n.max(0) as u32);
        let bytes = (bytes_of.entry((d.grid.power, u, v)))
            .or_insert_with(|| srcmap_disp::lightmap::sample_position_bytes(d.grid.power, u, v));
        out.disp_lightmap_sample_positions.extend_from_slice(bytes);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hammer_tags_collapse_with_their_force_bits() {
        // Hammer's usual "9": walkable and buildable, nothing forced.
        assert_eq!(bsp_tag(9), TAG_WALKABLE | TAG_BUILDABLE);
        assert_eq!(bsp_tag(0), 0);
        // Forced not walkable (force bit, value 0) beats the plain walkable bit.
        assert_eq!(bsp_tag(HAMMER_WALKABLE | HAMMER_FORCE_WALKABLE), 0);
        // Forced walkable with the plain bit clear.
        assert_eq!(
            bsp_tag(HAMMER_FORCE_WALKABLE | HAMMER_FORCE_WALKABLE_VALUE),
            TAG_WALKABLE
        );
        assert_eq!(
            bsp_tag(HAMMER_FORCE_BUILDABLE | HAMMER_FORCE_BUILDABLE_VALUE),
            TAG_BUILDABLE
        );
    }
}
