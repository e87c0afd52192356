//! The JSON parts of a GraphQL multipart request (`operations` and `map`, which the multipart request spec
//! puts before any file) may take at most the JSON body limit (`DESKGRAPH_MAX_BODY_BYTES`, 1 MiB by
//! default); only files get the upload limit. async-graphql gives every part the file limit, so the body is
//! measured here, up to the start of its third part, before it reaches the parser.
use bytes::Bytes;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Counts a multipart body's bytes until its first two parts have ended.
#[derive(Debug)]
pub struct FrontCap {
    delimiter: Vec<u8>,
    /// The last bytes seen, so a delimiter split between two pieces is still found.
    tail: Vec<u8>,
    delimiters: usize,
    counted: usize,
    max: usize,
    tripped: Arc<AtomicBool>,
}

/// Delimiters seen once `operations` and `map` are over: the opening one and one after each.
const FRONT_DELIMITERS: usize = 3;

impl FrontCap {
    /// A cap of `max` bytes for a body of `content_type`; `None` without a boundary (the parser refuses
    /// such a body anyway). `tripped` becomes true when the cap stops the body.
    pub fn new(content_type: &str, max: usize, tripped: Arc<AtomicBool>) -> Option<Self> {
        let boundary = content_type.split(';').skip(1).find_map(|param| {
            let (name, value) = param.split_once('=')?;
            name.trim()
                .eq_ignore_ascii_case("boundary")
                .then(|| value.trim().trim_matches('"').to_string())
        })?;
        if boundary.is_empty() {
            return None;
        }
        Some(FrontCap {
            delimiter: format!("--{boundary}").into_bytes(),
            tail: Vec::new(),
            delimiters: 0,
            counted: 0,
            max,
            tripped,
        })
    }

    /// Pass `piece` on, or fail once the front parts have gone past the cap.
    pub fn feed(&mut self, piece: Bytes) -> std::io::Result<Bytes> {
        if self.delimiters >= FRONT_DELIMITERS {
            return Ok(piece);
        }
        let mut window = std::mem::take(&mut self.tail);
        let old = window.len();
        window.extend_from_slice(&piece);
        let mut at = 0;
        while let Some(found) = find(&window[at..], &self.delimiter) {
            let end = at + found + self.delimiter.len();
            // Found in the carried tail only if it ends in the new piece, so none is counted twice.
            if end > old {
                self.delimiters += 1;
                if self.delimiters >= FRONT_DELIMITERS {
                    self.counted += end - old;
                    return self.check(piece);
                }
            }
            at = end;
        }
        self.counted += piece.len();
        let keep = self.delimiter.len().saturating_sub(1).min(window.len());
        self.tail = window[window.len() - keep..].to_vec();
        self.check(piece)
    }

    fn check(&self, piece: Bytes) -> std::io::Result<Bytes> {
        if self.counted > self.max {
            self.tripped.store(true, Ordering::Relaxed);
            return Err(std::io::Error::other(
                "operations and map exceed their limit",
            ));
        }
        Ok(piece)
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(body: &[u8], piece: usize, max: usize) -> bool {
        let tripped = Arc::new(AtomicBool::new(false));
        let content_type = "multipart/form-data; boundary=\"XyZ\"";
        let Some(mut cap) = FrontCap::new(content_type, max, tripped.clone()) else {
            return false;
        };
        body.chunks(piece)
            .all(|p| cap.feed(Bytes::copy_from_slice(p)).is_ok())
    }

    #[test]
    fn only_the_parts_before_the_files_count() {
        let front = format!(
            "--XyZ\r\n\r\n{}\r\n--XyZ\r\n\r\n{{}}\r\n--XyZ\r\n",
            "o".repeat(100)
        );
        let body = [front.as_bytes(), &[b'f'; 5000], b"\r\n--XyZ--\r\n"].concat();
        for piece in [1, 2, 3, 7, 64, 10_000] {
            assert!(run(&body, piece, front.len()), "piece {piece}");
            assert!(!run(&body, piece, front.len() - 20), "piece {piece}");
        }
    }
}
