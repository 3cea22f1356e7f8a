//! Which world sides no playable space sees, for converters that drop such faces (Valve's
//! VMAP importer with `-usebsp`): asked of the first world pass's flooded tree.

use srcmap_geom::DVec3;

use super::Compile;
use crate::contents::ALL_VISIBLE_CONTENTS;
use crate::ids::BrushId;
use srcmap_bsp::flags::CONTENTS_SOLID;

/// How far in front of a detail side its sample points lie.
const SAMPLE_OFFSET: f64 = 0.5;

impl Compile<'_> {
    /// VMF ids of the world's visible-contents sides that face only the void or solid: a
    /// structural side no portal lies on (Valve's `MarkVisibleSides`), a detail side whose
    /// centre and corners (pulled a tenth towards the centre), just in front of it, all lie in
    /// solid or outside-filled leaves. An id that some other side keeps seen is left out, so
    /// an instance's side numbered like one of the map's never hides it.
    pub fn unseen_sides(&self) -> Vec<i64> {
        let mut unseen = std::collections::BTreeSet::new();
        let mut seen = std::collections::HashSet::new();
        let structural = self.structural.iter().map(|&b| (b, true));
        for (b, is_structural) in structural.chain(self.detail.iter().map(|&b| (b, false))) {
            for (id, hidden) in self.side_states(b, is_structural) {
                if hidden {
                    unseen.insert(id);
                } else {
                    seen.insert(id);
                }
            }
        }
        unseen.into_iter().filter(|id| !seen.contains(id)).collect()
    }

    /// Each drawn side of brush `b` with whether it is unseen.
    fn side_states(&self, b: BrushId, structural: bool) -> Vec<(i64, bool)> {
        let brush = &self.brushes[b.idx()];
        if brush.contents & ALL_VISIBLE_CONTENTS == 0 {
            return Vec::new();
        }
        let sides = brush.sides.iter().filter(|s| !s.bevel && !s.displacement);
        sides
            .filter_map(|s| {
                let w = s.winding.as_ref()?;
                let hidden = if structural {
                    !s.visible
                } else {
                    let normal = self.planes.get(s.plane).normal;
                    self.all_solid_in_front(&w.points, normal)
                };
                Some((s.vmf_id, hidden))
            })
            .collect()
    }

    /// Whether every sample point just in front of a polygon lies in a solid leaf.
    fn all_solid_in_front(&self, points: &[DVec3], normal: DVec3) -> bool {
        let center = points.iter().sum::<DVec3>() / points.len().max(1) as f64;
        let samples = std::iter::once(center).chain(points.iter().map(|&p| p + (center - p) * 0.1));
        samples.map(|p| p + normal * SAMPLE_OFFSET).all(|p| {
            let leaf = self.tree.leaf_at(&self.planes, p);
            self.tree.nodes[leaf.idx()].contents & CONTENTS_SOLID != 0
        })
    }
}
