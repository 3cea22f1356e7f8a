//! Switchable light styles through a whole compile: named lights of instances (after their
//! name fixup) and of the map get styles 32 and up in the entity lump, one per name; too many
//! names is Valve's error.

mod common;
use common::*;
use srcmap_vbsp::{MapEntity, MapInput, VbspError, instances};

fn light(id: i64, name: &str, style: &str, at: [f64; 3]) -> MapEntity {
    let mut e = entity(id, "light", at, vec![]);
    e.keyvalues.push(("targetname".into(), name.into()));
    e.keyvalues.push(("style".into(), style.into()));
    e
}

fn lamp_instance(id: i64, name: &str, fixup_style: &str, x: f64) -> MapEntity {
    let mut e = entity(id, "func_instance", [x, 0.0, 0.0], vec![]);
    for (k, v) in [
        ("file", "lamp.vmf"),
        ("targetname", name),
        ("fixup_style", fixup_style),
    ] {
        e.keyvalues.push((k.into(), v.into()));
    }
    e
}

/// The entity lump's (targetname, style, defaultstyle) of every light.
fn light_keys(out: &srcmap_vbsp::Output) -> Vec<(String, String, Option<String>)> {
    let key = |e: &srcmap_bsp::Entity, k: &str| e.get(k).map(str::to_string);
    (out.bsp.entities.iter())
        .filter(|e| e.classname() == Some("light"))
        .map(|e| {
            (
                key(e, "targetname").unwrap(),
                key(e, "style").unwrap(),
                key(e, "defaultstyle"),
            )
        })
        .collect()
}

#[test]
fn instance_lights_are_styled_after_their_names_are_fixed_up() {
    let mut map = MapInput {
        entities: vec![
            world(room(
                1,
                [-512.0, -256.0, 0.0],
                [512.0, 256.0, 256.0],
                "metal/base",
            )),
            light(30, "hall", "10", [0.0, 0.0, 128.0]),
            lamp_instance(31, "left", "0", -256.0),
            lamp_instance(32, "right", "0", 256.0),
            // No fixup: its lamp shares the plain name with the other unfixed one.
            lamp_instance(33, "", "2", 0.0),
            lamp_instance(34, "", "2", 128.0),
        ],
    };
    let lamp = || MapInput {
        entities: vec![world(vec![]), light(2, "lamp", "0", [0.0, 0.0, 64.0])],
    };
    let problems = instances::collapse(&mut map, &|_: &str| Some(lamp())).unwrap();
    assert!(problems.is_empty(), "{problems:?}");
    let out = compile_map(map.entities).unwrap();
    let s = |n: &str, st: &str, d: Option<&str>| (n.to_string(), st.to_string(), d.map(str::to_string));
    assert_eq!(
        light_keys(&out),
        [
            s("hall", "32", Some("10")),
            s("left-lamp", "33", None),
            s("right-lamp", "34", None),
            s("lamp", "35", None),
            s("lamp", "35", None),
        ]
    );
}

#[test]
fn a_thirty_third_name_fails_naming_the_light() {
    let mut entities = vec![world(room(1, [-512.0; 3], [512.0; 3], "metal/base"))];
    for i in 0..33 {
        entities.push(light(100 + i, &format!("l{i}"), "0", [0.0, 0.0, i as f64]));
    }
    match compile_map(entities) {
        Err(VbspError::TooManySwitchedLights { name, entity_id, max }) => {
            assert_eq!((name.as_str(), entity_id, max), ("l32", 132, 32));
        }
        Err(e) => panic!("{e}"),
        Ok(_) => panic!("compiled 33 switched lights"),
    }
}
