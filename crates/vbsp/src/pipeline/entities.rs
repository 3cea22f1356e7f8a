//! Entities: which are kept in the entity lump (renamed, numbered), who owns their
//! brushes, and the brush models' numbers.

use super::Compile;
use crate::contents::*;
use crate::diag::{Diagnostic, VbspError, Where};
use crate::ids::EntityId;
use crate::input::MapEntity;
use crate::light_styles;
use crate::overlay::{self, MapOverlay};
use crate::types::{Ent, set_kv};

/// Entities removed from the entity lump (their data goes elsewhere or nowhere).
const INTERNAL_CLASSES: &[&str] = &[
    "func_detail",
    "func_viscluster",
    "info_overlay",
    "info_overlay_transition",
    "env_cubemap",
    "prop_static",
    "static_prop",
    "info_lighting",
    "prop_detail",
    "detail_prop",
    "prop_detail_sprite",
    "func_instance",
    "func_instance_parms",
    "func_instance_origin",
    "info_no_dynamic_shadow",
];

/// Who an input entity's brushes go to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Owner {
    /// The world model (worldspawn, func_detail, areaportals, ladders, visclusters).
    World,
    /// The entity's own model.
    Own(EntityId),
    /// Nowhere: the brushes are not built.
    Dropped,
}

/// What preprocessing decided for one input entity.
pub(super) struct EntityPlan {
    /// Lower-case classname.
    pub(super) class: String,
    pub(super) owner: Owner,
    /// Contents added to every side (detail for func_detail).
    pub(super) base_contents: u32,
    /// A `func_areaportal*`'s portal number.
    pub(super) areaportal: Option<u32>,
    /// A `func_occluder`'s number.
    pub(super) occluder: Option<usize>,
    /// Named by a `func_areaportalwindow`: its brushes become windows.
    pub(super) window: bool,
}

impl<'a> Compile<'a> {
    /// Decides each entity's fate: kept in the entity lump (renamed, numbered) or not, and
    /// who owns its brushes.
    pub fn prepare_entities(&mut self) {
        let mut areaportals = 0;
        let input = self.input;
        for (ei, e) in input.entities.iter().enumerate() {
            let class = e.classname.to_ascii_lowercase();
            let (owner, base_contents, keep) = self.entity_fate(ei, e, &class);
            let mut kv = e.keyvalues.clone();
            kv.extend(e.outputs.iter().cloned());
            let areaportal = class.starts_with("func_areaportal").then(|| {
                areaportals += 1;
                set_kv(&mut kv, "portalnumber", areaportals.to_string());
                areaportals
            });
            let occluder = (class == "func_occluder").then(|| self.number_occluder(ei, &mut kv));
            self.rename_for_lump(&class, keep, &mut kv);
            if keep {
                self.ents.push(Ent {
                    vmf_id: e.id,
                    keyvalues: kv,
                    brushes: Vec::new(),
                    model: None,
                });
            }
            self.plans.push(EntityPlan {
                class,
                owner,
                base_contents,
                areaportal,
                occluder,
                window: false,
            });
        }
        self.overlays_by_side = overlay::overlays_by_side(&self.overlays);
        self.occluder_brushes = vec![Vec::new(); self.occluder_entities.len()];
        self.mark_areaportal_windows();
    }

    /// Who gets the entity's brushes, the contents added to them, and whether it is kept
    /// in the lump. An entity with its own model is always kept: it will be the next in
    /// the lump. An `info_overlay` is read here.
    fn entity_fate(&mut self, ei: usize, e: &MapEntity, class: &str) -> (Owner, u32, bool) {
        match class {
            _ if ei == 0 => (Owner::World, 0, true),
            "func_detail" if self.opts.no_detail => (Owner::Dropped, 0, false),
            "func_detail" if self.opts.full_detail => (Owner::World, 0, false),
            "func_detail" => (Owner::World, CONTENTS_DETAIL, false),
            c if c.starts_with("func_areaportal") => (Owner::World, 0, true),
            "func_ladder" => (Owner::World, 0, true),
            // Its brushes only merge clusters; they are built, then set aside.
            "func_viscluster" => (Owner::World, 0, false),
            "info_overlay" => {
                self.overlays.push(MapOverlay::from_entity(e, &mut self.diags));
                let named = e.get("targetname").is_some_and(|t| !t.is_empty());
                (Owner::Dropped, 0, named)
            }
            c if INTERNAL_CLASSES.contains(&c) => (Owner::Dropped, 0, false),
            _ => (Owner::Own(EntityId(self.ents.len() as u32)), 0, true),
        }
    }

    /// The next occluder number, in the entity's keys; the entity is remembered (by input
    /// index and lump index).
    fn number_occluder(&mut self, ei: usize, kv: &mut Vec<(String, String)>) -> usize {
        let number = self.occluder_entities.len();
        set_kv(kv, "occludernumber", number.to_string());
        self.occluder_entities.push(ei);
        self.occluder_ents.push(self.ents.len());
        number
    }

    /// Classes the engine knows by another name: a `func_ladder` is an `info_ladder`, a
    /// named `info_overlay` an `info_overlay_accessor` with its overlay's id.
    fn rename_for_lump(&self, class: &str, keep: bool, kv: &mut Vec<(String, String)>) {
        if class == "func_ladder" {
            set_kv(kv, "classname", "info_ladder".to_string());
        }
        if class == "info_overlay" && keep {
            set_kv(kv, "classname", "info_overlay_accessor".to_string());
            set_kv(kv, "OverlayID", (self.overlays.len() - 1).to_string());
        }
    }

    /// Valve's ForceFuncAreaPortalWindowContents: the brush entities a
    /// func_areaportalwindow names (`target`, `BackgroundBModel`) fade or stand behind
    /// it, so their brushes are windows rather than solid.
    fn mark_areaportal_windows(&mut self) {
        let entities = &self.input.entities;
        for (wi, w) in entities.iter().enumerate() {
            if self.plans[wi].class != "func_areaportalwindow" {
                continue;
            }
            for key in ["target", "BackgroundBModel"] {
                self.mark_window(w, key);
            }
        }
    }

    /// The entity a func_areaportalwindow's `key` names becomes a window; a name missing
    /// (the fade brush only) or naming nothing is reported.
    fn mark_window(&mut self, w: &MapEntity, key: &str) {
        let entities = &self.input.entities;
        let name = w.get(key).unwrap_or("");
        let at = Where {
            entity_id: Some(w.id),
            classname: Some(w.classname.clone()),
            ..Default::default()
        };
        if name.is_empty() {
            if key == "target" {
                self.diags.push(Diagnostic::warning(
                    at,
                    "func_areaportalwindow names no fade brush (target)",
                ));
            }
            return;
        }
        let named = entities
            .iter()
            .position(|e| e.get("targetname").is_some_and(|t| t.eq_ignore_ascii_case(name)));
        match named {
            Some(i) => self.plans[i].window = true,
            None => self.diags.push(Diagnostic::warning(
                at,
                format!("func_areaportalwindow's {key} \"{name}\" names no entity"),
            )),
        }
    }

    /// Model numbers: the world is *0, then each kept entity with brushes in order.
    pub fn number_models(&mut self) {
        let mut next_model = 1;
        for e in self.ents.iter_mut().skip(1) {
            if !e.brushes.is_empty() {
                e.model = Some(next_model);
                set_kv(&mut e.keyvalues, "model", format!("*{next_model}"));
                next_model += 1;
            }
        }
        self.ents[0].model = Some(0);
        // Valve gives an occluder with brushes an empty model key, set before (in our key
        // order: ahead of) its occluder number.
        for (brushes, &ent) in self.occluder_brushes.iter().zip(&self.occluder_ents) {
            let kv = &mut self.ents[ent].keyvalues;
            if !brushes.is_empty() && !kv.iter().any(|(k, _)| k.eq_ignore_ascii_case("model")) {
                let at = kv
                    .iter()
                    .position(|(k, _)| k == "occludernumber")
                    .unwrap_or(kv.len());
                kv.insert(at, ("model".to_string(), String::new()));
            }
        }
    }
}

impl Compile<'_> {
    /// Valve's SetLightStyles: each named light its switchable style, one per distinct name
    /// (see [`crate::light_styles`]).
    pub fn set_light_styles(&mut self) -> Result<(), VbspError> {
        let kvs = self.ents.iter_mut().map(|e| &mut e.keyvalues);
        match light_styles::assign(kvs) {
            Ok(_) => Ok(()),
            Err(e) => Err(VbspError::TooManySwitchedLights {
                entity_id: self.ents[e.entity].vmf_id,
                name: e.name,
                max: light_styles::MAX_SWITCHED_LIGHTS,
            }),
        }
    }

    /// Lights share a style exactly when they share a name, handed out from 32 in order.
    pub fn verify_light_styles(&mut self) -> Result<(), VbspError> {
        self.checkpoint(
            "light styles",
            |c| light_styles::verify(c.ents.iter().map(|e| e.keyvalues.as_slice())),
            |c| light_styles::dump(c.ents.iter().map(|e| e.keyvalues.as_slice())),
        )
    }
}
