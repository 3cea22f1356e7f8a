//! `srcmap export` and `srcmap render` end to end on the example box room, compiled by
//! `srcmap compile` (lit) and by `srcmap vbsp` alone (unlit).

use std::path::{Path, PathBuf};
use std::process::Command;

use glam::Vec3;
use srcmap_export::MapMesh;
use srcmap_export::render::{Camera, RenderOptions, Shading, View, render};

fn srcmap() -> Command {
    Command::new(env!("CARGO_BIN_EXE_srcmap"))
}

fn repo(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(rel)
}

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("srcmap-export-test-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn run_ok(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Mean brightness (0-255) of the pixels within `radius` of `at`.
fn mean_near(image: &srcmap_export::Rgb8, at: glam::Vec2, radius: f32) -> f32 {
    let (mut sum, mut n) = (0.0, 0);
    for y in 0..image.height {
        for x in 0..image.width {
            if (glam::Vec2::new(x as f32, y as f32) - at).length() <= radius {
                let o = ((y * image.width + x) * 3) as usize;
                sum += image.pixels[o..o + 3].iter().map(|&c| c as f32).sum::<f32>() / 3.0;
                n += 1;
            }
        }
    }
    sum / n.max(1) as f32
}

#[test]
fn lit_box_room_renders_brighter_under_its_light() {
    let dir = temp_dir("lit");
    let bsp_path = dir.join("box_room.bsp");
    run_ok(
        srcmap()
            .arg("compile")
            .arg(repo("examples/box_room.vmf"))
            .arg("-o")
            .arg(&bsp_path)
            .arg("-q"),
    );
    let png = dir.join("box_room.png");
    run_ok(
        srcmap()
            .args(["render", "--top", "--quiet", "-o"])
            .arg(&png)
            .arg(&bsp_path),
    );
    assert!(std::fs::read(&png).unwrap().starts_with(b"\x89PNG\r\n\x1a\n"));
    let glb = dir.join("box_room.glb");
    let notes = run_ok(
        srcmap()
            .args(["export", "--quiet", "-o"])
            .arg(&glb)
            .arg(&bsp_path),
    );
    assert!(notes.is_empty(), "a lit map has no notes: {notes}");
    srcmap_export::Glb::parse(&std::fs::read(&glb).unwrap()).unwrap();

    // The floor seen from above, lightmaps only: brighter under the light than in the corners.
    let bsp = srcmap_bsp::Bsp::parse(&std::fs::read(&bsp_path).unwrap()).unwrap();
    let light = bsp
        .entities
        .iter()
        .find(|e| e.classname() == Some("light"))
        .expect("a light");
    let origin = Vec3::from(srcmap_export::gltf::parse_vec3(light.get("origin").unwrap()).unwrap());
    let mesh = MapMesh::build(&bsp, false);
    assert_eq!(mesh.atlas.lit_faces(), mesh.faces_drawn);
    let (w, h) = (160, 120);
    let options = RenderOptions {
        width: w,
        height: h,
        shading: Shading::Lightmap,
        view: View::Top,
    };
    let image = render(&mesh, &[], &options);
    let camera = Camera::new(&mesh, View::Top, w, h);
    let (lo, hi) = mesh.bounds().unwrap();
    let under = camera.project(Vec3::new(origin.x, origin.y, lo.z), w, h).unwrap();
    let corner = camera
        .project(Vec3::new(lo.x + 16.0, lo.y + 16.0, lo.z), w, h)
        .unwrap();
    let background = mean_near(&image, glam::Vec2::new(0.0, 0.0), 2.0);
    let (near, far) = (mean_near(&image, under, 4.0), mean_near(&image, corner, 4.0));
    assert!(near > far + 20.0, "under the light {near}, corner {far}");
    assert!(
        far > background,
        "the lit floor is not blank: corner {far}, background {background}"
    );
    assert!(hi.z > origin.z && lo.z < origin.z);
}

#[test]
fn unlit_box_room_exports_and_renders_fullbright_with_a_note() {
    let dir = temp_dir("unlit");
    let bsp_path = dir.join("box_room.bsp");
    run_ok(
        srcmap()
            .arg("vbsp")
            .arg(repo("examples/box_room.vmf"))
            .arg("-o")
            .arg(&bsp_path)
            .arg("-q"),
    );
    let notes = run_ok(
        srcmap()
            .args(["export", "--quiet", "-o"])
            .arg(dir.join("b.glb"))
            .arg(&bsp_path),
    );
    assert!(notes.contains("no lighting"), "{notes}");
    let notes = run_ok(
        srcmap()
            .args(["render", "--shading", "fullbright", "--quiet", "-o"])
            .arg(dir.join("b.png"))
            .arg(&bsp_path),
    );
    assert!(notes.contains("no lighting"), "{notes}");
}

#[test]
fn picture_sizes_outside_the_bound_are_refused_before_any_work() {
    let dir = temp_dir("sizes");
    for (flag, value) in [
        ("--width", "0"),
        ("--height", "0"),
        ("--width", "65536"),
        ("--height", "100000"),
    ] {
        let out = srcmap()
            .args(["render", flag, value, "-o"])
            .arg(dir.join("x.png"))
            .arg(repo("examples/box_room.vmf"))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{flag} {value}: {stderr}");
        assert!(stderr.contains(flag) && stderr.contains("1..=8192"), "{stderr}");
        assert!(!dir.join("x.png").exists());
    }
}

#[test]
fn outputs_never_replace_the_input() {
    let dir = temp_dir("overwrite");
    let vmf = dir.join("room.vmf");
    std::fs::copy(repo("examples/box_room.vmf"), &vmf).unwrap();
    let bsp = dir.join("room.bsp");
    run_ok(srcmap().arg("vbsp").arg(&vmf).arg("-o").arg(&bsp).arg("-q"));
    #[cfg(unix)]
    std::os::unix::fs::symlink(&bsp, dir.join("link.png")).unwrap();
    let before = std::fs::read(&bsp).unwrap();
    let cases: Vec<Vec<std::ffi::OsString>> = vec![
        vec![
            "export".into(),
            bsp.clone().into(),
            "-o".into(),
            bsp.clone().into(),
        ],
        vec![
            "render".into(),
            bsp.clone().into(),
            "-o".into(),
            bsp.clone().into(),
        ],
        vec![
            "render".into(),
            vmf.clone().into(),
            "-o".into(),
            vmf.clone().into(),
        ],
        #[cfg(unix)]
        vec![
            "render".into(),
            bsp.clone().into(),
            "-o".into(),
            dir.join("link.png").into(),
        ],
        vec![
            "decompile".into(),
            bsp.clone().into(),
            "-o".into(),
            bsp.clone().into(),
        ],
        vec!["convert".into(), bsp.clone().into(), dir.join("room2.png").into()],
    ];
    for args in cases {
        let out = srcmap().args(&args).output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(2),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert_eq!(std::fs::read(&bsp).unwrap(), before);
    assert_eq!(
        std::fs::read(&vmf).unwrap(),
        std::fs::read(repo("examples/box_room.vmf")).unwrap()
    );
    assert!(!dir.join("room2.png").exists());
}
