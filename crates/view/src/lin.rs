//! Valve's pointfile (`MAP.lin`): the leak path vbsp writes, one point per line (`x y z`),
//! from the void to the entity that sees it.

use srcmap_bytes::excerpt;

/// A pointfile that cannot be read.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("line {line}: {message}")]
pub struct LinError {
    pub line: usize,
    pub message: String,
}

/// The points of a pointfile, in order. Blank lines are skipped; every other line must hold
/// exactly three finite numbers.
pub fn parse_lin(text: &str) -> Result<Vec<[f64; 3]>, LinError> {
    let mut points = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let bad = |message: String| LinError { line: n + 1, message };
        let mut point = [0.0; 3];
        let mut fields = line.split_whitespace();
        for c in &mut point {
            let field = fields
                .next()
                .ok_or_else(|| bad(format!("expected three numbers, found {}", excerpt(line.trim()))))?;
            *c = field
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| bad(format!("{} is not a finite number", excerpt(field))))?;
        }
        if let Some(extra) = fields.next() {
            return Err(bad(format!("unexpected {} after three numbers", excerpt(extra))));
        }
        points.push(point);
    }
    Ok(points)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_points_and_names_the_bad_line() {
        let pts = parse_lin("1 2 3\n\n-4.5 0 1e2\n").unwrap();
        assert_eq!(pts, vec![[1.0, 2.0, 3.0], [-4.5, 0.0, 100.0]]);
        assert_eq!(parse_lin("1 2 3\n1 2\n").unwrap_err().line, 2);
        assert_eq!(parse_lin("1 2 nan\n").unwrap_err().line, 1);
        assert_eq!(parse_lin("1 2 3 4\n").unwrap_err().line, 1);
        assert!(parse_lin("").unwrap().is_empty());
        let huge = format!("1 2 {}\n", "9".repeat(10_000_000) + "x");
        assert!(parse_lin(&huge).unwrap_err().message.len() < 120);
    }
}
