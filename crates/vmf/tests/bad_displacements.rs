//! Displacement rows that cannot be built: errors naming the solid, side, block, row and place.

use srcmap_vmf::Vmf;

/// A one-solid world whose first side is a power-2 displacement with `distances` row 2 = `row2`.
fn vmf_with_distances_row2(row2: &str) -> String {
    let rows: String = (0..5)
        .map(|r| match r {
            2 => format!("\t\t\t\t\t\"row2\" \"{row2}\"\n"),
            _ => format!("\t\t\t\t\t\"row{r}\" \"0 0 0 0 0\"\n"),
        })
        .collect();
    format!(
        "world\n{{\n\t\"id\" \"1\"\n\t\"classname\" \"worldspawn\"\n\tsolid\n\t{{\n\t\t\"id\" \"7\"\n\t\tside\n\t\t{{\n\
         \t\t\t\"id\" \"9\"\n\t\t\t\"plane\" \"(0 0 0) (0 64 0) (64 64 0)\"\n\t\t\t\"material\" \"DEV/X\"\n\
         \t\t\tdispinfo\n\t\t\t{{\n\t\t\t\t\"power\" \"2\"\n\t\t\t\t\"startposition\" \"[0 0 0]\"\n\
         \t\t\t\tdistances\n\t\t\t\t{{\n{rows}\t\t\t\t}}\n\t\t\t}}\n\t\t}}\n\t}}\n}}\n"
    )
}

#[test]
fn finite_rows_read() {
    let vmf = Vmf::parse(vmf_with_distances_row2("0 1.5 -2 3e2 0")).unwrap();
    let side = &vmf.world.solids[0].sides[0];
    assert_eq!(side.dispinfo.as_ref().unwrap().distances[12], -2.0);
}

#[test]
fn non_finite_numbers_are_refused_by_place() {
    for bad in ["0 nan 0 0 0", "0 0 inf 0 0", "0 0 0 -inf 0", "0 0 0 0 1e39"] {
        let e = Vmf::parse(vmf_with_distances_row2(bad)).unwrap_err().to_string();
        assert!(
            e.contains("solid 7 side 9: dispinfo distances row2") && e.contains("not a finite number"),
            "{bad}: {e}"
        );
        assert!(e.starts_with("21:13:"), "{bad}: the line is named: {e}");
    }
}
