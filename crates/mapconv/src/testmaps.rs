//! Small maps made for the tests: boxes with known areas, entities with outputs.

/// The six sides of an axis-aligned box, Hammer's plane points (clockwise from outside),
/// top first; every side `material`, world-aligned axes at scale 0.25.
pub fn box_solid(id: i64, min: [f64; 3], max: [f64; 3], material: &str) -> String {
    let ([x0, y0, z0], [x1, y1, z1]) = (min, max);
    let planes = [
        (
            [x0, y1, z1],
            [x1, y1, z1],
            [x1, y0, z1],
            "[1 0 0 0] 0.25",
            "[0 -1 0 0] 0.25",
        ),
        (
            [x0, y0, z0],
            [x1, y0, z0],
            [x1, y1, z0],
            "[1 0 0 0] 0.25",
            "[0 -1 0 0] 0.25",
        ),
        (
            [x0, y1, z1],
            [x0, y0, z1],
            [x0, y0, z0],
            "[0 1 0 0] 0.25",
            "[0 0 -1 0] 0.25",
        ),
        (
            [x1, y1, z0],
            [x1, y0, z0],
            [x1, y0, z1],
            "[0 1 0 0] 0.25",
            "[0 0 -1 0] 0.25",
        ),
        (
            [x1, y1, z1],
            [x0, y1, z1],
            [x0, y1, z0],
            "[1 0 0 16] 0.5",
            "[0 0 -1 8] 0.25",
        ),
        (
            [x1, y0, z0],
            [x0, y0, z0],
            [x0, y0, z1],
            "[1 0 0 0] 0.25",
            "[0 0 -1 0] 0.25",
        ),
    ];
    let mut out = format!("\tsolid\n\t{{\n\t\t\"id\" \"{id}\"\n");
    for (k, (a, b, c, u, v)) in planes.iter().enumerate() {
        let groups = if k < 2 { 1 } else { 0 };
        out += &side_text(id * 10 + k as i64, [a, b, c], material, (u, v), groups);
    }
    out + "\t}\n"
}

/// One `side` block.
fn side_text(id: i64, plane: [&[f64; 3]; 3], material: &str, (u, v): (&str, &str), groups: u32) -> String {
    let p = |q: &[f64; 3]| format!("({} {} {})", q[0], q[1], q[2]);
    let plane = plane.map(p).join(" ");
    let values = [
        ("id", id.to_string()),
        ("plane", plane),
        ("material", material.to_string()),
        ("uaxis", u.to_string()),
        ("vaxis", v.to_string()),
        ("rotation", "0".into()),
        ("lightmapscale", "16".into()),
        ("smoothing_groups", groups.to_string()),
    ];
    let lines: String = values
        .iter()
        .map(|(k, v)| format!("\t\t\t\"{k}\" \"{v}\"\n"))
        .collect();
    format!("\t\tside\n\t\t{{\n{lines}\t\t}}\n")
}

/// A floor slab (256 × 256 × 16), a func_detail box and a light with an output.
pub fn box_room() -> String {
    let floor = box_solid(
        2,
        [0.0, 0.0, 0.0],
        [256.0, 256.0, 16.0],
        "DEV/DEV_MEASUREGENERIC01",
    );
    let detail = box_solid(3, [64.0, 64.0, 16.0], [128.0, 96.0, 80.0], "TOOLS/TOOLSNODRAW");
    format!(
        "versioninfo\n{{\n\t\"editorversion\" \"400\"\n}}\nworld\n{{\n\t\"id\" \"1\"\n\t\"classname\" \"worldspawn\"\n\t\"skyname\" \"sky_day01_01\"\n{floor}}}\n\
         entity\n{{\n\t\"id\" \"5\"\n\t\"classname\" \"func_detail\"\n{detail}}}\n\
         entity\n{{\n\t\"id\" \"7\"\n\t\"classname\" \"light\"\n\t\"targetname\" \"lamp\"\n\t\"origin\" \"128 128 64\"\n\t\"angles\" \"0 90 0\"\n\t\"_light\" \"255 255 255 200\"\n\
         \tconnections\n\t{{\n\t\t\"OnUser1\" \"!self,TurnOff,,0.5,-1\"\n\t\t\"OnUser2\" \"lamp\x1bTurnOn\x1bx,y\x1b0\x1b1\"\n\t}}\n}}\n\
         entity\n{{\n\t\"id\" \"9\"\n\t\"classname\" \"prop_static\"\n\t\"model\" \"models/props/box.mdl\"\n\t\"origin\" \"32 32 16\"\n}}\n\
         entity\n{{\n\t\"id\" \"11\"\n\t\"classname\" \"info_overlay\"\n\t\"sides\" \"20 999\"\n\t\"origin\" \"16 16 16\"\n}}\n"
    )
}

/// The box room's floor and two instances of one file: the second turned 90° with a postfix
/// fixup, a replacement and an output.
pub fn instanced() -> String {
    let floor = box_solid(
        2,
        [0.0, 0.0, 0.0],
        [256.0, 256.0, 16.0],
        "DEV/DEV_MEASUREGENERIC01",
    );
    format!(
        "world\n{{\n\t\"id\" \"1\"\n\t\"classname\" \"worldspawn\"\n{floor}}}\n\
         entity\n{{\n\t\"id\" \"20\"\n\t\"classname\" \"func_instance\"\n\t\"targetname\" \"a\"\n\t\"file\" \"instances\\pillar.vmf\"\n\t\"origin\" \"64 64 16\"\n\t\"angles\" \"0 0 0\"\n}}\n\
         entity\n{{\n\t\"id\" \"21\"\n\t\"classname\" \"func_instance\"\n\t\"targetname\" \"b\"\n\t\"file\" \"instances/pillar.vmf\"\n\t\"fixup_style\" \"1\"\n\t\"replace01\" \"$color 255 0 0\"\n\t\"origin\" \"192 64 16\"\n\t\"angles\" \"0 90 0\"\n\
         \tconnections\n\t{{\n\t\t\"OnUser1\" \"a,Kill,,0,-1\"\n\t}}\n}}\n"
    )
}

/// Two nested visgroups (a floor in the outer, a light in both), and two cordons, the second
/// of two boxes.
pub fn grouped() -> String {
    let floor = box_solid(
        2,
        [0.0, 0.0, 0.0],
        [256.0, 256.0, 16.0],
        "DEV/DEV_MEASUREGENERIC01",
    )
    .replace(
        "\t}\n",
        "\t\teditor\n\t\t{\n\t\t\t\"visgroupid\" \"7\"\n\t\t}\n\t}\n",
    );
    format!(
        "visgroups\n{{\n\tvisgroup\n\t{{\n\t\t\"name\" \"Outer\"\n\t\t\"visgroupid\" \"7\"\n\t\t\"color\" \"10 20 30\"\n\
         \t\tvisgroup\n\t\t{{\n\t\t\t\"name\" \"Inner\"\n\t\t\t\"visgroupid\" \"9\"\n\t\t\t\"color\" \"40 50 60\"\n\t\t}}\n\t}}\n}}\n\
         world\n{{\n\t\"id\" \"1\"\n\t\"classname\" \"worldspawn\"\n{floor}}}\n\
         entity\n{{\n\t\"id\" \"7\"\n\t\"classname\" \"light\"\n\t\"origin\" \"128 128 64\"\n\
         \teditor\n\t{{\n\t\t\"color\" \"220 30 220\"\n\t\t\"visgroupid\" \"7\"\n\t\t\"visgroupid\" \"9\"\n\t}}\n}}\n\
         cordons\n{{\n\t\"active\" \"1\"\n\
         \tcordon\n\t{{\n\t\t\"name\" \"a\"\n\t\t\"active\" \"1\"\n\t\tbox\n\t\t{{\n\t\t\t\"mins\" \"(-64 -64 -64)\"\n\t\t\t\"maxs\" \"(64 64 64)\"\n\t\t}}\n\t}}\n\
         \tcordon\n\t{{\n\t\t\"name\" \"b\"\n\t\t\"active\" \"1\"\n\
         \t\tbox\n\t\t{{\n\t\t\t\"mins\" \"(0 0 0)\"\n\t\t\t\"maxs\" \"(8 16 32)\"\n\t\t}}\n\
         \t\tbox\n\t\t{{\n\t\t\t\"mins\" \"(100 100 100)\"\n\t\t\t\"maxs\" \"(200 300 400)\"\n\t\t}}\n\t}}\n}}\n"
    )
}

/// The box room's floor, a world box hidden by a visgroup and a hidden func_detail (each in
/// Hammer's `hidden` block).
pub fn hidden() -> String {
    let floor = box_solid(
        2,
        [0.0, 0.0, 0.0],
        [256.0, 256.0, 16.0],
        "DEV/DEV_MEASUREGENERIC01",
    );
    let hidden_box = box_solid(
        3,
        [0.0, 0.0, 16.0],
        [32.0, 32.0, 48.0],
        "DEV/DEV_MEASUREGENERIC01",
    );
    let detail = box_solid(4, [64.0, 64.0, 16.0], [128.0, 96.0, 80.0], "TOOLS/TOOLSNODRAW");
    format!(
        "world\n{{\n\t\"id\" \"1\"\n\t\"classname\" \"worldspawn\"\n{floor}\thidden\n\t{{\n{hidden_box}\t}}\n}}\n\
         hidden\n{{\nentity\n{{\n\t\"id\" \"5\"\n\t\"classname\" \"func_detail\"\n{detail}}}\n}}\n\
         entity\n{{\n\t\"id\" \"7\"\n\t\"classname\" \"info_target\"\n\t\"origin\" \"8 8 32\"\n}}\n"
    )
}
