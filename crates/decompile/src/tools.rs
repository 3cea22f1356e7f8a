//! Tool materials for sides that carry no texinfo: the brush's contents (and the owning
//! entity's class) say which tool texture gave them.

use srcmap_bsp::flags::*;

/// The tool material that gives a brush `contents` (in an entity of `class`).
pub(crate) fn tool_material(contents: u32, class: &str) -> &'static str {
    let class = class.to_ascii_lowercase();
    if class.starts_with("trigger_") {
        return "tools/toolstrigger";
    }
    if class == "func_occluder" {
        return "tools/toolsoccluder";
    }
    let has = |bit: u32| contents & bit != 0;
    match () {
        _ if has(CONTENTS_AREAPORTAL) => "tools/toolsareaportal",
        _ if has(CONTENTS_ORIGIN) => "tools/toolsorigin",
        _ if has(CONTENTS_PLAYERCLIP) && has(CONTENTS_MONSTERCLIP) => "tools/toolsclip",
        _ if has(CONTENTS_PLAYERCLIP) => "tools/toolsplayerclip",
        _ if has(CONTENTS_MONSTERCLIP) => "tools/toolsnpcclip",
        _ if has(CONTENTS_LADDER) => "tools/toolsinvisibleladder",
        _ if has(CONTENTS_WATER) || has(CONTENTS_SLIME) => "tools/toolsnodraw",
        _ if has(CONTENTS_OPAQUE) && !has(CONTENTS_SOLID) => "tools/toolsblocklight",
        _ if has(CONTENTS_BLOCKLOS) && !has(CONTENTS_SOLID) => "tools/toolsblock_los",
        _ if !has(CONTENTS_SOLID) && !has(CONTENTS_WINDOW) && !has(CONTENTS_GRATE) => "tools/toolsinvisible",
        _ => "tools/toolsnodraw",
    }
}

/// The tool material a texinfo's surface flags name when its texdata has no name (stripped
/// string tables): hint, skip, sky, trigger, nodraw.
pub(crate) fn flag_material(flags: u32) -> Option<&'static str> {
    let has = |bit: u32| flags & bit != 0;
    match () {
        _ if has(SURF_HINT) => Some("tools/toolshint"),
        _ if has(SURF_SKIP) => Some("tools/toolsskip"),
        _ if has(SURF_SKY2D) || has(SURF_SKY) => Some("tools/toolsskybox"),
        _ if has(SURF_TRIGGER) => Some("tools/toolstrigger"),
        _ if has(SURF_NODRAW) => Some("tools/toolsnodraw"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contents_name_their_tool() {
        assert_eq!(
            tool_material(CONTENTS_PLAYERCLIP | CONTENTS_MONSTERCLIP, ""),
            "tools/toolsclip"
        );
        assert_eq!(tool_material(CONTENTS_MONSTERCLIP, ""), "tools/toolsnpcclip");
        assert_eq!(
            tool_material(CONTENTS_AREAPORTAL, "func_areaportal"),
            "tools/toolsareaportal"
        );
        assert_eq!(
            tool_material(CONTENTS_SOLID, "trigger_multiple"),
            "tools/toolstrigger"
        );
        assert_eq!(tool_material(CONTENTS_SOLID, ""), "tools/toolsnodraw");
        assert_eq!(
            tool_material(CONTENTS_LADDER, "func_ladder"),
            "tools/toolsinvisibleladder"
        );
        assert_eq!(
            tool_material(CONTENTS_BLOCKLOS | CONTENTS_DETAIL, "func_detail"),
            "tools/toolsblock_los"
        );
        assert_eq!(flag_material(SURF_HINT), Some("tools/toolshint"));
        assert_eq!(flag_material(0), None);
    }
}
