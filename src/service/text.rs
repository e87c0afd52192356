//! The one rule for control characters in text that reaches the service: NUL, the other C0 controls and
//! DEL are refused in every field (PostgreSQL cannot store NUL, and none of them belongs in a title, a
//! name or a search). Multi-line fields keep tab, newline and carriage return.
use crate::error::{AppError, AppResult};

/// Which control characters a field keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lines {
    /// A title, name, username, URL or search: no control character at all.
    Single,
    /// A description or comment body: tab, newline and carriage return are kept.
    Multi,
}

fn refused(c: char, lines: Lines) -> bool {
    let control = c < ' ' || c == '\u{7f}';
    control && !(lines == Lines::Multi && matches!(c, '\t' | '\n' | '\r'))
}

/// `value` unless it holds a refused control character: then a 400 `validation_error` on `field`.
pub fn check(field: &str, value: &str, lines: Lines) -> AppResult<()> {
    match value.chars().find(|c| refused(*c, lines)) {
        None => Ok(()),
        Some(c) => Err(AppError::field(
            field,
            format!(
                "control characters are not allowed (found U+{:04X})",
                u32::from(c)
            ),
        )),
    }
}

/// [`check`] for a single-line field.
pub fn single_line(field: &str, value: &str) -> AppResult<()> {
    check(field, value, Lines::Single)
}

/// [`check`] for a multi-line field.
pub fn multi_line(field: &str, value: &str) -> AppResult<()> {
    check(field, value, Lines::Multi)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_are_refused_but_line_breaks_stay_in_multi_line_fields() {
        for bad in ["\u{0}", "a\u{1}b", "\u{1b}[31m", "x\u{7f}", "\u{1f}"] {
            assert!(single_line("title", bad).is_err(), "{bad:?}");
            assert!(multi_line("body", bad).is_err(), "{bad:?}");
        }
        for line_break in ["a\tb", "a\nb", "a\r\nb"] {
            assert!(single_line("title", line_break).is_err(), "{line_break:?}");
            assert!(multi_line("body", line_break).is_ok(), "{line_break:?}");
        }
        for fine in ["", "Printer é 中 🙂", "\u{85}", "a b"] {
            assert!(single_line("title", fine).is_ok(), "{fine:?}");
        }
    }
}
