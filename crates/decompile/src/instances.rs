//! Collapsed instances back as `func_instance`s: the compiler names an unnamed instance's
//! entities `InstanceAutoN-name` (Valve's vbsp; ours `AutoInstanceN-name`) and a named one's
//! `instancename-name`, so the entities sharing such a prefix are one copy of an instance
//! (a named copy needs two entities or more: one name with a dash is a mapper's own
//! more often than an instance). Copies with the same classes and
//! keys in the same order are one instance file when a rigid motion (rotation about the
//! copies' centres, then a translation) carries the first copy's origins and angles onto
//! every other's; keys whose values differ between copies become `$parameters`.

use std::collections::HashMap;

use srcmap_geom::{DVec3, angle_matrix};

use crate::types::{OutEntity, f32_value};

/// How far (units) a moved origin may land from the copy's, and a turned frame's axes
/// from the copy's (the compiler writes origins and angles rounded).
const POINT_EPS: f64 = 0.05;
const AXIS_EPS: f64 = 2e-3;

/// One instance file to write beside the map.
#[derive(Debug, Clone, PartialEq)]
pub struct InstanceFile {
    /// The path the `func_instance`s name, relative to the map (`instances/NAME_N.vmf`).
    pub path: String,
    /// The instance VMF's text.
    pub text: String,
}

/// A rotation as the images of the x, y and z axes.
#[derive(Debug, Clone, Copy)]
struct Rot([DVec3; 3]);

impl Rot {
    const IDENTITY: Rot = Rot([DVec3::X, DVec3::Y, DVec3::Z]);

    /// Valve's entity angles (pitch yaw roll) as a rotation: forward, left, up.
    fn from_angles(a: DVec3) -> Rot {
        Rot(angle_matrix(a.to_array()).map(DVec3::from_array))
    }

    fn apply(&self, v: DVec3) -> DVec3 {
        self.0[0] * v.x + self.0[1] * v.y + self.0[2] * v.z
    }

    fn then(&self, o: &Rot) -> Rot {
        Rot(self.0.map(|c| o.apply(c)))
    }

    /// The rotation taking frame `a` (orthonormal columns) onto frame `b`.
    fn between(a: &Rot, b: &Rot) -> Rot {
        let image = |axis: usize| (0..3).map(|k| b.0[k] * a.0[k][axis]).sum::<DVec3>();
        Rot([image(0), image(1), image(2)])
    }

    fn near(&self, o: &Rot) -> bool {
        (0..3).all(|i| self.0[i].abs_diff_eq(o.0[i], AXIS_EPS))
    }

    /// Entity angles giving this rotation (pitch from forward's height, yaw from its
    /// heading, roll from how far left leans up; straight up or down has no roll).
    fn angles(&self) -> DVec3 {
        let [fwd, left, up] = self.0;
        let flat = fwd.x.hypot(fwd.y);
        let pitch = (-fwd.z).atan2(flat).to_degrees();
        if flat > 1e-3 {
            let roll = left.z.atan2(up.z).to_degrees();
            DVec3::new(pitch, fwd.y.atan2(fwd.x).to_degrees(), roll)
        } else {
            DVec3::new(pitch, (-left.x).atan2(left.y).to_degrees(), 0.0)
        }
    }
}

/// The instance prefix of a point entity's name: the part before its first dash
/// (`InstanceAuto12`, or a named instance's name).
fn prefix_of(e: &OutEntity) -> Option<&str> {
    let (prefix, _) = e.get("targetname")?.split_once('-')?;
    (!prefix.is_empty() && e.solids.is_empty()).then_some(prefix)
}

/// The compiler's name for an unnamed instance (`InstanceAuto12`, ours `AutoInstance12`).
fn is_automatic(prefix: &str) -> bool {
    let number = ["InstanceAuto", "AutoInstance"]
        .iter()
        .find_map(|p| prefix.strip_prefix(p));
    number.is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// One copy: its prefix and its entities' indices in the map's entity list.
#[derive(Debug, Clone)]
struct Copy {
    prefix: String,
    members: Vec<usize>,
}

/// The copies, in order of their first entity: every automatic prefix, and every other
/// prefix two entities or more share.
fn copies(entities: &[OutEntity]) -> Vec<Copy> {
    let mut out: Vec<Copy> = Vec::new();
    let mut index: HashMap<&str, usize> = HashMap::new();
    for (i, e) in entities.iter().enumerate() {
        let Some(prefix) = prefix_of(e) else { continue };
        let n = *index.entry(prefix).or_insert(out.len());
        if n == out.len() {
            out.push(Copy {
                prefix: prefix.to_string(),
                members: Vec::new(),
            });
        }
        out[n].members.push(i);
    }
    out.retain(|c| c.members.len() >= 2 || is_automatic(&c.prefix));
    out
}

/// An entity's keys as its instance file holds them: the copy's prefix taken off every
/// value that carries it (names, targets, outputs).
fn local_keys(e: &OutEntity, prefix: &str) -> Vec<(String, String)> {
    let fixed = format!("{prefix}-");
    let strip = |v: &String| v.strip_prefix(&fixed).unwrap_or(v).to_string();
    e.keyvalues.iter().map(|(k, v)| (k.clone(), strip(v))).collect()
}

/// What must agree for two copies to be one instance: classes and key names, in order.
fn shape(entities: &[OutEntity], c: &Copy) -> Vec<Vec<String>> {
    let keys = |i: &usize| {
        entities[*i]
            .keyvalues
            .iter()
            .map(|(k, _)| k.to_ascii_lowercase())
            .collect()
    };
    c.members.iter().map(keys).collect()
}

fn vector(e: &OutEntity, key: &str) -> Option<DVec3> {
    let v: Vec<f64> = e
        .get(key)?
        .split_whitespace()
        .map(str::parse)
        .collect::<Result<_, _>>()
        .ok()?;
    (v.len() == 3).then(|| DVec3::new(v[0], v[1], v[2]))
}

/// A copy's origins, or `None` when an entity has none.
fn origins(entities: &[OutEntity], c: &Copy) -> Option<Vec<DVec3>> {
    c.members
        .iter()
        .map(|&i| vector(&entities[i], "origin"))
        .collect()
}

fn centre(points: &[DVec3]) -> DVec3 {
    points.iter().sum::<DVec3>() / points.len().max(1) as f64
}

/// An orthonormal frame from the offsets' longest vector and the one most across it;
/// `None` when the offsets lie on one line.
fn frame(offsets: &[DVec3]) -> Option<(Rot, [usize; 2])> {
    let longest = |f: &dyn Fn(&DVec3) -> f64| {
        let best = (0..offsets.len()).max_by(|&a, &b| f(&offsets[a]).total_cmp(&f(&offsets[b])));
        best.filter(|&i| f(&offsets[i]) > 1e-3)
    };
    let a = longest(&|v| v.length())?;
    let u = offsets[a].normalize();
    let b = longest(&|v| u.cross(*v).length())?;
    Some((orthonormal(offsets[a], offsets[b]), [a, b]))
}

fn orthonormal(a: DVec3, b: DVec3) -> Rot {
    let x = a.normalize();
    let z = x.cross(b).normalize();
    Rot([x, z.cross(x), z])
}

/// Where a copy stands against the first copy: the rotation and the translation
/// (`copy = rot · (first − first_ref) + origin`), when one rigid motion fits every entity.
fn placement(entities: &[OutEntity], first: &Copy, copy: &Copy, reference: DVec3) -> Option<(Rot, DVec3)> {
    let (a, b) = (origins(entities, first)?, origins(entities, copy)?);
    let (ca, cb) = (centre(&a), centre(&b));
    let da: Vec<DVec3> = a.iter().map(|p| *p - ca).collect();
    let db: Vec<DVec3> = b.iter().map(|p| *p - cb).collect();
    let rot = candidates(entities, first, copy, &da, &db)
        .into_iter()
        .find(|r| fits(entities, first, copy, r, &da, &db))?;
    Some((rot, cb - rot.apply(ca - reference)))
}

/// Rotations worth trying: from the origins' layout, from the first entity's angles,
/// none at all.
fn candidates(entities: &[OutEntity], first: &Copy, copy: &Copy, da: &[DVec3], db: &[DVec3]) -> Vec<Rot> {
    let mut out = Vec::new();
    if let Some((fa, [i, j])) = frame(da) {
        out.push(Rot::between(&fa, &orthonormal(db[i], db[j])));
    }
    let angles = |c: &Copy| vector(&entities[c.members[0]], "angles").map(Rot::from_angles);
    if let (Some(ra), Some(rb)) = (angles(first), angles(copy)) {
        out.push(Rot::between(&ra, &rb));
    }
    out.push(Rot::IDENTITY);
    out
}

/// Every origin and every entity's angles of the first copy land on the copy's.
fn fits(entities: &[OutEntity], first: &Copy, copy: &Copy, rot: &Rot, da: &[DVec3], db: &[DVec3]) -> bool {
    let points = da
        .iter()
        .zip(db)
        .all(|(a, b)| rot.apply(*a).distance(*b) < POINT_EPS);
    let turned = first.members.iter().zip(&copy.members).all(|(&i, &j)| {
        match (vector(&entities[i], "angles"), vector(&entities[j], "angles")) {
            (Some(a), Some(b)) => Rot::from_angles(a).then(rot).near(&Rot::from_angles(b)),
            (a, b) => a.is_none() && b.is_none(),
        }
    });
    points && turned
}

/// A found instance: its copies and where each stands.
struct Instance {
    copies: Vec<Copy>,
    places: Vec<(Rot, DVec3)>,
    reference: DVec3,
}

/// The copies (of one shape) that are one instance with `copies[0]`, by rigid motion.
fn instance_of(entities: &[OutEntity], copies: &[Copy]) -> Instance {
    let first = &copies[0];
    let reference = origins(entities, first).map_or(DVec3::ZERO, |o| centre(&o).round());
    let mut found = Instance {
        copies: Vec::new(),
        places: Vec::new(),
        reference,
    };
    for c in copies {
        if let Some(place) = placement(entities, first, c, reference) {
            found.copies.push(c.clone());
            found.places.push(place);
        }
    }
    found
}

/// The copies by shape (classes and keys in order), in order of first appearance.
fn by_shape(entities: &[OutEntity]) -> Vec<Vec<Copy>> {
    let mut index: HashMap<Vec<Vec<String>>, usize> = HashMap::new();
    let mut out: Vec<Vec<Copy>> = Vec::new();
    for c in copies(entities) {
        let n = *index.entry(shape(entities, &c)).or_insert(out.len());
        if n == out.len() {
            out.push(Vec::new());
        }
        out[n].push(c);
    }
    out
}

/// Every instance that repeats (two copies or more), each copy in one instance only.
fn instances(entities: &[OutEntity]) -> Vec<Instance> {
    by_shape(entities)
        .into_iter()
        .flat_map(|same| rigid_groups(entities, same))
        .collect()
}

/// Copies of one shape split into those one rigid motion relates.
fn rigid_groups(entities: &[OutEntity], mut left: Vec<Copy>) -> Vec<Instance> {
    let mut out = Vec::new();
    while !left.is_empty() {
        let found = instance_of(entities, &left);
        left.retain(|c| !found.copies.iter().any(|f| f.prefix == c.prefix));
        if found.copies.len() >= 2 {
            out.push(found);
        }
    }
    out
}

/// The `$parameter` standing for key `k` of member `m`, when its value differs between
/// copies (position, angles and class never do: they are placed, not replaced).
fn parameter(entities: &[OutEntity], inst: &Instance, m: usize, k: usize) -> Option<String> {
    let value = |c: &Copy| local_keys(&entities[c.members[m]], &c.prefix)[k].clone();
    let (key, first) = value(&inst.copies[0]);
    let placed = ["origin", "angles", "classname"]
        .iter()
        .any(|p| key.eq_ignore_ascii_case(p));
    let differs = inst.copies.iter().any(|c| value(c).1 != first);
    let name = match inst.copies.iter().all(|c| agrees(entities, c, &key)) {
        true => format!("${key}"),
        false => format!("$m{m}_{key}"),
    };
    (differs && !placed).then_some(name)
}

/// Every entity of the copy that has `key` gives it the same value (one parameter serves).
fn agrees(entities: &[OutEntity], c: &Copy, key: &str) -> bool {
    let values = c.members.iter().filter_map(|&i| entities[i].get(key));
    let mut values = values.peekable();
    let first = values.peek().copied();
    values.all(|v| Some(v) == first)
}

/// The instance file: the first copy's entities, moved to the reference point, with
/// `$parameters` where copies differ, and a `func_instance_parms` naming them.
fn instance_file(
    entities: &[OutEntity],
    inst: &Instance,
    path: String,
) -> (InstanceFile, Vec<Vec<(String, String)>>) {
    let first = &inst.copies[0];
    let mut params = Vec::new();
    let mut out = vec![OutEntity::new(1, "worldspawn")];
    for (m, &i) in first.members.iter().enumerate() {
        let mut e = OutEntity::new(out.len() as i64 + 2, "");
        e.keyvalues = local_keys(&entities[i], &first.prefix);
        for k in 0..e.keyvalues.len() {
            if let Some(p) = parameter(entities, inst, m, k) {
                if !params.iter().any(|(q, _, _)| *q == p) {
                    params.push((p.clone(), m, k));
                }
                e.keyvalues[k].1 = p;
            }
        }
        let origin = vector(&entities[i], "origin").unwrap_or(inst.reference) - inst.reference;
        e.set("origin", vec_value(origin));
        out.push(e);
    }
    out.push(parms_entity(&params));
    let values = copy_values(entities, inst, &params);
    let text = crate::write::document(1, &out[0], &out[1..]);
    (InstanceFile { path, text }, values)
}

/// Each copy's `replaceNN` values, in the order of `params`.
fn copy_values(
    entities: &[OutEntity],
    inst: &Instance,
    params: &[(String, usize, usize)],
) -> Vec<Vec<(String, String)>> {
    let one = |c: &Copy| {
        let value = |(p, m, k): &(String, usize, usize)| {
            (
                p.clone(),
                local_keys(&entities[c.members[*m]], &c.prefix)[*k].1.clone(),
            )
        };
        params.iter().map(value).collect()
    };
    inst.copies.iter().map(one).collect()
}

fn parms_entity(params: &[(String, usize, usize)]) -> OutEntity {
    let mut e = OutEntity::new(2, "func_instance_parms");
    e.set("origin", "0 0 0");
    for (n, (p, _, _)) in params.iter().enumerate() {
        e.set(&format!("parm{}", n + 1), format!("{p} string"));
    }
    e
}

fn vec_value(v: DVec3) -> String {
    let n = |x: f64| f32_value(if x.abs() < 1e-9 { 0.0 } else { x as f32 });
    format!("{} {} {}", n(v.x), n(v.y), n(v.z))
}

/// A `func_instance` placing one copy: named as the compiler named it, so the recompile
/// prefixes the same names.
fn func_instance(copy: &Copy, place: &(Rot, DVec3), path: &str, values: &[(String, String)]) -> OutEntity {
    let mut e = OutEntity::new(0, "func_instance");
    e.set("targetname", copy.prefix.clone());
    e.set("file", path);
    e.set("origin", vec_value(place.1));
    e.set("angles", vec_value(place.0.angles()));
    for (n, (p, v)) in values.iter().enumerate() {
        e.set(&format!("replace{:02}", n + 1), format!("{p} {v}"));
    }
    e
}

/// Replaces the repeated instances' entities by `func_instance`s (each where its copy's
/// first entity stood) and gives back the instance files, named `instances/{name}_N.vmf`.
pub(crate) fn collapse(entities: &mut Vec<OutEntity>, name: &str) -> Vec<InstanceFile> {
    let found = instances(entities);
    let mut files = Vec::new();
    let mut placed: Vec<Option<OutEntity>> = entities.iter().map(|_| None).collect();
    let mut gone = vec![false; entities.len()];
    for (n, inst) in found.iter().enumerate() {
        let path = format!("instances/{name}_{}.vmf", n + 1);
        let (file, values) = instance_file(entities, inst, path.clone());
        for ((copy, place), values) in inst.copies.iter().zip(&inst.places).zip(&values) {
            copy.members.iter().for_each(|&i| gone[i] = true);
            placed[copy.members[0]] = Some(func_instance(copy, place, &path, values));
        }
        files.push(file);
    }
    let next_id = entities.iter().map(|e| e.id).max().unwrap_or(0) + 1;
    let numbered = placed.iter_mut().flatten().enumerate();
    numbered.for_each(|(n, e)| e.id = next_id + n as i64);
    let kept = std::mem::take(entities).into_iter().zip(gone).zip(placed);
    *entities = kept
        .filter_map(|((e, gone), p)| p.or((!gone).then_some(e)))
        .collect();
    files
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(name: &str) -> OutEntity {
        let mut e = OutEntity::new(0, "info_target");
        e.set("targetname", name);
        e
    }

    #[test]
    fn copies_are_automatic_prefixes_and_named_ones_two_entities_share() {
        let names = [
            "InstanceAuto3-a",
            "hall-lamp",
            "door-1",
            "hall-relay",
            "AutoInstance4-a",
            "-x",
            "@global",
        ];
        let entities: Vec<OutEntity> = names.iter().map(|n| named(n)).collect();
        let found: Vec<(String, Vec<usize>)> = copies(&entities)
            .into_iter()
            .map(|c| (c.prefix, c.members))
            .collect();
        let want = [
            ("InstanceAuto3", vec![0]),
            ("hall", vec![1, 3]),
            ("AutoInstance4", vec![4]),
        ];
        assert_eq!(found, want.map(|(p, m)| (p.to_string(), m)));
    }

    #[test]
    fn angles_give_back_the_same_rotation() {
        for a in [
            [0.0, 0.0, 0.0],
            [30.0, 225.0, 0.0],
            [-45.0, 90.0, 135.0],
            [90.0, 30.0, 0.0],
        ] {
            let r = Rot::from_angles(DVec3::from_array(a));
            assert!(Rot::from_angles(r.angles()).near(&r), "{a:?} -> {}", r.angles());
        }
    }

    #[test]
    fn a_rotation_between_frames_carries_one_onto_the_other() {
        let (a, b) = (
            Rot::from_angles(DVec3::new(10.0, 20.0, 30.0)),
            Rot::from_angles(DVec3::new(0.0, 135.0, 0.0)),
        );
        let r = Rot::between(&a, &b);
        assert!(a.then(&r).near(&b));
    }
}
