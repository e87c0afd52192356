//! The document's text, read once before it is parsed: its lexical tokens and how deeply its brackets
//! nest. async-graphql's parser (pest) descends one level per bracket, selection sets and values alike,
//! before any recursion limit of its own applies, so a deep text must be refused before it is parsed.
use super::{too_complex, Bound, MAX_NESTING};
use crate::config::GraphqlLimits;
use async_graphql::ServerError;

/// Refuse `text` longer than the limit: every byte of it costs the parser time and memory, in strings,
/// names and comments too. Checked before the text is looked up in the remembered documents (which
/// reads all of it), so it is not remembered.
pub fn long(text: &str, limits: &GraphqlLimits) -> Result<(), ServerError> {
    if text.len() > limits.max_document_bytes {
        return Err(too_complex(
            Bound::Bytes,
            limits.max_document_bytes as u64,
            Some(text.len() as u64),
        ));
    }
    Ok(())
}

/// Count the tokens of `text` and refuse it at the first token over the limit, or the first bracket
/// nested deeper than [`MAX_NESTING`]; linear in the text and stops early.
pub fn scan(text: &str, limits: &GraphqlLimits) -> Result<usize, ServerError> {
    let bytes = text.as_bytes();
    let mut at = 0;
    let mut tokens = 0usize;
    let mut nesting = 0usize;
    while let Some(&byte) = bytes.get(at) {
        at = match byte {
            // Insignificant: white space, commas, a byte-order mark's first byte is a token below.
            b' ' | b'\t' | b'\n' | b'\r' | b',' => {
                at += 1;
                continue;
            }
            b'#' => {
                at = line_end(bytes, at);
                continue;
            }
            b'"' => string_end(bytes, at),
            b'{' | b'[' | b'(' => {
                nesting += 1;
                if nesting > MAX_NESTING {
                    return Err(too_complex(Bound::Nesting, MAX_NESTING as u64, None));
                }
                at + 1
            }
            b'}' | b']' | b')' => {
                nesting = nesting.saturating_sub(1);
                at + 1
            }
            b'.' if bytes.get(at..at + 3) == Some(b"...") => at + 3,
            _ if is_word(byte) => word_end(bytes, at),
            // A punctuator, or a byte the parser will refuse: one token each.
            _ => at + 1,
        };
        tokens += 1;
        if tokens > limits.max_tokens {
            return Err(too_complex(Bound::Tokens, limits.max_tokens as u64, None));
        }
    }
    Ok(tokens)
}

/// Names and numbers (`-1.5e+3` included): one token for the run.
fn is_word(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || matches!(byte, b'_' | b'-' | b'+')
}

fn word_end(bytes: &[u8], mut at: usize) -> usize {
    while bytes
        .get(at)
        .is_some_and(|&b| is_word(b) || (b == b'.' && bytes.get(at + 1) != Some(&b'.')))
    {
        at += 1;
    }
    at
}

fn line_end(bytes: &[u8], mut at: usize) -> usize {
    while bytes.get(at).is_some_and(|&b| b != b'\n' && b != b'\r') {
        at += 1;
    }
    at
}

/// Past the string starting at `at` (a `"`): a block string `"""…"""` (where `\"""` does not end it) or a
/// quoted one with `\` escapes; an unterminated string runs to the end (the parser refuses it).
fn string_end(bytes: &[u8], at: usize) -> usize {
    if bytes.get(at..at + 3) == Some(b"\"\"\"") {
        let mut i = at + 3;
        while i < bytes.len() {
            if bytes.get(i..i + 4) == Some(b"\\\"\"\"") {
                i += 4;
            } else if bytes.get(i..i + 3) == Some(b"\"\"\"") {
                return i + 3;
            } else {
                i += 1;
            }
        }
        return bytes.len();
    }
    let mut i = at + 1;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    bytes.len()
}
