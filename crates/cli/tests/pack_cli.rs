//! `srcmap pack` and `srcmap compile --pack` end to end: a dry run writes nothing and lists the
//! changes, a pack edits the map in place, a reference loop exits 1 naming the files and leaves
//! the map as it was; with the corpus, the custom chair of test_chapter1 is packed by a compile.

use std::path::{Path, PathBuf};

mod common;
use common::srcmap;

fn temp_dir(name: &str) -> PathBuf {
    let d = common::fresh_dir("pack-cli", name);
    std::fs::create_dir_all(d.join("content/materials/custom")).unwrap();
    d
}

/// A map whose one brush material is `custom/a`.
fn map(dir: &Path) -> PathBuf {
    let mut bsp = srcmap_bsp::Bsp::new(20);
    let name_id = bsp.add_texdata_name("custom/a");
    bsp.texdata.push(srcmap_bsp::TexData {
        name_id,
        ..Default::default()
    });
    bsp.entities = vec![srcmap_bsp::Entity::from_pairs(&[("classname", "worldspawn")])];
    let path = dir.join("m.bsp");
    std::fs::write(&path, bsp.to_bytes().unwrap()).unwrap();
    path
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn dry_run_pack_and_a_refused_loop() {
    let dir = temp_dir("run");
    let bsp = map(&dir);
    let content = dir.join("content");
    let materials = content.join("materials/custom");
    std::fs::write(
        materials.join("a.vmt"),
        "LightmappedGeneric { $basetexture custom/a }",
    )
    .unwrap();
    std::fs::write(materials.join("a.vtf"), "VTF").unwrap();
    let before = std::fs::read(&bsp).unwrap();
    let dry = srcmap(&[&"pack", &bsp, &"--content", &content, &"--dry-run"]);
    assert!(dry.status.success(), "{}", text(&dry.stderr));
    assert_eq!(
        text(&dry.stdout)
            .lines()
            .filter(|l| l.starts_with("+ materials/custom/a."))
            .count(),
        2
    );
    assert_eq!(std::fs::read(&bsp).unwrap(), before);

    let run = srcmap(&[&"pack", &bsp, &"--content", &content, &"--explain"]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    assert!(
        text(&run.stdout).contains("<- $basetexture in materials/custom/a.vmt"),
        "{}",
        text(&run.stdout)
    );
    let list = text(&srcmap(&[&"pak", &"list", &bsp]).stdout);
    assert!(
        list.contains("materials/custom/a.vmt") && list.contains("materials/custom/a.vtf"),
        "{list}"
    );

    std::fs::write(
        materials.join("a.vmt"),
        "patch { include materials/custom/b.vmt }",
    )
    .unwrap();
    std::fs::write(
        materials.join("b.vmt"),
        "patch { include materials/custom/a.vmt }",
    )
    .unwrap();
    let packed = std::fs::read(&bsp).unwrap();
    let bad = srcmap(&[&"pack", &bsp, &"--content", &content]);
    assert_eq!(bad.status.code(), Some(1));
    assert!(
        text(&bad.stderr).contains("reference loop: materials/custom/a.vmt -> materials/custom/b.vmt"),
        "{}",
        text(&bad.stderr)
    );
    assert_eq!(std::fs::read(&bsp).unwrap(), packed);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn compile_pack_packs_the_custom_chair() {
    let Some(corpus) = srcmap_corpus::root("compile --pack test") else {
        return;
    };
    let dir = temp_dir("compile");
    let vmf = dir.join("test_chapter1.vmf");
    std::fs::copy(corpus.join("vmf/kane8kki+whohl2mod/test_chapter1.vmf"), &vmf).unwrap();
    let models = corpus.join("model/kane8kki+whohl2mod");
    let run = srcmap(&[
        &"compile",
        &vmf,
        &"--no-vis",
        &"--no-rad",
        &"--pack",
        &"--content",
        &models,
        &"-q",
    ]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    let list = text(&srcmap(&[&"pak", &"list", &dir.join("test_chapter1.bsp")]).stdout);
    for ext in ["mdl", "vvd", "dx90.vtx", "dx80.vtx", "sw.vtx", "phy"] {
        assert!(
            list.contains(&format!("models/bluechaire/bluewoodnchair.{ext}")),
            "{ext}: {list}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
