//! Lump and game lump versions in one place: those Valve's tools write (what [`crate::Bsp::new`]
//! starts a map with) and those at which a record's layout changes. Every crate takes them from
//! here rather than writing the numbers itself.

/// The BSP version the compiler writes (Source 2007 and 2013 branches: Half-Life 2 episodes,
/// Team Fortress 2, Portal).
pub const COMPILE_BSP_VERSION: i32 = 20;

/// Faces and HDR faces: `dface_t` v1 (Strata's v2 is its 32-bit layout).
pub const FACES_VERSION: u32 = 1;
/// Lighting and HDR lighting: v1.
pub const LIGHTING_VERSION: u32 = 1;
/// Occlusion: from v2 each occluder carries an `area` (40 bytes; 36 before).
pub const OCCLUSION_VERSION: u32 = 2;
/// Leafs v0: `dleaf_t` with its ambient light cube inline (56 bytes), as BSP 19 and older write.
pub const LEAFS_VERSION_WITH_AMBIENT: u32 = 0;
/// Leafs v1: no inline ambient cube (32 bytes); BSP 20 keeps the cubes in the leaf ambient lumps.
pub const LEAFS_VERSION: u32 = 1;
/// The leaf ambient lighting lumps (LDR and HDR) of BSP 20.
pub const LEAF_AMBIENT_VERSION: u32 = 1;
/// World lights (LDR and HDR) v0: `dworldlight_t` of 88 bytes, as Source 2007/2013 write.
pub const WORLD_LIGHTS_VERSION: u32 = 0;
/// World lights v1 (Left 4 Dead and later): adds `shadow_cast_offset` (100 bytes).
pub const WORLD_LIGHTS_VERSION_WITH_SHADOW_OFFSET: u32 = 1;
/// The first BSP version whose leafs leave the ambient cube out (and that has HDR lumps).
pub const FIRST_BSP_VERSION_WITHOUT_LEAF_AMBIENT: i32 = 20;

/// Static props (`sprp`) as written for BSP 20 and later.
pub const STATIC_PROPS_VERSION: u16 = 10;
/// Static props (`sprp`) as written for BSP 19 and older.
pub const STATIC_PROPS_VERSION_BEFORE_20: u16 = 5;
/// Detail props (`dprp`): the one version there is.
pub const DETAIL_PROPS_VERSION: u16 = 4;
/// Detail prop lighting (`dplt`, `dplh`): the one version there is.
pub const DETAIL_PROP_LIGHTING_VERSION: u16 = 0;
