//! The decompile as the list of its steps: entities from the lump, brushes to their owners,
//! the world's brushes split back into detail, area portals, ladders and occluders,
//! displacements, then the entities the compiler folded into lumps.

use std::collections::HashMap;

use srcmap_bsp::Bsp;
use srcmap_bsp::flags::{
    CONTENTS_AREAPORTAL, CONTENTS_DETAIL, CONTENTS_GRATE, CONTENTS_LADDER, CONTENTS_MONSTERCLIP,
    CONTENTS_PLAYERCLIP, CONTENTS_SOLID, CONTENTS_WINDOW,
};
use srcmap_geom::{DVec3, Plane};

use crate::Report;
use crate::brushes::Placement;
use crate::context::Ctx;
use crate::detail::touching_groups;
use crate::entities::{self, LumpEntity, Role};
use crate::models::brush_owners;
use crate::types::{OutEntity, OutSolid, dvec};

const CLIP: u32 = CONTENTS_PLAYERCLIP | CONTENTS_MONSTERCLIP;

/// The map, ready to write.
pub(crate) struct Map {
    pub revision: i32,
    pub world: OutEntity,
    pub entities: Vec<OutEntity>,
    pub notes: Vec<String>,
    pub counts: Counts,
}

/// How many of each special thing went in (for the report).
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Counts {
    pub static_props: usize,
    pub overlays: usize,
    pub cubemaps: usize,
}

/// The world's brushes by what they turn back into.
#[derive(Default)]
struct WorldBrushes {
    plain: Vec<OutSolid>,
    detail: Vec<OutSolid>,
    areaportal: Vec<OutSolid>,
    ladder: Vec<OutSolid>,
    occluder: Vec<OutSolid>,
}

impl WorldBrushes {
    /// Where a world brush of `contents` goes, and the class whose tools its sides had.
    fn list_for(&mut self, contents: u32) -> (&mut Vec<OutSolid>, &'static str) {
        match () {
            _ if contents & CONTENTS_AREAPORTAL != 0 => (&mut self.areaportal, "func_areaportal"),
            _ if from_func_detail(contents) => (&mut self.detail, "func_detail"),
            _ if contents & CONTENTS_LADDER != 0 => (&mut self.ladder, "func_ladder"),
            _ => (&mut self.plain, "worldspawn"),
        }
    }
}

/// Detail contents a func_detail gave: clip and block-light brushes (solid-less opaque) are
/// detail by their materials alone.
fn from_func_detail(contents: u32) -> bool {
    let body = CONTENTS_SOLID | CONTENTS_WINDOW | CONTENTS_GRATE;
    contents & CONTENTS_DETAIL != 0 && contents & CLIP == 0 && contents & body != 0
}

pub(crate) fn build(bsp: &Bsp) -> Map {
    let mut ctx = Ctx::new(bsp, entities::hammer_ids(bsp));
    let mut lump = ctx.lump_entities();
    let world_brushes = ctx.place_brushes(&mut lump);
    let mut extra = ctx.sort_world_brushes(&mut lump, world_brushes);
    lump[0].out.solids.extend(ctx.displacement_solids());
    let names = overlay_names(&lump);
    let props = ctx.static_props();
    let overlays = ctx.overlays(&names);
    let cubemaps = ctx.cubemaps();
    let visclusters = ctx.visclusters(sky_camera(&lump));
    let counts = Counts {
        static_props: props.len(),
        overlays: overlays.len(),
        cubemaps: cubemaps.len(),
    };
    let mut lump = lump
        .into_iter()
        .filter(|e| !matches!(e.role, Role::OverlayName(_)));
    let world = lump.next().map(|e| e.out).unwrap_or_default();
    let mut entities: Vec<OutEntity> = lump.map(|e| e.out).collect();
    entities.append(&mut extra);
    entities.extend(props.into_iter().chain(overlays).chain(cubemaps));
    entities.extend(visclusters);
    Map {
        revision: bsp.revision,
        world,
        entities,
        notes: ctx.notes,
        counts,
    }
}

/// The targetname of each named overlay, by overlay index.
fn overlay_names(lump: &[LumpEntity]) -> HashMap<usize, String> {
    let named = lump.iter().filter_map(|e| match e.role {
        Role::OverlayName(i) => Some((i, e.out.get("targetname")?.to_string())),
        _ => None,
    });
    named.collect()
}

/// Where the 3D skybox's camera stands (its leaves share a cluster without a viscluster).
fn sky_camera(lump: &[LumpEntity]) -> Option<DVec3> {
    let camera = lump.iter().find(|e| e.out.classname() == "sky_camera")?;
    camera.out.get("origin").is_some().then(|| origin_of(&camera.out))
}

/// A brush entity's origin: its model was built around it.
fn origin_of(e: &OutEntity) -> DVec3 {
    e.get("origin")
        .and_then(srcmap_kv::values::vector)
        .map_or(DVec3::ZERO, DVec3::from_array)
}

impl Ctx<'_> {
    /// Each brush to the entity whose model holds it; the world's are returned by kind.
    fn place_brushes(&mut self, lump: &mut [LumpEntity]) -> WorldBrushes {
        let owners = brush_owners(self.bsp);
        let by_model: HashMap<usize, usize> = (lump.iter().enumerate())
            .filter_map(|(i, e)| Some((e.model?, i)))
            .collect();
        let mut world = WorldBrushes::default();
        for (brush, owner) in owners.into_iter().enumerate() {
            match owner.map(|m| (m, by_model.get(&m).copied().filter(|_| m != 0))) {
                Some((_, Some(e))) => self.entity_brush(&mut lump[e], brush),
                Some((0, None)) => self.world_brush(&mut world, brush),
                Some((m, None)) => self
                    .notes
                    .push(format!("brush {brush}: model *{m} has no entity; left out")),
                None => self.unowned_brush(&mut world, brush),
            }
        }
        world
    }

    fn placement<'c>(&self, model: usize, offset: DVec3, class: &'c str) -> Placement<'c> {
        Placement { model, offset, class }
    }

    fn entity_brush(&mut self, e: &mut LumpEntity, brush: usize) {
        let class = e.out.classname().to_string();
        let at = self.placement(e.model.unwrap_or(0), origin_of(&e.out), &class);
        e.out.solids.extend(self.solid(brush, at));
    }

    /// A world brush, filed by its contents.
    fn world_brush(&mut self, world: &mut WorldBrushes, brush: usize) {
        let contents = self.bsp.brushes[brush].contents as u32;
        let (list, class) = world.list_for(contents);
        list.extend(self.solid(brush, self.placement(0, DVec3::ZERO, class)));
    }

    /// The world keeps its plain brushes; detail, portals, ladders and occluders go to their
    /// entities (new ones where the lump has none). Returns the new entities.
    fn sort_world_brushes(&mut self, lump: &mut [LumpEntity], w: WorldBrushes) -> Vec<OutEntity> {
        let mut extra = Vec::new();
        lump[0].out.solids.extend(w.plain);
        for group in touching_groups(w.detail) {
            let mut e = OutEntity::new(self.ids.next(), "func_detail");
            e.solids = group;
            extra.push(e);
        }
        match lump.iter_mut().find(|e| e.role == Role::Ladder) {
            Some(ladder) => ladder.out.solids.extend(w.ladder),
            None => lump[0].out.solids.extend(w.ladder),
        }
        for s in w.areaportal {
            let key = self.portal_key(&s);
            self.give(
                lump,
                &mut extra,
                s,
                |r| key.is_some_and(|k| r == Role::AreaPortal(k)),
                "func_areaportal",
            );
        }
        for s in w.occluder {
            let number = self.occluder_number(&s);
            self.give(
                lump,
                &mut extra,
                s,
                |r| number.is_some_and(|n| r == Role::Occluder(n)),
                "func_occluder",
            );
        }
        extra
    }

    /// Gives `solid` to the lump entity `wanted` picks, else to a new entity of `class`.
    fn give(
        &mut self,
        lump: &mut [LumpEntity],
        extra: &mut Vec<OutEntity>,
        solid: OutSolid,
        wanted: impl Fn(Role) -> bool,
        class: &str,
    ) {
        match lump.iter_mut().find(|e| wanted(e.role)) {
            Some(e) => e.out.solids.push(solid),
            None => {
                let mut e = OutEntity::new(self.ids.next(), class);
                e.solids.push(solid);
                extra.push(e);
            }
        }
    }

    /// The portal key of the area portal whose polygon lies in the brush.
    fn portal_key(&self, s: &OutSolid) -> Option<u32> {
        let inside = |p: DVec3| (0..3).all(|i| p[i] >= s.mins[i] - 1.0 && p[i] <= s.maxs[i] + 1.0);
        let portal = self.bsp.area_portals.iter().find(|p| {
            let first = p.first_clip_portal_vert as usize;
            let verts = self
                .bsp
                .clip_portal_verts
                .get(first..first.saturating_add(p.num_clip_portal_verts as usize));
            verts.is_some_and(|v| !v.is_empty() && v.iter().all(|v| inside(dvec(*v))))
        });
        portal.map(|p| p.portal_key)
    }

    /// A brush no model holds: an occluder's when an occluder's box meets it, else the
    /// world's (buried in solid, no leaf lists it).
    fn unowned_brush(&mut self, world: &mut WorldBrushes, brush: usize) {
        let at = self.placement(0, DVec3::ZERO, "func_occluder");
        let Some(solid) = self.solid(brush, at) else {
            return;
        };
        if let Some(n) = self.occluder_number(&solid) {
            let mut solid = solid;
            self.occluder_sides(&mut solid, n);
            world.occluder.push(solid);
        } else {
            world
                .list_for(self.bsp.brushes[brush].contents as u32)
                .0
                .push(solid);
        }
    }

    /// The sides of occluder `n`'s brush its polygons lie on are `toolsoccluder` again: vbsp
    /// keeps no face of them, so their texinfo went to a stand-in (testmap: the area portal's).
    fn occluder_sides(&self, solid: &mut OutSolid, n: u32) {
        let Some(occlusion) = self.bsp.occlusion.as_ref() else {
            return;
        };
        let Some(o) = occlusion.occluders.get(n as usize) else {
            return;
        };
        let first = usize::try_from(o.first_poly).unwrap_or(usize::MAX);
        let count = usize::try_from(o.poly_count).unwrap_or(0);
        let polys = occlusion.polys.iter().skip(first).take(count);
        let planes: Vec<Plane> = (polys.filter_map(|p| self.bsp.planes.get(p.plane as usize)))
            .map(|p| Plane::new(dvec(p.normal), p.dist as f64))
            .collect();
        for side in &mut solid.sides {
            let [a, b, c] = side.points.map(DVec3::from_array);
            let on_poly = Plane::from_points(a, b, c).is_some_and(|p| {
                planes
                    .iter()
                    .any(|q| q.approx_eq(&p, 1e-4, 0.01) || q.approx_eq(&p.flipped(), 1e-4, 0.01))
            });
            if on_poly {
                side.material = "tools/toolsoccluder".to_string();
            }
        }
    }

    /// The number of the occluder whose box meets the brush's.
    fn occluder_number(&self, s: &OutSolid) -> Option<u32> {
        let occlusion = self.bsp.occlusion.as_ref()?;
        let meets =
            |lo: DVec3, hi: DVec3| (0..3).all(|i| lo[i] <= s.maxs[i] + 1.0 && s.mins[i] <= hi[i] + 1.0);
        let n = occlusion
            .occluders
            .iter()
            .position(|o| meets(dvec(o.mins), dvec(o.maxs)))?;
        u32::try_from(n).ok()
    }
}

impl Map {
    pub fn report(&self) -> Report {
        let all = || std::iter::once(&self.world).chain(&self.entities);
        let solids = || all().flat_map(|e| &e.solids);
        Report {
            solids: solids().count(),
            sides: solids().map(|s| s.sides.len()).sum(),
            entities: self.entities.len(),
            displacements: solids()
                .flat_map(|s| &s.sides)
                .filter(|s| s.disp.is_some())
                .count(),
            static_props: self.counts.static_props,
            overlays: self.counts.overlays,
            cubemaps: self.counts.cubemaps,
            notes: self.notes.clone(),
        }
    }
}
