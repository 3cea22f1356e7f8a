//! Material facts from the game's files or a material table (`srcmap_materials::Resolver`),
//! applied before lighting when `--game DIR` or `--materials TABLE` is given. Without them the
//! BSP's own records are the truth (texdata reflectivity, texinfo `SURF_BUMPLIGHT`, brush
//! contents), as they are for VRAD.
//!
//! Only facts that came from the game or a table are applied (never the built-in guesses or
//! the default for unknown materials):
//! * **reflectivity** → the texdata record (what bounced light picks up);
//! * **`$bumpmap`** → `SURF_BUMPLIGHT` on the texinfos of lit faces (three more lightmaps per
//!   face; the flag is written back so the engine reads the lightmaps the same way);
//! * **see-through materials** (`$translucent`, `$alphatest`, water, grates: contents
//!   `WINDOW`/`GRATE`/`WATER`/`SLIME` or `SURF_TRANS`) → a brush with such a side is not solid
//!   (Valve's `BrushContents`), so it casts no shadow: VRAD's occluders are the brushes in
//!   `MASK_OPAQUE`. The brush lump itself is left alone.

use std::sync::Arc;

use srcmap_bsp::{Brush, Bsp};
use srcmap_materials::flags::{
    CONTENTS_GRATE, CONTENTS_SLIME, CONTENTS_SOLID, CONTENTS_WATER, CONTENTS_WINDOW, MASK_OPAQUE,
    SURF_BUMPLIGHT, SURF_TRANS, SurfaceFlags,
};
use srcmap_materials::{Origin, Resolved, Resolver};

use crate::faces::TEX_SPECIAL;

const SEE_THROUGH: u32 = CONTENTS_WINDOW | CONTENTS_GRATE | CONTENTS_WATER | CONTENTS_SLIME;

/// A shared resolver in [`crate::Options`] (equal when it is the same resolver).
#[derive(Debug, Clone)]
pub struct MaterialSource(pub Arc<Resolver>);

impl PartialEq for MaterialSource {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

/// What [`apply`] changed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Applied {
    /// Texdata records whose reflectivity now comes from the game or the table.
    pub reflectivity: usize,
    /// Texinfos whose `SURF_BUMPLIGHT` was set or cleared.
    pub bump_changed: usize,
    /// Per brush: true when a see-through side makes it cast no shadow although the BSP
    /// says it is opaque.
    pub see_through_brushes: Vec<bool>,
}

fn known(origin: &Origin) -> bool {
    matches!(origin, Origin::Game(_) | Origin::Table { .. })
}

/// Applies the resolver's facts to `bsp` (texdata reflectivity, texinfo bump flags) and
/// returns which brushes it makes see-through.
pub fn apply(bsp: &mut Bsp, resolver: &Resolver) -> Applied {
    let resolved: Vec<Option<Resolved>> = (0..bsp.texdata.len())
        .map(|i| bsp.texdata_name(i).map(|n| resolver.resolve(n)))
        .collect();
    let reflectivity = apply_reflectivity(bsp, &resolved);
    let bump_changed = apply_bump_flags(bsp, &resolved);
    Applied {
        reflectivity,
        bump_changed,
        see_through_brushes: bsp
            .brushes
            .iter()
            .map(|b| see_through(bsp, &resolved, b))
            .collect(),
    }
}

/// Sets each texdata's reflectivity the resolver knows; returns how many changed.
fn apply_reflectivity(bsp: &mut Bsp, resolved: &[Option<Resolved>]) -> usize {
    let mut changed = 0;
    for (td, r) in bsp.texdata.iter_mut().zip(resolved) {
        if let Some(r) = r
            && known(&r.size_from)
            && r.facts.reflectivity.iter().all(|c| c.is_finite())
            && td.reflectivity != r.facts.reflectivity
        {
            td.reflectivity = r.facts.reflectivity;
            changed += 1;
        }
    }
    changed
}

/// The texdata of texinfo `ti`, when both exist.
fn texdata_of(bsp: &Bsp, resolved: &[Option<Resolved>], ti: i32) -> Option<usize> {
    let t = bsp.texinfo.get(usize::try_from(ti).ok()?)?;
    usize::try_from(t.texdata).ok().filter(|&d| d < resolved.len())
}

/// Sets or clears `SURF_BUMPLIGHT` on each lit texinfo as its material says, where the
/// resolver knows its surface; returns how many changed.
fn apply_bump_flags(bsp: &mut Bsp, resolved: &[Option<Resolved>]) -> usize {
    let mut changed = 0;
    for i in 0..bsp.texinfo.len() {
        let Some(td) = texdata_of(bsp, resolved, i as i32) else {
            continue;
        };
        let Some(r) = &resolved[td] else { continue };
        let ti = &mut bsp.texinfo[i];
        if !known(&r.surface_from) || SurfaceFlags::from_record(ti.flags).intersects(TEX_SPECIAL) {
            continue;
        }
        let want = r.facts.surface_flags & SURF_BUMPLIGHT != 0;
        if want != SurfaceFlags::from_record(ti.flags).intersects(SurfaceFlags::BUMPLIGHT) {
            ti.flags ^= SurfaceFlags::BUMPLIGHT.to_record();
            changed += 1;
        }
    }
    changed
}

/// Whether brush `b`, opaque in the BSP, casts no shadow: a side's material is see-through
/// and nothing but `SOLID` made it opaque (Valve's rule: a transparent side takes SOLID
/// away; OPAQUE/MOVEABLE stay).
fn see_through(bsp: &Bsp, resolved: &[Option<Resolved>], b: &Brush) -> bool {
    if b.contents as u32 & MASK_OPAQUE == 0 {
        return false; // already casts no shadow
    }
    let (Ok(first), Ok(n)) = (usize::try_from(b.first_side), usize::try_from(b.num_sides)) else {
        return false;
    };
    let see_through_side = (first..first + n).any(|s| {
        let Some(side) = bsp.brush_sides.get(s) else {
            return false;
        };
        let Some(td) = texdata_of(bsp, resolved, side.texinfo) else {
            return false;
        };
        let Some(r) = &resolved[td] else { return false };
        (known(&r.contents_from) && r.facts.contents & SEE_THROUGH != 0)
            || (known(&r.surface_from) && r.facts.surface_flags & SURF_TRANS != 0)
    });
    see_through_side && (b.contents as u32 & MASK_OPAQUE & !CONTENTS_SOLID) == 0
}
