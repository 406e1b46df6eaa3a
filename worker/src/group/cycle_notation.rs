//! Cycle notation as GAP writes it: 1-based points, `(1,2,3)(4,5)`, `()` for the identity.
//!
//! Parsing accepts whitespace between tokens and 1-cycles such as `(3)` (GAP does too); it rejects
//! a point outside `1..d`, a point repeated anywhere in the text, and malformed text, naming the
//! 1-based column of the offending character.

use std::fmt;

use super::perm::Perm;
use crate::error::SolveError;

/// Why a cycle-notation text is not a permutation of `1..d`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CycleNotationError {
    /// 1-based column (in characters) of the offending token.
    pub column: usize,
    /// What is wrong, e.g. `point 9 outside 1..8`.
    pub reason: String,
}

impl fmt::Display for CycleNotationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (column {})", self.reason, self.column)
    }
}

impl std::error::Error for CycleNotationError {}

impl CycleNotationError {
    /// Converts into [`SolveError::InvalidArgument`] for the named field: the message reads
    /// `field: reason (column c)`.
    pub fn into_solve_error(self, field: &str) -> SolveError {
        SolveError::invalid(field, self.to_string())
    }
}

impl Perm {
    /// Parses GAP cycle notation (1-based points) into a permutation of `0..degree`.
    ///
    /// Arguments: `text` such as `(1,2,3)(4,5)` or `()`; `degree` the number of points `d`.
    ///
    /// Returns the permutation, or a [`CycleNotationError`] naming the column of a point outside
    /// `1..d`, a repeated point, or a malformed token.
    ///
    /// Complexity: O(degree + text length).
    ///
    /// ```
    /// use orbit_worker::group::Perm;
    /// let p = Perm::parse_cycles("(1,2,3)(4,5)", 6).unwrap();
    /// assert_eq!(p.images(), &[1, 2, 0, 4, 3, 5]);
    /// assert!(Perm::parse_cycles("()", 3).unwrap().is_identity());
    /// let e = Perm::parse_cycles("(1,9)", 8).unwrap_err();
    /// assert_eq!(e.to_string(), "point 9 outside 1..8 (column 4)");
    /// ```
    ///
    /// Reference: GAP reference manual, chapter "Permutations" (the notation); Seress (2003), §1.2.
    pub fn parse_cycles(text: &str, degree: usize) -> Result<Perm, CycleNotationError> {
        Parser::new(text, degree).parse()
    }

    /// Formats in GAP cycle notation (1-based), `()` for the identity; the same as `to_string()`.
    ///
    /// Complexity: O(degree).
    ///
    /// ```
    /// use orbit_worker::group::Perm;
    /// let p = Perm::from_images(vec![1, 2, 0, 4, 3], "p").unwrap();
    /// assert_eq!(p.to_cycle_notation(), "(1,2,3)(4,5)");
    /// ```
    ///
    /// Reference: GAP reference manual, chapter "Permutations".
    pub fn to_cycle_notation(&self) -> String {
        self.to_string()
    }
}

impl fmt::Display for Perm {
    /// GAP cycle notation, 1-based; `()` for the identity.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_cycles(f, &self.cycles())
    }
}

/// Writes `cycles` (0-based points) in GAP cycle notation, 1-based; `()` when there are none.
/// Shared by every permutation type that prints itself this way.
pub(crate) fn write_cycles(f: &mut fmt::Formatter<'_>, cycles: &[Vec<u32>]) -> fmt::Result {
    if cycles.is_empty() {
        return f.write_str("()");
    }
    for cycle in cycles {
        f.write_str("(")?;
        for (k, x) in cycle.iter().enumerate() {
            if k > 0 {
                f.write_str(",")?;
            }
            write!(f, "{}", x + 1)?;
        }
        f.write_str(")")?;
    }
    Ok(())
}

struct Parser<'a> {
    chars: std::iter::Peekable<std::iter::Enumerate<std::str::Chars<'a>>>,
    degree: usize,
    len_chars: usize,
}

impl<'a> Parser<'a> {
    fn new(text: &'a str, degree: usize) -> Self {
        Parser {
            chars: text.chars().enumerate().peekable(),
            degree,
            len_chars: text.chars().count(),
        }
    }

    fn err(column0: usize, reason: impl Into<String>) -> CycleNotationError {
        CycleNotationError {
            column: column0 + 1,
            reason: reason.into(),
        }
    }

    fn skip_ws(&mut self) {
        while self.chars.peek().is_some_and(|&(_, c)| c.is_whitespace()) {
            self.chars.next();
        }
    }

    /// Next non-blank character and its 0-based column.
    fn next_token(&mut self) -> Option<(usize, char)> {
        self.skip_ws();
        self.chars.next()
    }

    fn expected(&self, what: &str, got: Option<(usize, char)>) -> CycleNotationError {
        match got {
            Some((col, c)) => Self::err(col, format!("expected {what}, found '{c}'")),
            None => Self::err(
                self.len_chars,
                format!("expected {what}, found the end of the text"),
            ),
        }
    }

    /// Reads a decimal point number (1-based) and checks it is in `1..=degree`.
    fn point(&mut self) -> Result<(usize, u32), CycleNotationError> {
        self.skip_ws();
        let Some(&(col, c)) = self.chars.peek() else {
            return Err(self.expected("a point", None));
        };
        if !c.is_ascii_digit() {
            return Err(self.expected("a point", Some((col, c))));
        }
        let mut value: u64 = 0;
        let mut digits = String::new();
        while let Some(&(_, c)) = self.chars.peek() {
            let Some(d) = c.to_digit(10) else { break };
            digits.push(c);
            value = value.saturating_mul(10).saturating_add(u64::from(d));
            self.chars.next();
        }
        if value == 0 || value > self.degree as u64 {
            return Err(Self::err(
                col,
                format!("point {digits} outside 1..{}", self.degree),
            ));
        }
        Ok((col, (value - 1) as u32))
    }

    fn parse(mut self) -> Result<Perm, CycleNotationError> {
        let mut images: Vec<u32> = (0..self.degree as u32).collect();
        let mut seen = vec![false; self.degree];
        let mut cycles = 0usize;
        loop {
            let tok = self.next_token();
            match tok {
                None if cycles > 0 => break,
                None => return Err(self.expected("'('", None)),
                Some((_, '(')) => {}
                other => return Err(self.expected("'('", other)),
            }
            self.skip_ws();
            if let Some(&(col, ')')) = self.chars.peek() {
                self.chars.next();
                // `()` is the identity and only allowed as the whole text.
                if cycles > 0 || self.next_token().is_some() {
                    return Err(Self::err(col, "empty cycle '()' is only allowed alone"));
                }
                return Ok(Perm::from_images_unchecked(images.into_boxed_slice()));
            }
            let mut cycle: Vec<u32> = Vec::new();
            loop {
                let (col, x) = self.point()?;
                if seen[x as usize] {
                    return Err(Self::err(col, format!("point {} repeated", x + 1)));
                }
                seen[x as usize] = true;
                cycle.push(x);
                match self.next_token() {
                    Some((_, ',')) => {}
                    Some((_, ')')) => break,
                    other => return Err(self.expected("',' or ')'", other)),
                }
            }
            for (k, &x) in cycle.iter().enumerate() {
                images[x as usize] = cycle[(k + 1) % cycle.len()];
            }
            cycles += 1;
        }
        Ok(Perm::from_images_unchecked(images.into_boxed_slice()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        for text in ["()", "(1,2)", "(1,2,3)(4,5)", "(1,8)(2,7,3)"] {
            let p = Perm::parse_cycles(text, 8).expect("valid");
            assert_eq!(p.to_string(), text);
        }
        let p = Perm::parse_cycles(" ( 3 , 1 ) (2)\n", 3).expect("valid");
        assert_eq!(p.to_string(), "(1,3)");
    }

    #[test]
    fn errors() {
        let cases = [
            ("(1,9)", "point 9 outside 1..8 (column 4)"),
            ("(0,1)", "point 0 outside 1..8 (column 2)"),
            ("(1,2)(3,1)", "point 1 repeated (column 9)"),
            ("(1,2,1)", "point 1 repeated (column 6)"),
            (
                "(1,2",
                "expected ',' or ')', found the end of the text (column 5)",
            ),
            ("1,2)", "expected '(', found '1' (column 1)"),
            ("(1;2)", "expected ',' or ')', found ';' (column 3)"),
            ("(,2)", "expected a point, found ',' (column 2)"),
            ("", "expected '(', found the end of the text (column 1)"),
            (
                "(1,2)()",
                "empty cycle '()' is only allowed alone (column 7)",
            ),
            (
                "(99999999999999999999999)",
                "point 99999999999999999999999 outside 1..8 (column 2)",
            ),
        ];
        for (text, msg) in cases {
            let e = Perm::parse_cycles(text, 8).unwrap_err();
            assert_eq!(e.to_string(), msg, "text {text:?}");
        }
    }
}
