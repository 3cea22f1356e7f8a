//! VMAP: read plus the typed walk (nodes, entities, every mesh checked and every face walked)
//! on the largest corpus map. Run: `SRCMAP_CORPUS=../shared/corpus cargo bench -p srcmap-vmap`.

use std::path::PathBuf;

const FILES: [&str; 2] = [
    "Facepunch+facepunch.flatgrass/flatgrass_bak.vmap",
    "bmddota+barebones/barebones.vmap",
];

fn load(name: &str) -> Option<Vec<u8>> {
    srcmap_corpus::read(PathBuf::from("vmap").join(name))
}

fn main() {
    srcmap_corpus::root("the VMAP benchmarks");
    divan::main();
}

#[divan::bench(args = FILES)]
fn read_and_walk(bencher: divan::Bencher<'_, '_>, name: &str) {
    let Some(data) = load(name) else { return };
    bencher
        .counter(divan::counter::BytesCount::new(data.len()))
        .bench(|| {
            let map = srcmap_vmap::Vmap::read(divan::black_box(&data)).unwrap();
            let mut corners = 0;
            for m in map.polygon_mesh_elements() {
                let mesh = map.polygon_mesh(m).unwrap();
                mesh.check().unwrap();
                for f in 0..mesh.face_count() {
                    corners += mesh.face_corners(f).len();
                }
            }
            (map.entities().len(), corners)
        });
}
