//! Golden tests: our own small maps (compiled from `testdata/maps/*.vmf` by `srcmap compile
//! --no-rad`, so with visibility, and stored under `tests/golden/`), given a set of lights,
//! lit with one thread and every verify check; the dumps of the light list and of each face's
//! lightmap are compared with the stored ones. `SRCMAP_BLESS=1` rewrites them.

use std::path::PathBuf;

use srcmap_bsp::{Bsp, Entity};
use srcmap_vrad::lights::{Range, parse_lights};
use srcmap_vrad::{NoProgress, Options, Threads, counts, dump};

fn golden_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

/// Compares `actual` with `tests/golden/NAME` (or writes it with `SRCMAP_BLESS=1`).
fn check_golden(name: &str, actual: &str) {
    srcmap_corpus::golden::check(&golden_dir().join(name), actual);
}

fn entity(pairs: &[(&str, &str)]) -> Entity {
    Entity::from_pairs(pairs)
}

/// Lights of every kind inside the 512 × 512 × 256 room both maps share: a plain point light,
/// a spot light aimed down, a named light with the switchable style 32 vbsp gives it, one with an explicit style
/// and a hard fifty/zero-percent falloff, and a sun with sky ambient.
fn room_lights() -> Vec<Entity> {
    vec![
        entity(&[
            ("classname", "light"),
            ("origin", "-128 -128 200"),
            ("_light", "255 240 200 250"),
            ("_quadratic_attn", "1"),
        ]),
        entity(&[
            ("classname", "light_spot"),
            ("origin", "128 128 220"),
            ("angles", "-90 0 0"),
            ("_light", "200 220 255 400"),
            ("_inner_cone", "30"),
            ("_cone", "45"),
            ("_exponent", "2"),
            ("_linear_attn", "1"),
        ]),
        entity(&[
            ("classname", "light"),
            ("targetname", "lamp"),
            ("style", "32"),
            ("origin", "128 -128 64"),
            ("_light", "255 64 64 150"),
        ]),
        entity(&[
            ("classname", "light"),
            ("style", "5"),
            ("origin", "-128 128 64"),
            ("_light", "64 255 64 200"),
            ("_fifty_percent_distance", "128"),
            ("_zero_percent_distance", "384"),
            ("_hardfalloff", "1"),
        ]),
        entity(&[
            ("classname", "light_environment"),
            ("origin", "0 0 240"),
            ("angles", "-45 30 0"),
            ("pitch", "-45"),
            ("_light", "255 255 230 300"),
            ("_ambient", "150 170 255 40"),
        ]),
    ]
}

/// The map with `room_lights` added to its entities.
fn lit_map(name: &str) -> Bsp {
    let bytes = std::fs::read(golden_dir().join(format!("{name}.bsp"))).expect("golden map readable");
    let mut bsp = Bsp::parse(&bytes).expect("golden map parses");
    assert!(
        bsp.visibility.as_ref().is_some_and(|v| v.num_clusters > 0),
        "{name}: compiled with vis, so light bounces"
    );
    bsp.entities.extend(room_lights());
    bsp
}

fn options(threads: usize) -> Options {
    Options {
        threads: Threads(threads),
        verify: true,
        ..Options::default()
    }
}

fn golden_map(name: &str) {
    let mut bsp = lit_map(name);
    let (lights, _) = parse_lights(&bsp.entities, Range::Ldr);
    check_golden(&format!("{name}.lights.txt"), &dump::lights(&lights));
    let report = srcmap_vrad::light(&mut bsp, &options(1), &NoProgress).expect("lights");
    assert_eq!(report.stage, "vrad");
    assert_eq!(report.count(counts::LIGHTS), lights.len() as u64);
    assert!(report.count(counts::BOUNCES_DONE) > 0, "{name}: light bounced");
    check_golden(&format!("{name}.faces.txt"), &dump::face_lightmaps(&bsp, false));
}

#[test]
fn box_room() {
    golden_map("box_room");
}

#[test]
fn features() {
    golden_map("features");
}

#[test]
fn the_lightmap_dump_does_not_depend_on_the_thread_count() {
    let mut one = lit_map("features");
    let mut four = one.clone();
    srcmap_vrad::light(&mut one, &options(1), &NoProgress).expect("lights");
    srcmap_vrad::light(&mut four, &options(4), &NoProgress).expect("lights");
    assert_eq!(one.lighting, four.lighting);
    assert_eq!(
        dump::face_lightmaps(&one, false),
        dump::face_lightmaps(&four, false)
    );
}

/// The features map with sprites on the floor under each room light (the switchable one
/// gives its sprite a style entry), lit, then its detail props' dump.
#[test]
fn features_detail_props() {
    use srcmap_bsp::gamelump::{DetailObject, DetailProps, DetailSprite, GameLump, GameLumpData};
    let mut bsp = lit_map("features");
    let sprites = vec![DetailSprite {
        ul: [-8.0, 16.0],
        lr: [8.0, 0.0],
        ..DetailSprite::default()
    }];
    let objects = [
        [-128.0, -128.0, 1.0],
        [128.0, -128.0, 1.0],
        [-128.0, 128.0, 1.0],
        [0.0, 0.0, 1.0],
    ]
    .map(|origin| DetailObject {
        origin,
        kind: 1,
        scale: 1.0,
        ..DetailObject::default()
    })
    .to_vec();
    let detail = DetailProps {
        sprites,
        objects,
        ..DetailProps::default()
    };
    match bsp
        .game_lumps
        .lumps
        .iter_mut()
        .find(|l| matches!(l.data, GameLumpData::DetailProps(_)))
    {
        Some(l) => l.data = GameLumpData::DetailProps(detail),
        None => bsp.game_lumps.lumps.push(GameLump {
            id: srcmap_bsp::gamelump::DPRP,
            flags: 0,
            version: 4,
            data: GameLumpData::DetailProps(detail),
        }),
    }
    let report = srcmap_vrad::light(&mut bsp, &options(1), &NoProgress).expect("lights");
    assert_eq!(report.count(counts::DETAIL_PROPS_LIT), 4);
    check_golden("features.detail.txt", &dump::detail_props(&bsp, false));
}

/// The features map with the corpus's chair standing in the room, lit with per-vertex
/// static-prop lighting, then its `.vhv` dump (skipped without the corpus).
#[test]
fn features_static_prop_lighting() {
    use srcmap_bsp::gamelump::StaticProp;
    let Some(corpus) = std::env::var_os("SRCMAP_CORPUS") else {
        eprintln!("SRCMAP_CORPUS not set; skipping");
        return;
    };
    let root = PathBuf::from(corpus).join("model/kane8kki+whohl2mod");
    let mut bsp = lit_map("features");
    let sp = bsp.game_lumps.static_props_mut().expect("an sprp lump");
    sp.models.push("models/bluechaire/bluewoodnchair.mdl".to_string());
    sp.props.push(StaticProp {
        origin: [0.0, 0.0, 1.0],
        angles: [0.0, 30.0, 0.0],
        ..StaticProp::default()
    });
    let options = Options {
        models: Some(srcmap_vrad::ModelSource(std::sync::Arc::new(move |p: &str| {
            std::fs::read(root.join(p)).ok()
        }))),
        static_prop_lighting: true,
        ..options(1)
    };
    let report = srcmap_vrad::light(&mut bsp, &options, &NoProgress).expect("lights");
    assert_eq!(report.count(counts::VHV_FILES), 1);
    check_golden("features.vhv.txt", &dump::static_prop_lighting(&bsp));
}
