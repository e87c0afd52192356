//! The rules for text that reaches the service, each written once: control characters (NUL, the other C0
//! controls and DEL are refused in every field: PostgreSQL cannot store NUL, and none of them belongs in a
//! title, a name or a search; multi-line fields keep tab, newline and carriage return), one-line values
//! (titles and names: trimmed, 1–200 characters) and descriptions (at most 64 KiB).
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

/// Longest one-line value (a title, a name, a location), in characters after trimming.
pub const MAX_LINE_CHARS: usize = 200;
/// Largest description, in bytes.
pub const MAX_DESCRIPTION_BYTES: usize = 64 * 1024;

/// An optional one-line value (a location, a serial number): trimmed, at most [`MAX_LINE_CHARS`]
/// characters, no control character.
pub fn short_line(field: &str, value: &str) -> AppResult<String> {
    single_line(field, value)?;
    let value = value.trim();
    if value.chars().count() > MAX_LINE_CHARS {
        return Err(AppError::field(
            field,
            format!("ensure this field has no more than {MAX_LINE_CHARS} characters"),
        ));
    }
    Ok(value.to_string())
}

/// A required one-line value (a title, a name): [`short_line`], and not blank.
pub fn required_line(field: &str, value: &str) -> AppResult<String> {
    let value = short_line(field, value)?;
    if value.is_empty() {
        return Err(AppError::field(field, "this field may not be blank"));
    }
    Ok(value)
}

/// A required one-line value of at most `max` characters (a name shorter than a title): [`required_line`]
/// with the tighter bound.
pub fn required_name(field: &str, value: &str, max: usize) -> AppResult<String> {
    let value = required_line(field, value)?;
    if value.chars().count() > max {
        return Err(AppError::field(
            field,
            format!("ensure this field has no more than {max} characters"),
        ));
    }
    Ok(value)
}

/// A description: at most [`MAX_DESCRIPTION_BYTES`], trimmed, tabs and line breaks kept.
pub fn description(value: &str) -> AppResult<String> {
    multi_line("description", value)?;
    if value.len() > MAX_DESCRIPTION_BYTES {
        return Err(AppError::field(
            "description",
            format!("ensure this field has no more than {MAX_DESCRIPTION_BYTES} bytes"),
        ));
    }
    Ok(value.trim().to_string())
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

    #[test]
    fn one_line_values_are_trimmed_and_bounded_in_characters() {
        assert_eq!(
            required_line("title", "  Printer  ").ok().as_deref(),
            Some("Printer")
        );
        let long = "é".repeat(200);
        assert_eq!(required_line("title", &long).ok(), Some(long));
        for bad in ["", "   ", &"x".repeat(201)] {
            assert!(required_line("title", bad).is_err(), "{bad:?}");
        }
        assert_eq!(short_line("location", "  ").ok().as_deref(), Some(""));
        assert!(short_line("location", &"x".repeat(201)).is_err());
    }

    #[test]
    fn descriptions_keep_their_lines_within_64_kib() {
        assert_eq!(description("  a\n\tb  ").ok().as_deref(), Some("a\n\tb"));
        assert!(description(&"x".repeat(64 * 1024)).is_ok());
        assert!(description(&"x".repeat(64 * 1024 + 1)).is_err());
        assert!(description("a\u{0}b").is_err());
    }
}
