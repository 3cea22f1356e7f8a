//! func_instance collapse: placement, rotation, name fixup, $parameters, nesting.

mod common;
use common::*;
use srcmap_vbsp::{MapEntity, MapInput, instances};

fn inst(id: i64, file: &str, name: &str, origin: &str, angles: &str, extra: &[(&str, &str)]) -> MapEntity {
    let mut e = entity(id, "func_instance", [0.0; 3], vec![]);
    for (k, v) in [
        ("file", file),
        ("targetname", name),
        ("origin", origin),
        ("angles", angles),
    ] {
        e.keyvalues.push((k.into(), v.into()));
    }
    for (k, v) in extra {
        e.keyvalues.push((k.to_string(), v.to_string()));
    }
    e
}

fn lamp_file() -> MapInput {
    let mut light = entity(2, "light", [16.0, 0.0, 0.0], vec![]);
    light.keyvalues.push(("targetname".into(), "lamp".into()));
    light.keyvalues.push(("_light".into(), "$color 200".into()));
    let mut relay = entity(3, "logic_relay", [0.0, 0.0, 8.0], vec![]);
    relay
        .outputs
        .push(("OnTrigger".into(), "lamp,TurnOn,,0,-1".into()));
    relay
        .outputs
        .push(("OnTrigger".into(), "!player,Kill,,0,-1".into()));
    MapInput {
        entities: vec![
            world(vec![box_brush(
                1,
                [0.0, 0.0, 0.0],
                [32.0, 16.0, 8.0],
                "metal/base",
            )]),
            light,
            relay,
        ],
    }
}

#[test]
fn instances_are_placed_renamed_and_parameterised() {
    let mut map = MapInput {
        entities: vec![
            world(vec![]),
            inst(
                10,
                "instances/lamp.vmf",
                "hall",
                "100 0 0",
                "0 90 0",
                &[("replace01", "$color 255 0 0")],
            ),
            inst(11, "instances/outer.vmf", "", "0 0 0", "0 0 0", &[]),
        ],
    };
    let loader = |name: &str| -> Option<MapInput> {
        match name {
            // Also asked for by outer.vmf's "lamp.vmf": relative to the including file.
            "instances/lamp.vmf" => Some(lamp_file()),
            "instances/outer.vmf" => Some(MapInput {
                entities: vec![
                    world(vec![]),
                    inst(20, "lamp.vmf", "inner", "0 0 64", "0 0 0", &[]),
                ],
            }),
            _ => None,
        }
    };
    let problems = instances::collapse(&mut map, &loader).unwrap();
    assert!(problems.is_empty(), "{problems:?}");
    let lights: Vec<&MapEntity> = map.entities.iter().filter(|e| e.classname == "light").collect();
    assert_eq!(lights.len(), 2);
    let hall = lights
        .iter()
        .find(|e| e.get("targetname") == Some("hall-lamp"))
        .expect("prefix fixup");
    // Rotated 90° about Z: (16,0,0) -> (0,16,0), then moved to (100,0,0).
    let o = hall.origin().unwrap();
    assert!((o.x - 100.0).abs() < 1e-6 && (o.y - 16.0).abs() < 1e-6, "{o}");
    assert_eq!(hall.get("_light"), Some("255 0 0 200"));
    let relay = map
        .entities
        .iter()
        .find(|e| e.classname == "logic_relay")
        .unwrap();
    assert_eq!(relay.outputs[0].1, "hall-lamp,TurnOn,,0,-1");
    assert_eq!(
        relay.outputs[1].1, "!player,Kill,,0,-1",
        "special names are not fixed up"
    );
    assert!(
        lights
            .iter()
            .any(|e| e.get("targetname").is_some_and(|n| n.ends_with("inner-lamp"))),
        "nested"
    );
    // Both instances' brushes joined the world, the first one rotated.
    assert_eq!(map.entities[0].brushes.len(), 2);
    assert!(!map.entities.iter().any(|e| e.classname == "func_instance"));
}

#[test]
fn missing_instance_is_reported() {
    let mut map = MapInput {
        entities: vec![world(vec![]), inst(10, "nowhere.vmf", "x", "0 0 0", "0 0 0", &[])],
    };
    let problems = instances::collapse(&mut map, &|_: &str| None).unwrap();
    assert_eq!(problems.len(), 1);
    assert!(problems[0].contains("nowhere.vmf"));
}
