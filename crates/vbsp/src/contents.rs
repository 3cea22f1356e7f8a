//! Contents and surface flags (Valve's `bspflags.h`) and what a material means to the
//! compiler.

pub use srcmap_bsp::flags::*;
pub use srcmap_materials::{MaterialFacts, Resolver};

/// Contents bits that can be seen (Valve's `ALL_VISIBLE_CONTENTS`).
pub const ALL_VISIBLE_CONTENTS: u32 = Contents::ALL_VISIBLE.0;

/// A side's contents as Valve's loader sets them: clip brushes are detail, sides with no
/// visible contents are solid, hint and skip sides have none.
pub fn side_contents(material_contents: u32, base: u32, surf: u32) -> u32 {
    let mut c = material_contents | base;
    if c & (CONTENTS_PLAYERCLIP | CONTENTS_MONSTERCLIP) != 0 {
        c |= CONTENTS_DETAIL;
    }
    if c & (ALL_VISIBLE_CONTENTS | CONTENTS_PLAYERCLIP | CONTENTS_MONSTERCLIP) == 0 {
        c |= CONTENTS_SOLID;
    }
    if surf & (SURF_HINT | SURF_SKIP) != 0 {
        c = 0;
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn side_contents_follow_valves_loader() {
        let r = Resolver::builtin_only();
        let side = |m: &str| {
            let f = r.resolve(m).facts;
            side_contents(f.contents, 0, f.surface_flags)
        };
        assert_eq!(side("TOOLS/TOOLSNODRAW"), CONTENTS_SOLID);
        assert_eq!(side("tools/toolshint"), 0);
        assert_eq!(
            side("tools/toolsclip"),
            CONTENTS_PLAYERCLIP | CONTENTS_MONSTERCLIP | CONTENTS_DETAIL
        );
        assert_eq!(side("nature/water_canals03"), CONTENTS_WATER);
        assert_eq!(side("brick/brickwall001a"), CONTENTS_SOLID);
        assert_eq!(
            Contents(CONTENTS_WATER | CONTENTS_DETAIL).visible().0,
            CONTENTS_WATER
        );
    }
}
