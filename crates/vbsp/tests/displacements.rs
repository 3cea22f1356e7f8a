//! Displacements on small purpose-built maps: what the records say, where the surface is,
//! what the tree does not see, and how damaged displacements are reported.

mod common;

use common::*;
use srcmap_geom::DVec3;
use srcmap_vbsp::input::MapDisp;
use srcmap_vbsp::*;

/// Index of `box_brush`'s top side (+Z).
const TOP: usize = 4;

/// A displacement of `power` whose vertices rise by `height(row, col)` along +Z.
fn bumps(power: u32, start: [f64; 3], height: impl Fn(usize, usize) -> f32) -> Box<MapDisp> {
    let n = (1usize << power) + 1;
    let mut d = MapDisp {
        power,
        start_position: DVec3::from(start),
        ..Default::default()
    };
    for row in 0..n {
        for col in 0..n {
            d.normals.push([0.0, 0.0, 1.0]);
            d.distances.push(height(row, col));
            d.offsets.push([0.0; 3]);
            d.alphas.push((row * 10) as f32);
        }
    }
    // Hammer's usual tag: walkable and buildable.
    d.triangle_tags = vec![9; 2 << (2 * power)];
    Box::new(d)
}

/// A 512×512×256 room with two 128-unit floor patches side by side, their tops displaced.
fn terrain_room(first: Box<MapDisp>, second: Box<MapDisp>) -> Vec<MapEntity> {
    let mut brushes = room(
        1,
        [0.0, 0.0, 0.0],
        [512.0, 512.0, 256.0],
        "dev/dev_measurewall01a",
    );
    let mut a = box_brush(
        100,
        [64.0, 64.0, 0.0],
        [192.0, 192.0, 16.0],
        "nature/blendgrassgravel001a",
    );
    a.sides[TOP].displacement = Some(first);
    let mut b = box_brush(
        101,
        [192.0, 64.0, 0.0],
        [320.0, 192.0, 16.0],
        "nature/blendgrassgravel001a",
    );
    b.sides[TOP].displacement = Some(second);
    brushes.push(a);
    brushes.push(b);
    vec![
        world(brushes),
        entity(2, "info_player_start", [400.0, 400.0, 40.0], vec![]),
    ]
}

fn wave(row: usize, col: usize) -> f32 {
    ((row as f32) * 0.7).sin() * 12.0 + col as f32
}

#[test]
fn displacement_records_and_surface() {
    let out = compile_map(terrain_room(
        bumps(3, [64.0, 64.0, 16.0], wave),
        bumps(2, [192.0, 64.0, 16.0], |_, _| 4.0),
    ))
    .expect("compiles");
    let bsp = &out.bsp;
    assert_eq!(bsp.disp_info.len(), 2, "one dispinfo per displaced side");
    assert_eq!(bsp.disp_verts.len(), 81 + 25);
    assert_eq!(bsp.disp_tris.len(), 128 + 32);
    // The displacement brushes are not in the brush lump: only the six walls are.
    assert_eq!(bsp.brushes.len(), 6);
    for (i, info) in bsp.disp_info.iter().enumerate() {
        let face = &bsp.faces[info.map_face as usize];
        assert_eq!(
            face.dispinfo, i as i32,
            "dispinfo {i} and its face point at each other"
        );
        assert_eq!(face.num_edges, 4);
        assert_eq!(
            info.min_tess as u32 & 0x8000_0000,
            0x8000_0000,
            "min_tess holds flags"
        );
        // The world model's face range holds the displacement faces.
        let m = &bsp.models[0];
        assert!((m.first_face..m.first_face + m.num_faces).contains(&(info.map_face as i32)));
    }
    // Both collide: one packed hull each, closed over the displacement's vertices; the flat
    // one (raised 4 units everywhere) a two-sided quad of its corners.
    let hulls = bsp.phys_disp.as_ref().expect("physdisp").read_hulls(0).unwrap();
    assert_eq!(hulls.len(), 2);
    for (i, h) in hulls.iter().enumerate() {
        let h = h.as_ref().expect("a hull");
        assert_eq!(h.verify(bsp.disp_info[i].vert_count()), Vec::<String>::new());
    }
    let flat = hulls[1].as_ref().unwrap();
    assert_eq!(flat.vertices(), vec![0, 4, 20, 24]);
    assert_eq!(flat.triangles.len(), 4);
    // No leaf lists a displacement face.
    for &f in &bsp.leaf_faces {
        assert_eq!(bsp.faces[f as usize].dispinfo, -1);
    }
    assert!(
        bsp.disp_tris.iter().all(|&t| t == 6),
        "Hammer's 9 is walkable | buildable"
    );
    // The final surface: the first displacement starts at (64, 64) with rows along the
    // base face's first edge from there.
    let grids = srcmap_disp::grids_of(bsp);
    let g = grids[0].as_ref().expect("grid");
    assert_eq!(g.power, 3);
    // Columns run from x = 64 to x = 192, where the power-2 neighbour starts: along that
    // shared edge the odd rows have no partner and are dropped for LOD, so VBSP moves them
    // onto the line between their even neighbours.
    let dropped = |row: usize, col: usize| col == 8 && row % 2 == 1;
    for row in 0..9 {
        for col in 0..9 {
            let p = g.verts[row * 9 + col];
            let want = if dropped(row, col) {
                16.0 + (wave(row - 1, col) + wave(row + 1, col)) / 2.0
            } else {
                16.0 + wave(row, col)
            };
            assert!(
                (p.z - want).abs() < 1e-3,
                "vertex ({row}, {col}) at {p}, expected height {want}"
            );
            let allowed = srcmap_disp::allowed::is_allowed(&bsp.disp_info[0].allowed_verts, row * 9 + col);
            assert_eq!(
                allowed,
                !dropped(row, col),
                "allowed bit of vertex ({row}, {col})"
            );
        }
    }
    // The two patches are each other's edge neighbours, the full edge each.
    let links = |a: usize| -> Vec<u32> {
        bsp.disp_info[a]
            .edge_neighbors
            .iter()
            .flatten()
            .map(|n| n.neighbor)
            .filter(|&n| n != 0xFFFF)
            .collect()
    };
    assert_eq!(links(0), vec![1]);
    assert_eq!(links(1), vec![0]);
    assert_eq!(bsp.disp_verts[9 * 4].alpha, 40.0, "alphas kept per vertex");
    // The patch does not block the tree: inside its brush is open space.
    assert_eq!(contents_at(&out, [128.0, 128.0, 8.0]), 0);
    assert_eq!(
        cluster_at(&out, [128.0, 128.0, 8.0]),
        cluster_at(&out, [128.0, 128.0, 100.0]),
        "a displacement does not split visleaves"
    );
    // world_mins/world_maxs count the displaced surface.
    let world = &bsp.entities[0];
    assert!(world.get("world_maxs").is_some());
    let bytes = bsp.to_bytes().expect("writes");
    let back = srcmap_bsp::Bsp::parse(&bytes).expect("reads");
    assert!(srcmap_bsp::check::check(&back).is_empty(), "srcmap check passes");
}

fn errors_naming(out: &Output, brush: i64, side: i64) -> Vec<String> {
    out.diagnostics
        .iter()
        .filter(|d| d.at.brush == Some(brush) && d.at.side == Some(side))
        .map(|d| d.to_string())
        .collect()
}

#[test]
fn bad_displacements_are_reported_and_the_rest_compiles() {
    // Power 5 is beyond Hammer's 2-4.
    let mut too_fine = bumps(2, [64.0, 64.0, 16.0], |_, _| 0.0);
    too_fine.power = 5;
    // Rows cut short: what is missing reads as zero, with a warning.
    let mut short = bumps(2, [192.0, 64.0, 16.0], |_, _| 2.0);
    short.distances.truncate(10);
    let mut map = terrain_room(too_fine, short);
    // A wedge: its sloped side is four-sided, its end caps are triangles.
    let mut wedge = box_brush(
        102,
        [352.0, 64.0, 0.0],
        [448.0, 192.0, 64.0],
        "dev/dev_measurewall01a",
    );
    // Replace the top with a slope from (x=352, z=64) down to (x=448, z=0): the +X side goes.
    wedge.sides.remove(0);
    wedge.sides[TOP - 1].points = [
        DVec3::new(352.0, 64.0, 64.0),
        DVec3::new(352.0, 192.0, 64.0),
        DVec3::new(448.0, 192.0, 0.0),
    ];
    // The -Y end cap is a triangle.
    wedge.sides[2].displacement = Some(bumps(2, [352.0, 64.0, 0.0], |_, _| 0.0));
    map[0].brushes.push(wedge);
    // A displacement on a brush entity.
    let mut door = box_brush(
        103,
        [64.0, 300.0, 0.0],
        [128.0, 364.0, 64.0],
        "dev/dev_measurewall01a",
    );
    door.sides[TOP].displacement = Some(bumps(2, [64.0, 300.0, 64.0], |_, _| 0.0));
    map.push(entity(3, "func_door", [0.0; 3], vec![door]));

    let out = compile_map(map).expect("the rest of the map compiles");
    let power = errors_naming(&out, 100, 1004);
    assert!(
        power.iter().any(|m| m.contains("power 5")),
        "power error names solid 100 side 1004: {:?}",
        out.diagnostics
    );
    let short_rows = errors_naming(&out, 101, 1014);
    assert!(
        short_rows.iter().any(|m| m.contains("distances")),
        "{short_rows:?}"
    );
    let wedge_side = out
        .diagnostics
        .iter()
        .find(|d| d.at.brush == Some(102))
        .map(|d| d.to_string());
    assert!(
        wedge_side.as_deref().is_some_and(|m| m.contains("3 corners")),
        "{wedge_side:?}"
    );
    let door_side = errors_naming(&out, 103, 1034);
    assert!(
        door_side.iter().any(|m| m.contains("brush entity")),
        "{door_side:?}"
    );
    // Only the short-rowed displacement was built.
    assert_eq!(out.bsp.disp_info.len(), 1);
    let g = srcmap_disp::grids_of(&out.bsp)[0].clone().expect("grid");
    assert!((g.verts[0].z - 18.0).abs() < 1e-3 && (g.verts[24].z - 16.0).abs() < 1e-3);
}

#[test]
fn power_4_terrain_is_polysoup_in_physcollide() {
    // A long room with two power-4 patches more than a 4096-unit cell apart: Valve's vbsp then
    // writes no physdisp and one polysoup solid per cell.
    let mut brushes = room(
        1,
        [0.0, 0.0, 0.0],
        [8192.0, 512.0, 256.0],
        "dev/dev_measurewall01a",
    );
    for (id, x) in [(100, 64.0), (101, 6000.0)] {
        let mut b = box_brush(
            id,
            [x, 64.0, 0.0],
            [x + 128.0, 192.0, 16.0],
            "nature/blendgrassgravel001a",
        );
        b.sides[TOP].displacement = Some(bumps(4, [x, 64.0, 16.0], wave));
        brushes.push(b);
    }
    let out = compile_map(vec![
        world(brushes),
        entity(2, "info_player_start", [400.0, 400.0, 40.0], vec![]),
    ])
    .expect("compiles");
    let bsp = &out.bsp;
    assert!(bsp.phys_disp.is_none(), "no physdisp with power-4 displacements");
    assert!(
        out.diagnostics.iter().any(|d| d.to_string().contains("power 4")),
        "Valve's power-4 warning"
    );
    let world = &bsp.phys_collide.as_ref().unwrap().read_models(0).unwrap()[0];
    // The walls' solid, then one terrain solid per cell, which name no contents.
    assert_eq!(world.solids.len(), 3);
    let statics: Vec<_> = world
        .key_data
        .blocks
        .iter()
        .filter(|b| b.name == "staticsolid")
        .collect();
    assert_eq!(statics.len(), 3);
    for (i, b) in statics.iter().enumerate().skip(1) {
        assert_eq!(b.get("index"), Some(i.to_string().as_str()));
        assert_eq!(b.get("contents"), None);
    }
    assert!(world.key_data.blocks.iter().all(|b| b.name != "virtualterrain"));
    let grids = srcmap_disp::grids_of(bsp);
    for (i, solid) in world.solids[1..].iter().enumerate() {
        let s = solid.surface().expect("a compact surface");
        assert_eq!(s.verify(1e-3), Vec::<String>::new());
        // Power 4 with every vertex allowed: 2 × 16 × 16 triangles, each a ledge of two faces,
        // its corners the displacement's vertices (in IVP metres, y down).
        assert_eq!(s.ledges.len(), 512);
        let verts: Vec<_> = grids[i].as_ref().unwrap().verts.clone();
        for l in &s.ledges {
            assert_eq!(l.triangles.len(), 2);
            for e in &l.triangles[0].edges {
                let p = s.ledge_point(l, e.start_point_index).unwrap();
                let hammer = [p[0] / 0.0254, p[2] / 0.0254, -p[1] / 0.0254];
                assert!(
                    verts
                        .iter()
                        .any(|v| (0..3).all(|k| (v[k] - hammer[k]).abs() < 0.01)),
                    "terrain solid {i}: corner {hammer:?} is no vertex of displacement {i}"
                );
            }
        }
        // Every triangle names the displacement's surface property in the world's table.
        let slot = s.ledges[0].triangles[0].material_index;
        assert!(
            slot >= 1
                && s.ledges
                    .iter()
                    .all(|l| l.triangles.iter().all(|t| t.material_index == slot))
        );
    }
}
