//! VMF ↔ VMAP on whole maps: instances become prefabs with their own VMAP files and come back
//! as instances that compile to the same brushes; `--cull` leaves out the faces that face the
//! void.

use std::path::{Path, PathBuf};

mod common;

use srcmap_driver::{MapconvJob, MapconvReport};
use srcmap_stage::NoProgress;
use srcmap_vmap::Vmap;

/// A box solid's text, Hammer's plane points (clockwise from outside), side ids `id*10+k`.
fn box_solid(id: i64, min: [i32; 3], max: [i32; 3], material: &str) -> String {
    let ([x0, y0, z0], [x1, y1, z1]) = (min, max);
    let planes = [
        [[x0, y1, z1], [x1, y1, z1], [x1, y0, z1]],
        [[x0, y0, z0], [x1, y0, z0], [x1, y1, z0]],
        [[x0, y1, z1], [x0, y0, z1], [x0, y0, z0]],
        [[x1, y1, z0], [x1, y0, z0], [x1, y0, z1]],
        [[x1, y1, z1], [x0, y1, z1], [x0, y1, z0]],
        [[x1, y0, z0], [x0, y0, z0], [x0, y0, z1]],
    ];
    let axes = ["[1 0 0 0] 0.25", "[0 -1 0 0] 0.25"];
    let mut out = format!("solid\n{{\n\"id\" \"{id}\"\n");
    for (k, p) in planes.iter().enumerate() {
        let plane = p.map(|[a, b, c]| format!("({a} {b} {c})")).join(" ");
        out += &format!(
            "side\n{{\n\"id\" \"{}\"\n\"plane\" \"{plane}\"\n\"material\" \"{material}\"\n\"uaxis\" \"{}\"\n\"vaxis\" \"{}\"\n\"rotation\" \"0\"\n\"lightmapscale\" \"16\"\n\"smoothing_groups\" \"0\"\n}}\n",
            id * 10 + k as i64,
            axes[0],
            axes[1]
        );
    }
    out + "}\n"
}

/// A sealed room: six 16-unit walls around (-256, -256, 0)–(256, 256, 256), overlapping at the
/// corners, so each wall shows only its inner side.
fn room_walls() -> String {
    let (lo, hi, t) = (-256, 256, 16);
    let walls = [
        ([lo - t, lo - t, -t], [hi + t, hi + t, 0]),
        ([lo - t, lo - t, hi], [hi + t, hi + t, hi + t]),
        ([lo - t, lo - t, 0], [lo, hi + t, hi]),
        ([hi, lo - t, 0], [hi + t, hi + t, hi]),
        ([lo, lo - t, 0], [hi, lo, hi]),
        ([lo, hi, 0], [hi, hi + t, hi]),
    ];
    (walls.iter().enumerate())
        .map(|(i, (a, b))| box_solid(2 + i as i64, *a, *b, "DEV/DEV_MEASUREGENERIC01"))
        .collect()
}

fn entity(id: i64, class: &str, keys: &[(&str, &str)], body: &str) -> String {
    let keys: String = keys.iter().map(|(k, v)| format!("\"{k}\" \"{v}\"\n")).collect();
    format!("entity\n{{\n\"id\" \"{id}\"\n\"classname\" \"{class}\"\n{keys}{body}}}\n")
}

/// The room with a player start, and `extra` entities.
fn room(extra: &str) -> String {
    let start = entity(100, "info_player_start", &[("origin", "0 0 32")], "");
    format!(
        "world\n{{\n\"id\" \"1\"\n\"classname\" \"worldspawn\"\n{}}}\n{start}{extra}",
        room_walls()
    )
}

fn job(input: PathBuf, output: PathBuf, cull: bool) -> MapconvJob {
    MapconvJob {
        input,
        output,
        binary: true,
        cull,
        ..MapconvJob::default()
    }
}

/// Every brush of a compiled BSP as its sides' planes (rounded), sorted: brushes and sides
/// compared whatever their order.
fn brushes(bsp: &Path) -> Vec<Vec<[i64; 4]>> {
    let bsp = srcmap_bsp::Bsp::parse(&std::fs::read(bsp).unwrap()).unwrap();
    let mut out: Vec<Vec<[i64; 4]>> = (bsp.brushes.iter())
        .map(|b| {
            let sides = &bsp.brush_sides[b.first_side as usize..(b.first_side + b.num_sides) as usize];
            let mut planes: Vec<[i64; 4]> = (sides.iter())
                .map(|s| {
                    let p = &bsp.planes[s.plane as usize];
                    let [x, y, z] = p.normal.map(|c| (c * 1000.0).round() as i64);
                    [x, y, z, (p.dist * 10.0).round() as i64]
                })
                .collect();
            planes.sort_unstable();
            planes
        })
        .collect();
    out.sort();
    out
}

fn compile(map: &Path) -> PathBuf {
    let job = srcmap_driver::VbspJob {
        map: map.to_path_buf(),
        quiet: true,
        ..Default::default()
    };
    srcmap_driver::vbsp(&job, &NoProgress, &srcmap_driver::NoMessages).unwrap();
    map.with_extension("bsp")
}

/// Two instances of one file (a pillar of two brushes, one of them detail, and a light), the
/// second turned 90°: VMF → VMAP gives two prefabs and the instance's own VMAP beside the
/// map; VMAP → VMF gives two instances and the instance's VMF back; the round trip compiles to
/// the brushes (every side's plane) the original compiles to with its instances collapsed.
#[test]
fn instances_become_prefabs_and_compile_the_same_after_the_round_trip() {
    let root = common::fresh_dir("mapconv", "instances");
    std::fs::create_dir_all(root.join("src/instances")).unwrap();
    let pillar = box_solid(2, [-8, -24, 0], [8, 24, 96], "DEV/DEV_MEASUREGENERIC01");
    let knob = entity(
        3,
        "func_detail",
        &[],
        &box_solid(4, [8, -8, 32], [24, 8, 48], "DEV/DEV_MEASUREGENERIC01"),
    );
    let light = entity(5, "light", &[("origin", "0 0 120"), ("targetname", "lamp")], "");
    std::fs::write(
        root.join("src/instances/pillar.vmf"),
        format!("world\n{{\n\"id\" \"1\"\n\"classname\" \"worldspawn\"\n{pillar}}}\n{knob}{light}"),
    )
    .unwrap();
    let inst = |id, origin, angles| {
        let keys = [
            ("file", "instances/pillar.vmf"),
            ("origin", origin),
            ("angles", angles),
            ("targetname", "p"),
        ];
        entity(id, "func_instance", &keys, "")
    };
    let map = root.join("src/map.vmf");
    std::fs::write(
        &map,
        room(&(inst(200, "-128 0 0", "0 0 0") + &inst(201, "128 64 0", "0 90 0"))),
    )
    .unwrap();

    let vmap = root.join("vmap/map.vmap");
    let to_vmap = srcmap_driver::mapconv::vmf_to_vmap(&job(map.clone(), vmap.clone(), false)).unwrap();
    let MapconvReport::ToVmap { report, .. } = &to_vmap else {
        panic!()
    };
    assert_eq!(
        (report.prefabs, &report.instances[..]),
        (2, &["instances/pillar.vmf".to_string()][..])
    );
    let read = |p: &Path| Vmap::read(&std::fs::read(p).unwrap()).unwrap();
    assert_eq!(read(&vmap).prefabs().len(), 2);
    assert_eq!(read(&root.join("vmap/instances/pillar.vmap")).meshes().len(), 2);

    let back = root.join("back/map.vmf");
    srcmap_driver::mapconv::vmap_to_vmf(&job(vmap, back.clone(), false)).unwrap();
    assert!(root.join("back/instances/pillar.vmf").is_file());
    let original = brushes(&compile(&map));
    assert_eq!(original.len(), 6 + 2 * 2);
    assert_eq!(brushes(&compile(&back)), original);
}

/// A sealed room of six walls and a detail box on the floor: `--cull` keeps each wall's inner
/// side only and drops the detail box's bottom (it lies on the floor).
#[test]
fn cull_drops_the_faces_that_face_the_void() {
    let root = common::fresh_dir("mapconv", "cull");
    let detail = entity(
        50,
        "func_detail",
        &[],
        &box_solid(51, [-32, -32, 0], [32, 32, 64], "DEV/DEV_MEASUREGENERIC01"),
    );
    let map = root.join("room.vmf");
    std::fs::write(&map, room(&detail)).unwrap();
    let out = root.join("room.vmap");
    let report = srcmap_driver::mapconv::vmf_to_vmap(&job(map.clone(), out.clone(), true)).unwrap();
    let MapconvReport::ToVmap { report, .. } = report else {
        panic!()
    };
    assert_eq!(
        (report.culled_faces, report.culled_brushes, report.faces),
        (31, 0, 11)
    );
    let vmap = Vmap::read(&std::fs::read(&out).unwrap()).unwrap();
    let faces: Vec<usize> = (vmap.meshes().iter())
        .map(|(_, m)| vmap.polygon_mesh(*m).unwrap().face_count())
        .collect();
    assert_eq!(faces, [1, 1, 1, 1, 1, 1, 5]);
    // The floor's one face is its top: it faces up into the room.
    let floor = vmap.polygon_mesh(vmap.meshes()[0].1).unwrap();
    assert!(floor.face_normal(0)[2] > 0.99);
    // A map that leaks cannot be culled: the error names the map.
    let leaky = root.join("leaky.vmf");
    let floor = box_solid(2, [-64, -64, -16], [64, 64, 0], "DEV/DEV_MEASUREGENERIC01");
    let start = entity(100, "info_player_start", &[("origin", "0 0 32")], "");
    std::fs::write(
        &leaky,
        format!("world\n{{\n\"id\" \"1\"\n\"classname\" \"worldspawn\"\n{floor}}}\n{start}"),
    )
    .unwrap();
    let error =
        srcmap_driver::mapconv::vmf_to_vmap(&job(leaky.clone(), root.join("leaky.vmap"), true)).unwrap_err();
    assert!(error.to_string().contains("leaky.vmf"), "{error}");
    assert!(!root.join("leaky.vmap").exists());
}
