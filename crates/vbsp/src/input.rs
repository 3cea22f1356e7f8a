//! The compiler's input: map entities and brushes as numbers, independent of any text
//! format (the VMF adapter lives with the caller).

use srcmap_geom::DVec3;
use srcmap_kv::values;

/// A whole map: `entities[0]` is `worldspawn`.
#[derive(Debug, Clone, Default)]
pub struct MapInput {
    pub entities: Vec<MapEntity>,
}

#[derive(Debug, Clone, Default)]
pub struct MapEntity {
    /// The VMF id, for messages.
    pub id: i64,
    pub classname: String,
    /// Key/values in file order, `classname` included.
    pub keyvalues: Vec<(String, String)>,
    /// Entity I/O, already in the entity lump's `"OnTrigger" "target,input,param,delay,times"`
    /// form, appended after the key/values.
    pub outputs: Vec<(String, String)>,
    pub brushes: Vec<MapBrush>,
}

impl MapEntity {
    pub fn get(&self, key: &str) -> Option<&str> {
        self.keyvalues
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(key))
            .map(|(_, v)| v.as_str())
    }

    pub fn set(&mut self, key: &str, value: String) {
        match self
            .keyvalues
            .iter_mut()
            .find(|(k, _)| k.eq_ignore_ascii_case(key))
        {
            Some(kv) => kv.1 = value,
            None => self.keyvalues.push((key.to_string(), value)),
        }
    }

    pub fn remove(&mut self, key: &str) {
        self.keyvalues.retain(|(k, _)| !k.eq_ignore_ascii_case(key));
    }

    /// The `origin` key as three numbers.
    pub fn origin(&self) -> Option<DVec3> {
        self.vector("origin")
    }

    /// A key's value as three numbers ([`srcmap_kv::values::vector`]).
    pub fn vector(&self, key: &str) -> Option<DVec3> {
        values::vector(self.get(key)?).map(DVec3::from)
    }
}

#[derive(Debug, Clone, Default)]
pub struct MapBrush {
    /// The VMF solid id, for messages.
    pub id: i64,
    pub sides: Vec<MapSide>,
}

#[derive(Debug, Clone)]
pub struct MapSide {
    /// The VMF side id, for messages.
    pub id: i64,
    /// Three points on the plane, clockwise seen from outside the brush (Hammer's order).
    pub points: [DVec3; 3],
    pub material: String,
    pub uaxis: TexAxis,
    pub vaxis: TexAxis,
    /// World units per luxel.
    pub lightmap_scale: f64,
    pub smoothing_groups: u32,
    /// The side's displacement, if it carries one.
    pub displacement: Option<Box<MapDisp>>,
}

/// A displacement as the map gives it (Hammer's `dispinfo`); rows are row-major over the
/// (2^power + 1)² grid, `triangle_tags` over its 2·4^power triangles. Rows may be short or
/// missing in a damaged map: the compiler checks their lengths.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MapDisp {
    pub power: u32,
    pub start_position: DVec3,
    /// Hammer's `flags` (surface flags such as no-physics), stored in the dispinfo.
    pub flags: i64,
    pub normals: Vec<[f32; 3]>,
    pub distances: Vec<f32>,
    pub offsets: Vec<[f32; 3]>,
    pub alphas: Vec<f32>,
    /// Hammer's per-triangle tags, with their force bits.
    pub triangle_tags: Vec<i32>,
}

/// A texture axis: texel `s = axis · p / scale + shift`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TexAxis {
    pub axis: DVec3,
    pub shift: f64,
    pub scale: f64,
}

impl Default for TexAxis {
    fn default() -> Self {
        TexAxis {
            axis: DVec3::X,
            shift: 0.0,
            scale: 0.25,
        }
    }
}
