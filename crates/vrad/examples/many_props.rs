//! Makes a prop-heavy copy of a map for timing prop shadows: `cargo run --release -p
//! srcmap-vrad --example many_props -- IN.bsp OUT.bsp N [MODEL]`. The map's first static prop
//! is repeated N times on a grid over the world's bounds (at its own height, varied yaw), as
//! `MODEL` (`models/x.mdl`) when given, so `srcmap vrad` with and without `--game` times N
//! shadow casters.

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (input, output, count, model) = match args.as_slice() {
        [i, o, n] => (i, o, n, None),
        [i, o, n, m] => (i, o, n, Some(m.clone())),
        _ => {
            eprintln!("usage: many_props IN.bsp OUT.bsp N [MODEL]");
            std::process::exit(2);
        }
    };
    let count: usize = count.parse().expect("N is a number");
    let bytes = std::fs::read(input).expect("reads the map");
    let mut bsp = srcmap_bsp::Bsp::parse(&bytes).expect("parses the map");
    let world = bsp.models[0];
    let sp = bsp.game_lumps.static_props_mut().expect("a sprp lump");
    let mut first = *sp.props.first().expect("a static prop to repeat");
    if let Some(m) = model {
        sp.models = vec![m];
        first.prop_type = 0;
    }
    let side = (count as f64).sqrt().ceil() as usize;
    let (lo, hi) = (world.mins, world.maxs);
    sp.props = (0..count)
        .map(|i| {
            let (x, y) = ((i % side) as f32 + 0.5, (i / side) as f32 + 0.5);
            let mut p = first;
            p.origin[0] = lo[0] + (hi[0] - lo[0]) * x / side as f32;
            p.origin[1] = lo[1] + (hi[1] - lo[1]) * y / side as f32;
            p.angles[1] = (i * 37 % 360) as f32;
            p
        })
        .collect();
    std::fs::write(output, bsp.to_bytes().expect("serialises")).expect("writes the copy");
}
