//! What an upload is, judged from its bytes and never from the client: its type, a safe name, and how
//! a browser is told to treat it.
use crate::error::{AppError, AppResult};
use percent_encoding::{utf8_percent_encode, NON_ALPHANUMERIC};

/// Longest stored file name, in bytes.
pub const MAX_FILENAME_BYTES: usize = 200;

/// Bytes of the start of an upload kept to detect its type.
pub const HEAD_BYTES: usize = 8192;

/// Types a browser may show inline: raster images and PDF (SVG can carry scripts, so it is not one).
const INLINE: [&str; 7] = [
    "image/png",
    "image/jpeg",
    "image/gif",
    "image/webp",
    "image/bmp",
    "image/avif",
    "application/pdf",
];

/// The type of an upload from its first bytes: a known signature, else `text/plain` for UTF-8 text
/// without NUL bytes, else `application/octet-stream`.
pub fn detect_type(head: &[u8]) -> String {
    if let Some(kind) = infer::get(head) {
        return kind.mime_type().to_string();
    }
    let text = match std::str::from_utf8(head) {
        Ok(_) => true,
        // A multi-byte character cut off by the end of the head is still text.
        Err(err) => err.error_len().is_none() && head.len() == HEAD_BYTES,
    };
    if text && !head.contains(&0) {
        "text/plain".to_string()
    } else {
        "application/octet-stream".to_string()
    }
}

/// Whether downloads of `content_type` may be shown inline by the browser.
pub fn is_inline(content_type: &str) -> bool {
    INLINE.contains(&content_type)
}

fn is_unsafe_char(c: char) -> bool {
    c.is_control()
        // Bidirectional overrides and isolates disguise extensions ("gpj.exe").
        || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}')
}

/// The client's file name made safe: its last path part only, without control or direction characters,
/// without leading or trailing dots and spaces, at most [`MAX_FILENAME_BYTES`] (keeping a short extension).
/// Nothing left is a 400 on the field `file`.
pub fn clean_filename(raw: &str) -> AppResult<String> {
    let last = raw.rsplit(['/', '\\']).next().unwrap_or_default();
    let kept: String = last.chars().filter(|c| !is_unsafe_char(*c)).collect();
    let trimmed = kept.trim_matches(|c: char| c == '.' || c.is_whitespace());
    if trimmed.is_empty() {
        return Err(AppError::field("file", "the file needs a name"));
    }
    if trimmed.len() <= MAX_FILENAME_BYTES {
        return Ok(trimmed.to_string());
    }
    let (stem, ext) = match trimmed.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() && ext.len() <= 16 => (stem, Some(ext)),
        _ => (trimmed, None),
    };
    let room = MAX_FILENAME_BYTES - ext.map_or(0, |e| e.len() + 1);
    let mut cut = room.min(stem.len());
    while !stem.is_char_boundary(cut) {
        cut -= 1;
    }
    let stem = stem[..cut].trim_end();
    Ok(match ext {
        Some(ext) => format!("{stem}.{ext}"),
        None => stem.to_string(),
    })
}

/// The `Content-Disposition` of a download: `inline` for [`is_inline`] types, `attachment` otherwise,
/// with an ASCII fallback name and the exact name in RFC 5987 form.
pub fn content_disposition(filename: &str, content_type: &str) -> String {
    let kind = if is_inline(content_type) {
        "inline"
    } else {
        "attachment"
    };
    let fallback: String = filename
        .chars()
        .map(|c| {
            if c.is_ascii_graphic() && c != '"' && c != '\\' || c == ' ' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let exact = utf8_percent_encode(filename, NON_ALPHANUMERIC);
    format!("{kind}; filename=\"{fallback}\"; filename*=UTF-8''{exact}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filenames_lose_paths_controls_and_length() {
        let clean = |s: &str| clean_filename(s).ok();
        assert_eq!(clean("../../etc/passwd").as_deref(), Some("passwd"));
        assert_eq!(
            clean("C:\\Users\\x\\report.pdf").as_deref(),
            Some("report.pdf")
        );
        assert_eq!(clean("a\u{0}b\r\nc.txt").as_deref(), Some("abc.txt"));
        assert_eq!(
            clean("photo\u{202E}gpj.exe").as_deref(),
            Some("photogpj.exe")
        );
        assert_eq!(clean(".."), None);
        assert_eq!(clean("dir/"), None);
        assert_eq!(clean("  "), None);
        let long = format!("{}.png", "é".repeat(300));
        let cut = clean(&long).unwrap_or_default();
        assert!(
            cut.len() <= MAX_FILENAME_BYTES && cut.ends_with("é.png"),
            "{cut}"
        );
    }

    #[test]
    fn types_come_from_the_bytes() {
        assert_eq!(detect_type(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR"), "image/png");
        assert_eq!(detect_type(b"%PDF-1.7\n"), "application/pdf");
        assert_eq!(detect_type(b"plain words\n"), "text/plain");
        assert_eq!(detect_type(b"\0\x01\x02\xff"), "application/octet-stream");
    }

    #[test]
    fn disposition_is_inline_only_for_images_and_pdf() {
        let d = content_disposition("a\"b é.png", "image/png");
        assert_eq!(
            d,
            "inline; filename=\"a_b _.png\"; filename*=UTF-8''a%22b%20%C3%A9%2Epng"
        );
        assert!(content_disposition("x.html", "text/html").starts_with("attachment;"));
        assert!(content_disposition("x.svg", "image/svg+xml").starts_with("attachment;"));
    }
}
