//! Which vvis pass made each corpus map's PVS (`srcmap_vvis::vis_pass`, shown by `srcmap
//! info`): every map with vis is told (the portals rebuilt from its tree reproduce a flood the
//! lump lies inside), and the maps shipped with `vvis -fast` are the ones named here. Needs
//! `SRCMAP_CORPUS`.

use std::collections::BTreeMap;

use srcmap_bsp::Bsp;
use srcmap_bsp::state::VisPass;
use srcmap_vvis::pass::FULL_PASS_MAX_PAIRS;
use srcmap_vvis::vis_pass;

#[test]
fn corpus_maps_tell_their_vis_pass() {
    let Some(root) = srcmap_corpus::root("the vis pass corpus test") else {
        return;
    };
    let files = srcmap_corpus::files(&root, "bsp", |p| srcmap_corpus::has_extension(p, "bsp"));
    let mut by_pass: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for path in files {
        let bytes = std::fs::read(&path).unwrap();
        if !(bytes.starts_with(b"VBSP") || bytes.starts_with(b"PSBV")) {
            continue;
        }
        let bsp = Bsp::parse(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let pass = vis_pass(&bsp, FULL_PASS_MAX_PAIRS);
        let has_vis = bsp.visibility.as_ref().is_some_and(|v| v.num_clusters > 0);
        assert_eq!(pass == VisPass::None, !has_vis, "{}: {pass:?}", path.display());
        assert_ne!(pass, VisPass::Unknown, "{}", path.display());
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        by_pass.entry(format!("{pass:?}")).or_default().push(name);
    }
    let names = |pass: &str| by_pass.get(pass).cloned().unwrap_or_default();
    // The lump equals the portal flood, and a full pass culls more than 1% of it: shipped with
    // -fast (the vvis corpus test judges these maps against our -fast for the same reason).
    assert_eq!(
        names("Fast"),
        ["dotf_test.bsp", "dotf_test2.bsp", "prologue02.bsp"]
    );
    // Equal to the flood, and either too big to run the full pass for a report (jump_byte_a3,
    // subway01) or culled by ours by only 2 pairs of 1,400 (tf2_test2).
    assert_eq!(
        names("PortalFlood"),
        ["jump_byte_a3.bsp", "tf2_test2.bsp", "subway01.bsp"]
    );
    // Small maps whose flood a full pass cannot cull: either pass gives the lump.
    assert_eq!(names("Either").len(), 7, "{:?}", names("Either"));
    assert_eq!(names("Full").len(), 13, "{:?}", names("Full"));
    assert_eq!(names("None").len(), 10, "{:?}", names("None"));
}
