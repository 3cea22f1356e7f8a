//! Helpers to write small maps in code.
#![allow(dead_code)]

use srcmap_geom::DVec3;
use srcmap_vbsp::*;

/// A box brush with Hammer's side point order (clockwise seen from outside).
pub fn box_brush(id: i64, mins: [f64; 3], maxs: [f64; 3], material: &str) -> MapBrush {
    let (lo, hi) = (DVec3::from(mins), DVec3::from(maxs));
    let c = (lo + hi) * 0.5;
    let mut sides = Vec::new();
    for axis in 0..3 {
        for dir in [1.0, -1.0] {
            let mut n = DVec3::ZERO;
            n[axis] = dir;
            let mut p1 = c;
            p1[axis] = if dir > 0.0 { hi[axis] } else { lo[axis] };
            // (p0 - p1) × (p2 - p1) must point along n: p0 = p1 + a, p2 = p1 + n × a.
            let a = if axis == 2 { DVec3::X } else { DVec3::Z } * 8.0;
            let b = n.cross(a);
            let u = if axis == 0 { DVec3::Y } else { DVec3::X };
            let v = if axis == 2 { -DVec3::Y } else { -DVec3::Z };
            sides.push(MapSide {
                id: id * 10 + sides.len() as i64,
                points: [p1 + a, p1, p1 + b],
                material: material.to_string(),
                uaxis: TexAxis {
                    axis: u,
                    shift: 0.0,
                    scale: 0.25,
                },
                vaxis: TexAxis {
                    axis: v,
                    shift: 0.0,
                    scale: 0.25,
                },
                lightmap_scale: 16.0,
                smoothing_groups: 0,
                displacement: None,
            });
        }
    }
    MapBrush { id, sides }
}

/// Six walls of thickness 16 around the box `lo..hi` (the room's inside).
pub fn room(first_id: i64, lo: [f64; 3], hi: [f64; 3], material: &str) -> Vec<MapBrush> {
    let t = 16.0;
    let mut out = Vec::new();
    let mut id = first_id;
    for axis in 0..3 {
        for side in [0, 1] {
            let mut mins = [lo[0] - t, lo[1] - t, lo[2] - t];
            let mut maxs = [hi[0] + t, hi[1] + t, hi[2] + t];
            if side == 0 {
                maxs[axis] = lo[axis];
            } else {
                mins[axis] = hi[axis];
            }
            out.push(box_brush(id, mins, maxs, material));
            id += 1;
        }
    }
    out
}

pub fn entity(id: i64, class: &str, origin: [f64; 3], brushes: Vec<MapBrush>) -> MapEntity {
    let mut e = MapEntity {
        id,
        classname: class.to_string(),
        keyvalues: vec![("classname".into(), class.into())],
        outputs: vec![],
        brushes,
    };
    if origin != [0.0; 3] {
        e.keyvalues.push((
            "origin".into(),
            format!("{} {} {}", origin[0], origin[1], origin[2]),
        ));
    }
    e
}

pub fn world(brushes: Vec<MapBrush>) -> MapEntity {
    entity(1, "worldspawn", [0.0; 3], brushes)
}

pub fn compile_map(entities: Vec<MapEntity>) -> Result<Output, VbspError> {
    let opts = Options {
        verify: true,
        ..Default::default()
    };
    compile(&MapInput { entities }, &opts, &NoProgress)
}

pub fn contents_at(out: &Output, p: [f64; 3]) -> i32 {
    out.bsp.leaf_at(0, p).expect("leaf").contents
}

pub fn cluster_at(out: &Output, p: [f64; 3]) -> i32 {
    out.bsp.leaf_at(0, p).expect("leaf").cluster
}

/// The material a face shows.
pub fn face_material<'a>(bsp: &'a Bsp, face: &srcmap_bsp::Face) -> &'a str {
    bsp.texdata_name(bsp.texinfo[face.texinfo as usize].texdata as usize)
        .expect("the compiler names every texdata")
}

/// Summed area of rendered faces of the world model using `material`.
pub fn area_of(out: &Output, material: &str) -> f64 {
    let m = &out.bsp.models[0];
    out.bsp.faces[m.first_face as usize..(m.first_face + m.num_faces) as usize]
        .iter()
        .filter(|f| face_material(&out.bsp, f).eq_ignore_ascii_case(material))
        .map(|f| f.area as f64)
        .sum()
}

/// Whether some entity of the entity lump has `key` set to `value`.
pub fn has_keyvalue(out: &Output, key: &str, value: &str) -> bool {
    out.bsp.entities.iter().any(|e| e.get(key) == Some(value))
}
