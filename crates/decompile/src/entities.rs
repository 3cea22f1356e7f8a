//! The entity lump back as map entities: the compiler's own keys taken out (`model "*N"`
//! becomes the entity's solids, `hammerid` its id, area portal and occluder numbers, the
//! world's bounds, the styles given to named lights) and the classes it renamed named back.

use std::collections::HashSet;

use srcmap_bsp::Bsp;

use crate::context::Ctx;
use crate::types::OutEntity;

/// The first switchable light style the compiler hands out to named lights.
const FIRST_SWITCHABLE_STYLE: i64 = 32;

/// What an entity of the lump stands for beside its keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    World,
    Plain,
    /// A `func_areaportal(window)`: its portal number.
    AreaPortal(u32),
    /// A `func_occluder`: its occluder number.
    Occluder(u32),
    /// An `info_ladder`, a `func_ladder` in the map.
    Ladder,
    /// A named overlay's stand-in: the overlay's index.
    OverlayName(usize),
}

/// An entity of the lump, cleaned, with the brush model it owned.
#[derive(Debug, Clone)]
pub(crate) struct LumpEntity {
    pub out: OutEntity,
    pub model: Option<usize>,
    pub role: Role,
}

/// The `hammerid`s the entities keep as their VMF ids (the first of each).
pub(crate) fn hammer_ids(bsp: &Bsp) -> Vec<i64> {
    let mut seen = HashSet::new();
    let ids = bsp
        .entities
        .iter()
        .filter_map(|e| e.get("hammerid")?.trim().parse::<i64>().ok());
    ids.filter(|&id| id > 0 && seen.insert(id)).collect()
}

impl Ctx<'_> {
    /// Every entity of the lump, cleaned; the first is the world.
    pub fn lump_entities(&mut self) -> Vec<LumpEntity> {
        let mut used = HashSet::new();
        let mut out: Vec<LumpEntity> = Vec::new();
        for (i, e) in self.bsp.entities.iter().enumerate() {
            if i > 0 && compiler_added(e) {
                continue;
            }
            let mut ent = OutEntity {
                id: 0,
                keyvalues: e.pairs.clone(),
                solids: Vec::new(),
            };
            ent.id = self.entity_id(&mut ent, &mut used);
            let model = take_model(&mut ent);
            let role = if i == 0 {
                world_role(&mut ent)
            } else {
                role(&mut ent)
            };
            restore_light_style(&mut ent);
            out.push(LumpEntity {
                out: ent,
                model,
                role,
            });
        }
        if out.is_empty() {
            let id = self.ids.next();
            out.push(LumpEntity {
                out: OutEntity::new(id, "worldspawn"),
                model: Some(0),
                role: Role::World,
            });
        }
        out
    }

    /// The entity's `hammerid` (taken out) when no other entity had it first, else a new id.
    fn entity_id(&mut self, ent: &mut OutEntity, used: &mut HashSet<i64>) -> i64 {
        match ent.take("hammerid").and_then(|v| v.trim().parse::<i64>().ok()) {
            Some(id) if id > 0 && used.insert(id) => id,
            _ => self.ids.next(),
        }
    }
}

/// The `water_lod_control` the compiler adds to a map with water and none: no `hammerid` (a
/// mapper's has one). A recompile adds it again.
fn compiler_added(e: &srcmap_bsp::Entity) -> bool {
    e.get("hammerid").is_none()
        && e.classname()
            .is_some_and(|c| c.eq_ignore_ascii_case("water_lod_control"))
}

/// `model "*N"` taken out as model N (a studio model name stays).
fn take_model(ent: &mut OutEntity) -> Option<usize> {
    let n = ent.get("model")?.strip_prefix('*')?.parse().ok()?;
    ent.take("model");
    Some(n)
}

/// The world: its brushes are model 0; the bounds the compiler added go.
fn world_role(ent: &mut OutEntity) -> Role {
    ent.take("world_mins");
    ent.take("world_maxs");
    ent.set("classname", "worldspawn");
    Role::World
}

/// The role a lump entity plays, its numbering keys taken out.
fn role(ent: &mut OutEntity) -> Role {
    let class = ent.classname().to_ascii_lowercase();
    let number = |ent: &mut OutEntity, key: &str| ent.take(key).and_then(|v| v.trim().parse::<u32>().ok());
    match class.as_str() {
        c if c.starts_with("func_areaportal") => {
            number(ent, "portalnumber").map_or(Role::Plain, Role::AreaPortal)
        }
        "func_occluder" => number(ent, "occludernumber").map_or(Role::Plain, Role::Occluder),
        "info_ladder" => {
            ent.set("classname", "func_ladder");
            Role::Ladder
        }
        "info_overlay_accessor" => {
            number(ent, "OverlayID").map_or(Role::Plain, |n| Role::OverlayName(n as usize))
        }
        _ => Role::Plain,
    }
}

/// A named light's style is the compiler's (32 and up); the mapper's own, if any, was kept in
/// `defaultstyle`.
fn restore_light_style(ent: &mut OutEntity) {
    let named = ent.get("targetname").is_some_and(|t| !t.is_empty());
    let style = ent.get("style").and_then(|s| s.trim().parse::<i64>().ok());
    if !named || !ent.classname().to_ascii_lowercase().starts_with("light") {
        return;
    }
    if style.is_some_and(|s| s >= FIRST_SWITCHABLE_STYLE) {
        match ent.take("defaultstyle") {
            Some(old) => ent.set("style", old),
            None => {
                ent.take("style");
            }
        }
    }
}
