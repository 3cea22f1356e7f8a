//! Static props in the navigation generator's collision world: a purpose-built room holding the
//! corpus chair `bluewoodnchair` (its model found through `--game`), which collides by its
//! `.phy` pieces with `solid` 6 and by its model's box with `solid` 2.

mod common;
mod nav_rooms;

use std::path::{Path, PathBuf};

use srcmap_driver::navgen::{PropSolids, collision_world};
use srcmap_hull::{Hull, Vec3, World};

const CHAIR: &str = "models/bluechaire/bluewoodnchair.mdl";

/// The corpus folder whose `models/` holds the chair; none (and a message) without the corpus.
fn chair_game() -> Option<PathBuf> {
    let Some(corpus) = std::env::var_os("SRCMAP_CORPUS") else {
        eprintln!("SRCMAP_CORPUS is not set: the static prop collision tests are skipped");
        return None;
    };
    Some(PathBuf::from(corpus).join("model/kane8kki+whohl2mod"))
}

/// A sealed room (inside −256..256 in x and y, 0..128 in z) with a TF2 spawn point and the chair
/// standing at the centre of the floor, turned by `yaw`, of the given `solid` type.
fn room_with_chair(solid: u8, yaw: i32) -> String {
    let chair = format!("\"angles\" \"0 {yaw} 0\"\n\"model\" \"{CHAIR}\"\n\"solid\" \"{solid}\"\n");
    nav_rooms::map_text(
        &nav_rooms::shell([-256, -256, 0], [256, 256, 128]),
        &[
            ("info_player_teamspawn", [-200, -200, 8], ""),
            ("prop_static", [0, 0, 0], &chair),
        ],
    )
}

/// The room compiled (by srcmap's vbsp, the chair's model found through `game`) in a folder of
/// its own: the BSP's path.
fn compiled_chair_room(game: &Path, solid: u8, yaw: i32) -> PathBuf {
    nav_rooms::compile("nav-props", &room_with_chair(solid, yaw), Some(game), false)
}

/// The compiled room's collision world, built with `--game` as `nav_game` says.
fn chair_world(game: &Path, solid: u8, yaw: i32, nav_game: Option<&Path>) -> (World, PropSolids) {
    let bytes = std::fs::read(compiled_chair_room(game, solid, yaw)).unwrap();
    let bsp = srcmap_bsp::Bsp::parse(&bytes).unwrap();
    let (world, _, props) = collision_world(&bsp, nav_game).unwrap();
    (world, props)
}

/// How far a line from `from` to `to` gets before it hits something (`None`: nothing).
fn hit(world: &World, from: Vec3, to: Vec3) -> Option<f32> {
    let t = world.trace(&Hull::POINT, from, to, 1);
    (t.fraction < 1.0).then(|| (t.end - from).length())
}

/// Lines from 100 units out towards the chair's middle at 20 units up, from each side, and
/// down onto it from above.
fn approaches() -> Vec<(Vec3, Vec3)> {
    let middle = Vec3::new(0.0, 0.0, 20.0);
    let sides = [Vec3::X, Vec3::NEG_X, Vec3::Y, Vec3::NEG_Y].map(|d| (middle + d * 100.0, middle));
    [
        sides.as_slice(),
        &[(Vec3::new(0.0, 0.0, 120.0), Vec3::new(0.0, 0.0, 1.0))],
    ]
    .concat()
}

#[test]
fn a_vphysics_prop_collides_by_its_phy_inside_its_models_box_turned_as_the_prop() {
    let Some(game) = chair_game() else { return };
    for yaw in [0, 90, 30] {
        let (phy, props) = chair_world(&game, 6, yaw, Some(&game));
        assert_eq!(
            (props.phy, props.boxes, props.missing.len()),
            (1, 0, 0),
            "{props:?}"
        );
        assert!(props.phy_pieces >= 1);
        let (boxed, props) = chair_world(&game, 2, yaw, Some(&game));
        assert_eq!((props.phy, props.boxes), (0, 1), "solid 2 stays a box: {props:?}");
        for (from, to) in approaches() {
            let (by_phy, by_box) = (hit(&phy, from, to), hit(&boxed, from, to));
            let (Some(by_phy), Some(by_box)) = (by_phy, by_box) else {
                panic!("yaw {yaw}: {from} → {to} passes the chair: phy {by_phy:?}, box {by_box:?}");
            };
            // The .phy (metres, IVP's axes) converted right lies within the model header's
            // hull box, short of each face by no more than IVP's collision margin.
            let inset = by_phy - by_box;
            assert!(
                (0.0..0.5).contains(&inset),
                "yaw {yaw}: {from} → {to}: phy {by_phy} box {by_box}"
            );
        }
    }
}

#[test]
fn a_line_between_the_phy_and_the_box_passes_only_with_phy_collision() {
    let Some(game) = chair_game() else { return };
    let (phy, _) = chair_world(&game, 6, 0, Some(&game));
    let (boxed, _) = chair_world(&game, 2, 0, Some(&game));
    let east = |w: &World| 100.0 - hit(w, Vec3::new(100.0, 0.0, 20.0), Vec3::new(0.0, 0.0, 20.0)).unwrap();
    let x = (east(&phy) + east(&boxed)) / 2.0;
    let (from, to) = (Vec3::new(x, 0.0, 120.0), Vec3::new(x, 0.0, 1.0));
    assert_eq!(hit(&phy, from, to), None, "at x {x} the phy solid is not reached");
    assert!(hit(&boxed, from, to).is_some(), "at x {x} the box is");
    let seat = hit(&phy, Vec3::new(0.0, 0.0, 120.0), Vec3::new(0.0, 0.0, 1.0));
    assert!(
        seat.is_some_and(|d| d < 119.0),
        "a line down through the seat stops on it: {seat:?}"
    );
}

#[test]
fn a_solid_prop_whose_model_is_not_found_is_left_out_and_named() {
    let Some(game) = chair_game() else { return };
    let (world, props) = chair_world(&game, 6, 0, None);
    assert_eq!(props.missing, vec![CHAIR.to_string()]);
    assert_eq!((props.phy, props.boxes), (0, 0));
    assert_eq!(
        hit(&world, Vec3::new(0.0, 0.0, 120.0), Vec3::new(0.0, 0.0, 1.0)),
        None
    );
}

/// Whether an area lies on the floor (z 0) over the chair's middle.
fn floor_under_chair(mesh: &srcmap_nav::NavMesh) -> bool {
    mesh.areas.iter().any(|a| {
        let over = |i: usize| (a.nw_corner[i]..=a.se_corner[i]).contains(&0.0);
        over(0) && over(1) && a.nw_corner[2].abs() < 4.0
    })
}

#[test]
fn nav_generate_counts_the_chair_as_phy_with_game_and_warns_without() {
    let Some(game) = chair_game() else { return };
    let bsp = compiled_chair_room(&game, 6, 0);
    let run = |game_dir: Option<PathBuf>, out: &str| {
        let job = srcmap_driver::NavgenJob {
            bsp: bsp.clone(),
            output: Some(bsp.with_file_name(out)),
            game_dir,
            target: Some("tf".into()),
            ..Default::default()
        };
        let report = srcmap_driver::navgen(&job, &srcmap_stage::NoProgress)
            .unwrap()
            .report;
        let mesh = srcmap_nav::NavMesh::read(&std::fs::read(bsp.with_file_name(out)).unwrap()).unwrap();
        (report, floor_under_chair(&mesh))
    };
    let (with, floor) = run(Some(game.clone()), "with.nav");
    assert!(!floor, "no area is walked on the floor under the chair");
    let counts = [
        "solid_props",
        "props_as_phy",
        "props_as_boxes",
        "props_without_model",
    ];
    assert_eq!(counts.map(|c| with.count(c)), [1, 1, 0, 0]);
    assert!(with.warnings.iter().all(|w| w.code != "prop_model_missing"));
    assert!(with.warnings.iter().all(|w| w.code != "prop_phy_unusable"));
    assert_eq!(with.count("props_without_phy"), 0);
    let (without, floor) = run(None, "without.nav");
    assert!(
        floor,
        "without its model the chair does not block, and the floor under it is walked"
    );
    assert_eq!(counts.map(|c| without.count(c)), [0, 0, 0, 1]);
    assert!(
        without
            .warnings
            .iter()
            .any(|w| w.code == "prop_model_missing" && w.message.contains(CHAIR))
    );
}

/// A `.phy` cut short: its header (16 bytes, one solid) and the start of a solid that says it
/// holds 200 bytes but ends after 12.
fn truncated_phy() -> Vec<u8> {
    let mut bytes: Vec<u8> = [16i32, 0, 1, 0, 200]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    bytes.extend_from_slice(b"VPHY\0\x01\0\0\0\0\0\0");
    bytes
}

/// A game folder of its own holding the chair's model (copied from `game`) and, as `phy` says,
/// no `.phy` or these bytes as its `.phy`.
fn game_with_chair_phy(game: &Path, name: &str, phy: Option<&[u8]>) -> PathBuf {
    let dir = common::fresh_dir("nav-props-game", name);
    let mdl = dir.join(CHAIR);
    std::fs::create_dir_all(mdl.parent().unwrap()).unwrap();
    std::fs::copy(game.join(CHAIR), &mdl).unwrap();
    if let Some(bytes) = phy {
        std::fs::write(mdl.with_extension("phy"), bytes).unwrap();
    }
    dir
}

#[test]
fn a_vphysics_prop_without_a_readable_phy_collides_as_its_box_and_is_named() {
    let Some(game) = chair_game() else { return };
    let truncated = truncated_phy();
    let cases = [
        ("missing", None, "its .phy is missing"),
        (
            "truncated",
            Some(truncated.as_slice()),
            "bluewoodnchair.phy is unreadable",
        ),
    ];
    let bsp = compiled_chair_room(&game, 6, 0);
    let bytes = std::fs::read(&bsp).unwrap();
    let parsed = srcmap_bsp::Bsp::parse(&bytes).unwrap();
    for (name, phy, why) in cases {
        let nav_game = game_with_chair_phy(&game, name, phy);
        let (world, _, props) = collision_world(&parsed, Some(&nav_game)).unwrap();
        assert_eq!((props.phy, props.boxes), (0, 1), "{name}: {props:?}");
        assert!(props.missing.is_empty(), "{name}: the model itself was found");
        assert_eq!(props.without_phy.len(), 1, "{name}: {props:?}");
        assert!(
            props.without_phy[0].contains(CHAIR) && props.without_phy[0].contains(why),
            "{name}: {props:?}"
        );
        let seat = hit(&world, Vec3::new(0.0, 0.0, 120.0), Vec3::new(0.0, 0.0, 1.0));
        assert!(seat.is_some(), "{name}: the box blocks");
        let job = srcmap_driver::NavgenJob {
            bsp: bsp.clone(),
            output: Some(bsp.with_file_name(format!("{name}.nav"))),
            game_dir: Some(nav_game),
            target: Some("tf".into()),
            ..Default::default()
        };
        let report = srcmap_driver::navgen(&job, &srcmap_stage::NoProgress)
            .unwrap()
            .report;
        assert_eq!(report.count("props_without_phy"), 1, "{name}");
        let warned = report
            .warnings
            .iter()
            .any(|w| w.code == "prop_phy_unusable" && w.message.contains(CHAIR) && w.message.contains(why));
        assert!(warned, "{name}: {:?}", report.warnings);
    }
}
