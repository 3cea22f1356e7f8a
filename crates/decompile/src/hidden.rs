//! Materials of sides no face shows. vbsp drops every texinfo no face uses
//! (`CompactTexinfos`): a brush side whose own texinfo went that way is given the first texinfo
//! faces use with the same surface flags and surface property, so its own material is lost.
//! Such a side keeps a used texinfo (an unused one is its own, kept because nothing matched);
//! it gets back the material most of its brush's shown sides of the same flags carry, as
//! Hammer textures a brush whole and the mapper retextures the faces that show, unless one
//! of them carries the stand-in's own material. A material
//! faces use with those flags before the stand-in cannot be it: vbsp would have picked that
//! texinfo (the stand-in is the first of its surface property), so such materials are passed over.

use crate::context::Ctx;
use crate::types::OutSide;

/// A side as made, with what tells whether vbsp may have swapped its texinfo.
pub(crate) struct MadeSide {
    pub side: OutSide,
    /// The texinfo its material came from.
    pub texinfo: Option<usize>,
    /// Some face shows (part of) it.
    pub shown: bool,
}

impl Ctx<'_> {
    /// The sides, each hidden side whose texinfo may be a stand-in given its brush's material
    /// (and taken off the cubemap the stand-in's patched material named: the recompile would
    /// patch the new material for it, a patch Valve's BSP does not have).
    pub fn hidden_materials(&mut self, made: Vec<MadeSide>) -> Vec<OutSide> {
        let guesses: Vec<Option<String>> = made.iter().map(|m| self.hidden_guess(m, &made)).collect();
        let mut sides = Vec::with_capacity(made.len());
        for (mut m, guess) in made.into_iter().zip(guesses) {
            if let Some(material) = guess {
                m.side.material = material;
                let id = m.side.id;
                self.cubemap_sides
                    .values_mut()
                    .for_each(|ids| ids.retain(|&s| s != id));
            }
            sides.push(m.side);
        }
        sides
    }

    /// The material a hidden side with a stand-in texinfo had: the most common one on the
    /// brush's shown sides of the same flags (tools left out), when it differs.
    fn hidden_guess(&self, m: &MadeSide, brush: &[MadeSide]) -> Option<String> {
        let t = m.texinfo.filter(|&t| !m.shown && self.stand_in(t))?;
        let flags = self.bsp.texinfo[t].flags;
        let could_be = |u: usize| {
            let first = self.faces.first_used_like(self.bsp, u);
            self.bsp.texinfo[u].flags == flags && first.is_none_or(|f| f >= t)
        };
        let alike = |o: &&MadeSide| o.shown && o.texinfo.is_some_and(could_be);
        let shown: Vec<&str> = (brush.iter().filter(alike))
            .map(|o| o.side.material.as_str())
            .collect();
        let own = |o: &&MadeSide| o.shown || !o.texinfo.is_some_and(|u| self.stand_in(u));
        let known: Vec<&str> = (brush.iter().filter(own))
            .map(|o| o.side.material.as_str())
            .collect();
        brush_material(&m.side.material, &known, &shown).map(str::to_string)
    }

    /// Texinfo `t` of a hidden side may be vbsp's stand-in: faces use it, and it is the first
    /// texinfo faces use of its material and flags (a later one would have lost to the first).
    /// Whether the side had it of its own the BSP does not tell; on the corpus pairs taking
    /// the brush's material is right more often than keeping it.
    fn stand_in(&self, t: usize) -> bool {
        self.faces.texinfo_used(t) && self.faces.first_used_like(self.bsp, t) == Some(t)
    }
}

/// The material a hidden side whose texinfo is a stand-in for `stand_in` takes from its
/// brush's `shown` sides: none when a side of the brush whose material is its own (`known`:
/// shown, or hidden with a texinfo no stand-in) carries the stand-in's material (the mapper
/// used it on this brush), else their most common one, when it differs.
fn brush_material<'m>(stand_in: &str, known: &[&str], shown: &[&'m str]) -> Option<&'m str> {
    if known.iter().any(|m| m.eq_ignore_ascii_case(stand_in)) {
        return None;
    }
    most_common(shown.iter().copied()).filter(|best| !best.eq_ignore_ascii_case(stand_in))
}

/// The most common of `materials` (ignoring case, tools left out), the first of equals.
fn most_common<'m>(materials: impl Iterator<Item = &'m str>) -> Option<&'m str> {
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for name in materials.filter(|m| !is_tool(m)) {
        match counts.iter_mut().find(|(n, _)| n.eq_ignore_ascii_case(name)) {
            Some((_, n)) => *n += 1,
            None => counts.push((name, 1)),
        }
    }
    // max_by_key keeps the last of equals: look from the end.
    counts.iter().rev().max_by_key(|(_, n)| *n).map(|(name, _)| *name)
}

fn is_tool(material: &str) -> bool {
    let prefix = material.get(..6);
    prefix.is_some_and(|p| p.eq_ignore_ascii_case("tools/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_brush_showing_the_stand_ins_material_keeps_it() {
        let (a, b) = ("dev/reflectivity_40", "dev/reflectivity_50");
        assert_eq!(brush_material(b, &[a, a, b], &[a, a, b]), None);
        assert_eq!(brush_material(b, &[a, a, b], &[a, a]), None);
        assert_eq!(brush_material(b, &[a, a], &[a, a]), Some(a));
        assert_eq!(brush_material(b, &[], &[]), None);
    }

    #[test]
    fn the_most_common_material_leaves_tools_out_and_keeps_the_first_of_equals() {
        let names = [
            "tools/toolsnodraw",
            "a/b",
            "tools/toolsnodraw",
            "C/D",
            "c/d",
            "a/b",
        ];
        assert_eq!(most_common(names.into_iter()), Some("a/b"));
        assert_eq!(most_common(["tools/toolsnodraw"].into_iter()), None);
    }
}
