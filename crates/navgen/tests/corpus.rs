//! Generated meshes against the meshes the games made for the same builds of corpus maps:
//! the same version and sub-version, as many ladders of the same facing and length, an area
//! count of the same order, and the real areas' centres walkable in ours. Skips without
//! `SRCMAP_CORPUS`.

use srcmap_bsp::Bsp;
use srcmap_nav::NavMesh;
use srcmap_navgen::{Game, Options};
use srcmap_stage::NoProgress;

/// Each ladder's facing and length (as created: the game keeps the length when it snaps the top).
fn ladder_shapes(mesh: &NavMesh) -> Vec<(u32, i32)> {
    let ladders = mesh.ladders.iter().flatten();
    ladders.map(|l| (l.direction, l.length.round() as i32)).collect()
}

/// Per ladder, whether its top is joined to any area (forward, left or right).
fn joined_tops(mesh: &NavMesh) -> Vec<bool> {
    let ladders = mesh.ladders.iter().flatten();
    ladders
        .map(|l| l.top_forward_area + l.top_left_area + l.top_right_area > 0)
        .collect()
}

/// (BSP, its real NAV), both under the corpus root.
const PAIRS: [(&str, &str); 3] = [
    (
        "bsp/lanofdoom+counterstrikesource-maps/aim_ag_texture_city.bsp",
        "nav/lanofdoom+counterstrikesource-maps/aim_ag_texture_city.nav",
    ),
    (
        "bsp/lanofdoom+counterstrikesource-maps/cs_crackhouse.bsp",
        "nav/lanofdoom+counterstrikesource-maps/cs_crackhouse.nav",
    ),
    (
        "bsp/iassis+tf2-fastdl/mvm_kelly_rc1b.bsp",
        "nav/iassis+tf2-fastdl/mvm_kelly_rc1b.nav",
    ),
];

fn generated(bsp_bytes: &[u8]) -> NavMesh {
    let bsp = Bsp::parse(bsp_bytes).expect("corpus BSP parses");
    let game = Game::guess(&bsp);
    let world = srcmap_hull::from_bsp(&bsp).0.build();
    let options = Options {
        game,
        bsp_size: bsp_bytes.len() as u32,
        mask: game.trace_mask(),
        analyze: false,
        lightmaps: false,
    };
    srcmap_navgen::generate(&bsp, &world, &options, &NoProgress)
        .expect("generates")
        .mesh
}

/// Whether some area of `mesh` lies under (x, y) within a step of `z`.
fn walkable(mesh: &NavMesh, x: f32, y: f32, z: f32) -> bool {
    mesh.areas.iter().any(|a| {
        let inside =
            (a.nw_corner[0]..=a.se_corner[0]).contains(&x) && (a.nw_corner[1]..=a.se_corner[1]).contains(&y);
        let (lo, hi) = a.bounds();
        inside && z >= lo[2] - 18.0 && z <= hi[2] + 18.0
    })
}

#[test]
fn generated_meshes_agree_with_the_games_own() {
    let Some(_) = srcmap_corpus::root("navgen corpus pairs") else {
        return;
    };
    for (bsp_path, nav_path) in PAIRS {
        let (Some(bsp), Some(nav)) = (srcmap_corpus::read(bsp_path), srcmap_corpus::read(nav_path)) else {
            panic!("{bsp_path} or {nav_path} missing from the corpus");
        };
        let real = NavMesh::read(&nav).expect("real NAV reads");
        let ours = NavMesh::read(&generated(&bsp).write().expect("writes")).expect("ours reads back");
        assert_eq!(
            (ours.version, ours.sub_version),
            (real.version, real.sub_version),
            "{bsp_path}"
        );
        assert_eq!(ours.bsp_size, Some(bsp.len() as u32));
        let count = |m: &NavMesh| m.ladders.as_ref().map_or(0, Vec::len);
        assert_eq!(count(&ours), count(&real), "{bsp_path}: ladders");
        assert_eq!(ladder_shapes(&ours), ladder_shapes(&real), "{bsp_path}: ladders");
        // The game leaves some ladder tops unjoined (its area grid does not list merged areas
        // where they grew); ours may differ on one (its merge order is not the game's).
        let (a, b) = (joined_tops(&ours), joined_tops(&real));
        let differing = a.iter().zip(&b).filter(|(x, y)| x != y).count();
        assert!(
            differing <= 1,
            "{bsp_path}: ladder tops joined {a:?}, the game's {b:?}"
        );
        let ratio = ours.areas.len() as f64 / real.areas.len() as f64;
        assert!(
            (0.5..=2.0).contains(&ratio),
            "{bsp_path}: {} areas against {}",
            ours.areas.len(),
            real.areas.len()
        );
        let covered = real.areas.iter().filter(|a| {
            let (x, y) = (
                (a.nw_corner[0] + a.se_corner[0]) / 2.0,
                (a.nw_corner[1] + a.se_corner[1]) / 2.0,
            );
            walkable(&ours, x, y, (a.nw_corner[2] + a.se_corner[2]) / 2.0)
        });
        let share = covered.count() as f64 / real.areas.len() as f64;
        assert!(
            share >= 0.85,
            "{bsp_path}: {share:.3} of the real areas' centres walkable in ours"
        );
    }
}
