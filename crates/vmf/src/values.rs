//! Parsing and formatting of the value strings inside VMF keys: numbers, `(x y z)` points,
//! `[x y z]` vectors, `[x y z shift] scale` axes and space-separated rows.

use crate::TextureAxis;

/// The numbers of a space-separated list, or `None` if any word is not a number.
pub(crate) fn parse_numbers<const N: usize>(s: &str) -> Option<[f64; N]> {
    let mut out = [0.0; N];
    let mut words = s.split_ascii_whitespace();
    for slot in &mut out {
        *slot = parse_f64(words.next()?)?;
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
    let scale = parse_f64(rest[close + 1..].trim())?;
    Some(TextureAxis {
        axis: [x, y, z],
        shift,
        scale,
    })
}

/// A number type a row can hold, with a fast path for the plain decimals Hammer writes.
pub(crate) trait RowNumber: Sized {
    fn parse_word(w: &str) -> Option<Self>;
}

impl RowNumber for f32 {
    fn parse_word(w: &str) -> Option<f32> {
        parse_f32(w)
    }
}

impl RowNumber for i32 {
    fn parse_word(w: &str) -> Option<i32> {
        fast_int(w).ok().and_then(|v| i32::try_from(v).ok())
    }
}

/// Every word of a row, or the index of the first bad word.
pub(crate) fn parse_row<T: RowNumber>(s: &str, out: &mut Vec<T>) -> Result<usize, usize> {
    let mut n = 0;
    for w in s.split_ascii_whitespace() {
        out.push(T::parse_word(w).ok_or(n)?);
        n += 1;
    }
    Ok(n)
}

/// `-?digits(.digits)?` as (negative, the digits as one integer, digits after the point), when
/// the digits fit in a u64; `None` for anything else (exponents, `inf`, ...).
#[inline]
fn plain_decimal(s: &str) -> Option<(bool, u64, u32)> {
    let b = s.as_bytes();
    let (neg, digits) = match b.first()? {
        b'-' => (true, &b[1..]),
        b'+' => (false, &b[1..]),
        _ => (false, b),
    };
    let mut mantissa: u64 = 0;
    let mut count = 0usize;
    let mut frac: Option<u32> = None;
    for &c in digits {
        match c {
            b'0'..=b'9' => {
                mantissa = mantissa.checked_mul(10)?.checked_add(u64::from(c - b'0'))?;
                count += 1;
                if let Some(f) = &mut frac {
                    *f += 1;
                }
            }
            b'.' if frac.is_none() => frac = Some(0),
            _ => return None,
        }
    }
    (count > 0).then_some((neg, mantissa, frac.unwrap_or(0)))
}

/// Parses an `f64`: plain decimals whose digits and scale are exact in an f64 take Clinger's
/// fast path (one correctly rounded division, so the result equals the standard parser's);
/// everything else goes to the standard parser.
#[inline]
pub(crate) fn parse_f64(s: &str) -> Option<f64> {
    const POW10: [f64; 23] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17,
        1e18, 1e19, 1e20, 1e21, 1e22,
    ];
    if let Some((neg, m, frac)) = plain_decimal(s)
        && m < (1 << 53)
        && (frac as usize) < POW10.len()
    {
        let v = m as f64 / POW10[frac as usize];
        return Some(if neg { -v } else { v });
    }
    s.parse().ok()
}

/// Parses an `f32` the same way, with the f32 limits of the fast path.
#[inline]
pub(crate) fn parse_f32(s: &str) -> Option<f32> {
    const POW10: [f32; 11] = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10];
    if let Some((neg, m, frac)) = plain_decimal(s)
        && m < (1 << 24)
        && (frac as usize) < POW10.len()
    {
        let v = m as f32 / POW10[frac as usize];
        return Some(if neg { -v } else { v });
    }
    s.parse().ok()
}

/// Parses an integer quickly (plain digits), falling back to the standard parser.
pub(crate) fn fast_int(s: &str) -> Result<i64, ()> {
    if let Some((neg, m, 0)) = plain_decimal(s)
        && let Ok(v) = i64::try_from(m)
    {
        return Ok(if neg { -v } else { v });
    }
    s.parse::<i64>().map_err(|_| ())
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
    fn fast_paths_agree_with_the_standard_parser() {
        // A deterministic spread of decimals like those Hammer writes, and some it does not.
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut words: Vec<String> = [
            "0", "-0", "1.", ".5", "-.25", "1e5", "nan", "inf", "", "-", ".", "1.2.3", "+3",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        for _ in 0..200_000 {
            let int = next() % 100_000;
            let digits = (next() % 9) as usize;
            let frac = next() % 10u64.pow(digits as u32);
            let sign = if next() % 2 == 0 { "-" } else { "" };
            words.push(if digits == 0 {
                format!("{sign}{int}")
            } else {
                format!("{sign}{int}.{frac:0digits$}")
            });
        }
        for w in &words {
            assert_eq!(
                parse_f64(w).map(f64::to_bits),
                w.parse::<f64>().ok().map(f64::to_bits),
                "{w}"
            );
            assert_eq!(
                parse_f32(w).map(f32::to_bits),
                w.parse::<f32>().ok().map(f32::to_bits),
                "{w}"
            );
        }
        assert_eq!(fast_int("16"), Ok(16));
        assert_eq!(fast_int("-7"), Ok(-7));
        assert!(fast_int("1.5").is_err());
    }

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
