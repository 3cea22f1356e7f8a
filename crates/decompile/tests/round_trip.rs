//! Purpose-built maps: a VMF written here is compiled, decompiled and compiled again; the two
//! BSPs must hold the same brushes (planes, contents, materials, texture axes), displacements,
//! overlays and entities, and the decompiled VMF the source's solids and materials.

use std::collections::BTreeMap;
use std::fmt::Write;

use srcmap_bsp::Bsp;
use srcmap_vbsp::{NoProgress, Options};
use srcmap_vmf::Vmf;

/// `[x y z shift] scale` of a side's two axes.
type Axes = ([f64; 4], f64, [f64; 4], f64);

const WORLD_AXES: Axes = ([1.0, 0.0, 0.0, 0.0], 0.25, [0.0, -1.0, 0.0, 0.0], 0.25);

/// Text of a box solid with Hammer's point order; `top` replaces the +z side's body when set.
fn box_solid(
    id: &mut i64,
    lo: [f64; 3],
    hi: [f64; 3],
    material: &str,
    axes: Axes,
    top: Option<&str>,
) -> String {
    let mut out = String::new();
    *id += 1;
    writeln!(out, "\tsolid\n\t{{\n\t\t\"id\" \"{id}\"").unwrap();
    let c = [0, 1, 2].map(|i| (lo[i] + hi[i]) / 2.0);
    for axis in 0..3 {
        for dir in [1.0f64, -1.0] {
            let mut p1 = c;
            p1[axis] = if dir > 0.0 { hi[axis] } else { lo[axis] };
            let a = if axis == 2 {
                [8.0, 0.0, 0.0]
            } else {
                [0.0, 0.0, 8.0]
            };
            let mut n = [0.0; 3];
            n[axis] = dir;
            let b = [
                n[1] * a[2] - n[2] * a[1],
                n[2] * a[0] - n[0] * a[2],
                n[0] * a[1] - n[1] * a[0],
            ];
            let add = |p: [f64; 3], q: [f64; 3]| [p[0] + q[0], p[1] + q[1], p[2] + q[2]];
            let pts = [add(p1, a), p1, add(p1, b)];
            *id += 1;
            let (u, us, v, vs) = axes;
            writeln!(out, "\t\tside\n\t\t{{\n\t\t\t\"id\" \"{id}\"").unwrap();
            let pt = |p: [f64; 3]| format!("({} {} {})", p[0], p[1], p[2]);
            writeln!(
                out,
                "\t\t\t\"plane\" \"{} {} {}\"",
                pt(pts[0]),
                pt(pts[1]),
                pt(pts[2])
            )
            .unwrap();
            writeln!(out, "\t\t\t\"material\" \"{material}\"").unwrap();
            writeln!(
                out,
                "\t\t\t\"uaxis\" \"[{} {} {} {}] {us}\"",
                u[0], u[1], u[2], u[3]
            )
            .unwrap();
            writeln!(
                out,
                "\t\t\t\"vaxis\" \"[{} {} {} {}] {vs}\"",
                v[0], v[1], v[2], v[3]
            )
            .unwrap();
            writeln!(
                out,
                "\t\t\t\"rotation\" \"0\"\n\t\t\t\"lightmapscale\" \"16\"\n\t\t\t\"smoothing_groups\" \"0\""
            )
            .unwrap();
            if let (2, 1.0, Some(body)) = (axis, dir, top) {
                out.push_str(body);
            }
            writeln!(out, "\t\t}}").unwrap();
        }
    }
    writeln!(out, "\t}}").unwrap();
    out
}

/// A power-2 displacement block: a bump in the middle, tags and alphas that vary.
fn dispinfo(start: [f64; 3]) -> String {
    let rows = |f: &dyn Fn(usize, usize) -> String, n: usize| {
        (0..n)
            .map(|r| {
                format!(
                    "\t\t\t\t\t\"row{r}\" \"{}\"\n",
                    (0..5).map(|c| f(r, c)).collect::<Vec<_>>().join(" ")
                )
            })
            .collect::<String>()
    };
    let dist = |r: usize, c: usize| format!("{}", (r * (4 - r) * c * (4 - c)) as f64 * 1.5);
    let tags = (0..4)
        .map(|r| {
            format!(
                "\t\t\t\t\t\"row{r}\" \"{}\"\n",
                (0..8)
                    .map(|c| ((r + c) % 3 * 8 + 1).to_string())
                    .collect::<Vec<_>>()
                    .join(" ")
            )
        })
        .collect::<String>();
    format!(
        "\t\t\tdispinfo\n\t\t\t{{\n\t\t\t\t\"power\" \"2\"\n\t\t\t\t\"startposition\" \"[{} {} {}]\"\n\t\t\t\t\"flags\" \"0\"\n\t\t\t\t\"elevation\" \"0\"\n\t\t\t\t\"subdiv\" \"0\"\n\
         \t\t\t\tnormals\n\t\t\t\t{{\n{}\t\t\t\t}}\n\t\t\t\tdistances\n\t\t\t\t{{\n{}\t\t\t\t}}\n\
         \t\t\t\talphas\n\t\t\t\t{{\n{}\t\t\t\t}}\n\t\t\t\ttriangle_tags\n\t\t\t\t{{\n{}\t\t\t\t}}\n\t\t\t}}\n",
        start[0],
        start[1],
        start[2],
        rows(&|_, _| "0 0 1".to_string(), 5),
        rows(&dist, 5),
        rows(&|r, c| ((r * 5 + c) * 10).to_string(), 5),
        tags
    )
}

/// The test map: a sealed room, a sloped brush with rotated and scaled texture axes, a
/// func_detail pillar, a door with an origin, a displacement, an overlay on a wall.
/// The walls, floor and ceiling of a room from -512 -512 -64 to 512 512 320, 16 thick.
fn room(id: &mut i64) -> String {
    let mut world = String::new();
    let (lo, hi) = ([-512.0, -512.0, -64.0], [512.0, 512.0, 320.0]);
    for axis in 0..3 {
        for side in [0, 1] {
            let mut a = [lo[0] - 16.0, lo[1] - 16.0, lo[2] - 16.0];
            let mut b = [hi[0] + 16.0, hi[1] + 16.0, hi[2] + 16.0];
            if side == 0 {
                b[axis] = lo[axis];
            } else {
                a[axis] = hi[axis];
            }
            world += &box_solid(id, a, b, "BRICK/BRICKWALL001", WORLD_AXES, None);
        }
    }
    world
}

fn test_map() -> String {
    let mut id = 1;
    let mut world = room(&mut id);
    // Axes a texture tool leaves: rotated 30 degrees, odd scales and shifts.
    let (s, c) = (0.5f64, 0.75f64.sqrt());
    let odd = ([c, s, 0.0, 17.5], 0.3, [s, -c, 0.0, -3.25], 0.7);
    world += &box_solid(
        &mut id,
        [100.0, 100.0, -64.0],
        [164.0, 200.0, 40.0],
        "CONCRETE/CONCRETEFLOOR001A",
        odd,
        None,
    );
    world += &sloped(&mut id);
    let disp = dispinfo([-256.0, -256.0, -64.0]);
    world += &box_solid(
        &mut id,
        [-256.0, -256.0, -80.0],
        [0.0, 0.0, -64.0],
        "NATURE/DIRTFLOOR003A",
        WORLD_AXES,
        Some(&disp),
    );
    let overlay_side = 3; // the first wall's first side: x = -512, facing into the room
    let mut detail_id = id + 100;
    let detail = box_solid(
        &mut detail_id,
        [-100.0, 200.0, -64.0],
        [-36.0, 264.0, 320.0],
        "METAL/METALWALL001A",
        WORLD_AXES,
        None,
    );
    let mut door_id = id + 200;
    let door = box_solid(
        &mut door_id,
        [300.0, -40.0, -64.0],
        [308.0, 40.0, 64.0],
        "WOOD/WOODDOOR001",
        WORLD_AXES,
        None,
    );
    format!(
        "versioninfo\n{{\n\t\"mapversion\" \"3\"\n}}\nworld\n{{\n\t\"id\" \"1\"\n\t\"classname\" \"worldspawn\"\n\t\"skyname\" \"sky_day01_01\"\n{world}}}\n\
         entity\n{{\n\t\"id\" \"900\"\n\t\"classname\" \"func_detail\"\n{detail}}}\n\
         entity\n{{\n\t\"id\" \"901\"\n\t\"classname\" \"func_door\"\n\t\"origin\" \"304 0 0\"\n\t\"targetname\" \"door\"\n\
         \tconnections\n\t{{\n\t\t\"OnOpen\" \"door,Close,,5,-1\"\n\t}}\n{door}}}\n\
         entity\n{{\n\t\"id\" \"902\"\n\t\"classname\" \"info_player_start\"\n\t\"origin\" \"0 0 0\"\n}}\n\
         entity\n{{\n\t\"id\" \"903\"\n\t\"classname\" \"info_overlay\"\n\t\"material\" \"decals/decal001\"\n\t\"sides\" \"{overlay_side}\"\n\
         \t\"BasisOrigin\" \"-512 0 64\"\n\t\"BasisU\" \"0 1 0\"\n\t\"BasisV\" \"0 0 1\"\n\t\"BasisNormal\" \"1 0 0\"\n\
         \t\"StartU\" \"0\"\n\t\"EndU\" \"1\"\n\t\"StartV\" \"0\"\n\t\"EndV\" \"1\"\n\
         \t\"uv0\" \"-32 -32 0\"\n\t\"uv1\" \"-32 32 0\"\n\t\"uv2\" \"32 32 0\"\n\t\"uv3\" \"32 -32 0\"\n\t\"origin\" \"-512 0 64\"\n}}\n"
    )
}

/// A wedge whose top slopes (a non-axial plane through integer points).
fn sloped(id: &mut i64) -> String {
    let text = box_solid(
        id,
        [-300.0, 100.0, -64.0],
        [-200.0, 300.0, 0.0],
        "CONCRETE/CONCRETEFLOOR001A",
        WORLD_AXES,
        None,
    );
    // The +z side: tilt it to rise 37 units over the 100-unit x extent.
    let old = "\"plane\" \"(-242 200 0) (-250 200 0) (-250 208 0)\"";
    assert!(text.contains(old), "{text}");
    text.replace(old, "\"plane\" \"(-200 100 37) (-300 100 0) (-300 300 0)\"")
}

fn compile(vmf: &Vmf) -> Bsp {
    let input = srcmap_vbsp::input_from_vmf(vmf);
    let opts = Options {
        verify: true,
        allow_leak: true,
        ..Default::default()
    };
    srcmap_vbsp::compile(&input, &opts, &NoProgress)
        .expect("compiles")
        .bsp
}

/// Per brush (sorted): its contents and sorted sides as (plane, material, texture vectors).
fn brush_summary(bsp: &Bsp) -> Vec<(i32, Vec<String>)> {
    let mut out: Vec<(i32, Vec<String>)> = bsp
        .brushes
        .iter()
        .map(|b| {
            let mut sides: Vec<String> = bsp
                .sides_of(b)
                .filter(|s| s.bevel & 0xff == 0)
                .map(|s| {
                    let p = bsp.planes[s.plane as usize];
                    let t = bsp.texinfo[s.texinfo as usize];
                    let name = bsp.texdata_name(t.texdata as usize).unwrap_or("");
                    format!(
                        "{:?} {} {name} {:?} {:?}",
                        p.normal, p.dist, t.texture_vecs, t.lightmap_vecs
                    )
                })
                .collect();
            sides.sort();
            (b.contents, sides)
        })
        .collect();
    out.sort();
    out
}

fn classes(bsp: &Bsp) -> BTreeMap<String, usize> {
    let mut out = BTreeMap::new();
    for e in &bsp.entities {
        *out.entry(e.classname().unwrap_or("").to_string()).or_default() += 1;
    }
    out
}

/// Side count per material over every solid (a displacement's brush comes back with its
/// closing sides in the displaced side's material, as the test map's box had them).
fn side_materials(vmf: &Vmf) -> BTreeMap<String, usize> {
    let mut out = BTreeMap::new();
    for s in vmf.all_entities().flat_map(|e| &e.solids) {
        for side in &s.sides {
            *out.entry(side.material.to_ascii_uppercase()).or_default() += 1;
        }
    }
    out
}

#[test]
fn a_compiled_map_decompiles_to_one_that_compiles_the_same() {
    let source = Vmf::parse(test_map()).expect("test map parses");
    let first = compile(&source);
    let decompiled = srcmap_decompile::decompile(&first).vmf().expect("re-reads");
    let second = compile(&decompiled);
    assert_eq!(brush_summary(&second), brush_summary(&first));
    // The rendered faces: plane, texture and vertices (the displacement's new brush adds a
    // plane of its own behind it, so the plane lump itself may differ).
    let faces = |b: &Bsp| {
        let mut f: Vec<String> = (b.faces.iter())
            .map(|f| {
                let t = b.texinfo[f.texinfo as usize];
                format!(
                    "{:?} {:?} {:?}",
                    b.planes[f.plane as usize],
                    t.texture_vecs,
                    b.face_vertices(f)
                )
            })
            .collect();
        f.sort();
        f
    };
    assert_eq!(faces(&second), faces(&first));
    assert_eq!(classes(&second), classes(&first));
    assert_eq!(second.disp_info.len(), 1);
    assert_eq!(second.disp_verts, first.disp_verts);
    assert_eq!(second.disp_tris, first.disp_tris);
    assert_eq!(second.overlays.len(), 1);
    let faces = |b: &Bsp| b.overlays[0].face_count_and_render_order & 0x3fff;
    assert_eq!(faces(&second), faces(&first));
    assert!(faces(&first) > 0);
}

#[test]
fn the_decompiled_vmf_has_the_sources_solids_and_axes() {
    let source = Vmf::parse(test_map()).unwrap();
    let decompiled = srcmap_decompile::decompile(&compile(&source)).vmf().unwrap();
    let (a, b) = (decompiled.stats(), source.stats());
    assert_eq!(a.solids, b.solids);
    assert_eq!(a.sides, b.sides);
    assert_eq!(a.displacements, 1);
    assert_eq!(a.entities_by_class, b.entities_by_class);
    assert_eq!(side_materials(&decompiled), side_materials(&source));
    // The rotated, scaled axes come back to f32 precision, shifts exact.
    let find = |v: &Vmf| {
        let s = v.world.solids.iter().flat_map(|s| &s.sides);
        s.filter(|s| (s.uaxis.scale - 0.3).abs() < 1e-6)
            .map(|s| (s.uaxis, s.vaxis))
            .next()
    };
    let (u, v) = find(&decompiled).expect("the rotated side");
    let (su, sv) = find(&source).unwrap();
    for (x, y) in [(u, su), (v, sv)] {
        assert!(
            (x.scale - y.scale).abs() < 1e-6 && (x.shift - y.shift).abs() < 1e-5,
            "{x:?} {y:?}"
        );
        assert!(
            x.axis.iter().zip(y.axis).all(|(p, q)| (p - q).abs() < 1e-6),
            "{x:?} {y:?}"
        );
    }
    // The door's brushes are back where the source had them, its output in connections.
    let door = decompiled
        .entities
        .iter()
        .find(|e| e.classname == "func_door")
        .unwrap();
    assert_eq!(door.connections.len(), 1);
    let xs: Vec<f64> = door.solids[0]
        .sides
        .iter()
        .flat_map(|s| s.plane.iter().map(|p| p[0]))
        .collect();
    assert!(xs.iter().all(|&x| (300.0..=308.0).contains(&x)), "{xs:?}");
}

/// The first texinfo (lowest index) a face uses whose material is `name`.
fn first_face_texinfo(bsp: &Bsp, name: &str) -> i32 {
    let named = |&t: &i32| {
        let texdata = bsp.texinfo[t as usize].texdata as usize;
        bsp.texdata_name(texdata)
            .is_some_and(|n| n.eq_ignore_ascii_case(name))
    };
    let used: std::collections::BTreeSet<i32> = bsp.faces.iter().map(|f| f.texinfo).collect();
    used.into_iter().find(named).expect("a face of the material")
}

#[test]
fn a_hidden_side_vbsp_gave_another_materials_texinfo_gets_its_brushs_material_back() {
    let source = Vmf::parse(test_map()).unwrap();
    let mut bsp = compile(&source);
    // As Valve's vbsp does (CompactTexinfos): the concrete brushes' bottoms, which no face
    // shows (they stand on the floor), given the first used texinfo of the same flags, brick.
    let brick = first_face_texinfo(&bsp, "BRICK/BRICKWALL001");
    let concrete = first_face_texinfo(&bsp, "CONCRETE/CONCRETEFLOOR001A");
    assert!(brick < concrete, "the walls' texinfo comes first");
    let bottom = |side: &srcmap_bsp::BrushSide| {
        let p = bsp.planes[side.plane as usize];
        let texdata = bsp.texinfo[side.texinfo as usize].texdata as usize;
        let is_concrete = bsp.texdata_name(texdata) == Some("CONCRETE/CONCRETEFLOOR001A");
        is_concrete && p.normal == [0.0, 0.0, -1.0] && p.dist == 64.0 && side.bevel == 0
    };
    let bottoms: Vec<usize> = (0..bsp.brush_sides.len())
        .filter(|&i| bottom(&bsp.brush_sides[i]))
        .collect();
    for &i in &bottoms {
        bsp.brush_sides[i].texinfo = brick;
    }
    let swapped = bottoms.len();
    assert_eq!(swapped, 2, "the box's and the wedge's bottoms");
    let decompiled = srcmap_decompile::decompile(&bsp).vmf().unwrap();
    assert_eq!(side_materials(&decompiled), side_materials(&source));
}

/// The room with a pillar in each half, and (when `merged`) a func_viscluster over the +x half.
fn viscluster_map(merged: bool) -> String {
    let mut id = 1;
    let mut world = room(&mut id);
    for x in [-200.0, 100.0] {
        let (lo, hi) = ([x, -50.0, -64.0], [x + 100.0, 50.0, 320.0]);
        world += &box_solid(&mut id, lo, hi, "BRICK/BRICKWALL001", WORLD_AXES, None);
    }
    let mut vis_id = id + 100;
    let tool = "TOOLS/TOOLSTRIGGER";
    let vis = box_solid(
        &mut vis_id,
        [0.0, -512.0, -64.0],
        [512.0, 512.0, 320.0],
        tool,
        WORLD_AXES,
        None,
    );
    let vis = match merged {
        true => format!("entity\n{{\n\t\"id\" \"900\"\n\t\"classname\" \"func_viscluster\"\n{vis}}}\n"),
        false => String::new(),
    };
    format!(
        "world\n{{\n\t\"id\" \"1\"\n\t\"classname\" \"worldspawn\"\n{world}}}\n{vis}\
         entity\n{{\n\t\"id\" \"902\"\n\t\"classname\" \"info_player_start\"\n\t\"origin\" \"-400 -400 0\"\n}}\n"
    )
}

fn clusters(bsp: &Bsp) -> usize {
    let set: std::collections::BTreeSet<i32> =
        bsp.leafs.iter().map(|l| l.cluster).filter(|&c| c >= 0).collect();
    set.len()
}

fn visclusters(vmf: &Vmf) -> usize {
    vmf.entities
        .iter()
        .filter(|e| e.classname == "func_viscluster")
        .count()
}

#[test]
fn a_viscluster_comes_back_where_the_tree_merged_leaves_and_recompiles_to_the_same_clusters() {
    let plain = compile(&Vmf::parse(viscluster_map(false)).unwrap());
    let merged = compile(&Vmf::parse(viscluster_map(true)).unwrap());
    assert!(
        clusters(&merged) < clusters(&plain),
        "{} {}",
        clusters(&merged),
        clusters(&plain)
    );
    let none = srcmap_decompile::decompile(&plain).vmf().unwrap();
    assert_eq!(visclusters(&none), 0);
    let back = srcmap_decompile::decompile(&merged).vmf().unwrap();
    assert_eq!(visclusters(&back), 1);
    assert_eq!(clusters(&compile(&back)), clusters(&merged));
}
