//! Earliest occupy times (Counter-Strike: Source's `ComputeEarliestOccupyTimes`, read for
//! behaviour): for each team, the least time a player running 240 units a second needs from
//! one of the team's spawn points to the area, along the least-cost path (crouch areas cost 20
//! times their length more, jump areas 5 times), capped at 120 seconds. Terrorists at index 0,
//! counter-terrorists at index 1 (team number modulo 2).

use glam::Vec3;

use crate::areas::Area;
use crate::attributes::{ATTR_CROUCH, ATTR_JUMP};
use crate::paths::{Way, nearest_area, search, step_length};
use crate::visibility::center;

const PLAYER_SPEED: f32 = 240.0;
/// No spot takes longer than this to reach.
pub const LATEST: f32 = 120.0;
const CROUCH_PENALTY: f32 = 20.0;
const JUMP_PENALTY: f32 = 5.0;

/// Per area, [terrorists, counter-terrorists] earliest times from their spawn points.
pub fn earliest_occupy_times(areas: &[Area], ways: &[Vec<Way>], spawns: [&[Vec3]; 2]) -> Vec<[f32; 2]> {
    let mut times = vec![[LATEST; 2]; areas.len()];
    for (team, points) in spawns.iter().enumerate() {
        for &spawn in points.iter() {
            let Some(start) = nearest_area(areas, spawn) else {
                continue;
            };
            let reached = search(areas, ways, start, None, |to, from, way| {
                Some(penalised(areas[to].attributes, step_length(areas, to, from, way)))
            });
            let lead_in = spawn.distance(center(&areas[start]));
            for (a, t) in times.iter_mut().enumerate() {
                if !reached.cost[a].is_finite() {
                    continue;
                }
                let distance = if a == start {
                    center(&areas[a]).distance(spawn)
                } else {
                    reached.length[a] + lead_in
                };
                t[team] = t[team].min(distance / PLAYER_SPEED);
            }
        }
    }
    times
}

/// A step's cost: its length, more through crouch and jump areas (`ShortestPathCost`).
fn penalised(attributes: u32, length: f32) -> f32 {
    let mut cost = length;
    if attributes & ATTR_CROUCH != 0 {
        cost += CROUCH_PENALTY * length;
    }
    if attributes & ATTR_JUMP != 0 {
        cost += JUMP_PENALTY * length;
    }
    cost
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(n: usize) -> (Vec<Area>, Vec<Vec<Way>>) {
        let areas: Vec<Area> = (0..n)
            .map(|i| Area::flat([i as f32 * 240.0, 0.0], [(i + 1) as f32 * 240.0, 240.0], 0))
            .collect();
        let ways = (0..n)
            .map(|i| {
                let mut w = Vec::new();
                if i + 1 < n {
                    w.push(Way {
                        to: i as u32 + 1,
                        how: 1,
                        ladder: None,
                    });
                }
                if i > 0 {
                    w.push(Way {
                        to: i as u32 - 1,
                        how: 3,
                        ladder: None,
                    });
                }
                w
            })
            .collect();
        (areas, ways)
    }

    #[test]
    fn each_area_is_a_second_further_from_the_spawn_per_240_units() {
        let (areas, ways) = row(4);
        let t_spawn = [Vec3::new(120.0, 120.0, 0.0)];
        let ct_spawn = [Vec3::new(3.0 * 240.0 + 120.0, 120.0, 0.0)];
        let times = earliest_occupy_times(&areas, &ways, [&t_spawn, &ct_spawn]);
        for (i, t) in times.iter().enumerate() {
            assert!((t[0] - i as f32).abs() < 1e-4, "{times:?}");
            assert!((t[1] - (3 - i) as f32).abs() < 1e-4, "{times:?}");
        }
    }

    #[test]
    fn unreachable_areas_take_the_longest_time() {
        let (areas, mut ways) = row(3);
        ways[1].clear();
        let spawn = [Vec3::new(120.0, 120.0, 0.0)];
        let times = earliest_occupy_times(&areas, &ways, [&spawn, &[]]);
        assert_eq!(times[2], [LATEST, LATEST]);
        assert!((times[1][0] - 1.0).abs() < 1e-4);
    }
}
