//! Contents and surface flags (Valve's `bspflags.h`) and what a material means to the
//! compiler.

pub const CONTENTS_EMPTY: u32 = 0;
pub const CONTENTS_SOLID: u32 = 0x1;
pub const CONTENTS_WINDOW: u32 = 0x2;
pub const CONTENTS_GRATE: u32 = 0x8;
pub const CONTENTS_SLIME: u32 = 0x10;
pub const CONTENTS_WATER: u32 = 0x20;
pub const CONTENTS_BLOCKLOS: u32 = 0x40;
pub const CONTENTS_OPAQUE: u32 = 0x80;
pub const LAST_VISIBLE_CONTENTS: u32 = 0x80;
pub const CONTENTS_TESTFOGVOLUME: u32 = 0x100;
pub const CONTENTS_MOVEABLE: u32 = 0x4000;
pub const CONTENTS_AREAPORTAL: u32 = 0x8000;
pub const CONTENTS_PLAYERCLIP: u32 = 0x10000;
pub const CONTENTS_MONSTERCLIP: u32 = 0x20000;
pub const CONTENTS_ORIGIN: u32 = 0x100_0000;
pub const CONTENTS_DETAIL: u32 = 0x800_0000;
pub const CONTENTS_TRANSLUCENT: u32 = 0x1000_0000;
pub const CONTENTS_LADDER: u32 = 0x2000_0000;

pub const SURF_LIGHT: u32 = 0x1;
pub const SURF_SKY2D: u32 = 0x2;
pub const SURF_SKY: u32 = 0x4;
pub const SURF_WARP: u32 = 0x8;
pub const SURF_TRANS: u32 = 0x10;
pub const SURF_TRIGGER: u32 = 0x40;
pub const SURF_NODRAW: u32 = 0x80;
pub const SURF_HINT: u32 = 0x100;
pub const SURF_SKIP: u32 = 0x200;
pub const SURF_NOLIGHT: u32 = 0x400;
pub const SURF_BUMPLIGHT: u32 = 0x800;

/// Contents bits that can be seen (Valve's `ALL_VISIBLE_CONTENTS`).
pub const ALL_VISIBLE_CONTENTS: u32 = LAST_VISIBLE_CONTENTS | (LAST_VISIBLE_CONTENTS - 1);

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

/// The highest-priority visible content bit (Valve's `VisibleContents`).
pub fn visible_contents(contents: u32) -> u32 {
    let mut i = 1;
    while i <= LAST_VISIBLE_CONTENTS {
        if contents & i != 0 {
            return i;
        }
        i <<= 1;
    }
    0
}

/// What the compiler needs to know about one material.
#[derive(Debug, Clone, PartialEq)]
pub struct MaterialInfo {
    pub contents: u32,
    pub surface_flags: u32,
    pub width: u32,
    pub height: u32,
    pub reflectivity: [f32; 3],
}

/// Where material facts come from: the game's files (`-game`) or built-in rules.
pub trait MaterialSource: Sync {
    /// Facts for `name` (as written in the VMF, any case). `None` when unknown; the
    /// compiler then falls back to [`builtin_material`].
    fn material(&self, name: &str) -> Option<MaterialInfo>;
}

/// No game content: every material by the built-in rules.
#[derive(Debug, Default, Clone, Copy)]
pub struct BuiltinMaterials;

impl MaterialSource for BuiltinMaterials {
    fn material(&self, _name: &str) -> Option<MaterialInfo> {
        None
    }
}

/// Built-in rules for Valve's tool textures; any other material is an opaque, lit,
/// 512×512 surface of reflectivity 0.5, except water, slime, grates and see-through glass
/// by name.
pub fn builtin_material(name: &str) -> MaterialInfo {
    let lower = name.to_ascii_lowercase().replace('\\', "/");
    let mut info = MaterialInfo {
        contents: CONTENTS_SOLID,
        surface_flags: 0,
        width: 512,
        height: 512,
        reflectivity: [0.5, 0.5, 0.5],
    };
    let tool = lower.strip_prefix("tools/").unwrap_or("");
    let nodraw = SURF_NODRAW | SURF_NOLIGHT;
    match tool {
        "toolsnodraw" => info.surface_flags = nodraw,
        "toolsclip" => {
            info.contents = CONTENTS_PLAYERCLIP | CONTENTS_MONSTERCLIP;
            info.surface_flags = nodraw;
        }
        "toolsplayerclip" => {
            info.contents = CONTENTS_PLAYERCLIP;
            info.surface_flags = nodraw;
        }
        "toolsnpcclip" => {
            info.contents = CONTENTS_MONSTERCLIP;
            info.surface_flags = nodraw;
        }
        // Trigger faces are compiled (the entity draws nothing); no lightmap.
        "toolstrigger" | "toolsfog" => info.surface_flags = SURF_TRIGGER | SURF_NOLIGHT,
        "toolsskybox" => info.surface_flags = SURF_SKY | SURF_NOLIGHT,
        "toolsskybox2d" => info.surface_flags = SURF_SKY | SURF_SKY2D | SURF_NOLIGHT,
        "toolsskip" => {
            info.contents = CONTENTS_EMPTY;
            info.surface_flags = nodraw | SURF_SKIP;
        }
        "toolshint" => {
            info.contents = CONTENTS_EMPTY;
            info.surface_flags = nodraw | SURF_HINT;
        }
        // %compileInvisible: a grate, so bullets pass and vis sees through.
        "toolsinvisible" => {
            info.contents = CONTENTS_GRATE;
            info.surface_flags = nodraw;
        }
        "toolsinvisibleladder" | "toolsblockbullets" | "toolsoccluder" => info.surface_flags = nodraw,
        "toolsblocklight" => {
            info.contents = CONTENTS_OPAQUE;
            info.surface_flags = nodraw;
        }
        "toolsblock_los" => {
            info.contents = CONTENTS_BLOCKLOS;
            info.surface_flags = nodraw;
        }
        "toolsareaportal" => {
            info.contents = CONTENTS_AREAPORTAL;
            info.surface_flags = nodraw;
        }
        "toolsorigin" => {
            info.contents = CONTENTS_ORIGIN | CONTENTS_DETAIL;
            info.surface_flags = nodraw;
        }
        "toolsladder" => {
            info.contents = CONTENTS_LADDER | CONTENTS_PLAYERCLIP;
            info.surface_flags = nodraw;
        }
        _ => {
            if lower.contains("water") && !lower.contains("waterfall") && !tool.starts_with("tools") {
                info.contents = CONTENTS_WATER;
                info.surface_flags = SURF_WARP | SURF_NOLIGHT;
            } else if lower.contains("slime") || lower.contains("liquid") {
                info.contents = CONTENTS_SLIME;
                info.surface_flags = SURF_NOLIGHT;
            } else if lower.contains("grate") {
                // Grates are alpha-tested and let bullets through in Valve's content.
                info.contents = CONTENTS_GRATE;
            } else if lower.contains("translucent") || lower.starts_with("glass/") {
                // Without the VMT, a name that says see-through is taken at its word: a
                // window (not solid, vis sees through), as `$translucent` would make it.
                info.contents = CONTENTS_WINDOW;
                info.surface_flags = SURF_TRANS;
            } else if tool.starts_with("toolsblack") {
                info.surface_flags = SURF_NOLIGHT;
            }
        }
    }
    info
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_rules() {
        assert_eq!(
            builtin_material("TOOLS/TOOLSNODRAW").surface_flags & SURF_NODRAW,
            SURF_NODRAW
        );
        assert_eq!(builtin_material("tools/toolshint").contents, 0);
        assert_eq!(
            builtin_material("tools/toolsareaportal").contents,
            CONTENTS_AREAPORTAL
        );
        assert_eq!(builtin_material("nature/water_canals03").contents, CONTENTS_WATER);
        assert_eq!(builtin_material("brick/brickwall001a").contents, CONTENTS_SOLID);
        assert_eq!(visible_contents(CONTENTS_WATER | CONTENTS_DETAIL), CONTENTS_WATER);
    }
}
