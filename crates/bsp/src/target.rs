//! What a game's own compile tools write, so that a map compiled for a game loads in it: the
//! BSP version, the `lump_t` field order and the order of lumps in the file, the lump versions
//! that differ between branches, and the static prop (`sprp`) version and record layout. The
//! limits follow from the BSP version ([`crate::check::limits`]). Detail props (`dprp` v4) and
//! their lighting (`dplt`, `dplh` v0) are the same in every branch.
//!
//! The numbers are those of Valve's BSPs of each branch (the game lump and lump directories of
//! maps their vbsp wrote), and of Source SDK 2013's `gamebspfile.h` for the singleplayer branch.

use crate::bsp::Bsp;
use crate::file::LumpOrder;
use crate::gamelump::{GameLumps, StaticPropLayout};
use crate::lump::{
    AREAPORTALS, BRUSHSIDES, DISPINFO, EDGES, FACES, FACES_HDR, LEAF_AMBIENT_INDEX, LEAF_AMBIENT_INDEX_HDR,
    LEAFBRUSHES, LEAFFACES, LEAFS, LEAFWATERDATA, NODES, OVERLAYS, PHYSDISP, PHYSLEVEL, PRIMINDICES,
    PRIMITIVES, UNUSED0, UNUSED1, VERTNORMALINDICES, WATEROVERLAYS, WORLDLIGHTS, WORLDLIGHTS_HDR,
};
use crate::versions::{WORLD_LIGHTS_VERSION, WORLD_LIGHTS_VERSION_WITH_SHADOW_OFFSET};

/// One game branch's output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Target {
    /// The name `--target` takes.
    pub name: &'static str,
    /// Other names `--target` takes, and game folder names that select it.
    pub aliases: &'static [&'static str],
    /// The games it is for, for people.
    pub games: &'static str,
    pub bsp_version: i32,
    /// The `lump_t` field order of the directory.
    pub lump_order: LumpOrder,
    /// The `sprp` version number written in the game lump directory.
    pub static_props_version: u16,
    /// The `sprp` record layout (Source 2013 multiplayer's v10 is not CS:GO's).
    pub static_props: StaticPropLayout,
    /// The world lights' lump version (v1 adds the shadow cast offset).
    pub world_lights_version: u32,
    /// Further lump versions its tools write: `(lump, version)`.
    pub lump_versions: &'static [(usize, u32)],
    /// Its vbsp gives all the 3D skybox's leaves one vis cluster (Source 2007's vbsp on; the
    /// Episode One-era vbsp, `prtfile.cpp` without `g_SkyCluster`, numbers them one by one).
    pub one_skybox_cluster: bool,
    /// Its engine draws LDR lightmaps. Engine branches from Left 4 Dead on draw only HDR
    /// ones (CS:GO has no LDR mode at all), so a map lit LDR alone is unlit there.
    pub ldr_lightmaps: bool,
}

/// Source SDK 2013 multiplayer and Team Fortress 2: what srcmap writes when no game is named.
const SOURCE_2013_MP: Target = Target {
    name: "tf",
    aliases: &["tf2", "sdk2013mp", "hl2mp", "dod"],
    games: "Team Fortress 2, Half-Life 2: Deathmatch, Day of Defeat: Source, Source SDK 2013 multiplayer mods",
    bsp_version: 20,
    lump_order: LumpOrder::Standard,
    static_props_version: 10,
    static_props: StaticPropLayout::Lightmapped,
    world_lights_version: WORLD_LIGHTS_VERSION,
    lump_versions: &[],
    one_skybox_cluster: true,
    ldr_lightmaps: true,
};

/// Every game srcmap can write for; the first is the default.
pub const TARGETS: &[Target] = &[
    SOURCE_2013_MP,
    Target {
        name: "hl2",
        aliases: &[
            "episodic",
            "ep2",
            "hl2_complete",
            "lostcoast",
            "portal",
            "sdk2013sp",
            "source2007",
        ],
        games: "Half-Life 2 and its episodes, Portal, Source SDK 2013 singleplayer mods",
        static_props_version: 6,
        static_props: StaticPropLayout::V6,
        ..SOURCE_2013_MP
    },
    Target {
        name: "mapbase",
        aliases: &["mapbase_shared", "entropyzero2", "ez2"],
        games: "Mapbase mods (Source SDK 2013 singleplayer with Mapbase's tools)",
        static_props_version: 6,
        static_props: StaticPropLayout::V6,
        ..SOURCE_2013_MP
    },
    Target {
        name: "source2006",
        aliases: &["ep1", "sdk2006", "ricochet"],
        games: "Source 2006 (Half-Life 2: Episode One engine) mods",
        static_props_version: 5,
        static_props: StaticPropLayout::V5,
        one_skybox_cluster: false,
        ..SOURCE_2013_MP
    },
    Target {
        name: "cstrike",
        aliases: &["css", "cstrike_v19"],
        games: "Counter-Strike: Source (BSP 19, which every CS:S release loads)",
        bsp_version: 19,
        static_props_version: 5,
        static_props: StaticPropLayout::V5,
        ..SOURCE_2013_MP
    },
    Target {
        name: "source2004",
        aliases: &["hl2_2004", "hl2_old"],
        games: "Half-Life 2 and Counter-Strike: Source as released in 2004",
        bsp_version: 19,
        static_props_version: 4,
        static_props: StaticPropLayout::V4,
        one_skybox_cluster: false,
        ..SOURCE_2013_MP
    },
    Target {
        name: "csgo",
        aliases: &["cs:go", "counter-strike global offensive"],
        games: "Counter-Strike: Global Offensive",
        bsp_version: 21,
        static_props_version: 11,
        static_props: StaticPropLayout::V11,
        world_lights_version: WORLD_LIGHTS_VERSION_WITH_SHADOW_OFFSET,
        ldr_lightmaps: false,
        ..SOURCE_2013_MP
    },
    Target {
        name: "portal2",
        aliases: &["p2"],
        games: "Portal 2",
        bsp_version: 21,
        static_props_version: 9,
        static_props: StaticPropLayout::V9,
        world_lights_version: WORLD_LIGHTS_VERSION_WITH_SHADOW_OFFSET,
        ldr_lightmaps: false,
        ..SOURCE_2013_MP
    },
    Target {
        name: "left4dead2",
        aliases: &["l4d2"],
        games: "Left 4 Dead 2",
        bsp_version: 21,
        lump_order: LumpOrder::L4d2,
        static_props_version: 9,
        static_props: StaticPropLayout::V9,
        world_lights_version: WORLD_LIGHTS_VERSION_WITH_SHADOW_OFFSET,
        // Left 4 Dead 2's vbsp labels its (empty) physics level lump 16.
        lump_versions: &[(PHYSLEVEL, 16)],
        one_skybox_cluster: true,
        ldr_lightmaps: false,
    },
    Target {
        name: "strata",
        aliases: &["p2ce", "momentum", "revolution"],
        games: "Strata Source: Momentum Mod, Portal 2: Community Edition, Portal: Revolution",
        bsp_version: 25,
        static_props_version: 12,
        static_props: StaticPropLayout::V12,
        world_lights_version: WORLD_LIGHTS_VERSION_WITH_SHADOW_OFFSET,
        lump_versions: STRATA_LUMP_VERSIONS,
        ldr_lightmaps: false,
        ..SOURCE_2013_MP
    },
    Target {
        name: "desolation",
        aliases: &["desolation_v42"],
        games: "Desolation (its BSP 42 branch)",
        bsp_version: 42,
        static_props_version: 11,
        static_props: StaticPropLayout::V11,
        world_lights_version: WORLD_LIGHTS_VERSION_WITH_SHADOW_OFFSET,
        ..SOURCE_2013_MP
    },
];

/// Strata Source's lump versions past BSP 20's: v1 (v2 for faces and leafs) is its layout with
/// 32-bit indices and float bounds, which srcmap's reader and writer take from the version. The
/// unused lumps 22 and 23 and the empty ones carry the versions Strata's tools label them with.
const STRATA_LUMP_VERSIONS: &[(usize, u32)] = &[
    (NODES, 1),
    (FACES, 2),
    (LEAFS, 2),
    (EDGES, 1),
    (LEAFFACES, 1),
    (LEAFBRUSHES, 1),
    (BRUSHSIDES, 1),
    (AREAPORTALS, 1),
    (UNUSED0, 1),
    (UNUSED1, 1),
    (DISPINFO, 1),
    (PHYSDISP, 2),
    (VERTNORMALINDICES, 1),
    (LEAFWATERDATA, 1),
    (PRIMITIVES, 1),
    (PRIMINDICES, 1),
    (OVERLAYS, 1),
    (WATEROVERLAYS, 1),
    (LEAF_AMBIENT_INDEX_HDR, 1),
    (LEAF_AMBIENT_INDEX, 1),
    (FACES_HDR, 2),
];

impl Target {
    /// What srcmap writes when no game is named: [`TARGETS`]'s first, Source 2013 multiplayer.
    pub const DEFAULT: &'static Target = &SOURCE_2013_MP;

    /// The target `name` (or one of its aliases) names, in any case.
    pub fn by_name(name: &str) -> Option<&'static Target> {
        TARGETS.iter().find(|t| t.is_named(name))
    }

    /// Whether `name` is this target's name or one of its aliases, in any case.
    pub fn is_named(&self, name: &str) -> bool {
        std::iter::once(&self.name)
            .chain(self.aliases)
            .any(|n| n.eq_ignore_ascii_case(name))
    }

    /// Whether a BSP of `version` is for a game that draws LDR lightmaps: false when every
    /// target writing that version draws only HDR ones (21: the Left 4 Dead branch, 25).
    pub fn version_draws_ldr(version: i32) -> bool {
        let mut of_version = TARGETS.iter().filter(|t| t.bsp_version == version).peekable();
        of_version.peek().is_none() || of_version.any(|t| t.ldr_lightmaps)
    }

    /// Every target's name, for a message listing them.
    pub fn names() -> String {
        TARGETS.iter().map(|t| t.name).collect::<Vec<_>>().join(", ")
    }

    /// One line saying what this target writes.
    pub fn summary(&self) -> String {
        let order = if self.lump_order == LumpOrder::L4d2 {
            ", Left 4 Dead 2 lump order"
        } else {
            ""
        };
        format!(
            "{} ({}): BSP v{}{order}, static props v{}",
            self.name, self.games, self.bsp_version, self.static_props_version
        )
    }

    /// An empty BSP of this target ([`Bsp::new`] with its version, order and lump versions).
    pub fn new_bsp(&self) -> Bsp {
        let mut bsp = Bsp::new(self.bsp_version);
        self.apply(&mut bsp);
        bsp
    }

    /// Makes `bsp`, a map being compiled, one of this target: its version, directory order and
    /// lump versions, and empty `sprp` and `dprp` game lumps of this target's versions (the
    /// props are written into them afterwards).
    pub fn apply(&self, bsp: &mut Bsp) {
        bsp.lump_versions = Bsp::new(self.bsp_version).lump_versions;
        bsp.version = self.bsp_version;
        bsp.order = self.lump_order;
        bsp.lump_versions[WORLDLIGHTS] = self.world_lights_version;
        bsp.lump_versions[WORLDLIGHTS_HDR] = self.world_lights_version;
        for &(lump, version) in self.lump_versions {
            bsp.lump_versions[lump] = version;
        }
        bsp.game_lumps = GameLumps::empty(self.static_props_version);
        if let Some(props) = bsp.game_lumps.static_props_mut() {
            props.layout = self.static_props;
        }
    }

    /// The file order of lumps this target's tools write.
    pub fn write_order(&self) -> &'static [usize] {
        crate::order::write_order(self.bsp_version, self.lump_order)
    }

    /// Valve's `MAX_MAP_*` limits for this target: (lump, most records, name).
    pub fn limits(&self) -> Vec<(usize, usize, &'static str)> {
        crate::check::limits(self.bsp_version)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gamelump::GameLumpData;

    /// Names and aliases pick one target each, in any case; the default is today's v20/v10.
    #[test]
    fn names_are_unique_and_found_in_any_case() {
        for t in TARGETS {
            for n in std::iter::once(&t.name).chain(t.aliases) {
                assert_eq!(Target::by_name(&n.to_uppercase()), Some(t), "{n}");
            }
        }
        assert_eq!(Target::DEFAULT, &TARGETS[0]);
        assert_eq!(
            (Target::DEFAULT.bsp_version, Target::DEFAULT.static_props_version),
            (20, 10)
        );
        assert_eq!(Target::by_name("quake"), None);
    }

    /// Each target's empty map writes and reads back with its version, order, lump versions
    /// and `sprp` version and layout.
    #[test]
    fn each_target_round_trips_through_the_reader() {
        for t in TARGETS {
            let bytes = t.new_bsp().to_bytes().unwrap();
            let back = Bsp::parse(&bytes).unwrap();
            assert_eq!(
                (back.version, back.order),
                (t.bsp_version, t.lump_order),
                "{}",
                t.name
            );
            assert_eq!(
                back.lump_versions[WORLDLIGHTS], t.world_lights_version,
                "{}",
                t.name
            );
            let sprp = back.game_lumps.get(crate::gamelump::SPRP).unwrap();
            assert_eq!(sprp.version, t.static_props_version, "{}", t.name);
            assert!(matches!(sprp.data, GameLumpData::StaticProps(_)), "{}", t.name);
            assert_eq!(back.to_bytes().unwrap(), bytes, "{}", t.name);
        }
    }
}
