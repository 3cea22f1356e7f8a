//! Purpose-built maps compiled with srcmap's vbsp: a sealed room with a step, a crate too high to
//! climb and a player-clip block, then the collision traces and the generated mesh checked
//! against what the geometry allows.

use srcmap_bsp::Bsp;
use srcmap_hull::{DIST_EPSILON, Hull, Vec3, World};
use srcmap_nav::NavMesh;
use srcmap_navgen::{Game, NavgenError, Options};
use srcmap_stage::NoProgress;
use srcmap_vmf::block_solid as block;

const WALL: &str = "DEV/DEV_MEASUREGENERIC01B";

/// The room: inside −512..512 in x and y, 0..256 in z; a 16-unit step at x 100..200, a 128-unit
/// crate at (−300..−200, −300..−200), a player-clip block at (300..400, 300..400).
fn room_vmf(spawn: Option<&str>) -> String {
    room(spawn, true)
}

/// The room, `sealed` or with its east wall left out (the outside reaches in).
fn room(spawn: Option<&str>, sealed: bool) -> String {
    let mut id = 1;
    let mut world = String::new();
    let shell = [
        ([-528, -528, -16], [528, 528, 0]),
        ([-528, -528, 256], [528, 528, 272]),
        ([-528, -528, 0], [-512, 528, 256]),
        ([512, -528, 0], [528, 528, 256]),
        ([-512, -528, 0], [512, -512, 256]),
        ([-512, 512, 0], [512, 528, 256]),
    ];
    for (i, (min, max)) in shell.into_iter().enumerate() {
        if sealed || i != 3 {
            world += &block(&mut id, min, max, WALL);
        }
    }
    world += &block(&mut id, [100, -100, 0], [200, 100, 16], WALL);
    world += &block(&mut id, [-300, -300, 0], [-200, -200, 128], WALL);
    world += &block(&mut id, [300, 300, 0], [400, 400, 128], "TOOLS/TOOLSPLAYERCLIP");
    let spawn = spawn.map_or(String::new(), |class| {
        format!("entity\n{{\n\t\"id\" \"900\"\n\t\"classname\" \"{class}\"\n\t\"origin\" \"-400 -400 8\"\n\t\"angles\" \"0 0 0\"\n}}\n")
    });
    format!("world\n{{\n\t\"id\" \"1\"\n\t\"classname\" \"worldspawn\"\n{world}}}\n{spawn}")
}

/// The room split by a wall at x −16..16 from the north wall to y 384 (full height), so the
/// halves meet only through the gap at its south end; a light over the west half at
/// (−400, −100, 200) when `lit`.
fn split_room(lit: bool) -> String {
    let text = room(Some("info_player_teamspawn"), true);
    let mut id = 500;
    let wall = block(&mut id, [-16, -512, 0], [16, 384, 256], WALL);
    let text = text.replacen("}\nentity", &format!("{wall}}}\nentity"), 1);
    let light = "entity\n{\n\t\"id\" \"901\"\n\t\"classname\" \"light\"\n\t\"origin\" \"-400 -100 200\"\n\t\"_light\" \"255 255 255 400\"\n}\n";
    if lit { text + light } else { text }
}

fn compile(text: &str) -> Bsp {
    let vmf = srcmap_vmf::Vmf::parse(text.to_string()).expect("the test map parses");
    let input = srcmap_vbsp::input_from_vmf(&vmf);
    let opts = srcmap_vbsp::Options {
        allow_leak: true,
        ..Default::default()
    };
    srcmap_vbsp::compile(&input, &opts, &srcmap_vbsp::NoProgress)
        .expect("compiles")
        .bsp
}

fn world_of(bsp: &Bsp) -> World {
    srcmap_hull::from_bsp(bsp).0.build()
}

fn generate(bsp: &Bsp, game: Game) -> Result<NavMesh, NavgenError> {
    generate_with(bsp, game, false)
}

fn generate_with(bsp: &Bsp, game: Game, analyze: bool) -> Result<NavMesh, NavgenError> {
    let world = world_of(bsp);
    srcmap_navgen::generate(bsp, &world, &options(game, analyze), &NoProgress).map(|g| g.mesh)
}

fn options(game: Game, analyze: bool) -> Options {
    Options {
        game,
        bsp_size: 1234,
        mask: game.trace_mask(),
        analyze,
        lightmaps: false,
    }
}

/// The highest area over (x, y) within 4 units of `z`.
fn area_at(mesh: &NavMesh, x: f32, y: f32, z: f32) -> Option<usize> {
    mesh.areas.iter().position(|a| {
        let inside =
            (a.nw_corner[0]..=a.se_corner[0]).contains(&x) && (a.nw_corner[1]..=a.se_corner[1]).contains(&y);
        inside && (a.nw_corner[2] - z).abs() < 4.0
    })
}

#[test]
fn box_traces_stop_on_brushes_and_pass_player_clip_for_npcs() {
    let bsp = compile(&room_vmf(Some("info_player_terrorist")));
    let world = world_of(&bsp);
    let player = Hull::new([-16.0, -16.0, 0.0], [16.0, 16.0, 72.0]);
    let npc = srcmap_hull::MASK_NPCSOLID_BRUSHONLY;
    let down = world.trace(
        &player,
        Vec3::new(150.0, 0.0, 100.0),
        Vec3::new(150.0, 0.0, -50.0),
        npc,
    );
    assert!(
        (down.end.z - (16.0 + DIST_EPSILON)).abs() < 0.01,
        "lands on the step: {down:?}"
    );
    assert_eq!(down.normal, Vec3::Z);
    // Walking east at floor level the box's east face meets the step's west face at x = 100.
    let walk = world.trace(&player, Vec3::new(0.0, 0.0, 1.0), Vec3::new(90.0, 0.0, 1.0), npc);
    assert!((walk.end.x - (84.0 - DIST_EPSILON)).abs() < 0.01, "{walk:?}");
    // Player clip stops players only.
    let through = |mask| {
        world.trace(
            &player,
            Vec3::new(250.0, 350.0, 10.0),
            Vec3::new(450.0, 350.0, 10.0),
            mask,
        )
    };
    assert_eq!(through(npc).fraction, 1.0);
    assert!(through(srcmap_hull::MASK_PLAYERSOLID_BRUSHONLY).fraction < 1.0);
    // A diagonal sweep at the step's corner stops where the box first touches it (the bevels
    // keep it from stopping short, out in the open).
    let diag = world.trace(
        &player,
        Vec3::new(60.0, 140.0, 1.0),
        Vec3::new(140.0, 60.0, 1.0),
        npc,
    );
    assert!(diag.fraction < 1.0, "{diag:?}");
    assert!(diag.end.x >= 84.0 - 0.1 && diag.end.y <= 116.0 + 0.1, "{diag:?}");
}

#[test]
fn the_mesh_covers_the_floor_the_step_and_player_clip_but_not_the_crate() {
    let bsp = compile(&room_vmf(Some("info_player_terrorist")));
    let mesh = generate(&bsp, Game::CounterStrike).expect("a mesh");
    assert_eq!(
        (mesh.version, mesh.sub_version, mesh.bsp_size),
        (9, None, Some(1234))
    );
    let floor = area_at(&mesh, -400.0, 400.0, 0.0).expect("floor area");
    let step = area_at(&mesh, 150.0, 0.0, 16.0).expect("area on the step");
    assert!(
        area_at(&mesh, 350.0, 350.0, 0.0).is_some(),
        "player clip is walkable for generation"
    );
    assert!(
        area_at(&mesh, -250.0, -250.0, 128.0).is_none(),
        "the crate is too high to climb"
    );
    assert!(
        area_at(&mesh, -250.0, -250.0, 0.0).is_none(),
        "no floor inside the crate"
    );
    assert!(reachable(&mesh, floor, step) && reachable(&mesh, step, floor));
    let bytes = mesh.write().expect("writes");
    let back = NavMesh::read(&bytes).expect("reads back");
    assert_eq!(back.write().expect("writes again"), bytes);
    assert_eq!(back.areas.len(), mesh.areas.len());
}

#[test]
fn tf2_treats_player_clip_as_solid_and_writes_16_2() {
    let bsp = compile(&room_vmf(Some("info_player_teamspawn")));
    let mesh = generate(&bsp, Game::Tf2).expect("a mesh");
    assert_eq!((mesh.version, mesh.sub_version), (16, Some(2)));
    assert!(area_at(&mesh, 350.0, 350.0, 0.0).is_none());
    assert!(area_at(&mesh, -400.0, 400.0, 0.0).is_some());
}

#[test]
fn a_leaked_map_is_refused() {
    let bsp = compile(&room(Some("info_player_terrorist"), false));
    assert!(matches!(
        generate(&bsp, Game::CounterStrike),
        Err(NavgenError::Leaked)
    ));
}

#[test]
fn a_map_without_spawn_points_is_refused() {
    let bsp = compile(&room_vmf(Some("info_target")));
    assert!(matches!(
        generate(&bsp, Game::CounterStrike),
        Err(NavgenError::NoSpawnPoint { .. })
    ));
}

/// Whether `to` can be reached from `from` over the mesh's connections.
fn reachable(mesh: &NavMesh, from: usize, to: usize) -> bool {
    let index = |id: u32| mesh.areas.iter().position(|a| a.id == id);
    let mut seen = vec![false; mesh.areas.len()];
    let mut todo = vec![from];
    while let Some(a) = todo.pop() {
        if std::mem::replace(&mut seen[a], true) {
            continue;
        }
        todo.extend(
            mesh.areas[a]
                .connections
                .iter()
                .flatten()
                .filter_map(|&id| index(id)),
        );
    }
    seen[to]
}

#[test]
fn the_rooms_corners_are_hiding_spots_in_cover_with_a_sniper_view_and_paths_meet_them() {
    let bsp = compile(&room_vmf(Some("info_player_terrorist")));
    let plain = generate(&bsp, Game::CounterStrike).expect("generates");
    assert!(plain.areas.iter().all(|a| a.hiding_spots.is_empty()));
    let mesh = generate_with(&bsp, Game::CounterStrike, true).expect("generates");
    let spots: Vec<_> = mesh.areas.iter().flat_map(|a| a.hiding_spots.clone()).collect();
    let ids: Vec<u32> = spots.iter().map(|s| s.id).collect();
    assert_eq!(ids, (1..=spots.len() as u32).collect::<Vec<_>>());
    // Each corner of the room holds a spot 12.5 units in from the mesh's corner (the walls
    // stand at ±512; the mesh ends on the last grid line before them, ±500).
    for (x, y) in [(-487.5, -487.5), (487.5, -487.5), (487.5, 487.5), (-487.5, 487.5)] {
        let spot = spots
            .iter()
            .find(|s| (s.position[0] - x).abs() < 1.0 && (s.position[1] - y).abs() < 1.0)
            .unwrap_or_else(|| panic!("no hiding spot at the corner ({x}, {y}): {spots:?}"));
        assert_eq!(spot.flags & 0x09, 0x01, "in cover, not exposed: {spot:?}");
        // The far corner lies ~1400 units away in plain sight: a sniper spot.
        assert_ne!(spot.flags & 0x06, 0, "a sniper class: {spot:?}");
    }
    // One encounter path per ordered pair of an area's connections, as in the game's files.
    for a in &mesh.areas {
        let k: usize = a.connections.iter().map(Vec::len).sum();
        assert_eq!(a.encounter_paths.len(), k * k.saturating_sub(1), "area {}", a.id);
    }
    let back = NavMesh::read(&mesh.write().expect("writes")).expect("reads back");
    assert_eq!(
        back.areas
            .iter()
            .map(|a| a.encounter_paths.clone())
            .collect::<Vec<_>>(),
        mesh.areas
            .iter()
            .map(|a| a.encounter_paths.clone())
            .collect::<Vec<_>>()
    );
    let spots_of = |m: &NavMesh| m.areas.iter().map(|a| a.hiding_spots.clone()).collect::<Vec<_>>();
    assert_eq!(spots_of(&back), spots_of(&mesh));
    the_terrorists_occupy_areas_no_faster_than_running_straight_there(&mesh);
}

/// The spawn (the map's only one, a terrorist's at (−400, −400)): its area is reached at
/// once, every area no sooner than a straight run at 240 units a second; counter-terrorists
/// have no spawn, so every area takes them the longest time (120 s).
fn the_terrorists_occupy_areas_no_faster_than_running_straight_there(mesh: &NavMesh) {
    let spawn = [-400.0f32, -400.0, 8.0];
    for a in &mesh.areas {
        let c = [
            (a.nw_corner[0] + a.se_corner[0]) / 2.0,
            (a.nw_corner[1] + a.se_corner[1]) / 2.0,
            (a.nw_corner[2] + a.se_corner[2]) / 2.0,
        ];
        let straight = c
            .iter()
            .zip(spawn)
            .map(|(a, b)| (a - b).powi(2))
            .sum::<f32>()
            .sqrt()
            / 240.0;
        let [t, ct] = a.earliest_occupy_time;
        assert!(
            t + 1e-3 >= straight && t < 120.0,
            "area {}: {t} s, straight {straight} s",
            a.id
        );
        assert_eq!(ct, 120.0);
    }
    let start = area_at(mesh, -400.0, -400.0, 0.0).expect("the spawn's area");
    assert!(mesh.areas[start].earliest_occupy_time[0] < 1.0);
}

/// Each area's visible areas (by index) with their attributes, the inherited lists resolved:
/// the anchor's entries, overridden by the area's own.
fn resolved_visibility(mesh: &NavMesh) -> Vec<std::collections::HashMap<usize, u8>> {
    let index = |id: u32| {
        mesh.areas
            .iter()
            .position(|a| a.id == id)
            .expect("a listed area exists")
    };
    let own = |a: &srcmap_nav::NavArea| -> Vec<(usize, u8)> {
        a.visible_areas
            .iter()
            .map(|v| (index(v.area), v.attributes))
            .collect()
    };
    mesh.areas
        .iter()
        .map(|a| {
            let mut seen = std::collections::HashMap::new();
            if a.inherit_visibility_from != 0 {
                let anchor = &mesh.areas[index(a.inherit_visibility_from)];
                assert_eq!(anchor.inherit_visibility_from, 0, "anchors inherit from none");
                seen.extend(own(anchor));
            }
            seen.extend(own(a));
            seen
        })
        .collect()
}

#[test]
fn areas_see_each_other_unless_a_wall_is_between_and_light_comes_from_the_lightmaps() {
    let mut bsp = compile(&split_room(true));
    let mesh = generate_with(&bsp, Game::Tf2, true).expect("generates");
    let vis = resolved_visibility(&mesh);
    let sees = |a: usize, b: usize| vis[a].get(&b).is_some_and(|&v| v != 0);
    let at = |x, y| area_at(&mesh, x, y, 0.0).unwrap_or_else(|| panic!("an area at ({x}, {y})"));
    // Areas wholly north of the gap, one each side of the wall: nothing between them but it.
    let north_of_gap = |a: &srcmap_nav::NavArea| a.se_corner[1] < 360.0;
    let side = |a: &srcmap_nav::NavArea| (a.se_corner[0] <= -16.0, a.nw_corner[0] >= 16.0);
    let hidden_pairs: Vec<(usize, usize)> = (0..mesh.areas.len())
        .flat_map(|a| (0..mesh.areas.len()).map(move |b| (a, b)))
        .filter(|&(a, b)| {
            let (a, b) = (&mesh.areas[a], &mesh.areas[b]);
            north_of_gap(a) && north_of_gap(b) && side(a).0 && side(b).1
        })
        .collect();
    assert!(!hidden_pairs.is_empty(), "the halves have areas north of the gap");
    for (a, b) in hidden_pairs {
        assert!(
            !sees(a, b) && !sees(b, a),
            "the wall hides {} and {}",
            mesh.areas[a].id,
            mesh.areas[b].id
        );
    }
    let (west, west_south) = (at(-400.0, -100.0), at(-400.0, 300.0));
    assert!(
        sees(west, west_south) && sees(west_south, west),
        "open floor in one half"
    );
    for (a, list) in vis.iter().enumerate() {
        assert_eq!(
            list.get(&a),
            Some(&2),
            "area {} sees itself completely",
            mesh.areas[a].id
        );
        for b in list.keys() {
            assert_eq!(sees(a, *b), sees(*b, a), "visibility is mutual ({a}, {b})");
        }
    }
    assert!(
        mesh.areas
            .iter()
            .all(|a| a.visible_areas.len() <= 64 || a.inherit_visibility_from == 0)
    );
    assert!(
        mesh.areas.iter().all(|a| a.light_intensity == [1.0; 4]),
        "1.0 unless asked"
    );
    let back = NavMesh::read(&mesh.write().expect("writes")).expect("reads back");
    assert_eq!(resolved_visibility(&back), vis);

    srcmap_vrad::light(
        &mut bsp,
        &srcmap_vrad::Options::default(),
        &srcmap_vrad::NoProgress,
    )
    .expect("lights");
    let world = world_of(&bsp);
    let options = Options {
        lightmaps: true,
        ..options(Game::Tf2, true)
    };
    let lit = srcmap_navgen::generate(&bsp, &world, &options, &NoProgress)
        .expect("generates")
        .mesh;
    let light = |x, y| {
        let a = &lit.areas[area_at(&lit, x, y, 0.0).expect("an area")];
        a.light_intensity.iter().sum::<f32>() / 4.0
    };
    let all = lit.areas.iter().flat_map(|a| a.light_intensity);
    assert!(
        all.clone().all(|l| (0.0..=1.0).contains(&l)),
        "intensities in 0..1"
    );
    assert!(
        light(-400.0, -100.0) > 0.5,
        "under the light: {}",
        light(-400.0, -100.0)
    );
    assert!(
        light(300.0, -300.0) < light(-400.0, -100.0) / 2.0,
        "behind the wall it is darker"
    );
}

/// The room with a staircase in its south-west: eight steps 16 high and 25 deep rising east
/// from x −440 (y 200..400), onto a landing 128 high that ends at x −150.
fn staircase_room(spawn: &str) -> String {
    let text = room(Some(spawn), true);
    let mut id = 600;
    let mut steps = String::new();
    for k in 0..8 {
        let x0 = -440 + 25 * k;
        let x1 = if k == 7 { -150 } else { x0 + 25 };
        steps += &block(&mut id, [x0, 200, 0], [x1, 400, 16 * (k + 1)], WALL);
    }
    text.replacen("}\nentity", &format!("{steps}}}\nentity"), 1)
}

#[test]
fn sdk_2013_marks_the_areas_over_steps_as_stairs_and_counter_strike_source_does_not() {
    let on_stairs = |mesh: &NavMesh| {
        mesh.areas
            .iter()
            .filter(|a| a.nw_corner[0] >= -450.0 && a.se_corner[0] <= -240.0 && a.nw_corner[1] >= 200.0)
            .filter(|a| a.se_corner[1] <= 400.0 && a.se_corner[0] - a.nw_corner[0] > 25.0)
            .map(|a| a.attributes)
            .collect::<Vec<u32>>()
    };
    let tf2 = generate(&compile(&staircase_room("info_player_teamspawn")), Game::Tf2).expect("generates");
    let stairs = on_stairs(&tf2);
    assert!(
        stairs.contains(&0x1000),
        "an area over the steps is stairs: {stairs:?}"
    );
    let floor = area_at(&tf2, 0.0, -400.0, 0.0).expect("open floor");
    assert_eq!(tf2.areas[floor].attributes & 0x1000, 0, "flat floor is no stairs");
    let css = generate(
        &compile(&staircase_room("info_player_terrorist")),
        Game::CounterStrike,
    )
    .expect("generates");
    assert!(css.areas.iter().all(|a| a.attributes & 0x1000 == 0));
    assert!(!on_stairs(&css).is_empty(), "the steps are walked");
}
