//! `func_instance` collapse, as VBSP does before compiling: each instance's map is loaded,
//! its own instances collapsed first, moved and rotated into place, its names fixed up
//! (prefix, postfix or none), `$parameters` replaced, then merged into the map.

use srcmap_geom::DVec3;

use srcmap_kv::values;

use crate::input::{MapEntity, MapInput, MapSide};

/// Instances nest at most this deep (a file that includes itself stops here).
const MAX_DEPTH: usize = 16;

/// What instance files may add to a map in all, as Valve's VBSP bounds the map it loads
/// instances into (`MAX_MAP_ENTITIES`, `MAX_MAP_BRUSHES`, `MAX_MAP_BRUSHSIDES` in SDK 2013's
/// `bspfile.h`): a few small files that each place several copies of the next would otherwise
/// collapse into billions of brushes. Every `func_instance` loaded counts as an entity, as it
/// does in Valve's entity list.
const MAX_INSTANCE_ENTITIES: usize = 8192;
const MAX_INSTANCE_BRUSHES: usize = 8192;
const MAX_INSTANCE_SIDES: usize = 65536;

/// Why instances could not be collapsed: the chain of instance files (outermost first) to the
/// one that went too deep or over the limits.
#[derive(Debug, thiserror::Error)]
pub enum InstanceError {
    #[error("instances nested deeper than {MAX_DEPTH} (does an instance include itself?): {}", chain.join(" -> "))]
    TooDeep { chain: Vec<String> },
    #[error(
        "instances add more than {max} {what} to the map (Valve's limit) at {}",
        chain.join(" -> ")
    )]
    TooLarge {
        what: &'static str,
        max: usize,
        chain: Vec<String>,
    },
}

/// What the instance files loaded so far have added.
#[derive(Debug, Default)]
struct Budget {
    entities: usize,
    brushes: usize,
    sides: usize,
}

impl Budget {
    /// Counts one loaded instance map, failing once any total passes its limit.
    fn add(&mut self, map: &MapInput, chain: &[String]) -> Result<(), InstanceError> {
        self.entities += map.entities.len();
        self.brushes += map.entities.iter().map(|e| e.brushes.len()).sum::<usize>();
        self.sides += map
            .entities
            .iter()
            .flat_map(|e| &e.brushes)
            .map(|b| b.sides.len())
            .sum::<usize>();
        for (what, count, max) in [
            ("entities", self.entities, MAX_INSTANCE_ENTITIES),
            ("brushes", self.brushes, MAX_INSTANCE_BRUSHES),
            ("brush sides", self.sides, MAX_INSTANCE_SIDES),
        ] {
            if count > max {
                return Err(InstanceError::TooLarge {
                    what,
                    max,
                    chain: chain.to_vec(),
                });
            }
        }
        Ok(())
    }
}

/// A rotation by Valve's angles (pitch, yaw, roll in degrees), as columns forward, left, up.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Rot([[f64; 3]; 3]);

impl Rot {
    pub(crate) fn from_angles(a: DVec3) -> Rot {
        // Rows of the matrix whose columns AngleMatrix gives.
        let c = srcmap_geom::angle_matrix(a.to_array());
        Rot([0, 1, 2].map(|r| [c[0][r], c[1][r], c[2][r]]))
    }

    pub(crate) fn apply(&self, v: DVec3) -> DVec3 {
        let m = &self.0;
        DVec3::new(
            m[0][0] * v.x + m[0][1] * v.y + m[0][2] * v.z,
            m[1][0] * v.x + m[1][1] * v.y + m[1][2] * v.z,
            m[2][0] * v.x + m[2][1] * v.y + m[2][2] * v.z,
        )
    }

    fn mul(&self, o: &Rot) -> Rot {
        let mut r = [[0.0; 3]; 3];
        for (i, row) in r.iter_mut().enumerate() {
            for (j, x) in row.iter_mut().enumerate() {
                *x = (0..3).map(|k| self.0[i][k] * o.0[k][j]).sum();
            }
        }
        Rot(r)
    }

    fn angles(&self) -> DVec3 {
        let m = &self.0;
        let fwd = DVec3::new(m[0][0], m[1][0], m[2][0]);
        let left = DVec3::new(m[0][1], m[1][1], m[2][1]);
        let up = DVec3::new(m[0][2], m[1][2], m[2][2]);
        let xy = (fwd.x * fwd.x + fwd.y * fwd.y).sqrt();
        if xy > 0.001 {
            DVec3::new(
                (-fwd.z).atan2(xy).to_degrees(),
                fwd.y.atan2(fwd.x).to_degrees(),
                left.z.atan2(up.z).to_degrees(),
            )
        } else {
            DVec3::new(
                (-fwd.z).atan2(xy).to_degrees(),
                (-left.x).atan2(left.y).to_degrees(),
                0.0,
            )
        }
    }
}

fn fmt_num(v: f64) -> String {
    let r = v.round();
    if (v - r).abs() < 1e-4 {
        format!("{}", r as i64)
    } else {
        format!("{v:.4}")
    }
}

fn fmt_vec(v: DVec3) -> String {
    format!("{} {} {}", fmt_num(v.x), fmt_num(v.y), fmt_num(v.z))
}

/// Collapse every `func_instance` of `map`. `load` finds an instance's map by the path
/// written in its `file` key (joined to the including instance's folder for nested ones).
/// Returns the problems found (missing files); those instances are dropped. Nesting deeper
/// than Valve's tools allow, or instances adding more than a map can hold, is an error naming
/// the chain of instance files.
pub fn collapse(
    map: &mut MapInput,
    load: &dyn Fn(&str) -> Option<MapInput>,
) -> Result<Vec<String>, InstanceError> {
    let mut state = Collapse {
        load,
        problems: Vec::new(),
        auto: 0,
        budget: Budget::default(),
        chain: Vec::new(),
    };
    state.collapse_r(map, "")?;
    Ok(state.problems)
}

/// [`collapse`]'s running state: the loader, what was found, and the chain of instances being
/// collapsed (outermost first) for error messages.
struct Collapse<'l> {
    load: &'l dyn Fn(&str) -> Option<MapInput>,
    problems: Vec<String>,
    auto: usize,
    budget: Budget,
    chain: Vec<String>,
}

impl Collapse<'_> {
    fn collapse_r(&mut self, map: &mut MapInput, base_dir: &str) -> Result<(), InstanceError> {
        let mut i = 1;
        while i < map.entities.len() {
            if !map.entities[i].classname.eq_ignore_ascii_case("func_instance") {
                i += 1;
                continue;
            }
            let inst = map.entities.remove(i);
            let Some(path) = instance_path(&inst, base_dir) else {
                continue;
            };
            let Some(mut sub) = self.load_collapsed(&inst, &path)? else {
                continue;
            };
            let placement = Placement::of(&inst);
            let fixup = Fixup::new(&inst, &sub, &mut self.auto);
            let mut entities = std::mem::take(&mut sub.entities);
            for e in entities.iter_mut() {
                transform_entity(e, &placement, &fixup);
            }
            merge_entities(map, entities);
        }
        Ok(())
    }

    /// Load the instance's map at `path` with its own instances collapsed; `None` (and a
    /// problem noted) when the file is missing. Fails when nesting goes too deep or the
    /// instances loaded pass Valve's limits.
    fn load_collapsed(&mut self, inst: &MapEntity, path: &str) -> Result<Option<MapInput>, InstanceError> {
        let link = format!("instance {} '{}'", inst.id, path);
        if self.chain.len() >= MAX_DEPTH {
            let mut chain = self.chain.clone();
            chain.push(link);
            return Err(InstanceError::TooDeep { chain });
        }
        let Some(mut sub) = (self.load)(path) else {
            self.problems.push(format!(
                "instance {} ({}): file '{}' not found",
                inst.id,
                inst.get("targetname").unwrap_or(""),
                path
            ));
            return Ok(None);
        };
        let sub_dir = path
            .rsplit_once('/')
            .map(|(d, _)| d.to_string())
            .unwrap_or_default();
        self.chain.push(link);
        self.budget.add(&sub, &self.chain)?;
        self.collapse_r(&mut sub, &sub_dir)?;
        self.chain.pop();
        Ok(Some(sub))
    }
}

/// The path of an instance's map: its `file` key with forward slashes, joined to the
/// including instance's folder. `None` when the key is missing or empty.
fn instance_path(inst: &MapEntity, base_dir: &str) -> Option<String> {
    let file = inst
        .get("file")
        .filter(|f| !f.is_empty())
        .map(|f| f.replace('\\', "/"))?;
    Some(if base_dir.is_empty() {
        file
    } else {
        format!("{base_dir}/{file}")
    })
}

/// Merge an instance's transformed entities into `map`: its world brushes into the
/// map's world, its other entities appended, except its `func_instance_parms`.
fn merge_entities(map: &mut MapInput, entities: Vec<MapEntity>) {
    let mut it = entities.into_iter();
    if let Some(w) = it.next() {
        map.entities[0].brushes.extend(w.brushes);
    }
    for e in it {
        if e.classname.eq_ignore_ascii_case("func_instance_parms") {
            continue;
        }
        map.entities.push(e);
    }
}

/// Where an instance places its map: rotated by its angles, then moved to its origin.
struct Placement {
    rot: Rot,
    origin: DVec3,
}

impl Placement {
    fn of(inst: &MapEntity) -> Placement {
        let origin = inst.origin().unwrap_or(DVec3::ZERO);
        let angles = inst.vector("angles").unwrap_or(DVec3::ZERO);
        Placement {
            rot: Rot::from_angles(angles),
            origin,
        }
    }

    fn point(&self, p: DVec3) -> DVec3 {
        self.rot.apply(p) + self.origin
    }
}

/// How an instance rewrites its map's names and values: the name fix-up (prefix,
/// postfix or none) of the names its map defines, `$parameter` replacement and
/// `#material` swaps.
struct Fixup {
    /// The instance's name (or `AutoInstanceN`).
    name: String,
    /// `fixup_style`: 0 prefix, 1 postfix, 2 none.
    style: i32,
    /// The target names the instance's map defines.
    names: Vec<String>,
    /// `replaceNN` keys' "$name value" pairs, longer names first.
    params: Vec<(String, String)>,
    /// `#material` parameters: lower-case material to its replacement.
    material_swaps: Vec<(String, String)>,
}

impl Fixup {
    /// The fix-up of instance `inst` whose collapsed map is `sub`; numbers an unnamed
    /// instance with the next `auto`.
    fn new(inst: &MapEntity, sub: &MapInput, auto: &mut usize) -> Fixup {
        let name = instance_name(inst, auto);
        let style = inst
            .get("fixup_style")
            .and_then(|s| s.trim().parse::<i32>().ok())
            .unwrap_or(0);
        let params = instance_params(inst);
        let names: Vec<String> = sub
            .entities
            .iter()
            .filter_map(|e| e.get("targetname").map(str::to_string))
            .filter(|n| !n.is_empty())
            .collect();
        let material_swaps: Vec<(String, String)> = params
            .iter()
            .filter(|(k, _)| k.starts_with('#'))
            .map(|(k, v)| (k[1..].to_ascii_lowercase(), v.clone()))
            .collect();
        Fixup {
            name,
            style,
            names,
            params,
            material_swaps,
        }
    }

    /// A target name with the instance's name fixed on, when the instance's map defines it
    /// (and it is not `@global`, a `!special` or the style is "none").
    fn fix(&self, n: &str) -> String {
        if n.is_empty()
            || n.starts_with('@')
            || n.starts_with('!')
            || self.style == 2
            || !self.names.iter().any(|m| m == n)
        {
            return n.to_string();
        }
        let name = &self.name;
        if self.style == 1 {
            format!("{n}-{name}")
        } else {
            format!("{name}-{n}")
        }
    }

    /// A value with the instance's `$parameters` replaced.
    fn replace(&self, s: &str) -> String {
        let mut out = s.to_string();
        if out.contains('$') {
            for (k, v) in &self.params {
                if k.starts_with('$') {
                    out = out.replace(k.as_str(), v);
                }
            }
        }
        out
    }

    /// The material a side of the instance's map gets after the `#material` swaps.
    fn swap_material(&self, material: &mut String) {
        let lower = material.to_ascii_lowercase();
        if let Some((_, to)) = self.material_swaps.iter().find(|(from, _)| *from == lower) {
            *material = to.clone();
        }
    }
}

/// An instance's name: its `targetname`, or for an unnamed one `AutoInstanceN` with the
/// next `auto`.
fn instance_name(inst: &MapEntity, auto: &mut usize) -> String {
    match inst.get("targetname").filter(|n| !n.is_empty()) {
        Some(n) => n.to_string(),
        None => {
            *auto += 1;
            format!("AutoInstance{}", *auto)
        }
    }
}

/// An instance's parameters, "replaceNN" "$name value", longer names first so `$a1` is
/// not replaced as `$a` + "1".
fn instance_params(inst: &MapEntity) -> Vec<(String, String)> {
    let mut params: Vec<(String, String)> = inst
        .keyvalues
        .iter()
        .filter(|(k, _)| k.to_ascii_lowercase().starts_with("replace"))
        .map(|(_, v)| {
            let (a, b) = v.split_once(' ').unwrap_or((v.as_str(), ""));
            (a.to_string(), b.to_string())
        })
        .collect();
    params.sort_by_key(|p| std::cmp::Reverse(p.0.len()));
    params
}

/// Move one entity of an instance's map into place and fix up its names and values.
fn transform_entity(e: &mut MapEntity, placement: &Placement, fixup: &Fixup) {
    transform_keyvalues(e, placement, fixup);
    if let Some(cn) = e.get("classname") {
        e.classname = cn.to_string();
    }
    transform_outputs(e, fixup);
    for b in &mut e.brushes {
        for s in &mut b.sides {
            transform_side(s, placement);
            fixup.swap_material(&mut s.material);
        }
    }
}

/// Replace parameters in every key, move `origin`, turn `angles` and fix up the names
/// in name keys.
fn transform_keyvalues(e: &mut MapEntity, placement: &Placement, fixup: &Fixup) {
    let rot = &placement.rot;
    for (k, v) in e.keyvalues.iter_mut() {
        *v = fixup.replace(v);
        let key = k.to_ascii_lowercase();
        match key.as_str() {
            "origin" => {
                if let Some(o) = values::vector(v).map(DVec3::from) {
                    *v = fmt_vec(placement.point(o));
                }
            }
            "angles" => {
                if let Some(a) = values::vector(v).map(DVec3::from) {
                    *v = fmt_vec(rot.mul(&Rot::from_angles(a)).angles());
                }
            }
            "targetname" | "parentname" | "target" | "filtername" | "damagefilter" => *v = fixup.fix(v),
            _ => {}
        }
    }
}

/// Replace parameters in every output and fix up its target's name (the output's first
/// field, separated by ESC or, in older maps, a comma).
fn transform_outputs(e: &mut MapEntity, fixup: &Fixup) {
    for (_, v) in e.outputs.iter_mut() {
        let replaced = fixup.replace(v);
        let sep = if replaced.contains('\u{1b}') {
            '\u{1b}'
        } else {
            ','
        };
        let mut parts: Vec<String> = replaced.split(sep).map(str::to_string).collect();
        if let Some(t) = parts.first_mut() {
            *t = fixup.fix(t);
        }
        *v = parts.join(&sep.to_string());
    }
}

/// Move a brush side into place: its points, texture axes (shifted so the texture stays
/// put on the face) and displacement.
fn transform_side(s: &mut MapSide, placement: &Placement) {
    let (rot, origin) = (&placement.rot, placement.origin);
    for p in &mut s.points {
        *p = placement.point(*p);
    }
    for ax in [&mut s.uaxis, &mut s.vaxis] {
        ax.axis = rot.apply(ax.axis);
        let scale = if ax.scale.abs() > 1e-6 { ax.scale } else { 1.0 };
        ax.shift -= origin.dot(ax.axis) / scale;
    }
    if let Some(d) = &mut s.displacement {
        d.start_position = placement.point(d.start_position);
        let turn = |v: &mut [f32; 3]| {
            let r = rot.apply(DVec3::new(v[0] as f64, v[1] as f64, v[2] as f64));
            *v = [r.x as f32, r.y as f32, r.z as f32];
        };
        d.normals.iter_mut().for_each(turn);
        d.offsets.iter_mut().for_each(turn);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entity(id: i64, classname: &str, keys: &[(&str, &str)]) -> MapEntity {
        let mut keyvalues = vec![("classname".to_string(), classname.to_string())];
        keyvalues.extend(keys.iter().map(|(k, v)| (k.to_string(), v.to_string())));
        MapEntity {
            id,
            classname: classname.to_string(),
            keyvalues,
            ..Default::default()
        }
    }

    /// `level_N.vmf` places four instances of `level_{N+1}.vmf`, down to `last`.
    fn fan_out(name: &str, last: usize) -> Option<MapInput> {
        let n: usize = name.strip_prefix("level_")?.strip_suffix(".vmf")?.parse().ok()?;
        let mut entities = vec![entity(1, "worldspawn", &[])];
        if n < last {
            let next = format!("level_{}.vmf", n + 1);
            for k in 0..4 {
                entities.push(entity(10 + k, "func_instance", &[("file", next.as_str())]));
            }
        }
        Some(MapInput { entities })
    }

    #[test]
    fn nested_fan_out_stops_at_the_entity_limit_naming_the_chain() {
        // Thirteen levels of four would be 4^13 (67 million) instance loads.
        let mut map = MapInput {
            entities: vec![
                entity(1, "worldspawn", &[]),
                entity(2, "func_instance", &[("file", "level_1.vmf")]),
            ],
        };
        let loads = std::cell::Cell::new(0usize);
        let load = |name: &str| {
            loads.set(loads.get() + 1);
            fan_out(name, 13)
        };
        let err = collapse(&mut map, &load).unwrap_err();
        let message = err.to_string();
        assert!(
            matches!(err, InstanceError::TooLarge { what: "entities", .. }),
            "{message}"
        );
        assert!(
            message.contains("instance 2 'level_1.vmf' -> instance 10 'level_2.vmf'"),
            "{message}"
        );
        // Every load adds one entity at least (its worldspawn): loads stay under the limit.
        assert!(loads.get() <= MAX_INSTANCE_ENTITIES + 1, "{} loads", loads.get());
    }

    #[test]
    fn shallow_fan_out_still_collapses() {
        let mut map = MapInput {
            entities: vec![
                entity(1, "worldspawn", &[]),
                entity(2, "func_instance", &[("file", "level_1.vmf")]),
            ],
        };
        let problems = collapse(&mut map, &|name| fan_out(name, 3)).unwrap();
        assert!(problems.is_empty(), "{problems:?}");
        // Every func_instance was replaced by its (empty) contents.
        assert_eq!(map.entities.len(), 1);
    }

    #[test]
    fn an_instance_including_itself_is_too_deep() {
        let mut map = MapInput {
            entities: vec![
                entity(1, "worldspawn", &[]),
                entity(2, "func_instance", &[("file", "self.vmf")]),
            ],
        };
        let load = |_: &str| {
            Some(MapInput {
                entities: vec![
                    entity(1, "worldspawn", &[]),
                    entity(5, "func_instance", &[("file", "self.vmf")]),
                ],
            })
        };
        let err = collapse(&mut map, &load).unwrap_err();
        assert!(
            matches!(&err, InstanceError::TooDeep { chain } if chain.len() == MAX_DEPTH + 1),
            "{err}"
        );
        assert!(
            err.to_string()
                .contains("instance 2 'self.vmf' -> instance 5 'self.vmf'"),
            "{err}"
        );
    }

    #[test]
    fn angles_round_trip() {
        for a in [
            DVec3::new(0.0, 90.0, 0.0),
            DVec3::new(30.0, 45.0, 10.0),
            DVec3::new(-20.0, 180.0, 5.0),
        ] {
            let back = Rot::from_angles(a).angles();
            let r1 = Rot::from_angles(a).apply(DVec3::new(1.0, 2.0, 3.0));
            let r2 = Rot::from_angles(back).apply(DVec3::new(1.0, 2.0, 3.0));
            assert!((r1 - r2).length() < 1e-9, "{a} -> {back}");
        }
        let yaw90 = Rot::from_angles(DVec3::new(0.0, 90.0, 0.0));
        assert!((yaw90.apply(DVec3::X) - DVec3::Y).length() < 1e-12);
    }
}
