//! Switchable lights end to end on a purpose-built map: `srcmap compile` gives named lights
//! their styles (32 and up, one per name, the mapper's pattern in `defaultstyle`), vrad lights
//! each face in the styles that reach it, an "initially dark" light's light lies only in its
//! own style, and `render --light NAME=on|off` shows it switched, where it shines.

use std::path::{Path, PathBuf};
use std::process::Command;

use glam::{Vec2, Vec3};
use srcmap_bsp::Bsp;
use srcmap_export::render::{Camera, RenderOptions, Shading, View, render};
use srcmap_export::{LightSwitch, MapMesh, StyleScales};

fn srcmap() -> Command {
    Command::new(env!("CARGO_BIN_EXE_srcmap"))
}

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("srcmap-styles-test-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A VMF brush: the box `lo..hi`, its six sides' planes wound as Hammer writes them.
fn solid(id: &mut u32, lo: [i32; 3], hi: [i32; 3]) -> String {
    let ([x0, y0, z0], [x1, y1, z1]) = (lo, hi);
    let planes = [
        format!("({x0} {y1} {z1}) ({x0} {y0} {z1}) ({x0} {y0} {z0})"),
        format!("({x1} {y0} {z0}) ({x1} {y0} {z1}) ({x1} {y1} {z1})"),
        format!("({x0} {y0} {z0}) ({x0} {y0} {z1}) ({x1} {y0} {z1})"),
        format!("({x1} {y1} {z1}) ({x0} {y1} {z1}) ({x0} {y1} {z0})"),
        format!("({x1} {y1} {z0}) ({x0} {y1} {z0}) ({x0} {y0} {z0})"),
        format!("({x0} {y0} {z1}) ({x0} {y1} {z1}) ({x1} {y1} {z1})"),
    ];
    *id += 1;
    let mut out = format!("\tsolid\n\t{{\n\t\t\"id\" \"{id}\"\n");
    for (k, plane) in planes.iter().enumerate() {
        let (u, v) = if k < 4 {
            ("[1 0 0 0] 0.25", "[0 0 -1 0] 0.25")
        } else {
            ("[1 0 0 0] 0.25", "[0 -1 0 0] 0.25")
        };
        let u = if k < 2 { "[0 1 0 0] 0.25" } else { u };
        out += &format!(
            "\t\tside\n\t\t{{\n\t\t\t\"id\" \"{}\"\n\t\t\t\"plane\" \"{plane}\"\n\t\t\t\"material\" \"DEV/DEV_MEASUREGENERIC01B\"\n\t\t\t\"uaxis\" \"{u}\"\n\t\t\t\"vaxis\" \"{v}\"\n\t\t\t\"rotation\" \"0\"\n\t\t\t\"lightmapscale\" \"16\"\n\t\t\t\"smoothing_groups\" \"0\"\n\t\t}}\n",
            *id * 10 + k as u32
        );
    }
    out + "\t}\n"
}

/// Six walls 16 thick around the inside `lo..hi`.
fn room(id: &mut u32, lo: [i32; 3], hi: [i32; 3]) -> String {
    let mut out = String::new();
    for axis in 0..3 {
        for side in 0..2 {
            let (mut a, mut b) = (lo.map(|v| v - 16), hi.map(|v| v + 16));
            if side == 0 {
                b[axis] = lo[axis]
            } else {
                a[axis] = hi[axis]
            }
            out += &solid(id, a, b);
        }
    }
    out
}

fn entity(id: u32, keys: &[(&str, &str)]) -> String {
    let mut out = format!("entity\n{{\n\t\"id\" \"{id}\"\n");
    for (k, v) in keys {
        out += &format!("\t\"{k}\" \"{v}\"\n");
    }
    out + "}\n"
}

fn light(id: u32, origin: &str, more: &[(&str, &str)]) -> String {
    let mut keys = vec![
        ("classname", "light"),
        ("_light", "255 255 255 300"),
        ("_quadratic_attn", "1"),
        ("origin", origin),
    ];
    keys.extend_from_slice(more);
    entity(id, &keys)
}

/// Two sealed rooms along x. West (x < 0): a plain light, "lamp", and "flicker" (style 10).
/// East (x > 0): "lamp" again and "dark", which starts off (spawnflags 1), and no unnamed light.
fn two_rooms() -> String {
    let mut id = 0;
    let mut world = String::from("world\n{\n\t\"id\" \"1\"\n\t\"classname\" \"worldspawn\"\n");
    world += &room(&mut id, [-1024, -256, 0], [-128, 256, 256]);
    world += &room(&mut id, [128, -256, 0], [1024, 256, 256]);
    world += "}\n";
    world
        + &entity(
            900,
            &[("classname", "info_player_start"), ("origin", "-576 0 16")],
        )
        + &light(901, "-800 0 192", &[("style", "0")])
        + &light(902, "-576 0 192", &[("targetname", "lamp"), ("style", "0")])
        + &light(903, "-352 0 192", &[("targetname", "flicker"), ("style", "10")])
        + &light(904, "352 0 192", &[("targetname", "lamp")])
        + &light(905, "800 0 192", &[("targetname", "dark"), ("spawnflags", "1")])
}

fn compile(dir: &Path) -> (PathBuf, Bsp) {
    let vmf = dir.join("two_rooms.vmf");
    std::fs::write(&vmf, two_rooms()).unwrap();
    let out = srcmap().arg("compile").arg(&vmf).arg("-q").output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let bsp_path = dir.join("two_rooms.bsp");
    let bsp = Bsp::parse(&std::fs::read(&bsp_path).unwrap()).unwrap();
    (bsp_path, bsp)
}

/// The lit face whose plane is the floor (+z, at z = 0) around `x`.
fn floor_face(bsp: &Bsp, x: f32) -> usize {
    (0..bsp.faces.len())
        .find(|&i| {
            let f = &bsp.faces[i];
            let p = &bsp.planes[f.plane as usize];
            let v = bsp.face_vertices(f).unwrap_or_default();
            p.normal[2] > 0.9
                && p.dist.abs() < 0.5
                && v.iter().any(|c| c[0] < x)
                && v.iter().any(|c| c[0] > x)
        })
        .expect("a floor face")
}

/// Brightest luxel (max channel, linear) of face `fi`'s lightmap of style `style`.
fn brightest(bsp: &Bsp, fi: usize, style: u8) -> f32 {
    let f = &bsp.faces[fi];
    let slot = f.styles.iter().position(|&s| s == style);
    let lit = bsp.face_lighting(fi, false).unwrap();
    slot.map_or(0.0, |k| {
        lit.styles[k]
            .iter()
            .flat_map(|c| c.to_linear())
            .fold(0.0, f32::max)
    })
}

fn mean_near(image: &srcmap_export::Rgb8, at: Vec2, radius: f32) -> f32 {
    let (mut sum, mut n) = (0.0, 0);
    for y in 0..image.height {
        for x in 0..image.width {
            if (Vec2::new(x as f32, y as f32) - at).length() <= radius {
                let o = ((y * image.width + x) * 3) as usize;
                sum += image.pixels[o..o + 3].iter().map(|&c| c as f32).sum::<f32>() / 3.0;
                n += 1;
            }
        }
    }
    sum / n.max(1) as f32
}

#[test]
fn named_lights_switch() {
    let dir = temp_dir("two-rooms");
    let (bsp_path, bsp) = compile(&dir);

    // The entity lump: styles in entity order, one per name, the pattern kept.
    let lights: Vec<(Option<&str>, Option<&str>, Option<&str>)> = (bsp.entities.iter())
        .filter(|e| e.classname() == Some("light"))
        .map(|e| (e.get("targetname"), e.get("style"), e.get("defaultstyle")))
        .collect();
    assert_eq!(
        lights,
        [
            (None, Some("0"), None),
            (Some("lamp"), Some("32"), None),
            (Some("flicker"), Some("33"), Some("10")),
            (Some("lamp"), Some("32"), None),
            (Some("dark"), Some("34"), None),
        ]
    );

    // Faces: the west floor in styles 0, 32 and 33; the east floor in 0, 32 and 34.
    let (west, east) = (floor_face(&bsp, -576.0), floor_face(&bsp, 576.0));
    let set = |fi: usize| {
        let mut s: Vec<u8> = bsp.faces[fi].styles.into_iter().filter(|&s| s != 255).collect();
        s.sort();
        s
    };
    assert_eq!((set(west), set(east)), (vec![0, 32, 33], vec![0, 32, 34]));
    // "dark" lies only in its own style: the east room has no unnamed light, so its style 0 is
    // black (bounce carries style 0 only), while style 34 is lit.
    assert!(
        brightest(&bsp, east, 0) < 0.5,
        "east style 0: {}",
        brightest(&bsp, east, 0)
    );
    assert!(
        brightest(&bsp, east, 34) > 20.0,
        "east style 34: {}",
        brightest(&bsp, east, 34)
    );
    assert!(brightest(&bsp, west, 0) > 20.0);

    // The picture: "dark" switched on brightens the floor under it and nothing in the west.
    let (w, h) = (256, 96);
    let picture = |switches: &[LightSwitch]| {
        let mesh = MapMesh::build_lit(&bsp, false, &StyleScales::with_switches(&bsp, switches).unwrap());
        let options = RenderOptions {
            width: w,
            height: h,
            shading: Shading::Lightmap,
            view: View::Top,
        };
        (render(&mesh, &[], &options), Camera::new(&mesh, View::Top, w, h))
    };
    let (off, camera) = picture(&[]);
    let (on, _) = picture(&[LightSwitch {
        name: "DARK".into(),
        on: true,
    }]);
    let at = |x: f32| camera.project(Vec3::new(x, 0.0, 0.0), w, h).unwrap();
    let (east_off, east_on) = (mean_near(&off, at(800.0), 4.0), mean_near(&on, at(800.0), 4.0));
    assert!(
        east_on > east_off + 20.0,
        "under 'dark': off {east_off}, on {east_on}"
    );
    assert_eq!(mean_near(&off, at(-576.0), 6.0), mean_near(&on, at(-576.0), 6.0));
    // "lamp" off darkens both rooms where it shines.
    let (lamp_off, _) = picture(&[LightSwitch {
        name: "lamp".into(),
        on: false,
    }]);
    assert!(mean_near(&lamp_off, at(-576.0), 4.0) < mean_near(&off, at(-576.0), 4.0) - 5.0);

    // The command line: --light switches, an unknown name is an error naming the lights.
    let png = |name: &str| dir.join(name);
    let run = |args: &[&str], out: &Path| {
        srcmap()
            .args([
                "render",
                "--top",
                "--shading",
                "lightmap",
                "--quiet",
                "--width",
                "256",
                "--height",
                "96",
            ])
            .args(args)
            .arg("-o")
            .arg(out)
            .arg(&bsp_path)
            .output()
            .unwrap()
    };
    assert!(run(&[], &png("off.png")).status.success());
    assert!(run(&["--light", "dark=on"], &png("on.png")).status.success());
    assert_ne!(
        std::fs::read(png("off.png")).unwrap(),
        std::fs::read(png("on.png")).unwrap()
    );
    let bad = run(&["--light", "nobody=on"], &png("bad.png"));
    assert_eq!(bad.status.code(), Some(1));
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(
        err.contains("no switchable light is named 'nobody'") && err.contains("lamp, flicker, dark"),
        "{err}"
    );
    assert!(!png("bad.png").exists());
}
