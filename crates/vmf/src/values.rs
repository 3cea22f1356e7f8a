//! Parsing and formatting of the value strings inside VMF keys: numbers, `(x y z)` points,
//! `[x y z]` vectors, `[x y z shift] scale` axes and space-separated rows.

use crate::TextureAxis;

/// The numbers of a space-separated list, or `None` if any word is not a number.
pub(crate) fn parse_numbers<const N: usize>(s: &str) -> Option<[f64; N]> {
    let mut out = [0.0; N];
    let mut words = s.split_ascii_whitespace();
    for slot in &mut out {
        *slot = words.next()?.parse().ok()?;
    }
    words.next().is_none().then_some(out)
}

/// `x y z`, `[x y z]` or `(x y z)`.
pub(crate) fn parse_vec3(s: &str) -> Option<[f64; 3]> {
    let t = s.trim();
    let inner = t
        .strip_prefix('[')
        .and_then(|t| t.strip_suffix(']'))
        .or_else(|| t.strip_prefix('(').and_then(|t| t.strip_suffix(')')))
        .unwrap_or(t);
    parse_numbers::<3>(inner)
}

/// `(x y z) (x y z) (x y z)`.
pub(crate) fn parse_plane(s: &str) -> Option<[[f64; 3]; 3]> {
    let mut out = [[0.0; 3]; 3];
    let mut rest = s.trim_start();
    for point in &mut out {
        rest = rest.strip_prefix('(')?;
        let close = rest.find(')')?;
        *point = parse_numbers::<3>(&rest[..close])?;
        rest = rest[close + 1..].trim_start();
    }
    rest.is_empty().then_some(out)
}

/// `[x y z shift] scale`.
pub(crate) fn parse_axis(s: &str) -> Option<TextureAxis> {
    let rest = s.trim().strip_prefix('[')?;
    let close = rest.find(']')?;
    let [x, y, z, shift] = parse_numbers::<4>(&rest[..close])?;
    let scale = rest[close + 1..].trim().parse().ok()?;
    Some(TextureAxis {
        axis: [x, y, z],
        shift,
        scale,
    })
}

/// Every word of a row as `T`, or the index of the first bad word.
pub(crate) fn parse_row<T: std::str::FromStr>(s: &str, out: &mut Vec<T>) -> Result<usize, usize> {
    let mut n = 0;
    for w in s.split_ascii_whitespace() {
        out.push(w.parse().map_err(|_| n)?);
        n += 1;
    }
    Ok(n)
}

/// Formats a number the way Hammer does in most places: integers without a fraction.
pub fn format_number(v: f64) -> String {
    if v == v.trunc() && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

pub(crate) fn format_plane(p: &[[f64; 3]; 3]) -> String {
    let pt = |q: &[f64; 3]| {
        format!(
            "({} {} {})",
            format_number(q[0]),
            format_number(q[1]),
            format_number(q[2])
        )
    };
    format!("{} {} {}", pt(&p[0]), pt(&p[1]), pt(&p[2]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_hammer_values() {
        assert_eq!(
            parse_plane("(1 2 3) (4 5 6) (-7 8.5 9)"),
            Some([[1., 2., 3.], [4., 5., 6.], [-7., 8.5, 9.]])
        );
        assert_eq!(parse_plane("(1 2 3) (4 5 6)"), None);
        assert_eq!(parse_plane("(1 2 3) (4 5 6) (7 8 9) (1 1 1)"), None);
        assert_eq!(parse_plane("(1 2) (4 5 6) (7 8 9)"), None);
        let a = parse_axis("[0 1 0 0.00195313] 0.25").unwrap();
        assert_eq!(a.axis, [0., 1., 0.]);
        assert_eq!(a.scale, 0.25);
        assert_eq!(parse_vec3("[1 2 3]"), Some([1., 2., 3.]));
        assert_eq!(parse_vec3("1 2 3"), Some([1., 2., 3.]));
        assert_eq!(
            format_plane(&[[1., 2., 3.], [4., 5.5, 6.], [0., 0., -1.]]),
            "(1 2 3) (4 5.5 6) (0 0 -1)"
        );
    }
}
