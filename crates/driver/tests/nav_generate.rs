//! `srcmap nav generate` on purpose-built maps compiled with srcmap's vbsp: a floor under a
//! balcony split along the balcony's edge as SDK 2013's generator does, and the maps it must
//! refuse (no spawn point, an empty world, a leak) refused by name with nothing written.

mod common;
mod nav_rooms;

use std::path::{Path, PathBuf};

use srcmap_driver::{NavgenJob, navgen};
use srcmap_nav::{NavArea, NavMesh};

/// A room (inside −512..512 × −256..256 × 0..256) with a balcony 16 thick whose top stands 100
/// up over its west part (x −512..−100), spawn points of TF2 and Counter-Strike on the
/// balcony: one drops east off the balcony's edge onto the floor, which runs on under it.
fn balcony_room() -> String {
    let mut blocks = nav_rooms::shell([-512, -256, 0], [512, 256, 256]).to_vec();
    blocks.push(([-512, -256, 84], [-100, 256, 100]));
    nav_rooms::map_text(
        &blocks,
        &[
            ("info_player_teamspawn", [-400, 0, 108], ""),
            ("info_player_terrorist", [-400, 100, 108], ""),
        ],
    )
}

/// The mesh of `bsp` generated for `target`, read back from the file written.
fn generated(bsp: &Path, target: &str) -> NavMesh {
    let out = bsp.with_file_name(format!("{target}.nav"));
    let job = NavgenJob {
        bsp: bsp.to_path_buf(),
        output: Some(out.clone()),
        target: Some(target.into()),
        ..Default::default()
    };
    navgen(&job, &srcmap_stage::NoProgress).unwrap();
    NavMesh::read(&std::fs::read(out).unwrap()).unwrap()
}

fn height(a: &NavArea) -> f32 {
    a.nw_corner[2]
}

/// Whether two areas overlap in x and y (more than along an edge).
fn overlapping(a: &NavArea, b: &NavArea) -> bool {
    let apart = |k: usize| a.se_corner[k] <= b.nw_corner[k] || b.se_corner[k] <= a.nw_corner[k];
    !apart(0) && !apart(1)
}

/// Each (upper, lower) pair of areas connected either way that overlap in x and y, the upper
/// on the balcony (z 100), the lower on the floor.
fn overhanging_links(mesh: &NavMesh) -> Vec<(u32, u32)> {
    let by_id = |id: u32| mesh.areas.iter().find(|a| a.id == id).unwrap();
    let mut out = Vec::new();
    for a in &mesh.areas {
        for b in a.connections.iter().flatten().map(|&id| by_id(id)) {
            let (up, low) = if height(a) > height(b) { (a, b) } else { (b, a) };
            if height(up) > 90.0 && height(low) < 10.0 && overlapping(up, low) {
                out.push((up.id, low.id));
            }
        }
    }
    out
}

/// The floor areas (z 0) reached from the balcony areas over the mesh's connections.
fn floor_reached_from_balcony(mesh: &NavMesh) -> Vec<&NavArea> {
    let mut seen: Vec<u32> = mesh
        .areas
        .iter()
        .filter(|a| height(a) > 90.0)
        .map(|a| a.id)
        .collect();
    let mut todo = seen.clone();
    while let Some(id) = todo.pop() {
        let area = mesh.areas.iter().find(|a| a.id == id).unwrap();
        for &next in area.connections.iter().flatten() {
            if !seen.contains(&next) {
                seen.push(next);
                todo.push(next);
            }
        }
    }
    mesh.areas
        .iter()
        .filter(|a| seen.contains(&a.id) && height(a) < 10.0)
        .collect()
}

#[test]
fn the_floor_under_a_balcony_is_split_along_the_balconys_edge() {
    let bsp = nav_rooms::compile("nav-generate", &balcony_room(), None, false);
    // For Counter-Strike: Source srcmap does not split (SDK 2013's step; whether the 2006
    // generator behind its v9 files split is not known): there the balcony drops onto a floor
    // area running on under it, so the map does have an overhang to split.
    let before = generated(&bsp, "cstrike");
    assert!(!overhanging_links(&before).is_empty(), "the map has an overhang");
    let mesh = generated(&bsp, "tf");
    assert_eq!(
        overhanging_links(&mesh),
        vec![],
        "no balcony area links to a floor area under it"
    );
    let balcony_edge = mesh
        .areas
        .iter()
        .filter(|a| height(a) > 90.0)
        .map(|a| a.se_corner[0])
        .fold(f32::MIN, f32::max);
    assert!((-125.0..=-75.0).contains(&balcony_edge), "{balcony_edge}");
    let floor = floor_reached_from_balcony(&mesh);
    let straddling: Vec<_> = floor
        .iter()
        .filter(|a| a.nw_corner[0] < balcony_edge && a.se_corner[0] > balcony_edge)
        .collect();
    assert!(straddling.is_empty(), "cut at x {balcony_edge}: {straddling:?}");
    let under = |x: f32| floor.iter().any(|a| a.nw_corner[0] <= x && a.se_corner[0] >= x);
    assert!(
        under(-300.0) && under(300.0),
        "the floor under the balcony and beyond it is reached, over the split"
    );
}

/// Runs `nav generate` on `bsp` for TF2 and returns its error's text, checking that no file
/// was written.
fn refused(bsp: &Path) -> String {
    let out = bsp.with_extension("nav");
    let job = NavgenJob {
        bsp: bsp.to_path_buf(),
        target: Some("tf".into()),
        ..Default::default()
    };
    let error = navgen(&job, &srcmap_stage::NoProgress).expect_err("refused");
    assert!(!out.exists(), "nothing written for {}", bsp.display());
    let text = error.to_string();
    assert!(
        text.starts_with(&bsp.display().to_string()),
        "names the map: {text}"
    );
    text
}

/// A sealed room with a spawn point of `class`; with its east wall left out when `leaking`.
fn plain_room(class: &str, leaking: bool) -> PathBuf {
    let mut blocks = nav_rooms::shell([-256, -256, 0], [256, 256, 128]).to_vec();
    if leaking {
        blocks.remove(3);
    }
    let text = nav_rooms::map_text(&blocks, &[(class, [-200, -200, 8], "")]);
    nav_rooms::compile("nav-generate", &text, None, leaking)
}

#[test]
fn a_map_without_a_spawn_point_is_refused() {
    let text = refused(&plain_room("info_target", false));
    assert!(
        text.contains("no spawn point") && text.contains("info_player_teamspawn"),
        "{text}"
    );
}

#[test]
fn a_leaked_map_is_refused() {
    let text = refused(&plain_room("info_player_teamspawn", true));
    assert!(text.contains("leaked"), "{text}");
}

#[test]
fn a_map_whose_world_has_no_brushes_is_refused() {
    // vbsp refuses a world without brushes; such a file is made by taking them out of one.
    let bsp = plain_room("info_player_teamspawn", false);
    let mut map = srcmap_bsp::Bsp::parse(&std::fs::read(&bsp).unwrap()).unwrap();
    map.brushes.clear();
    map.brush_sides.clear();
    map.leaf_brushes.clear();
    for leaf in &mut map.leafs {
        (leaf.first_leaf_brush, leaf.num_leaf_brushes) = (0, 0);
    }
    let empty = bsp.with_file_name("empty.bsp");
    std::fs::write(&empty, map.to_document().unwrap().to_bytes().unwrap()).unwrap();
    let text = refused(&empty);
    assert!(text.contains("empty world"), "{text}");
}
