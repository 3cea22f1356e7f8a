//! `physics_rebuild IN.bsp OUT.bsp`: IN with its physcollide lump rebuilt from its own brushes
//! (to judge the collision builder alone against Valve's lump with `compare_phys.py`).

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [input, output] = &args[..] else {
        eprintln!("usage: physics_rebuild IN.bsp OUT.bsp");
        std::process::exit(2);
    };
    let data = std::fs::read(input).expect("read the input");
    let mut bsp = srcmap_bsp::Bsp::parse(&data).expect("a BSP");
    let start = std::time::Instant::now();
    let built = srcmap_vbsp::physics::build(&bsp, &|_| None, &|_| None);
    eprintln!(
        "{input}: physcollide built in {:.3} s",
        start.elapsed().as_secs_f64()
    );
    for (brush, why) in built.skipped.iter().take(10) {
        eprintln!("warning: brush {brush}: {why}");
    }
    bsp.phys_collide = Some(built.collide);
    std::fs::write(output, bsp.to_bytes().expect("encode")).expect("write the output");
}
