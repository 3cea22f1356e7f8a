//! The decompiled map before it is written: entities, solids and sides with their VMF ids.

use srcmap_geom::{DVec3, Plane, Winding};
use srcmap_vmf::{DispInfo, TextureAxis};

/// A side as the VMF will hold it.
#[derive(Debug, Clone)]
pub(crate) struct OutSide {
    pub id: i64,
    /// Three points on the plane, clockwise seen from outside.
    pub points: [[f64; 3]; 3],
    pub material: String,
    pub uaxis: TextureAxis,
    pub vaxis: TextureAxis,
    pub lightmap_scale: f64,
    pub smoothing_groups: u32,
    pub disp: Option<Box<DispInfo>>,
    /// The Hammer id the BSP's face ids give the side (where a face shows it).
    pub hammer_id: Option<u32>,
}

impl OutSide {
    /// A side on `points`, its material and axes still to be given.
    pub fn new(id: i64, points: [[f64; 3]; 3]) -> OutSide {
        OutSide {
            id,
            points,
            material: String::new(),
            uaxis: TextureAxis::default(),
            vaxis: TextureAxis::default(),
            lightmap_scale: 16.0,
            smoothing_groups: 0,
            disp: None,
            hammer_id: None,
        }
    }
}

/// A solid and where it stands (for grouping and matching).
#[derive(Debug, Clone)]
pub(crate) struct OutSolid {
    pub id: i64,
    pub sides: Vec<OutSide>,
    pub mins: DVec3,
    pub maxs: DVec3,
}

impl OutSolid {
    /// The least and greatest Hammer side id of the solid: Hammer numbers a brush's sides one
    /// after another, so the most of its sides' ids that fit in as many numbers as it has
    /// sides (a face matched from a neighbour's coplanar side names the neighbour).
    pub fn hammer_ids(&self) -> Option<(u32, u32)> {
        let mut ids: Vec<u32> = self.sides.iter().filter_map(|s| s.hammer_id).collect();
        ids.sort_unstable();
        let span = self.sides.len() as u32;
        let window = |i: usize| {
            let end = ids[i..].partition_point(|&id| id - ids[i] < span);
            (end, (ids[i], ids[i + end - 1]))
        };
        let best = (0..ids.len())
            .map(window)
            .max_by_key(|&(n, (lo, _))| (n, u32::MAX - lo));
        best.map(|(_, range)| range)
    }

    /// The boxes overlap or touch (within `eps`).
    pub fn touches(&self, other: &OutSolid, eps: f64) -> bool {
        (0..3).all(|i| self.mins[i] <= other.maxs[i] + eps && other.mins[i] <= self.maxs[i] + eps)
    }
}

/// The world or an entity: key/values in order (outputs among them), and its solids.
#[derive(Debug, Clone, Default)]
pub(crate) struct OutEntity {
    pub id: i64,
    pub keyvalues: Vec<(String, String)>,
    pub solids: Vec<OutSolid>,
}

impl OutEntity {
    pub fn new(id: i64, classname: &str) -> OutEntity {
        OutEntity {
            id,
            keyvalues: vec![("classname".to_string(), classname.to_string())],
            solids: Vec::new(),
        }
    }

    pub fn get(&self, key: &str) -> Option<&str> {
        let kv = self.keyvalues.iter().find(|(k, _)| k.eq_ignore_ascii_case(key));
        kv.map(|(_, v)| v.as_str())
    }

    pub fn classname(&self) -> &str {
        self.get("classname").unwrap_or("")
    }

    /// Sets the first `key`, or appends it.
    pub fn set(&mut self, key: &str, value: impl Into<String>) {
        let value = value.into();
        match self
            .keyvalues
            .iter_mut()
            .find(|(k, _)| k.eq_ignore_ascii_case(key))
        {
            Some((_, v)) => *v = value,
            None => self.keyvalues.push((key.to_string(), value)),
        }
    }

    /// Removes every `key` and gives back the first value.
    pub fn take(&mut self, key: &str) -> Option<String> {
        let first = self.get(key).map(str::to_string);
        self.keyvalues.retain(|(k, _)| !k.eq_ignore_ascii_case(key));
        first
    }
}

/// One side of a brush in the BSP, with its winding on the brush.
#[derive(Debug, Clone)]
pub(crate) struct SideGeom {
    /// Index into BRUSHSIDES.
    pub index: usize,
    pub plane: Plane,
    pub winding: Winding,
}

/// An f32 triple as f64s.
pub(crate) fn dvec(v: [f32; 3]) -> DVec3 {
    DVec3::new(v[0] as f64, v[1] as f64, v[2] as f64)
}

/// An f32 in its shortest form that reads back as the same f32 (`0.1`, not `0.100000001`).
pub(crate) use srcmap_vmf::format_f32 as f32_value;

/// Three f32s as an entity key value.
pub(crate) fn f32x3_value(v: [f32; 3]) -> String {
    format!("{} {} {}", f32_value(v[0]), f32_value(v[1]), f32_value(v[2]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_neighbours_side_id_does_not_stretch_a_brushs_ids() {
        // Six sides numbered 40..45, one face matched from a coplanar neighbour (id 900) and
        // one side without a face.
        let ids = [Some(40), Some(41), Some(900), None, Some(44), Some(45)];
        let sides = ids.map(|id| OutSide {
            hammer_id: id,
            ..OutSide::new(0, [[0.0; 3]; 3])
        });
        let solid = OutSolid {
            id: 0,
            sides: sides.to_vec(),
            mins: DVec3::ZERO,
            maxs: DVec3::ONE,
        };
        assert_eq!(solid.hammer_ids(), Some((40, 45)));
    }
}
