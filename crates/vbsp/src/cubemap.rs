//! `env_cubemap`: the CUBEMAPS samples, and the patched materials that point shiny sides at
//! one of them.
//!
//! A side whose material has `$envmap env_cubemap` gets a copy of that material named
//! `maps/<map>/<material>_<x>_<y>_<z>`: a `patch` VMT in the pakfile that includes the
//! original and replaces its `$envmap` with the cubemap texture `maps/<map>/c<x>_<y>_<z>`.
//! The cubemap is the one whose `sides` key lists the side, else the nearest one in front of
//! the side's centre, else the nearest at all (Valve's `Cubemap_FindClosestCubemap`).
//! Valve's default cube map (black, in the sky textures' format) goes in the pakfile as
//! `cubemapdefault.vtf` and under every cube map name a patch uses, when the sky is known
//! (`-game`, or the material table). Not done (it needs the game's files): patches of dependent
//! materials (`$bottommaterial`, `$fallbackmaterial`).

use std::collections::HashMap;

use srcmap_geom::DVec3;
use srcmap_kv::values;

use crate::contents::CONTENTS_SOLID;
use crate::diag::{Diagnostic, Where};
use crate::input::MapInput;

/// Valve's `TEXTURE_NAME_LENGTH`: a texdata name must stay shorter.
const MAX_NAME_LEN: usize = 128;

/// One `env_cubemap`, as the CUBEMAPS lump stores it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Sample {
    /// The entity's origin, truncated towards zero as Valve's `(int)` casts do.
    pub origin: [i32; 3],
    /// `cubemapsize`: 0 for the default, else 2^(size-1) pixels square.
    pub size: i32,
    /// The `env_cubemap`'s VMF entity id, for diagnostics.
    pub entity_id: i64,
}

/// The map's cubemaps and the sides they were given by hand.
#[derive(Debug, Default)]
pub(crate) struct Cubemaps {
    pub samples: Vec<Sample>,
    /// VMF side id → the first cubemap whose `sides` key lists it.
    chosen: HashMap<i64, usize>,
}

impl Cubemaps {
    /// The `env_cubemap` entities of the map, in map order.
    pub fn gather(input: &MapInput) -> Cubemaps {
        let mut cubemaps = Cubemaps::default();
        for e in input
            .entities
            .iter()
            .filter(|e| e.classname.eq_ignore_ascii_case("env_cubemap"))
        {
            let at = e.get("origin").map(values::vector_or_zero).unwrap_or_default();
            let index = cubemaps.samples.len();
            cubemaps.samples.push(Sample {
                // Valve holds the origin in floats before the cast.
                origin: at.map(|c| c as f32 as i32),
                size: e.get("cubemapsize").map_or(0, |v| values::atof(v) as i32),
                entity_id: e.id,
            });
            let listed = e.get("sides").unwrap_or_default();
            for id in listed.split_whitespace().filter_map(|s| s.parse::<i64>().ok()) {
                cubemaps.chosen.entry(id).or_insert(index);
            }
        }
        cubemaps
    }

    pub fn is_empty(&self) -> bool {
        self.samples.is_empty()
    }

    /// A warning for each cubemap whose origin lies in a solid leaf of the world (inside a
    /// brush, or in the void the outside fill made solid) or beyond the world's bounds (the
    /// void, whatever leaf the tree gives it there): the engine would render it from inside a
    /// wall or from nowhere. `None` from the tree walk (a broken tree)
    /// counts as outside.
    pub fn outside_world(&self, bsp: &srcmap_bsp::Bsp) -> Vec<Diagnostic> {
        let solid = |leaf: usize| {
            bsp.leafs
                .get(leaf)
                .is_none_or(|l| l.contents as u32 & CONTENTS_SOLID != 0)
        };
        let beyond_bounds = |p: [f64; 3]| {
            bsp.models.first().is_some_and(|world| {
                (0..3).any(|k| p[k] < world.mins[k] as f64 || p[k] > world.maxs[k] as f64)
            })
        };
        (self.samples.iter())
            .filter(|s| {
                let p = s.origin.map(f64::from);
                beyond_bounds(p) || bsp.leaf_index_at(0, p).is_none_or(solid)
            })
            .map(|s| {
                let at = Where {
                    entity_id: Some(s.entity_id),
                    classname: Some("env_cubemap".into()),
                    ..Default::default()
                };
                let [x, y, z] = s.origin;
                Diagnostic::warning(
                    at,
                    format!(
                        "env_cubemap (entity {}) at ({x} {y} {z}) is outside the world (in solid or the void)",
                        s.entity_id
                    ),
                )
            })
            .collect()
    }

    /// The cubemap for a side: the one that lists it, else the nearest to `centre` (the
    /// average of its winding's points; `None` for a side without one, which takes the first)
    /// among those in front of its plane, else the nearest of all.
    pub fn for_side(&self, side_id: i64, centre: Option<DVec3>, normal: DVec3) -> Option<usize> {
        if let Some(&i) = self.chosen.get(&side_id) {
            return Some(i);
        }
        let Some(centre) = centre else {
            return (!self.samples.is_empty()).then_some(0);
        };
        let distance = |s: &Sample| (DVec3::from(s.origin.map(f64::from)) - centre).length();
        let nearest = |in_front: bool| {
            let mut best: Option<(usize, f64)> = None;
            for (i, s) in self.samples.iter().enumerate() {
                let delta = DVec3::from(s.origin.map(f64::from)) - centre;
                if in_front && delta.normalize_or_zero().dot(normal) < 0.0 {
                    continue;
                }
                let d = distance(s);
                // The first of equally near cubemaps wins.
                if best.is_none_or(|(_, b)| d < b) {
                    best = Some((i, d));
                }
            }
            best.map(|(i, _)| i)
        };
        nearest(true).or_else(|| nearest(false))
    }
}

/// The patched material's name, as Valve lower-cases it; `None` when it would not fit a
/// texdata name.
pub(crate) fn patched_name(map: &str, material: &str, origin: [i32; 3]) -> Option<String> {
    let [x, y, z] = origin;
    let name = format!("maps/{map}/{material}_{x}_{y}_{z}")
        .replace('\\', "/")
        .to_ascii_lowercase();
    (name.len() < MAX_NAME_LEN - 1).then_some(name)
}

/// The texture a patched material's `$envmap` names, `maps/<map>/c<x>_<y>_<z>` (lower case);
/// without an origin, the map's default cube map `maps/<map>/cubemapdefault`.
pub(crate) fn texture_name(map: &str, origin: impl Into<Option<[i32; 3]>>) -> String {
    let name = match origin.into() {
        Some([x, y, z]) => format!("maps/{map}/c{x}_{y}_{z}"),
        None => format!("maps/{map}/cubemapdefault"),
    };
    name.replace('\\', "/").to_ascii_lowercase()
}

/// The pakfile path and text of a patched material, in the layout Valve's KeyValues writer
/// gives it (CRLF lines, tabs).
pub(crate) fn patch_file(map: &str, material: &str, patched: &str, origin: [i32; 3]) -> (String, Vec<u8>) {
    let cubemap = texture_name(map, origin);
    let text = format!(
        "\"patch\"\r\n{{\r\n\t\"include\"\t\t\"materials/{material}.vmt\"\r\n\t\"replace\"\r\n\t{{\r\n\
         \t\t\"$envmap\"\t\t\"{cubemap}\"\r\n\t}}\r\n}}\r\n"
    );
    (format!("materials/{patched}.vmt"), text.into_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cubemaps(origins: &[[i32; 3]]) -> Cubemaps {
        Cubemaps {
            samples: (origins.iter())
                .map(|&origin| Sample {
                    origin,
                    size: 0,
                    entity_id: 0,
                })
                .collect(),
            chosen: HashMap::new(),
        }
    }

    #[test]
    fn nearest_in_front_wins_over_nearer_behind() {
        let c = cubemaps(&[[0, 0, -10], [0, 0, 100]]);
        assert_eq!(c.for_side(1, Some(DVec3::ZERO), DVec3::Z), Some(1));
        // Nothing in front: the nearest of all.
        assert_eq!(
            c.for_side(1, Some(DVec3::new(0.0, 0.0, 200.0)), DVec3::Z),
            Some(1)
        );
        assert_eq!(c.for_side(1, None, DVec3::Z), Some(0));
    }

    #[test]
    fn names_and_patch_text() {
        let name = patched_name("box", "Metal\\Wall01", [1, -2, 3]).unwrap();
        assert_eq!(name, "maps/box/metal/wall01_1_-2_3");
        let (path, text) = patch_file("box", "METAL/WALL01", &name, [1, -2, 3]);
        assert_eq!(path, "materials/maps/box/metal/wall01_1_-2_3.vmt");
        let text = String::from_utf8(text).unwrap();
        assert!(text.contains("\"include\"\t\t\"materials/METAL/WALL01.vmt\""));
        assert!(text.contains("\"$envmap\"\t\t\"maps/box/c1_-2_3\""));
        assert!(patched_name("m", &"x".repeat(130), [0, 0, 0]).is_none());
    }
}
