//! Static props: `prop_static` entities → the `sprp` game lump. Small maps made here, and
//! corpus pairs whose models are in the corpus, compared with Valve's own BSP.

mod common;

use std::path::{Path, PathBuf};

use common::*;
use srcmap_bsp::Bsp;
use srcmap_bsp::gamelump::{StaticProp, StaticPropLayout, StaticProps};
use srcmap_vbsp::input::MapEntity;
use srcmap_vbsp::{MapInput, NoProgress, Options, Output};

/// Index of the world leaf holding `p`.
fn leaf_index(b: &Bsp, p: [f64; 3]) -> usize {
    let mut n = b.models[0].head_node;
    while n >= 0 {
        let node = &b.nodes[n as usize];
        let pl = &b.planes[node.plane as usize];
        let d = pl.normal.iter().zip(p).map(|(a, b)| *a as f64 * b).sum::<f64>() - pl.dist as f64;
        n = node.children[if d >= 0.0 { 0 } else { 1 }];
    }
    (-1 - n) as usize
}

fn sprp(out: &Output) -> &StaticProps {
    out.bsp.game_lumps.static_props().expect("sprp lump")
}

fn leaves_of<'a>(lump: &'a StaticProps, p: &StaticProp) -> &'a [u32] {
    &lump.leaves[p.first_leaf as usize..(p.first_leaf + p.leaf_count) as usize]
}

fn prop(id: i64, model: &str, origin: [f64; 3], extra: &[(&str, &str)]) -> MapEntity {
    let mut e = entity(id, "prop_static", origin, vec![]);
    e.keyvalues.push(("model".into(), model.into()));
    e.keyvalues.push(("angles".into(), "0 90 0".into()));
    for (k, v) in extra {
        e.keyvalues.push((k.to_string(), v.to_string()));
    }
    e
}

/// A sealed room with a wall half across it, so the room has several leaves, and a thick
/// pillar in one corner.
fn room_with_wall() -> MapEntity {
    let mut brushes = room(
        1,
        [-512.0, -512.0, -64.0],
        [512.0, 512.0, 256.0],
        "dev/dev_measuregeneric01",
    );
    brushes.push(box_brush(
        100,
        [-16.0, -512.0, -64.0],
        [16.0, 0.0, 256.0],
        "dev/dev_measuregeneric01",
    ));
    brushes.push(box_brush(
        101,
        [-512.0, -512.0, -64.0],
        [-200.0, -200.0, 256.0],
        "dev/dev_measuregeneric01",
    ));
    world(brushes)
}

/// Compiles `entities` with a player start in the room, so the outside is filled.
fn compile_with(mut entities: Vec<MapEntity>, models: Option<srcmap_vbsp::props::ModelReader<'_>>) -> Output {
    entities.push(entity(99, "info_player_start", [200.0, 200.0, 0.0], vec![]));
    let opts = Options {
        verify: true,
        models,
        ..Default::default()
    };
    srcmap_vbsp::compile(&MapInput { entities }, &opts, &NoProgress).expect("compile")
}

fn warnings(out: &Output) -> Vec<String> {
    out.diagnostics.iter().map(|d| d.to_string()).collect()
}

#[test]
fn a_map_without_props_keeps_the_empty_lump() {
    let out = compile_with(vec![room_with_wall()], None);
    let lump = sprp(&out);
    assert!(lump.props.is_empty() && lump.models.is_empty() && lump.leaves.is_empty());
}

#[test]
fn without_models_props_keep_placement_flags_and_a_leaf_list_from_the_origin() {
    let lit = entity(50, "info_lighting", [100.0, 200.0, 30.0], vec![]);
    let mut lit = lit;
    lit.keyvalues.push(("targetname".into(), "lamp".into()));
    let extra = [
        ("skin", "2"),
        ("solid", "6"),
        ("disableshadows", "1"),
        ("screenspacefade", "1"),
        ("fademindist", "-1"),
        ("fademaxdist", "900"),
        ("lightingorigin", "lamp"),
    ];
    let entities = vec![
        room_with_wall(),
        prop(10, "models/props/chair.mdl", [200.0, 100.0, 0.0], &extra),
        prop(11, "models/props/chair.mdl", [-200.0, 300.0, 0.0], &[]),
        prop(12, "models/props/table.mdl", [300.0, -300.0, 0.0], &[]),
        // Not a studio model: dropped even without the game, as Valve's loader fails on it.
        prop(13, "models/not_a_real_file", [300.0, 300.0, 0.0], &[]),
        lit,
    ];
    let out = compile_with(entities, None);
    let lump = sprp(&out);
    assert_eq!(
        lump.layout,
        StaticPropLayout::Lightmapped,
        "Source 2013's v10 records"
    );
    assert_eq!(lump.models, ["models/props/chair.mdl", "models/props/table.mdl"]);
    assert_eq!(lump.props.len(), 3);
    let p = &lump.props[0];
    assert_eq!(p.origin, [200.0, 100.0, 0.0]);
    assert_eq!(p.angles, [0.0, 90.0, 0.0]);
    assert_eq!((p.skin, p.solid, p.prop_type), (2, 6, 0));
    // fades | lighting origin | no shadow | screen-space fade | no per-texel lighting
    assert_eq!(p.flags_int, 0x1 | 0x2 | 0x10 | 0x20 | 0x100);
    assert_eq!((p.fade_min_dist, p.fade_max_dist), (900.0, 900.0));
    assert_eq!(p.lighting_origin, [100.0, 200.0, 30.0]);
    assert_eq!(lump.props[2].prop_type, 1);
    for p in &lump.props {
        let at = leaf_index(&out.bsp, p.origin.map(f64::from));
        assert!(
            leaves_of(lump, p).contains(&(at as u32)),
            "the leaf at the origin is listed"
        );
        for &l in leaves_of(lump, p) {
            assert_eq!(out.bsp.leafs[l as usize].contents & 1, 0, "a solid leaf listed");
        }
    }
    // The lighting entity is consumed, as the props.
    assert!(
        !has_keyvalue(&out, "classname", "info_lighting") && !has_keyvalue(&out, "classname", "prop_static")
    );
    let w = warnings(&out);
    assert_eq!(
        w.iter().filter(|w| w.contains("not available")).count(),
        2,
        "one warning per model: {w:?}"
    );
    assert!(
        w.iter()
            .any(|w| w.contains("not_a_real_file") && w.contains("dropped")),
        "{w:?}"
    );
}

#[test]
fn a_prop_inside_solid_is_outside_the_world_and_dropped_with_a_warning() {
    // A room with a solid block wider than the box a prop without its model gets.
    let mut brushes = room(
        1,
        [-2048.0, -2048.0, -64.0],
        [2048.0, 2048.0, 1536.0],
        "dev/dev_measuregeneric01",
    );
    brushes.push(box_brush(
        100,
        [-2048.0, -2048.0, -64.0],
        [0.0, 0.0, 1536.0],
        "dev/dev_measuregeneric01",
    ));
    let entities = vec![
        world(brushes),
        prop(10, "models/props/chair.mdl", [200.0, 100.0, 0.0], &[]),
        prop(11, "models/props/chair.mdl", [-1000.0, -1000.0, 700.0], &[]),
    ];
    let out = compile_with(entities, None);
    assert_eq!(sprp(&out).props.len(), 1);
    assert_eq!(sprp(&out).props[0].origin, [200.0, 100.0, 0.0]);
    assert!(
        warnings(&out).iter().any(|w| w.contains("outside the map")),
        "{:?}",
        warnings(&out)
    );
}

fn corpus() -> Option<PathBuf> {
    srcmap_corpus::root("static props against corpus models")
}

/// Reads game files from one corpus repository's folder, as a game's search path would.
fn corpus_reader(dir: PathBuf) -> impl Fn(&str) -> Option<Vec<u8>> + Sync {
    move |p: &str| std::fs::read(dir.join(p.replace('\\', "/").to_ascii_lowercase())).ok()
}

#[test]
fn a_chair_in_a_room_lists_the_leaves_its_hull_crosses() {
    let Some(root) = corpus() else { return };
    let read = corpus_reader(root.join("model/kane8kki+whohl2mod"));
    let chair = "models/bluechaire/bluewoodnchair.mdl";
    // Beside the wall's end, where the room's leaves meet; another far from it.
    let entities = vec![
        room_with_wall(),
        prop(10, chair, [0.0, 8.0, -64.0], &[]),
        prop(11, chair, [-300.0, 300.0, -64.0], &[]),
        prop(12, chair, [-400.0, -400.0, 100.0], &[]),
    ];
    let out = compile_with(entities, Some(&read));
    let lump = sprp(&out);
    assert_eq!(lump.props.len(), 2, "{:?}", warnings(&out));
    assert!(warnings(&out).iter().any(|w| w.contains("outside the map")));
    let mdl = srcmap_model::ModelFiles::load(chair, &read).unwrap().mdl;
    for p in &lump.props {
        let leaves = leaves_of(lump, p);
        let origin = p.origin.map(f64::from);
        // Just above the origin is inside the chair's hull (its legs stand on the floor).
        let inside = [origin[0], origin[1], origin[2] + 20.0];
        assert!(leaves.contains(&(leaf_index(&out.bsp, inside) as u32)));
        // Every listed leaf reaches the rotated hull box; no leaf is listed twice.
        let r = mdl
            .hull_max
            .iter()
            .chain(&mdl.hull_min)
            .fold(0.0f32, |m, v| m.max(v.abs()))
            + 1.0;
        for &l in leaves {
            let leaf = &out.bsp.leafs[l as usize];
            for i in 0..3 {
                assert!(
                    leaf.mins[i] <= p.origin[i] + r && leaf.maxs[i] >= p.origin[i] - r,
                    "leaf {l} is far away"
                );
            }
        }
        let mut sorted = leaves.to_vec();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), leaves.len());
    }
    // At the wall's end the chair straddles leaves; in the open corner it may not.
    assert!(
        lump.props[0].leaf_count >= 2,
        "{:?}",
        leaves_of(lump, &lump.props[0])
    );
}

#[test]
fn models_without_staticprop_are_dropped_as_valve() {
    let Some(root) = corpus() else { return };
    // Compiled without $staticprop (flags 0x1).
    let read = corpus_reader(root.join("model/ENDERZOMBI102+tn2"));
    let entities = vec![
        room_with_wall(),
        prop(10, "models/elevator_b_skins.mdl", [200.0, 100.0, 0.0], &[]),
    ];
    let out = compile_with(entities, Some(&read));
    assert!(sprp(&out).props.is_empty());
    assert!(
        warnings(&out).iter().any(|w| w.contains("$staticprop")),
        "{:?}",
        warnings(&out)
    );
}

/// A tiny deterministic generator for sample points.
struct Lcg(u64);
impl Lcg {
    fn unit(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// The share of points sampled in `from`'s listed leaves (as `from`'s tree places them) that
/// `to`'s tree puts in `to`'s listed leaves: 1 when `to`'s region covers `from`'s.
fn coverage(from: (&Bsp, &[u32]), to: (&Bsp, &[u32]), rng: &mut Lcg) -> f64 {
    let (mut inside, mut covered) = (0usize, 0usize);
    for &l in from.1 {
        let leaf = &from.0.leafs[l as usize];
        for _ in 0..200 {
            let p: [f64; 3] = std::array::from_fn(|i| {
                leaf.mins[i] as f64 + rng.unit() * (leaf.maxs[i] - leaf.mins[i]) as f64
            });
            if leaf_index(from.0, p) != l as usize {
                continue;
            }
            inside += 1;
            covered += to.1.contains(&(leaf_index(to.0, p) as u32)) as usize;
        }
    }
    if inside == 0 {
        1.0
    } else {
        covered as f64 / inside as f64
    }
}

/// Whether each of `from`'s listed leaves has a sampled point of its own inside `to`'s
/// region: no listed leaf lies wholly outside it (the judge's "equal", for trees that differ).
fn each_leaf_reaches(from: (&Bsp, &[u32]), to: (&Bsp, &[u32]), rng: &mut Lcg) -> bool {
    from.1.iter().all(|&l| {
        let leaf = &from.0.leafs[l as usize];
        (0..256).any(|_| {
            let p: [f64; 3] = std::array::from_fn(|i| {
                leaf.mins[i] as f64 + rng.unit() * (leaf.maxs[i] - leaf.mins[i]) as f64
            });
            leaf_index(from.0, p) == l as usize && to.1.contains(&(leaf_index(to.0, p) as u32))
        })
    })
}

fn norm(m: &str) -> String {
    m.to_ascii_lowercase().replace('\\', "/")
}

/// Compiles a corpus VMF with its repository's models and the materials of Valve's BSP.
fn compile_pair(root: &Path, vmf: &str, valve: &Bsp) -> Output {
    let bytes = std::fs::read(root.join(vmf)).unwrap();
    let vmf_doc = srcmap_vmf::Vmf::parse_bytes(&bytes)
        .or_else(|_| srcmap_vmf::Vmf::parse_lenient(&bytes))
        .unwrap();
    let input = srcmap_vbsp::input_from_vmf(&vmf_doc);
    let mut table = srcmap_materials::MaterialTable::new();
    table.merge(srcmap_materials::harvest_bsp("valve.bsp", valve));
    let materials = srcmap_materials::Resolver::new(None, Some(("valve's bsp".into(), table)));
    let repo = vmf.split('/').nth(1).unwrap();
    let read = corpus_reader(root.join("model").join(repo));
    let opts = Options {
        allow_leak: true,
        materials: &materials,
        models: Some(&read),
        ..Default::default()
    };
    srcmap_vbsp::compile(&input, &opts, &NoProgress).expect("compile")
}

/// Every prop of Valve's matched by model and origin, with the same angles, skin, solidity,
/// flags and fades; leaf lists covering Valve's region. Returns (props, leaf superset share,
/// leaf subset share) over props whose model is in the corpus.
fn compare_pair(root: &Path, vmf: &str, bsp: &str) -> (usize, f64, f64) {
    let valve = Bsp::parse(&std::fs::read(root.join(bsp)).unwrap()).unwrap();
    let out = compile_pair(root, vmf, &valve);
    let ours = sprp(&out);
    let theirs = valve.game_lumps.static_props().expect("Valve's sprp");
    let names = |l: &StaticProps| {
        let mut v: Vec<String> = l.props.iter().map(|p| norm(l.model_of(p).unwrap())).collect();
        v.sort();
        v
    };
    let in_corpus = |m: &str| {
        root.join("model")
            .join(vmf.split('/').nth(1).unwrap())
            .join(m)
            .is_file()
    };
    // Props whose model the corpus lacks keep a box-around-the-origin list (the judge's
    // report covers them); compare the rest, whose leaves come from the model.
    let expected: Vec<String> = names(theirs).into_iter().filter(|m| in_corpus(m)).collect();
    let found: Vec<String> = names(ours).into_iter().filter(|m| in_corpus(m)).collect();
    assert_eq!(found, expected, "{vmf}: prop models");
    let mut used = vec![false; ours.props.len()];
    let (mut superset, mut subset, mut n) = (0, 0, 0);
    let mut rng = Lcg(1);
    for p in &theirs.props {
        let model = norm(theirs.model_of(p).unwrap());
        if !in_corpus(&model) {
            continue;
        }
        let j = (0..ours.props.len())
            .find(|&j| {
                let q = &ours.props[j];
                !used[j]
                    && norm(ours.model_of(q).unwrap()) == model
                    && (0..3).all(|i| (q.origin[i] - p.origin[i]).abs() <= 0.5)
            })
            .unwrap_or_else(|| panic!("{vmf}: Valve's {model} at {:?} has no match", p.origin));
        used[j] = true;
        let q = &ours.props[j];
        let at = format!("{vmf}: {model} at {:?}", p.origin);
        for i in 0..3 {
            let d = ((q.angles[i] - p.angles[i] + 180.0).rem_euclid(360.0) - 180.0).abs();
            assert!(d <= 0.5, "{at}: angles {:?} vs {:?}", q.angles, p.angles);
        }
        assert_eq!((q.skin, q.solid), (p.skin, p.solid), "{at}: skin, solidity");
        let valve_flags = if theirs.layout == StaticPropLayout::Lightmapped {
            p.flags_int
        } else {
            p.flags as u32
        };
        assert_eq!(q.flags_int & 0xff, valve_flags & 0xff, "{at}: flags");
        assert_eq!(
            (q.fade_min_dist, q.fade_max_dist),
            (p.fade_min_dist, p.fade_max_dist),
            "{at}: fades"
        );
        let (lv, lo) = (leaves_of(theirs, p), leaves_of(ours, q));
        n += 1;
        if std::env::var_os("PROPS_DEBUG").is_some() {
            for (tag, b, ls) in [("valve", &valve, lv), ("ours", &out.bsp, lo)] {
                for &l in ls {
                    let f = &b.leafs[l as usize];
                    eprintln!(
                        "DEBUG {tag} {model} {:?} leaf {l} c={} {:?} {:?}",
                        p.origin, f.contents, f.mins, f.maxs
                    );
                }
            }
        }
        superset += (coverage((&valve, lv), (&out.bsp, lo), &mut rng) >= 0.99) as usize;
        subset += each_leaf_reaches((&out.bsp, lo), (&valve, lv), &mut rng) as usize;
    }
    let share = |k: usize| if n == 0 { 1.0 } else { k as f64 / n as f64 };
    (n, share(superset), share(subset))
}

#[test]
fn corpus_pairs_static_props_match_valve() {
    let Some(root) = corpus() else { return };
    let mut total = (0.0, 0.0, 0.0);
    for (vmf, bsp) in [
        (
            "vmf/kane8kki+whohl2mod/test_chapter1.vmf",
            "bsp/kane8kki+whohl2mod/test_chapter1.bsp",
        ),
        (
            "vmf/ricochet-game+ricochet-sourcemod/rc_deathmatch2.vmf",
            "bsp/ricochet-game+ricochet-sourcemod/rc_deathmatch2.bsp",
        ),
        (
            "vmf/tbjmaps+dishonourable-discharge-ez2/subway01.vmf",
            "bsp/tbjmaps+dishonourable-discharge-ez2/subway01.bsp",
        ),
    ] {
        let (n, superset, subset) = compare_pair(&root, vmf, bsp);
        println!(
            "{vmf}: {n} props with corpus models; leaf region covers Valve's for {superset:.3}, every leaf reaching Valve's region for {subset:.3}"
        );
        assert!(n > 0);
        total.0 += n as f64;
        total.1 += superset * n as f64;
        total.2 += subset * n as f64;
    }
    // Judged over every prop together, as the issue does: the trees differ a little (a leaf
    // of Valve's may be taller than ours), so one pair may fall short where the props are right.
    let (superset, subset) = (total.1 / total.0, total.2 / total.0);
    println!(
        "all pairs: {} props; leaf lists cover Valve's region for {superset:.3}, reach only into it for {subset:.3}",
        total.0
    );
    assert!(
        superset >= 0.95,
        "leaf lists cover Valve's region for only {superset:.3} of props"
    );
    assert!(
        subset >= 0.95,
        "leaf lists reach outside Valve's region for {:.3} of props",
        1.0 - subset
    );
}

#[test]
fn a_truncated_model_drops_its_props_with_an_error_naming_the_offset() {
    let Some(root) = corpus() else { return };
    let whole = corpus_reader(root.join("model/kane8kki+whohl2mod"));
    // The .mdl cut short; its siblings intact.
    let read = move |p: &str| {
        let bytes = whole(p)?;
        Some(if p.ends_with(".mdl") {
            bytes[..600].to_vec()
        } else {
            bytes
        })
    };
    let chair = "models/bluechaire/bluewoodnchair.mdl";
    let out = compile_with(
        vec![room_with_wall(), prop(10, chair, [200.0, 100.0, 0.0], &[])],
        Some(&read),
    );
    assert!(sprp(&out).props.is_empty());
    let w = warnings(&out);
    assert!(
        w.iter()
            .any(|w| w.contains("error loading studio model") && w.contains("MDL") && w.contains("byte")),
        "{w:?}"
    );
}

/// Lightmapped props (issue 21): on the corpus's one map with a `generatelightmaps` prop, every
/// prop's 32-bit flags (`STATIC_PROP_NO_PER_TEXEL_LIGHTING` on all but that one) and lightmap
/// resolution equal Valve's, in Source 2013's 72-byte layout. The models need not be present:
/// these fields come from the entity's keys alone.
#[test]
fn testmap_lightmap_resolution_and_flags_match_valve() {
    let Some(root) = corpus() else { return };
    let (vmf, bsp) = (
        "vmf/pySourceSDK+ValveBSP/testmap.vmf",
        "bsp/pySourceSDK+ValveBSP/testmap.bsp",
    );
    let valve = Bsp::parse(&std::fs::read(root.join(bsp)).unwrap()).unwrap();
    let out = compile_pair(&root, vmf, &valve);
    let (ours, theirs) = (sprp(&out), valve.game_lumps.static_props().unwrap());
    assert_eq!(
        (ours.layout, theirs.layout),
        (StaticPropLayout::Lightmapped, StaticPropLayout::Lightmapped)
    );
    assert_eq!(ours.props.len(), theirs.props.len());
    let mut lightmapped = 0;
    for p in &theirs.props {
        let q = (ours.props.iter())
            .find(|q| {
                norm(ours.model_of(q).unwrap()) == norm(theirs.model_of(p).unwrap())
                    && (0..3).all(|i| (q.origin[i] - p.origin[i]).abs() <= 0.5)
            })
            .unwrap_or_else(|| panic!("Valve's prop at {:?} has no match", p.origin));
        assert_eq!(
            (q.flags_int, q.lightmap_res),
            (p.flags_int, p.lightmap_res),
            "prop at {:?}",
            p.origin
        );
        lightmapped += (p.flags_int & 0x100 == 0) as usize;
    }
    assert_eq!(lightmapped, 1, "testmap has one lightmapped prop");
}
