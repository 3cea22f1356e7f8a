//! NAV read and write on the largest corpus files (`SRCMAP_CORPUS`).
//! Run: `SRCMAP_CORPUS=../shared/corpus cargo bench -p srcmap-nav`.

use std::path::PathBuf;

/// The largest Source 1 NAV files of the corpus, by name.
const FILES: [&str; 3] = [
    "lolleko+guesswho/gm_1950s_town.nav",
    "icewind1991+sourcenav/pl_badwater.nav",
    "bouletmarc+css_maps_content/cs_assault.nav",
];

fn load(name: &str) -> Option<Vec<u8>> {
    srcmap_corpus::read(PathBuf::from("nav").join(name))
}

fn main() {
    srcmap_corpus::root("the NAV benchmarks");
    divan::main();
}

#[divan::bench(args = FILES)]
fn read(bencher: divan::Bencher<'_, '_>, name: &str) {
    let Some(data) = load(name) else { return };
    bencher
        .counter(divan::counter::BytesCount::new(data.len()))
        .bench(|| srcmap_nav::NavMesh::read(divan::black_box(&data)).unwrap());
}

#[divan::bench(args = FILES)]
fn write(bencher: divan::Bencher<'_, '_>, name: &str) {
    let Some(data) = load(name) else { return };
    let mesh = srcmap_nav::NavMesh::read(&data).unwrap();
    bencher
        .counter(divan::counter::BytesCount::new(data.len()))
        .bench(|| mesh.write().unwrap());
}
