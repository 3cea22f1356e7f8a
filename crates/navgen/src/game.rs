//! What differs between games: spawn entities, the movement constants of `nav.h`, and the file
//! version and sub-version the game writes.

use srcmap_bsp::Bsp;
use srcmap_nav::GameLayout;

/// The games whose navigation meshes are generated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Game {
    /// Counter-Strike: Source (NAV v9).
    CounterStrike,
    /// Counter-Strike: Global Offensive (v16, sub-version 1).
    CsGo,
    /// Team Fortress 2 (v16, sub-version 2).
    Tf2,
    /// The SDK base, Garry's Mod, HL2DM (v16, sub-version 0).
    Base,
}

/// Heights from `nav.h` that depend on the game (Counter-Strike's bots jump lower and die sooner).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Heights {
    pub jump_crouch: f32,
    pub death_drop: f32,
    pub climb_up: f32,
}

impl Game {
    /// The game a `--target` or game folder name means (`cstrike`, `csgo`, `tf`, `garrysmod`...).
    pub fn from_name(name: &str) -> Option<Game> {
        Some(match name.to_ascii_lowercase().as_str() {
            "cstrike" | "css" | "cs:s" | "counter-strike" => Game::CounterStrike,
            "csgo" | "cs:go" => Game::CsGo,
            "tf" | "tf2" | "teamfortress" => Game::Tf2,
            "gmod" | "garrysmod" | "hl2dm" | "hl2mp" | "base" | "sdk" => Game::Base,
            _ => return None,
        })
    }

    /// The game a map was made for, told by its spawn entities and BSP version.
    pub fn guess(bsp: &Bsp) -> Game {
        let has = |class: &str| bsp.entities.iter().any(|e| e.classname() == Some(class));
        if has("info_player_teamspawn") {
            Game::Tf2
        } else if has("info_player_terrorist") || has("info_player_counterterrorist") {
            if bsp.version >= 21 {
                Game::CsGo
            } else {
                Game::CounterStrike
            }
        } else {
            Game::Base
        }
    }

    /// The entities whose origins seed the sampling.
    pub fn spawn_classes(self) -> &'static [&'static str] {
        match self {
            Game::CounterStrike | Game::CsGo => &["info_player_terrorist", "info_player_counterterrorist"],
            Game::Tf2 => &["info_player_teamspawn"],
            Game::Base => &[
                "info_player_start",
                "info_player_deathmatch",
                "info_player_combine",
                "info_player_rebel",
            ],
        }
    }

    pub fn heights(self) -> Heights {
        match self {
            Game::CounterStrike | Game::CsGo => Heights {
                jump_crouch: 58.0,
                death_drop: 200.0,
                climb_up: 58.0,
            },
            Game::Tf2 | Game::Base => Heights {
                jump_crouch: 64.0,
                death_drop: 400.0,
                climb_up: 200.0,
            },
        }
    }

    /// (version, sub-version, per-area layout) of the files the game writes.
    pub fn format(self) -> (u32, Option<u32>, GameLayout) {
        match self {
            Game::CounterStrike => (9, None, GameLayout::Base),
            Game::CsGo => (16, Some(1), GameLayout::CounterStrike),
            Game::Tf2 => (16, Some(2), GameLayout::Tf2),
            Game::Base => (16, Some(0), GameLayout::Base),
        }
    }

    /// What is solid while generating: Valve's `MASK_NPCSOLID_BRUSHONLY` (player clip is not
    /// solid), except TF2's mesh, which uses `MASK_PLAYERSOLID_BRUSHONLY` (player clip is).
    pub fn trace_mask(self) -> u32 {
        match self {
            Game::Tf2 => srcmap_hull::MASK_PLAYERSOLID_BRUSHONLY,
            _ => srcmap_hull::MASK_NPCSOLID_BRUSHONLY,
        }
    }

    /// What is solid for the ladders' line traces (facing, room, top search): Counter-Strike:
    /// Source's generator (the one writing v9 files) traced them with
    /// `MASK_PLAYERSOLID_BRUSHONLY`; SDK 2013's with the trace mask.
    pub fn line_mask(self) -> u32 {
        match self {
            Game::CounterStrike => srcmap_hull::MASK_PLAYERSOLID_BRUSHONLY,
            _ => self.trace_mask(),
        }
    }

    /// What is solid for the analysis' cover and encounter traces: `MASK_PLAYERSOLID_BRUSHONLY`
    /// in Counter-Strike: Source's generator, `MASK_NPCSOLID_BRUSHONLY` in SDK 2013's.
    pub fn analysis_mask(self) -> u32 {
        match self {
            Game::CounterStrike => srcmap_hull::MASK_PLAYERSOLID_BRUSHONLY,
            _ => srcmap_hull::MASK_NPCSOLID_BRUSHONLY,
        }
    }

    /// For games whose analysis finds sniper and encounter spots, the eye height it looks from
    /// (over a crouching sniper's spot, over the floor walked): Counter-Strike: Source's, half a
    /// player. SDK 2013's servers save quickly by default (`nav_quicksave 1`), which skips both.
    pub fn full_analysis_eye(self) -> Option<f32> {
        match self {
            Game::CounterStrike => Some(35.5),
            _ => None,
        }
    }

    /// Whether the game's files list the areas each area sees (v16: every game but
    /// Counter-Strike: Source's v9).
    pub fn has_visibility(self) -> bool {
        self.format().0 >= 16
    }

    /// What an area too steep to walk is marked with: JUMP (Counter-Strike: Source's files),
    /// and NO_MERGE in SDK 2013's generator.
    pub fn jump_attributes(self) -> u32 {
        match self {
            Game::CounterStrike => crate::attributes::ATTR_JUMP,
            _ => crate::attributes::ATTR_JUMP | crate::attributes::ATTR_NO_MERGE,
        }
    }

    /// Whether the game's generator is SDK 2013's (every game but Counter-Strike: Source, whose
    /// v9 files the older generator wrote): it marks stairs and replaces jump areas by
    /// connections across them (`nav_generate_fixup_jump_areas 1`); the older one did neither.
    pub fn is_sdk_2013(self) -> bool {
        self != Game::CounterStrike
    }

    pub fn name(self) -> &'static str {
        match self {
            Game::CounterStrike => "cstrike",
            Game::CsGo => "csgo",
            Game::Tf2 => "tf",
            Game::Base => "base",
        }
    }
}
