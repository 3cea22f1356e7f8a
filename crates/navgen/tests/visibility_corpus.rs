//! The visibility analysis run on the game's own areas of mvm_kelly_rc1b (same build), so the
//! lists compare area for area with the game's, whatever our mesh's areas are. Skips without
//! `SRCMAP_CORPUS`; slow (a minute or more of CPU), so ignored unless asked for.

use std::collections::{HashMap, HashSet};

use srcmap_bsp::Bsp;
use srcmap_nav::NavMesh;
use srcmap_navgen::areas::Area;
use srcmap_navgen::grid::Listing;
use srcmap_navgen::sample::Space;
use srcmap_navgen::{Game, pvs, visibility};

const BSP: &str = "bsp/iassis+tf2-fastdl/mvm_kelly_rc1b.bsp";
const NAV: &str = "nav/iassis+tf2-fastdl/mvm_kelly_rc1b.nav";

/// The game's area as the generator's, listed in file order.
fn area_of(a: &srcmap_nav::NavArea, order: u32) -> Area {
    let (min, max) = ([a.nw_corner[0], a.nw_corner[1]], [a.se_corner[0], a.se_corner[1]]);
    Area {
        min,
        max,
        z: [a.nw_corner[2], a.ne_z, a.se_corner[2], a.sw_z],
        attributes: 0,
        nodes: Vec::new(),
        listing: Listing { order, min, max },
    }
}

/// Each area's visible areas (by index), inherited entries resolved, not-visible ones dropped.
fn resolved(lists: &[Vec<(u32, u8)>], inherit: &[Option<u32>]) -> Vec<HashMap<u32, u8>> {
    (0..lists.len())
        .map(|i| {
            let mut seen: HashMap<u32, u8> = HashMap::new();
            if let Some(anchor) = inherit[i] {
                seen.extend(lists[anchor as usize].iter().copied());
            }
            seen.extend(lists[i].iter().copied());
            seen.retain(|_, v| *v != visibility::NOT_VISIBLE);
            seen
        })
        .collect()
}

/// The game's areas as the generator's and their connections, by index in file order.
fn games_areas(real: &NavMesh, index: &HashMap<u32, u32>) -> (Vec<Area>, Vec<[Vec<u32>; 4]>) {
    let areas = real.areas.iter().zip(0..).map(|(a, i)| area_of(a, i)).collect();
    let links = real
        .areas
        .iter()
        .map(|a| {
            a.connections
                .clone()
                .map(|l| l.iter().map(|id| index[id]).collect())
        })
        .collect();
    (areas, links)
}

/// The game's own lists, resolved, by index.
fn games_lists(real: &NavMesh, index: &HashMap<u32, u32>) -> Vec<HashMap<u32, u8>> {
    let lists: Vec<Vec<(u32, u8)>> = real
        .areas
        .iter()
        .map(|a| {
            a.visible_areas
                .iter()
                .map(|v| (index[&v.area], v.attributes))
                .collect()
        })
        .collect();
    let inherit: Vec<Option<u32>> = real
        .areas
        .iter()
        .map(|a| index.get(&a.inherit_visibility_from).copied())
        .collect();
    resolved(&lists, &inherit)
}

/// Visible (area, area) pairs: in both, only ours, only the game's; and for those in both, how
/// many of each (game's attributes, ours).
fn compare(ours: &[HashMap<u32, u8>], game: &[HashMap<u32, u8>]) -> ([usize; 3], HashMap<(u8, u8), usize>) {
    let (mut counts, mut attributes) = ([0; 3], HashMap::new());
    for (o, g) in ours.iter().zip(game) {
        let (ok, gk): (HashSet<u32>, HashSet<u32>) =
            (o.keys().copied().collect(), g.keys().copied().collect());
        counts[1] += ok.difference(&gk).count();
        counts[2] += gk.difference(&ok).count();
        for k in ok.intersection(&gk) {
            counts[0] += 1;
            *attributes.entry((g[k], o[k])).or_insert(0) += 1;
        }
    }
    (counts, attributes)
}

#[test]
#[ignore = "a minute or more of CPU; run with --ignored"]
fn visibility_on_the_games_own_areas_finds_what_the_game_found() {
    let (Some(bsp_bytes), Some(nav_bytes)) = (srcmap_corpus::read(BSP), srcmap_corpus::read(NAV)) else {
        eprintln!("SRCMAP_CORPUS is not set or lacks mvm_kelly_rc1b: skipped");
        return;
    };
    let bsp = Bsp::parse(&bsp_bytes).unwrap();
    let real = NavMesh::read(&nav_bytes).unwrap();
    let index: HashMap<u32, u32> = real.areas.iter().zip(0..).map(|(a, i)| (a.id, i)).collect();
    let (areas, links) = games_areas(&real, &index);
    let world = srcmap_hull::from_bsp(&bsp).0.build();
    let space = Space {
        world: &world,
        mask: Game::Tf2.analysis_mask(),
        heights: Game::Tf2.heights(),
    };
    let ours = visibility::visibility(&space, &pvs::Pvs::new(&bsp), &areas, &links);
    let ours = resolved(&ours.lists, &ours.inherit);
    let ([both, only_ours, only_game], attributes) = compare(&ours, &games_lists(&real, &index));
    eprintln!("visible pairs: both {both}, only ours {only_ours}, only the game's {only_game}");
    eprintln!("(game's attributes, ours) on the pairs in both: {attributes:?}");
    let games = (both + only_game) as f64;
    // Our world lacks the map's solid static props (their models are not in the corpus), which
    // only hide: ours may see more, but finds (nearly) every pair the game does.
    assert!(
        only_game as f64 <= 0.001 * games,
        "{only_game} of the game's {games} pairs missed"
    );
    assert!(
        only_ours as f64 <= 0.4 * games,
        "{only_ours} pairs more than the game's {games}"
    );
    let same: usize = attributes
        .iter()
        .filter(|((g, o), _)| g == o)
        .map(|(_, n)| n)
        .sum();
    assert!(
        same as f64 >= 0.7 * both as f64,
        "same attributes on {same} of {both}"
    );
}
