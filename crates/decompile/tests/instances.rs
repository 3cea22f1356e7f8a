//! `--instances` on a purpose-built map: one instance file placed three times (moved, turned
//! about z, pitched) with a different `$color` each. The decompile must give one instance
//! file holding the group once and three `func_instance`s standing where the source's did,
//! and its recompile the source compile's entities.

use srcmap_bsp::Bsp;
use srcmap_decompile::{Options, decompile_with};
use srcmap_vbsp::{MapInput, NoProgress};
use srcmap_vmf::Vmf;

/// The instance: a named light, a target and a relay whose output names the light.
const LAMP: &str = r#"world { "id" "1" "classname" "worldspawn" }
entity { "id" "2" "classname" "func_instance_parms" "parm1" "$color string" }
entity { "id" "3" "classname" "light" "targetname" "lamp" "origin" "16 0 8" "_light" "$color 200" }
entity { "id" "4" "classname" "info_target" "targetname" "spot" "origin" "0 32 0" "angles" "0 30 0" }
entity { "id" "5" "classname" "logic_relay" "targetname" "relay" "origin" "-8 0 0"
  connections { "OnTrigger" "lamp,TurnOn,,0,-1" } }
"#;

/// (origin, angles, colour) of each placed copy.
const COPIES: [(&str, &str, &str); 3] = [
    ("256 0 0", "0 0 0", "255 0 0"),
    ("-256 128 0", "0 90 0", "0 255 0"),
    ("0 -256 64", "30 225 0", "0 0 255"),
];

/// A floor brush, Hammer's point order, and the three `func_instance`s, named `names`
/// (empty: unnamed).
fn main_vmf(names: [&str; 3]) -> String {
    let floor = [
        "(-512 512 0) (512 512 0) (512 -512 0)",
        "(-512 -512 -64) (512 -512 -64) (512 512 -64)",
        "(-512 512 0) (-512 -512 0) (-512 -512 -64)",
        "(512 512 -64) (512 -512 -64) (512 -512 0)",
        "(512 512 0) (-512 512 0) (-512 512 -64)",
        "(512 -512 -64) (-512 -512 -64) (-512 -512 0)",
    ];
    let side = |(i, p): (usize, &&str)| {
        format!(
            r#"side {{ "id" "{}" "plane" "{p}" "material" "DEV/DEV_MEASUREGENERIC01B" "uaxis" "[1 0 0 0] 0.25" "vaxis" "[0 -1 0 0] 0.25" "lightmapscale" "16" }}"#,
            i + 10
        )
    };
    let sides: Vec<String> = floor.iter().enumerate().map(side).collect();
    let mut text = format!(
        "world {{ \"id\" \"1\" \"classname\" \"worldspawn\" solid {{ \"id\" \"2\" {} }} }}\n",
        sides.join(" ")
    );
    for (n, (origin, angles, colour)) in COPIES.iter().enumerate() {
        text += &format!(
            r#"entity {{ "id" "{}" "classname" "func_instance" "targetname" "{}" "file" "instances/lamp.vmf" "origin" "{origin}" "angles" "{angles}" "replace01" "$color {colour}" }}"#,
            n + 100,
            names[n]
        );
        text.push('\n');
    }
    text
}

/// Compiles `main` with its instances read from `files` (path, VMF text).
fn compile(main: &str, files: &[(String, String)]) -> Bsp {
    let mut input = srcmap_vbsp::input_from_vmf(&Vmf::parse(main).expect("main parses"));
    let load = |path: &str| -> Option<MapInput> {
        let (_, text) = files.iter().find(|(p, _)| p == path)?;
        Some(srcmap_vbsp::input_from_vmf(&Vmf::parse(text.as_str()).ok()?))
    };
    let problems = srcmap_vbsp::instances::collapse(&mut input, &load).expect("collapses");
    assert!(problems.is_empty(), "{problems:?}");
    let opts = srcmap_vbsp::Options {
        allow_leak: true,
        ..Default::default()
    };
    srcmap_vbsp::compile(&input, &opts, &NoProgress)
        .expect("compiles")
        .bsp
}

fn numbers(v: &str) -> Option<Vec<f64>> {
    v.split_whitespace().map(|x| x.parse().ok()).collect()
}

/// An entity as sorted `key=value` lines, numbers to 0.01 (angles modulo 360), the
/// compiler's `hammerid` left out.
fn canonical(e: &srcmap_bsp::Entity) -> Vec<String> {
    let value = |k: &str, v: &str| match numbers(v) {
        Some(n) if !n.is_empty() => {
            let wrap = |x: f64| if k == "angles" { x.rem_euclid(360.0) } else { x };
            let r = |x: f64| format!("{:.2}", wrap(x) + 0.0).replace("360.00", "0.00");
            n.into_iter().map(r).collect::<Vec<_>>().join(" ")
        }
        _ => v.to_string(),
    };
    let keep = |(k, _): &&(String, String)| k != "hammerid";
    let mut out: Vec<String> = e
        .pairs
        .iter()
        .filter(keep)
        .map(|(k, v)| format!("{k}={}", value(k, v)))
        .collect();
    out.sort();
    out
}

fn entity_set(bsp: &Bsp) -> Vec<Vec<String>> {
    let mut out: Vec<Vec<String>> = bsp.entities.iter().map(canonical).collect();
    out.sort();
    out
}

fn lamp_files() -> Vec<(String, String)> {
    vec![("instances/lamp.vmf".to_string(), LAMP.to_string())]
}

#[test]
fn repeated_instances_come_back_as_one_file_and_its_placements() {
    let source = compile(&main_vmf(["", "", ""]), &lamp_files());
    let options = Options {
        instances: true,
        name: "lamps".into(),
    };
    let out = decompile_with(&source, &options);
    assert_eq!(out.instances.len(), 1, "one instance file");
    let file = &out.instances[0];
    assert_eq!(file.path, "instances/lamps_1.vmf");
    let inst = Vmf::parse(file.text.as_str()).expect("instance parses");
    let classes: Vec<&str> = inst.entities.iter().map(|e| e.classname.as_str()).collect();
    assert_eq!(
        classes,
        ["light", "info_target", "logic_relay", "func_instance_parms"]
    );

    let vmf = out.vmf().expect("map parses");
    let placed: Vec<_> = vmf
        .entities
        .iter()
        .filter(|e| e.classname == "func_instance")
        .collect();
    assert_eq!(placed.len(), 3);
    assert!(
        !vmf.entities.iter().any(|e| e.classname == "light"),
        "lights went into the instance"
    );
    // The instance file's frame is the first copy's centre, so copies differ from the
    // source's placements by that one offset, turned: compare the copies pairwise.
    let pose = |i: usize| {
        let e = placed[i];
        let v = |k: &str| numbers(e.get(k).unwrap()).unwrap();
        (v("origin"), v("angles"))
    };
    for (i, (_, angles, _)) in COPIES.iter().enumerate() {
        let want = numbers(angles).unwrap();
        let (_, got) = pose(i);
        let close = want
            .iter()
            .zip(&got)
            .all(|(a, b)| (a - b).rem_euclid(360.0).min((b - a).rem_euclid(360.0)) < 1e-3);
        assert!(close, "copy {i}: angles {got:?}, want {want:?}");
    }

    // The first copy stands unturned, so its origin less the source's is the instance
    // file's frame in the source file's; every copy's origin is that point placed.
    let first = numbers(COPIES[0].0).unwrap();
    let frame: Vec<f64> = (0..3).map(|k| pose(0).0[k] - first[k]).collect();
    for (i, (origin, angles, _)) in COPIES.iter().enumerate() {
        let m = srcmap_geom::angle_matrix(numbers(angles).unwrap().try_into().unwrap());
        let o = numbers(origin).unwrap();
        let want: Vec<f64> = (0..3)
            .map(|k| o[k] + (0..3).map(|c| m[c][k] * frame[c]).sum::<f64>())
            .collect();
        let got = pose(i).0;
        let close = want.iter().zip(&got).all(|(a, b)| (a - b).abs() < 0.01);
        assert!(close, "copy {i}: origin {got:?}, want {want:?}");
    }

    let files = vec![(file.path.clone(), file.text.clone())];
    let again = compile(&out.text, &files);
    assert_eq!(entity_set(&again), entity_set(&source));
}

#[test]
fn without_the_flag_nothing_is_collapsed() {
    let source = compile(&main_vmf(["", "", ""]), &lamp_files());
    let out = decompile_with(&source, &Options::default());
    assert!(out.instances.is_empty());
    let plain = srcmap_decompile::decompile(&source);
    assert_eq!(out.text, plain.text);
    let vmf = out.vmf().unwrap();
    assert_eq!(vmf.entities.iter().filter(|e| e.classname == "light").count(), 3);
}

#[test]
fn named_instances_come_back_under_their_names() {
    let names = ["hall", "attic", "cellar"];
    let source = compile(&main_vmf(names), &lamp_files());
    let options = Options {
        instances: true,
        name: "lamps".into(),
    };
    let out = decompile_with(&source, &options);
    assert_eq!(out.instances.len(), 1, "one instance file");
    let vmf = out.vmf().expect("map parses");
    let placed: Vec<&str> = (vmf.entities.iter())
        .filter(|e| e.classname == "func_instance")
        .filter_map(|e| e.get("targetname"))
        .collect();
    assert_eq!(placed, names);
    let files = vec![(out.instances[0].path.clone(), out.instances[0].text.clone())];
    let again = compile(&out.text, &files);
    assert_eq!(entity_set(&again), entity_set(&source));
}
