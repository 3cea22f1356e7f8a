//! Golden tests: the vis graph (portals per cluster, one-way pairs, base-vis might-see sets),
//! what the fast flow says each one-way portal sees, and the cluster rows (PVS, PAS) of the
//! small test maps, pinned as text under `tests/golden/`. The inputs are the `.prt` files srcmap's vbsp writes for
//! `testdata/maps/box_room.vmf` and `features.vmf` (`srcmap vbsp MAP.vmf -o X.bsp` writes
//! `X.prt`), committed beside the dumps so the stage is tested alone.
//!
//! `SRCMAP_BLESS=1 cargo test -p srcmap-vvis --test golden` rewrites the dumps.

use std::path::PathBuf;

use srcmap_vvis::{FlowKind, NoProgress, Options, Portals, Threads, compute, dump, flow, graph};

fn golden_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

/// Compares `text` with the pinned file, or rewrites it under `SRCMAP_BLESS=1`.
fn check_golden(name: &str, text: &str) {
    srcmap_corpus::golden::check(&golden_dir().join(name), text);
}

fn portals(map: &str) -> Portals {
    let path = golden_dir().join(format!("{map}.prt"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    Portals::parse_prt(&text).unwrap()
}

fn options(fast: bool, flow: FlowKind, threads: usize) -> Options {
    Options {
        fast,
        flow,
        threads: Threads(threads),
        verify: true,
        ..Default::default()
    }
}

fn golden_map(map: &str) {
    let portals = portals(map);
    let g = graph::Graph::new(&portals, false);
    let base = graph::base_vis(&g, None);
    check_golden(&format!("{map}.graph.txt"), &dump::graph(&g, &base));
    let order = graph::sorted_order(&base);
    let flowed = flow::portal_flow(
        &g,
        &base,
        &order,
        flow::FlowPlan::new(FlowKind::Fast),
        &NoProgress,
    );
    check_golden(&format!("{map}.flow.txt"), &dump::portal_vis(&flowed.vis));

    let (full, report) = compute(
        &portals,
        false,
        None,
        &options(false, FlowKind::Fast, 2),
        &NoProgress,
    )
    .unwrap();
    let rows = dump::cluster_vis(&full);
    check_golden(&format!("{map}.pvs.txt"), &rows);
    assert_eq!(report.count("clusters"), u64::from(portals.num_clusters));
    assert_eq!(report.count("portals"), portals.portals.len() as u64);
    // Valve's walk, the walk knowing its cluster's other portals' results, and any thread
    // count give the same rows.
    for (flow, threads) in [
        (FlowKind::Reference, 2),
        (FlowKind::Fast, 1),
        (FlowKind::Reference, 3),
        (FlowKind::FastSiblings, 3),
    ] {
        let (other, _) = compute(&portals, false, None, &options(false, flow, threads), &NoProgress).unwrap();
        assert_eq!(dump::cluster_vis(&other), rows, "{flow:?} with {threads} threads");
    }
    let (quick, _) = compute(
        &portals,
        false,
        None,
        &options(true, FlowKind::Fast, 2),
        &NoProgress,
    )
    .unwrap();
    check_golden(&format!("{map}.fast.pvs.txt"), &dump::cluster_vis(&quick));
}

#[test]
fn box_room() {
    golden_map("box_room");
}

#[test]
fn features() {
    golden_map("features");
}
