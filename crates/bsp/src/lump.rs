//! Lump indices and names (Source SDK 2013 `bspfile.h` numbering).

/// Number of entries in the lump directory.
pub const HEADER_LUMPS: usize = 64;
/// Size of `dheader_t`: ident, version, 64 × `lump_t`, map revision.
pub const HEADER_SIZE: usize = 8 + 16 * HEADER_LUMPS + 4;

macro_rules! lumps {
    ($($name:ident = $n:expr, $text:expr;)*) => {
        $(pub const $name: usize = $n;)*
        const NAMES: [&str; HEADER_LUMPS] = {
            let mut names = ["UNKNOWN"; HEADER_LUMPS];
            $(names[$n] = $text;)*
            names
        };
    };
}

lumps! {
    ENTITIES = 0, "ENTITIES";
    PLANES = 1, "PLANES";
    TEXDATA = 2, "TEXDATA";
    VERTEXES = 3, "VERTEXES";
    VISIBILITY = 4, "VISIBILITY";
    NODES = 5, "NODES";
    TEXINFO = 6, "TEXINFO";
    FACES = 7, "FACES";
    LIGHTING = 8, "LIGHTING";
    OCCLUSION = 9, "OCCLUSION";
    LEAFS = 10, "LEAFS";
    FACEIDS = 11, "FACEIDS";
    EDGES = 12, "EDGES";
    SURFEDGES = 13, "SURFEDGES";
    MODELS = 14, "MODELS";
    WORLDLIGHTS = 15, "WORLDLIGHTS";
    LEAFFACES = 16, "LEAFFACES";
    LEAFBRUSHES = 17, "LEAFBRUSHES";
    BRUSHES = 18, "BRUSHES";
    BRUSHSIDES = 19, "BRUSHSIDES";
    AREAS = 20, "AREAS";
    AREAPORTALS = 21, "AREAPORTALS";
    UNUSED0 = 22, "UNUSED0/PROPCOLLISION";
    UNUSED1 = 23, "UNUSED1/PROPHULLS";
    UNUSED2 = 24, "UNUSED2/PROPHULLVERTS";
    UNUSED3 = 25, "UNUSED3/PROPTRIS";
    DISPINFO = 26, "DISPINFO";
    ORIGINALFACES = 27, "ORIGINALFACES";
    PHYSDISP = 28, "PHYSDISP";
    PHYSCOLLIDE = 29, "PHYSCOLLIDE";
    VERTNORMALS = 30, "VERTNORMALS";
    VERTNORMALINDICES = 31, "VERTNORMALINDICES";
    DISP_LIGHTMAP_ALPHAS = 32, "DISP_LIGHTMAP_ALPHAS";
    DISP_VERTS = 33, "DISP_VERTS";
    DISP_LIGHTMAP_SAMPLE_POSITIONS = 34, "DISP_LIGHTMAP_SAMPLE_POSITIONS";
    GAME_LUMP = 35, "GAME_LUMP";
    LEAFWATERDATA = 36, "LEAFWATERDATA";
    PRIMITIVES = 37, "PRIMITIVES";
    PRIMVERTS = 38, "PRIMVERTS";
    PRIMINDICES = 39, "PRIMINDICES";
    PAKFILE = 40, "PAKFILE";
    CLIPPORTALVERTS = 41, "CLIPPORTALVERTS";
    CUBEMAPS = 42, "CUBEMAPS";
    TEXDATA_STRING_DATA = 43, "TEXDATA_STRING_DATA";
    TEXDATA_STRING_TABLE = 44, "TEXDATA_STRING_TABLE";
    OVERLAYS = 45, "OVERLAYS";
    LEAFMINDISTTOWATER = 46, "LEAFMINDISTTOWATER";
    FACE_MACRO_TEXTURE_INFO = 47, "FACE_MACRO_TEXTURE_INFO";
    DISP_TRIS = 48, "DISP_TRIS";
    PHYSCOLLIDESURFACE = 49, "PHYSCOLLIDESURFACE/PROP_BLOB";
    WATEROVERLAYS = 50, "WATEROVERLAYS";
    LEAF_AMBIENT_INDEX_HDR = 51, "LEAF_AMBIENT_INDEX_HDR";
    LEAF_AMBIENT_INDEX = 52, "LEAF_AMBIENT_INDEX";
    LIGHTING_HDR = 53, "LIGHTING_HDR";
    WORLDLIGHTS_HDR = 54, "WORLDLIGHTS_HDR";
    LEAF_AMBIENT_LIGHTING_HDR = 55, "LEAF_AMBIENT_LIGHTING_HDR";
    LEAF_AMBIENT_LIGHTING = 56, "LEAF_AMBIENT_LIGHTING";
    XZIPPAKFILE = 57, "XZIPPAKFILE";
    FACES_HDR = 58, "FACES_HDR";
    MAP_FLAGS = 59, "MAP_FLAGS";
    OVERLAY_FADES = 60, "OVERLAY_FADES";
    OVERLAY_SYSTEM_LEVELS = 61, "OVERLAY_SYSTEM_LEVELS";
    PHYSLEVEL = 62, "PHYSLEVEL";
    DISP_MULTIBLEND = 63, "DISP_MULTIBLEND";
}

/// The name of lump `index` (`"PLANES"`), or `"UNKNOWN"` past the directory.
pub fn lump_name(index: usize) -> &'static str {
    NAMES.get(index).copied().unwrap_or("UNKNOWN")
}

/// Finds a lump by name (`"planes"`, `"LUMP_PLANES"`) or number (`"1"`).
pub fn lump_by_name(name: &str) -> Option<usize> {
    if let Ok(n) = name.parse::<usize>() {
        return (n < HEADER_LUMPS).then_some(n);
    }
    let upper = name.to_ascii_uppercase();
    let bare = upper.strip_prefix("LUMP_").unwrap_or(&upper);
    NAMES
        .iter()
        .position(|n| *n == bare || n.split('/').any(|part| part == bare))
}

/// The order in which Valve's tools (vbsp → vvis → vrad) leave lumps in the file: the layout used
/// for lumps that have no original position. The pakfile comes last so zip tools can open the BSP.
pub const VALVE_WRITE_ORDER: [usize; 54] = [
    PLANES,
    LEAFS,
    LEAF_AMBIENT_LIGHTING,
    LEAF_AMBIENT_INDEX,
    LEAF_AMBIENT_INDEX_HDR,
    LEAF_AMBIENT_LIGHTING_HDR,
    VERTEXES,
    NODES,
    TEXINFO,
    TEXDATA,
    DISPINFO,
    DISP_VERTS,
    // Triangle tags before the sample positions, as every v20 BSP of the corpus has them.
    DISP_TRIS,
    DISP_LIGHTMAP_SAMPLE_POSITIONS,
    FACE_MACRO_TEXTURE_INFO,
    PRIMITIVES,
    PRIMVERTS,
    PRIMINDICES,
    FACES,
    FACES_HDR,
    FACEIDS,
    ORIGINALFACES,
    BRUSHES,
    BRUSHSIDES,
    LEAFFACES,
    LEAFBRUSHES,
    SURFEDGES,
    EDGES,
    MODELS,
    AREAS,
    AREAPORTALS,
    LIGHTING,
    LIGHTING_HDR,
    VISIBILITY,
    ENTITIES,
    WORLDLIGHTS,
    WORLDLIGHTS_HDR,
    LEAFWATERDATA,
    OCCLUSION,
    MAP_FLAGS,
    CLIPPORTALVERTS,
    CUBEMAPS,
    TEXDATA_STRING_DATA,
    TEXDATA_STRING_TABLE,
    OVERLAYS,
    WATEROVERLAYS,
    OVERLAY_FADES,
    PHYSCOLLIDE,
    PHYSDISP,
    VERTNORMALS,
    VERTNORMALINDICES,
    LEAFMINDISTTOWATER,
    GAME_LUMP,
    PAKFILE,
];

/// What a typed lump holds: the lumps grouped by subject, so that code over every lump
/// (parsing, writing, counting) reads as one function per subject.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Subject {
    /// Planes, vertices, edges, faces, vertex normals, clip portal vertices, primitives.
    Geometry,
    /// The BSP tree and what its leaves hold: nodes, leafs, models, brushes, areas, water.
    Tree,
    /// Texture data and info, the material name strings, macro texture indices.
    Texture,
    /// Displacement infos, vertices, triangle flags and lightmap sample positions.
    Displacement,
    /// Lightmap samples, world lights, per-leaf ambient lighting and cubemap samples.
    Lighting,
    /// Overlays, water overlays, their fade distances and system levels.
    Overlay,
    /// Lumps with a format of their own (entities, visibility, occlusion, physics, the game
    /// lump, the pakfile, map flags) and lumps without a typed layout.
    OwnFormat,
}

/// The [`Subject`] of `lump`.
pub(crate) const fn subject(lump: usize) -> Subject {
    match lump {
        PLANES | VERTEXES | EDGES | SURFEDGES | FACES | ORIGINALFACES | FACES_HDR | FACEIDS | VERTNORMALS
        | VERTNORMALINDICES | CLIPPORTALVERTS | PRIMITIVES | PRIMVERTS | PRIMINDICES => Subject::Geometry,
        NODES | LEAFS | MODELS | LEAFFACES | LEAFBRUSHES | BRUSHES | BRUSHSIDES | AREAS | AREAPORTALS
        | LEAFWATERDATA | LEAFMINDISTTOWATER => Subject::Tree,
        TEXDATA | TEXINFO | TEXDATA_STRING_DATA | TEXDATA_STRING_TABLE | FACE_MACRO_TEXTURE_INFO => {
            Subject::Texture
        }
        DISPINFO | DISP_VERTS | DISP_TRIS | DISP_LIGHTMAP_SAMPLE_POSITIONS => Subject::Displacement,
        LIGHTING
        | LIGHTING_HDR
        | WORLDLIGHTS
        | WORLDLIGHTS_HDR
        | LEAF_AMBIENT_INDEX_HDR
        | LEAF_AMBIENT_INDEX
        | LEAF_AMBIENT_LIGHTING_HDR
        | LEAF_AMBIENT_LIGHTING
        | CUBEMAPS => Subject::Lighting,
        OVERLAYS | WATEROVERLAYS | OVERLAY_FADES | OVERLAY_SYSTEM_LEVELS => Subject::Overlay,
        _ => Subject::OwnFormat,
    }
}
