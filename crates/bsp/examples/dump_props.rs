//! Prints each static prop as `model origin angles solid skin` TSV, for cross-checking the
//! layouts against other readers: `cargo run --example dump_props FILE`.
fn main() {
    for path in std::env::args().skip(1) {
        let data = std::fs::read(&path).expect("read");
        let bsp = srcmap_bsp::Bsp::parse(&data).expect("parse");
        let Some(sp) = bsp.game_lumps.static_props() else {
            continue;
        };
        for p in &sp.props {
            println!(
                "{}\t{:.2} {:.2} {:.2}\t{:.2} {:.2} {:.2}\t{}\t{}\t{:?}",
                sp.model_of(p).unwrap_or("?"),
                p.origin[0],
                p.origin[1],
                p.origin[2],
                p.angles[0],
                p.angles[1],
                p.angles[2],
                p.solid,
                p.skin,
                sp.layout
            );
        }
    }
}
