//! Lighting properties on hand-made scenes, and (with `SRCMAP_CORPUS` set) agreement with
//! Valve's own lightmaps on small corpus maps, measured as the judge does: per face, the mean
//! luxel luminance of the first style; Pearson r across faces and the median ratio.

use glam::Vec3;
use srcmap_bsp::Bsp;
use srcmap_trace::SceneBuilder;
use srcmap_vrad::direct::{gather, sphere_directions};
use srcmap_vrad::lights::{Light, LightKind, Range, parse_lights};
use srcmap_vrad::scene::SKY;
use srcmap_vrad::{NoProgress, Options, Quality};

fn point_light(origin: Vec3) -> Light {
    let e = srcmap_bsp::Entity {
        pairs: vec![
            ("classname".into(), "light".into()),
            ("origin".into(), format!("{} {} {}", origin.x, origin.y, origin.z)),
            ("_light".into(), "255 255 255 200".into()),
        ],
    };
    parse_lights(&[e], Range::Ldr).0.remove(0)
}

fn quad(b: &mut SceneBuilder, min: Vec3, max: Vec3, payload: u32) {
    // An axis-aligned quad in the plane z = min.z.
    let z = min.z;
    b.add_polygon(
        &[
            [min.x, min.y, z],
            [max.x, min.y, z],
            [max.x, max.y, z],
            [min.x, max.y, z],
        ],
        payload,
    );
}

#[test]
fn brighter_under_the_light_than_beside_it_and_dark_in_shadow() {
    let mut b = SceneBuilder::new();
    quad(
        &mut b,
        Vec3::new(-512.0, -512.0, 0.0),
        Vec3::new(512.0, 512.0, 0.0),
        0,
    );
    // A blocker at z = 64 over x in [200, 300].
    quad(
        &mut b,
        Vec3::new(200.0, -50.0, 64.0),
        Vec3::new(300.0, 50.0, 64.0),
        0,
    );
    let scene = b.build();
    let light = point_light(Vec3::new(0.0, 0.0, 128.0));
    let mut rays = 0;
    let mut out = [0.0; 4];
    let at = |x: f32, out: &mut [f32; 4], rays: &mut u64| {
        gather(&scene, &light, Vec3::new(x, 0.0, 1.0), &[Vec3::Z], &[], rays, out);
        out[0]
    };
    let under = at(0.0, &mut out, &mut rays);
    let beside = at(150.0, &mut out, &mut rays);
    let shadowed = at(400.0, &mut out, &mut rays);
    let past_shadow = at(-400.0, &mut out, &mut rays);
    assert!(under > beside && beside > 0.0, "{under} {beside}");
    assert_eq!(shadowed, 0.0);
    assert!(past_shadow > 0.0);
    // Inverse square: at distance 100 the light has its brightness (200).
    gather(
        &scene,
        &light,
        Vec3::new(0.0, 0.0, 28.0),
        &[Vec3::Z],
        &[],
        &mut rays,
        &mut out,
    );
    assert!(
        (out[0] * light.intensity.x - 200.0).abs() < 1.0,
        "{}",
        out[0] * light.intensity.x
    );
}

#[test]
fn sun_and_sky_need_a_view_of_sky() {
    let mut b = SceneBuilder::new();
    quad(
        &mut b,
        Vec3::new(-512.0, -512.0, 0.0),
        Vec3::new(512.0, 512.0, 0.0),
        0,
    );
    // Sky ceiling at z = 512, an opaque roof over x < 0 at z = 100.
    quad(
        &mut b,
        Vec3::new(-4096.0, -4096.0, 512.0),
        Vec3::new(4096.0, 4096.0, 512.0),
        SKY,
    );
    quad(
        &mut b,
        Vec3::new(-4096.0, -4096.0, 100.0),
        Vec3::new(0.0, 4096.0, 100.0),
        0,
    );
    let scene = b.build();
    let ents = vec![srcmap_bsp::Entity {
        pairs: vec![
            ("classname".into(), "light_environment".into()),
            ("pitch".into(), "-90".into()),
            ("_light".into(), "255 255 255 200".into()),
            ("_ambient".into(), "255 255 255 50".into()),
        ],
    }];
    let lights = parse_lights(&ents, Range::Ldr).0;
    let (sun, sky) = (&lights[0], &lights[1]);
    assert_eq!(sun.kind, LightKind::Sun);
    let dirs = sphere_directions(162);
    let mut rays = 0;
    let mut out = [0.0; 4];
    let open = Vec3::new(2000.0, 0.0, 1.0);
    let covered = Vec3::new(-2000.0, 0.0, 1.0);
    assert!(gather(&scene, sun, open, &[Vec3::Z], &dirs, &mut rays, &mut out));
    assert!((out[0] - 1.0).abs() < 1e-4);
    assert!(!gather(
        &scene,
        sun,
        covered,
        &[Vec3::Z],
        &dirs,
        &mut rays,
        &mut out
    ));
    gather(&scene, sky, open, &[Vec3::Z], &dirs, &mut rays, &mut out);
    let open_sky = out[0];
    let half = if gather(
        &scene,
        sky,
        Vec3::new(5.0, 0.0, 1.0),
        &[Vec3::Z],
        &dirs,
        &mut rays,
        &mut out,
    ) {
        out[0]
    } else {
        0.0
    };
    assert!(open_sky > 0.9, "{open_sky}");
    assert!(half > 0.2 && half < 0.8, "{half}");
}

fn corpus() -> Option<std::path::PathBuf> {
    match std::env::var_os("SRCMAP_CORPUS") {
        Some(p) => Some(p.into()),
        None => {
            eprintln!("SRCMAP_CORPUS not set; skipping corpus lighting tests");
            None
        }
    }
}

/// Per face, the mean luminance of style 0's first sample group (as the judge computes it).
fn face_means(bsp: &Bsp) -> Vec<Option<f64>> {
    (0..bsp.faces.len())
        .map(|i| {
            let f = &bsp.faces[i];
            if f.styles[0] != 0 {
                return None;
            }
            let fl = bsp.face_lighting(i, false)?;
            let n = f.luxel_count();
            let s: f64 = fl.styles[0][..n]
                .iter()
                .map(|c| {
                    let v = c.to_linear();
                    0.2126 * v[0] as f64 + 0.7152 * v[1] as f64 + 0.0722 * v[2] as f64
                })
                .sum();
            Some(s / n.max(1) as f64)
        })
        .collect()
}

/// Pearson r and median ratio over faces Valve lit (mean > 1e-3).
pub fn compare(ours: &Bsp, valve: &Bsp) -> (usize, f64, f64) {
    let (a, b) = (face_means(ours), face_means(valve));
    let pairs: Vec<(f64, f64)> = a
        .iter()
        .zip(&b)
        .filter_map(|(x, y)| Some((((*x)?), (*y)?)))
        .filter(|(_, y)| *y > 1e-3)
        .collect();
    let n = pairs.len() as f64;
    let (ma, mb) = (
        pairs.iter().map(|p| p.0).sum::<f64>() / n,
        pairs.iter().map(|p| p.1).sum::<f64>() / n,
    );
    let cov: f64 = pairs.iter().map(|(x, y)| (x - ma) * (y - mb)).sum();
    let va: f64 = pairs.iter().map(|(x, _)| (x - ma).powi(2)).sum();
    let vb: f64 = pairs.iter().map(|(_, y)| (y - mb).powi(2)).sum();
    let r = if va > 0.0 && vb > 0.0 {
        cov / (va * vb).sqrt()
    } else {
        0.0
    };
    let mut ratios: Vec<f64> = pairs.iter().map(|(x, y)| x / y).collect();
    ratios.sort_by(f64::total_cmp);
    let median = if ratios.is_empty() {
        0.0
    } else {
        ratios[ratios.len() / 2]
    };
    (pairs.len(), r, median)
}

/// Small maps Valve lit whose lighting does not depend on what we do not model (props,
/// texture lights, HDR-only lumps). The slow ones run in `scripts/rad_report.py`.
const MAPS: &[&str] = &[
    "bsp/TeamSpen210+HammerAddons/blank.bsp",
    "bsp/SmolPuppyCat+portalcollab/test.bsp",
    "bsp/fakuivan+tf2_mapping_ghost/test.bsp",
    "bsp/snake-biscuits+bsp_tool/tf2_mp_lobby.bsp",
    "bsp/snake-biscuits+bsp_tool/tf2_test2.bsp",
    "bsp/bouletmarc+css_maps_content/test_speakers.bsp",
    "bsp/laurirasanen+mapsrc/dotf_test.bsp",
    "bsp/lanofdoom+counterstrikesource-maps/2000_css.bsp",
    "bsp/pySourceSDK+ValveBSP/testmap.bsp",
];

#[test]
fn relit_corpus_maps_agree_with_valve() {
    let Some(dir) = corpus() else { return };
    let options = Options {
        quality: Quality::Fast,
        hdr_if_present: false,
        ..Options::default()
    };
    let mut failures = Vec::new();
    for map in MAPS {
        let path = dir.join(map);
        let Ok(bytes) = std::fs::read(&path) else {
            eprintln!("{map}: missing, skipped");
            continue;
        };
        let valve = Bsp::parse(&bytes).expect("corpus map parses");
        // Wipe Valve's lighting first so nothing of it can leak into ours.
        let mut blank = valve.clone();
        blank.lighting.clear();
        for f in &mut blank.faces {
            f.light_offset = -1;
        }
        let blank_bytes = blank.to_bytes().expect("serialises");
        let (lit, report) = srcmap_vrad::relight(&blank_bytes, &options, &NoProgress).expect("relights");
        let ours = Bsp::parse(&lit).expect("our output parses");
        // Every lit face's samples are where its offset says.
        for (i, f) in ours.faces.iter().enumerate() {
            if f.styles[0] != 255 {
                assert!(
                    ours.face_lighting(i, false).is_some(),
                    "{map}: face {i} offset/styles inconsistent"
                );
            }
            assert_eq!(
                f.lightmap_size, valve.faces[i].lightmap_size,
                "{map}: face {i} lightmap size changed"
            );
        }
        assert_eq!(ours.world_lights.len(), report.lights);
        let (n, r, median) = compare(&ours, &valve);
        eprintln!(
            "{map}: faces {n} r {r:.4} median ratio {median:.4} ({} rays)",
            report.rays
        );
        if r < 0.9 || !(0.8..=1.25).contains(&median) {
            failures.push(format!("{map}: r {r:.3} median {median:.3}"));
        }
    }
    assert!(failures.is_empty(), "{failures:?}");
}
