//! Texture shadows of a static prop: a corpus model built with `$casttextureshadows`
//! (`genwires.mdl`), given materials made here: `$alphatest` with a clear or an opaque base
//! texture, or no alpha flag at all.

use std::sync::Arc;

use glam::Vec3;
use srcmap_bsp::Bsp;
use srcmap_bsp::gamelump::{GameLumps, StaticProp};
use srcmap_trace::Tracer;
use srcmap_vrad::ModelSource;
use srcmap_vrad::props::prop_shadows;
use srcmap_vrad::scene::occluders_with;

const MODEL_DIR: &str = "model/tbjmaps+dishonourable-discharge-ez2";
const MODEL: &str = "models/propper/basement/genwires.mdl";

/// A 4×4 VTF 7.2, BGRA8888, every texel's alpha `alpha`.
fn vtf(alpha: u8) -> Vec<u8> {
    let mut v = srcmap_content::vtf::build_header(2, 4, 4, 0x2000, [0.5; 3]);
    let header_size = v.len() as u32;
    v[12..16].copy_from_slice(&header_size.to_le_bytes());
    v[52..56].copy_from_slice(&12i32.to_le_bytes());
    for _ in 0..16 {
        v.extend_from_slice(&[128, 128, 128, alpha]);
    }
    v
}

/// The model's files from the corpus; every `.vmt` is `vmt`, every `.vtf` is `vtf(alpha)`.
fn source(root: &std::path::Path, vmt: &'static str, alpha: u8) -> ModelSource {
    let dir = root.join(MODEL_DIR);
    ModelSource(Arc::new(move |path: &str| {
        if path.ends_with(".vmt") {
            Some(vmt.as_bytes().to_vec())
        } else if path.ends_with(".vtf") {
            Some(vtf(alpha))
        } else {
            std::fs::read(dir.join(path)).ok()
        }
    }))
}

fn map_with_the_prop() -> Bsp {
    let mut bsp = Bsp::new(20);
    bsp.game_lumps = GameLumps::empty(10);
    let sp = bsp.game_lumps.static_props_mut().unwrap();
    sp.models.push(MODEL.to_string());
    sp.props.push(StaticProp {
        origin: [0.0, 0.0, 0.0],
        ..StaticProp::default()
    });
    bsp
}

const ALPHATEST: &str = "\"VertexLitGeneric\" { \"$basetexture\" \"test/wires\" \"$alphatest\" \"1\" }";
const OPAQUE_MATERIAL: &str = "\"VertexLitGeneric\" { \"$basetexture\" \"test/wires\" }";

/// Of rays aimed square at each shadow triangle's centre: how many are blocked, and how
/// many textured triangles there were.
fn blocked(
    root: &std::path::Path,
    vmt: &'static str,
    alpha: u8,
    texture_shadows: bool,
) -> (usize, usize, usize) {
    let bsp = map_with_the_prop();
    let props = prop_shadows(&bsp, Some(&source(root, vmt, alpha)), true, texture_shadows);
    let occluders = occluders_with(&bsp, &[], &[], &[], &props);
    let mut n = 0;
    let mut hit = 0;
    for (t, _) in &props.triangles {
        let normal = (t[1] - t[0]).cross(t[2] - t[0]).normalize_or_zero();
        if normal == Vec3::ZERO {
            continue;
        }
        let centre = (t[0] + t[1] + t[2]) / 3.0;
        n += 1;
        let from = centre + normal * 8.0;
        if occluders.occluded(from.to_array(), (-normal).to_array(), 16.0) {
            hit += 1;
        }
    }
    (hit, n, props.textured.len())
}

#[test]
fn an_alphatest_prop_lets_light_through_its_clear_texels_only() {
    let Some(root) = srcmap_corpus::root("texture shadow tests") else {
        return;
    };
    if !root.join(MODEL_DIR).join(MODEL).exists() {
        eprintln!("{MODEL} not in the corpus: skipping");
        return;
    }
    // Clear texture, alpha-tested material: every textured triangle lets light through.
    let (hit, n, textured) = blocked(&root, ALPHATEST, 0, true);
    assert!(n > 10, "{n} triangles");
    assert_eq!(textured, n, "every triangle uses the alpha-tested material");
    assert_eq!(hit, 0, "light passes everywhere");
    // The same texture opaque: every ray is blocked.
    assert_eq!(blocked(&root, ALPHATEST, 255, true), (n, n, n));
    // A material without $alphatest / $translucent, or texture shadows off: plain shadows.
    assert_eq!(blocked(&root, OPAQUE_MATERIAL, 0, true), (n, n, 0));
    assert_eq!(blocked(&root, ALPHATEST, 0, false), (n, n, 0));
}
