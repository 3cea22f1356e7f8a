//! Two MvM maps from the corpus whose pakfiles hold their custom content: each map's custom
//! entries are taken out into a content folder (with the other map's as decoys), and the walk
//! must find them again, byte for byte, and no decoy; files a game VPK holds are never packed.
//! Skips without `SRCMAP_CORPUS`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use srcmap_bsp::pak::{Pak, pak_lump};
use srcmap_bsp::{BspDocument, BspFile, lump};
use srcmap_pack::map::is_generated;
use srcmap_pack::{Limits, Options, plan};

type Files = BTreeMap<String, Vec<u8>>;

/// A BSP's pakfile entries split into (generated, custom), names normalised.
fn split(bsp: &[u8], map: &str) -> (Files, Files) {
    let file = BspFile::parse(bsp).unwrap();
    let lump = pak_lump(&file).unwrap();
    let zip = Pak::of_lump(&file, &lump).unwrap();
    let mut out = (Files::new(), Files::new());
    for e in &zip.entries {
        let name = srcmap_pack::path::normalise(&e.name).unwrap();
        let side = if is_generated(&name, map) {
            &mut out.0
        } else {
            &mut out.1
        };
        side.insert(name, zip.read(e).unwrap());
    }
    out
}

/// The map with only its generated entries in the pakfile.
fn stripped(bsp: &[u8], generated: &Files) -> Vec<u8> {
    let file = BspFile::parse(bsp).unwrap();
    let files: Vec<(String, Vec<u8>)> = generated.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
    let zip = Pak::parse(&[], 0).unwrap().with_files(&files, false).unwrap();
    let mut doc = BspDocument::from_file(&file);
    let version = doc.lumps[lump::PAKFILE].version;
    doc.set_lump(lump::PAKFILE, zip, version);
    doc.to_bytes().unwrap()
}

fn write_all(root: &Path, files: &Files) {
    for (name, bytes) in files {
        let p = root.join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, bytes).unwrap();
    }
}

/// Sets up `map` against `decoy` in a fresh folder: (stripped map, truth, decoys, content dir).
fn setup(corpus: &Path, map: &str, decoy: &str) -> (Vec<u8>, Files, Files, PathBuf) {
    let read = |m: &str| std::fs::read(corpus.join(format!("bsp/iassis+tf2-fastdl/{m}.bsp"))).unwrap();
    let (generated, truth) = split(&read(map), map);
    let (_, mut decoys) = split(&read(decoy), decoy);
    decoys.retain(|k, _| !truth.contains_key(k));
    let dir = std::env::temp_dir().join(format!("srcmap-pack-corpus-{map}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    write_all(&dir.join("content"), &truth);
    write_all(&dir.join("content"), &decoys);
    (stripped(&read(map), &generated), truth, decoys, dir)
}

#[test]
fn mvm_maps_find_their_custom_files_and_no_decoy() {
    let Some(corpus) = srcmap_corpus::root("pack corpus test") else {
        return;
    };
    for (map, decoy, rename_nav, bar) in [
        ("mvm_smog_b3a", "mvm_kelly_rc1b", true, 36),
        ("mvm_kelly_rc1b", "mvm_smog_b3a", false, 17),
    ] {
        let (bsp, truth, decoys, dir) = setup(&corpus, map, decoy);
        let options = Options {
            map: map.into(),
            rename_nav,
            ..Options::default()
        };
        let started = std::time::Instant::now();
        let plan = plan(&bsp, &[dir.join("content")], None, &options).unwrap();
        let packed = srcmap_pack::pack(&bsp, &plan, &Limits::default()).unwrap();
        let seconds = started.elapsed().as_secs_f64();
        let found = plan
            .files
            .iter()
            .filter(|f| truth.get(&f.name) == Some(&f.bytes))
            .count();
        let false_ones: Vec<&str> = plan
            .files
            .iter()
            .filter(|f| !truth.contains_key(&f.name))
            .map(|f| f.name.as_str())
            .collect();
        println!(
            "{map}: {found}/{} found, {} decoys offered, false {false_ones:?}, {seconds:.3} s",
            truth.len(),
            decoys.len()
        );
        assert!(found >= bar, "{map}: {found} of {}", truth.len());
        assert!(false_ones.is_empty(), "{map}: {false_ones:?}");
        assert!(packed.len() > bsp.len());
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn files_in_a_game_vpk_are_never_packed() {
    let Some(corpus) = srcmap_corpus::root("pack game VPK test") else {
        return;
    };
    let (bsp, truth, _, dir) = setup(&corpus, "mvm_kelly_rc1b", "mvm_smog_b3a");
    let in_game = [
        "materials/models/props_invader/saucer.vtf",
        "models/props_invader/saucer.phy",
        "maps/mvm_kelly_rc1b.nav",
    ];
    let files: Vec<(&str, &[u8])> = in_game.iter().map(|n| (*n, truth[*n].as_slice())).collect();
    let game = dir.join("game");
    std::fs::create_dir_all(&game).unwrap();
    std::fs::write(
        game.join("pak01_dir.vpk"),
        srcmap_content::vpk::build_dir(2, &files),
    )
    .unwrap();
    std::fs::write(
        game.join("gameinfo.txt"),
        "GameInfo { FileSystem { SearchPaths { game |gameinfo_path|pak01.vpk } } }",
    )
    .unwrap();
    let game = srcmap_content::GameDir::open(&game).unwrap();
    let options = Options {
        map: "mvm_kelly_rc1b".into(),
        ..Options::default()
    };
    let plan = plan(&bsp, &[dir.join("content")], Some(&game), &options).unwrap();
    for name in in_game {
        assert!(plan.files.iter().all(|f| f.name != name), "{name} packed");
        assert!(
            plan.from_game.iter().any(|g| g == name),
            "{name} not seen in the game"
        );
    }
    assert_eq!(plan.files.len(), 17 - in_game.len());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn truncated_and_corrupted_models_and_particles_fail_cleanly() {
    let Some(corpus) = srcmap_corpus::root("pack hostile model test") else {
        return;
    };
    let keep = |p: &Path| ["mdl", "phy"].iter().any(|e| srcmap_corpus::has_extension(p, e));
    let mut files: Vec<PathBuf> = srcmap_corpus::files(&corpus, "model", keep)
        .into_iter()
        .take(40)
        .collect();
    files.extend(
        srcmap_corpus::files(&corpus, "dmx", |_| true)
            .into_iter()
            .take(10),
    );
    for file in files {
        let bytes = std::fs::read(&file).unwrap();
        let ext = file.extension().unwrap().to_string_lossy().to_ascii_lowercase();
        let name = format!(
            "models/x.{}",
            if ext == "mdl" || ext == "phy" {
                ext.as_str()
            } else {
                "pcf"
            }
        );
        let name = name.replace("models/x.pcf", "particles/x.pcf");
        for cut in [0, 4, 16, 64, 200, bytes.len() / 2, bytes.len().saturating_sub(1)] {
            let _ = srcmap_pack::kinds::references(&name, &bytes[..cut.min(bytes.len())], &None);
        }
        let mut flipped = bytes.clone();
        for i in (0..flipped.len()).step_by(97) {
            flipped[i] ^= 0x5a;
        }
        let _ = srcmap_pack::kinds::references(&name, &flipped, &None);
    }
}
