//! `detail.vbsp`: the detail object types a material's `%detailtype` names, each a density and
//! groups (by the blend alpha of displacements) of sprites and models with their share of the
//! objects. Read as Valve's VBSP reads it (`detailobjects.cpp`): keys it does not know are
//! ignored, numbers are C's `atof`/`atoi` of the text, absent keys take Valve's defaults.

use crate::{ContentError, Result, kv::KvNode};

/// `DETAIL_PROP_TYPE_*` (`gamebspfile.h`): what a detail object draws.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DetailKind {
    Model = 0,
    Sprite = 1,
    ShapeCross = 2,
    ShapeTri = 3,
}

/// One sprite or model of a group.
#[derive(Debug, Clone, PartialEq)]
pub struct DetailModel {
    /// The model path for [`DetailKind::Model`], empty for sprites.
    pub model: String,
    pub kind: DetailKind,
    /// The running sum of the group's `amount`s up to this one (divided by the total when
    /// that exceeds 1): a uniform draw picks the first model whose value is not below it.
    pub cumulative_amount: f32,
    /// Cosines of `minAngle` and `maxAngle`: surfaces steeper than the max get none, between
    /// the two a falling share.
    pub min_cos_angle: f32,
    pub max_cos_angle: f32,
    /// `upright`: turned about z only, not tilted to the surface.
    pub upright: bool,
    pub orientation: u8,
    /// Sprite corners in world units (upper left, lower right).
    pub pos: [[f32; 2]; 2],
    /// Sprite texture coordinates (upper left, lower right).
    pub tex: [[f32; 2]; 2],
    pub random_scale_std_dev: f32,
    pub shape_size: u8,
    pub shape_angle: u8,
    pub sway_amount: u8,
}

/// Models sharing a range of displacement alpha.
#[derive(Debug, Clone, PartialEq)]
pub struct DetailGroup {
    pub alpha: f32,
    pub models: Vec<DetailModel>,
}

/// A detail type: objects per million square units and its groups by ascending alpha.
#[derive(Debug, Clone, PartialEq)]
pub struct DetailType {
    pub name: String,
    pub density: f32,
    pub groups: Vec<DetailGroup>,
}

/// A parsed `detail.vbsp`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DetailTypes {
    pub types: Vec<DetailType>,
}

impl DetailTypes {
    /// Parses the file's text; `path` names it in errors.
    pub fn parse(text: &[u8], path: &str) -> Result<DetailTypes> {
        let top = parse_closing_at_end(text, path)?;
        // Valve's KeyValues::LoadFromFile reads the first top-level block ("detail").
        let Some(root) = top.first() else {
            return Ok(DetailTypes::default());
        };
        let mut types = Vec::new();
        for ty in root.children().iter().filter(|n| is_block(n)) {
            let mut detail = DetailType {
                name: ty.key.clone(),
                density: float(ty, "density", 0.0),
                groups: Vec::new(),
            };
            for group in ty.children().iter().filter(|n| is_block(n)) {
                detail.groups.push(parse_group(group, path, &ty.key)?);
            }
            order_by_alpha(&mut detail.groups);
            types.push(detail);
        }
        Ok(DetailTypes { types })
    }

    /// The type named `name` (case-sensitive, as Valve's symbol table compares them).
    pub fn get(&self, name: &str) -> Option<&DetailType> {
        self.types.iter().find(|t| t.name == name)
    }
}

/// How many blocks left open at the end of the file are closed there, as Valve's KeyValues
/// reader does (it stops at the end and keeps what it read): shipped files have such slips.
const MAX_CLOSED_AT_END: usize = 8;

fn parse_closing_at_end(text: &[u8], path: &str) -> Result<Vec<KvNode>> {
    let first = match crate::kv::parse(text, path) {
        Ok(top) => return Ok(top),
        Err(e) => e,
    };
    if !matches!(&first, ContentError::Syntax { message, .. } if message.contains("never closed")) {
        return Err(first);
    }
    let mut closed = text.to_vec();
    for _ in 0..MAX_CLOSED_AT_END {
        closed.extend_from_slice(b"\n}");
        if let Ok(top) = crate::kv::parse(&closed, path) {
            return Ok(top);
        }
    }
    Err(first)
}

/// Valve inserts each group before the first whose alpha is not below its own: ascending
/// alpha, equal alphas in reverse file order. One stable sort of the reversed list gives that
/// order without the quadratic insertions (10⁵ groups of one alpha took 14 s).
fn order_by_alpha(groups: &mut [DetailGroup]) {
    groups.reverse();
    // +0.0 folds -0.0 into 0.0, which Valve's `>` treats as equal.
    groups.sort_by(|a, b| (a.alpha + 0.0).total_cmp(&(b.alpha + 0.0)));
}

fn is_block(n: &KvNode) -> bool {
    !n.children().is_empty()
}

fn parse_group(group: &KvNode, path: &str, type_name: &str) -> Result<DetailGroup> {
    let mut models = Vec::new();
    let mut total = 0.0f32;
    for m in group.children().iter().filter(|n| is_block(n)) {
        let mut model = parse_model(m, path, type_name)?;
        model.cumulative_amount = float(m, "amount", 1.0) + total;
        total = model.cumulative_amount;
        models.push(model);
    }
    if total > 1.0 {
        for m in &mut models {
            m.cumulative_amount /= total;
        }
    }
    Ok(DetailGroup {
        alpha: float(group, "alpha", 1.0),
        models,
    })
}

/// One model or sprite entry of a group, all but its cumulative amount.
fn parse_model(m: &KvNode, path: &str, type_name: &str) -> Result<DetailModel> {
    let mut model = DetailModel {
        model: String::new(),
        kind: DetailKind::Model,
        cumulative_amount: 0.0,
        min_cos_angle: 0.0,
        max_cos_angle: 0.0,
        upright: false,
        orientation: 0,
        pos: [[0.0; 2]; 2],
        tex: [[0.0; 2]; 2],
        random_scale_std_dev: 0.0,
        shape_size: 0,
        shape_angle: 0,
        sway_amount: 0,
    };
    if let Some(name) = m.get_text("model") {
        model.model = name.to_owned();
    } else if let Some(sprite) = m.get_text("sprite") {
        read_sprite(m, sprite, &mut model, path, type_name)?;
    }
    model.upright = int(m, "upright", 0) != 0;
    (model.min_cos_angle, model.max_cos_angle) = cos_angles(m);
    model.orientation = int(m, "detailOrientation", 0) as u8;
    Ok(model)
}

/// Cosines of an entry's `minAngle` and `maxAngle`, the min's no smaller than the max's.
fn cos_angles(m: &KvNode) -> (f32, f32) {
    let cos_deg = |deg: f32| (deg as f64 * std::f64::consts::PI / 180.0).cos() as f32;
    let min = cos_deg(float(m, "minAngle", 180.0));
    let max = cos_deg(float(m, "maxAngle", 180.0));
    (if min < max { max } else { min }, max)
}

/// A sprite entry's shape, texture rectangle, corners and sway.
fn read_sprite(m: &KvNode, sprite: &str, model: &mut DetailModel, path: &str, type_name: &str) -> Result<()> {
    model.kind = sprite_kind(m);
    let mut n = [0.0f32, 0.0, 64.0, 64.0, 512.0];
    let read = scan_floats(sprite, &mut n);
    let [x, y, w, h, size] = n;
    if read != 5 || size == 0.0 {
        return Err(ContentError::Syntax {
            path: path.to_owned(),
            line: 0,
            message: format!(
                "detail type {type_name}, entry {}: \"sprite\" needs five numbers \
                 (x y width height texture-size, size not 0), got \"{sprite}\"",
                m.key
            ),
        });
    }
    model.tex = [
        [(x + 0.5) / size, (y + 0.5) / size],
        [(x + w - 0.5) / size, (y + h - 0.5) / size],
    ];
    model.pos = sprite_corners(m, [x, y, w, h]);
    model.random_scale_std_dev = float(m, "spriterandomscale", 0.0);
    model.sway_amount = (255.0 * float(m, "sway", 0.0).clamp(0.0, 1.0)) as u8;
    model.shape_angle = int(m, "shape_angle", 0) as u8;
    model.shape_size = (255.0 * float(m, "shape_size", 0.0).clamp(0.0, 1.0)) as u8;
    Ok(())
}

/// A sprite entry's `sprite_shape`.
fn sprite_kind(m: &KvNode) -> DetailKind {
    match m.get_text("sprite_shape") {
        Some(s) if s.eq_ignore_ascii_case("cross") => DetailKind::ShapeCross,
        Some(s) if s.eq_ignore_ascii_case("tri") => DetailKind::ShapeTri,
        _ => DetailKind::Sprite,
    }
}

/// A sprite's corners: from `spritesize` (whose missing numbers keep the `sprite` ones, as
/// sscanf leaves them), else Valve's default.
fn sprite_corners(m: &KvNode, sprite: [f32; 4]) -> [[f32; 2]; 2] {
    let Some(size_text) = m.get_text("spritesize") else {
        return [[-10.0, 20.0], [10.0, 0.0]];
    };
    let mut s = sprite;
    scan_floats(size_text, &mut s);
    let [sx, sy, sw, sh] = s;
    let (ox, oy) = (sw * sx, sh * sy);
    [[-ox, sh - oy], [sw - ox, -oy]]
}

fn float(n: &KvNode, key: &str, default: f32) -> f32 {
    n.get_text(key).map_or(default, |t| atof(t) as f32)
}

fn int(n: &KvNode, key: &str, default: i32) -> i32 {
    n.get_text(key).map_or(default, atoi)
}

/// C's `atof`: the longest leading decimal number after blanks, 0 when there is none.
pub fn atof(text: &str) -> f64 {
    let t = text.trim_start();
    let b = t.as_bytes();
    let mut end = 0;
    if end < b.len() && (b[end] == b'+' || b[end] == b'-') {
        end += 1;
    }
    let digits = |from: usize| from + b[from..].iter().take_while(|c| c.is_ascii_digit()).count();
    end = digits(end);
    if end < b.len() && b[end] == b'.' {
        end = digits(end + 1);
    }
    if end < b.len() && (b[end] == b'e' || b[end] == b'E') {
        let mut e = end + 1;
        if e < b.len() && (b[e] == b'+' || b[e] == b'-') {
            e += 1;
        }
        let after = digits(e);
        if after > e {
            end = after;
        }
    }
    t[..end].parse().unwrap_or(0.0)
}

/// C's `atoi`: the leading integer after blanks, 0 when there is none (saturating).
pub fn atoi(text: &str) -> i32 {
    let t = text.trim_start();
    let sign_len = usize::from(t.starts_with(['+', '-']));
    let len = sign_len + t[sign_len..].bytes().take_while(u8::is_ascii_digit).count();
    let value: i64 = t[..len].parse().unwrap_or(0);
    value.clamp(i32::MIN as i64, i32::MAX as i64) as i32
}

/// `sscanf("%f %f ...")`: reads whitespace-separated numbers into `out` until one fails;
/// returns how many were read.
fn scan_floats(text: &str, out: &mut [f32]) -> usize {
    let mut words = text.split_ascii_whitespace();
    for (i, slot) in out.iter_mut().enumerate() {
        match words
            .next()
            .filter(|w| atof(w) != 0.0 || w.starts_with(['0', '.', '+', '-']))
        {
            Some(w) => *slot = atof(w) as f32,
            None => return i,
        }
    }
    out.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIXTURE: &str = r#""detail"
{
    "grass"
    {
        "density" "2000.0"
        "Group2"
        {
            "alpha" "1"
            "tuft" { "sprite" "0 0 64 64 512" "spritesize" "0.5 0 16 32" "amount" "0.5" "sway" "2" }
            "rock" { "model" "models/rock.mdl" "amount" "1.0" "upright" "1" "maxAngle" "60" "minAngle" "30" }
        }
        "Group1"
        {
            "alpha" "0"
            "cross" { "sprite" "64 0 64 64 512" "sprite_shape" "cross" "shape_angle" "15.5" }
        }
    }
    "empty" { "density" "100" }
}
"#;

    /// Valve's insertion, one group at a time, as the reference for [`order_by_alpha`].
    fn inserted_as_valve(groups: &[DetailGroup]) -> Vec<DetailGroup> {
        let mut out: Vec<DetailGroup> = Vec::new();
        for g in groups {
            let at = out.iter().rposition(|o| g.alpha > o.alpha).map_or(0, |i| i + 1);
            out.insert(at, g.clone());
        }
        out
    }

    #[test]
    fn group_order_equals_valves_insertion_ties_included() {
        let alphas = [0.5, 0.0, 0.5, -0.0, 1.0, 0.5, 0.0, 0.25, 1.0, 0.5];
        // Each group is told apart by its model count.
        let d = DetailTypes::parse(FIXTURE.as_bytes(), "detail.vbsp").unwrap();
        let model = d.get("grass").unwrap().groups[1].models[0].clone();
        let groups: Vec<DetailGroup> = (alphas.iter().enumerate())
            .map(|(i, &alpha)| DetailGroup {
                alpha,
                models: vec![model.clone(); i],
            })
            .collect();
        let mut sorted = groups.clone();
        super::order_by_alpha(&mut sorted);
        assert_eq!(sorted, inserted_as_valve(&groups));
    }

    #[test]
    fn reads_types_groups_and_models_as_valve() {
        let d = DetailTypes::parse(FIXTURE.as_bytes(), "detail.vbsp").unwrap();
        assert_eq!(d.types.len(), 2);
        let grass = d.get("grass").unwrap();
        assert_eq!(grass.density, 2000.0);
        // Sorted by alpha: Group1 (0) first.
        assert_eq!(
            grass.groups.iter().map(|g| g.alpha).collect::<Vec<_>>(),
            [0.0, 1.0]
        );
        let g = &grass.groups[1];
        assert_eq!(g.models.len(), 2);
        // Amounts 0.5 + 1.0 = 1.5 > 1: normalised running sums.
        assert!((g.models[0].cumulative_amount - 1.0 / 3.0).abs() < 1e-6);
        assert!((g.models[1].cumulative_amount - 1.0).abs() < 1e-6);
        let tuft = &g.models[0];
        assert_eq!(tuft.kind, DetailKind::Sprite);
        assert_eq!(
            tuft.tex,
            [[0.5 / 512.0, 0.5 / 512.0], [63.5 / 512.0, 63.5 / 512.0]]
        );
        assert_eq!(tuft.pos, [[-8.0, 32.0], [8.0, 0.0]]);
        assert_eq!(tuft.sway_amount, 255);
        assert_eq!(tuft.min_cos_angle, -1.0);
        let rock = &g.models[1];
        assert_eq!(rock.kind, DetailKind::Model);
        assert_eq!(rock.model, "models/rock.mdl");
        assert!(rock.upright);
        assert!((rock.min_cos_angle - 30f32.to_radians().cos()).abs() < 1e-6);
        assert!((rock.max_cos_angle - 0.5).abs() < 1e-6);
        let cross = &grass.groups[0].models[0];
        assert_eq!(cross.kind, DetailKind::ShapeCross);
        assert_eq!(cross.shape_angle, 15);
        assert!(d.get("empty").unwrap().groups.is_empty());
    }

    #[test]
    fn bad_sprite_is_an_error_naming_the_entry() {
        let text = r#""detail" { "t" { "g" { "s" { "sprite" "1 2 3" } } } }"#;
        let e = DetailTypes::parse(text.as_bytes(), "x.vbsp")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("x.vbsp") && e.contains("detail type t, entry s"),
            "{e}"
        );
    }

    #[test]
    fn blocks_open_at_the_end_are_closed_there() {
        let text = r#""detail" { "t" { "density" "5" "g" { "a" { "model" "m.mdl" } "b" { "model" "n.mdl" }"#;
        let d = DetailTypes::parse(text.as_bytes(), "x.vbsp").unwrap();
        assert_eq!(d.get("t").unwrap().groups[0].models.len(), 2);
        assert!(DetailTypes::parse(b"\"detail\" { } }", "x.vbsp").is_err());
    }

    #[test]
    fn c_number_parsing() {
        assert_eq!(atof(" 1.5e2xyz"), 150.0);
        assert_eq!(atof("abc"), 0.0);
        assert_eq!(atof("-.5"), -0.5);
        assert_eq!(atoi("15.5"), 15);
        assert_eq!(atoi("-3x"), -3);
    }
}
