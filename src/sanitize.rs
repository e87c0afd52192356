//! HTML sanitising for rich text (comment bodies, ticket descriptions) with a strict allow-list, and the
//! plain text the web forms edit it as: what a person types becomes paragraphs and line breaks, and stored
//! HTML comes back to the edit box as the text it shows, never as tags.
use std::collections::HashSet;
use std::sync::OnceLock;

fn cleaner() -> &'static ammonia::Builder<'static> {
    static CLEANER: OnceLock<ammonia::Builder<'static>> = OnceLock::new();
    CLEANER.get_or_init(|| {
        let mut builder = ammonia::Builder::empty();
        builder
            .tags(HashSet::from([
                "p",
                "br",
                "pre",
                "code",
                "b",
                "i",
                "strong",
                "em",
                "ul",
                "ol",
                "li",
                "blockquote",
                "a",
            ]))
            .tag_attributes(std::collections::HashMap::from([(
                "a",
                HashSet::from(["href"]),
            )]))
            .url_schemes(HashSet::from(["http", "https", "mailto"]))
            .link_rel(Some("noopener noreferrer"))
            .strip_comments(true)
            .clean_content_tags(HashSet::from(["script", "style"]));
        builder
    })
}

/// Sanitise HTML with the allow-list: scripts, styles, event handlers and `javascript:` URLs go.
pub fn sanitize_html(input: &str) -> String {
    cleaner().clean(input).to_string()
}

/// Whether sanitised HTML has any visible text or line structure left (e.g. `<p> </p>` has none).
pub fn has_visible_content(html: &str) -> bool {
    let mut in_tag = false;
    let mut text = String::new();
    for ch in html.chars() {
        match ch {
            '<' => in_tag = true,
            '>' => in_tag = false,
            c if !in_tag => text.push(c),
            _ => {}
        }
    }
    let decoded = text.replace("&nbsp;", " ").replace("&#160;", " ");
    !decoded.trim().is_empty()
}

/// Escape `text` for HTML text and attribute values.
pub fn html_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            other => out.push(other),
        }
    }
    out
}

/// Plain text as typed in a web form, as HTML: a blank line starts a paragraph, a line break stays one,
/// and nothing typed is taken as markup.
pub fn text_to_html(text: &str) -> String {
    let text = text.replace("\r\n", "\n").replace('\r', "\n");
    let mut paragraphs = Vec::new();
    let mut current: Vec<&str> = Vec::new();
    for line in text.trim().lines() {
        if line.trim().is_empty() {
            if !current.is_empty() {
                paragraphs.push(std::mem::take(&mut current));
            }
        } else {
            current.push(line.trim_end());
        }
    }
    if !current.is_empty() {
        paragraphs.push(current);
    }
    paragraphs
        .iter()
        .map(|lines| {
            let inner: Vec<String> = lines.iter().map(|l| html_escape(l)).collect();
            format!("<p>{}</p>", inner.join("<br>"))
        })
        .collect()
}

/// Stored (sanitised) HTML as the text it shows, for an edit box: paragraphs apart by a blank line, line
/// breaks and list items on lines of their own, tags gone, entities decoded. [`text_to_html`] of the result
/// shows the same text.
pub fn html_to_text(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    let mut rest = html;
    while let Some(open) = rest.find('<') {
        out.push_str(&decode(&rest[..open]));
        let Some(close) = rest[open..].find('>') else {
            out.push_str(&decode(&rest[open..]));
            rest = "";
            break;
        };
        let tag = rest[open + 1..open + close].trim().to_ascii_lowercase();
        let name: String = tag
            .trim_start_matches('/')
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect();
        match (tag.starts_with('/'), name.as_str()) {
            (_, "br") => out.push('\n'),
            (true, "p" | "pre" | "blockquote" | "ul" | "ol") => out.push_str("\n\n"),
            (true, "li") => out.push('\n'),
            _ => {}
        }
        rest = &rest[open + close + 1..];
    }
    out.push_str(&decode(rest));
    let mut text = String::with_capacity(out.len());
    let mut blank_run = 0;
    for line in out.lines() {
        let line = line.trim_end();
        if line.trim().is_empty() {
            blank_run += 1;
            if blank_run == 1 {
                text.push('\n');
            }
        } else {
            blank_run = 0;
            text.push_str(line);
            text.push('\n');
        }
    }
    text.trim().to_string()
}

/// The entities the sanitiser writes (and numeric ones) as the characters they stand for.
fn decode(text: &str) -> String {
    if !text.contains('&') {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        let tail = &rest[at..];
        let end = tail.find(';').filter(|end| *end <= 10);
        let decoded = end.and_then(|end| {
            let entity = &tail[1..end];
            let c = match entity {
                "amp" => Some('&'),
                "lt" => Some('<'),
                "gt" => Some('>'),
                "quot" => Some('"'),
                "apos" => Some('\''),
                "nbsp" => Some(' '),
                _ => entity
                    .strip_prefix("#x")
                    .or_else(|| entity.strip_prefix("#X"))
                    .and_then(|hex| u32::from_str_radix(hex, 16).ok())
                    .or_else(|| entity.strip_prefix('#').and_then(|d| d.parse().ok()))
                    .and_then(char::from_u32),
            }?;
            // A no-break space is a space to whoever edits the text.
            Some((if c == '\u{a0}' { ' ' } else { c }, end + 1))
        });
        match decoded {
            Some((c, len)) => {
                out.push(c);
                rest = &tail[len..];
            }
            None => {
                out.push('&');
                rest = &tail[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn removes_dangerous_markup_and_keeps_allowed() {
        let out = sanitize_html(
            r#"<p onclick="x()">Hi <script>alert(1)</script><a href="javascript:alert(1)">x</a> <a href="https://e.com">ok</a><strong>b</strong></p>"#,
        );
        assert!(!out.contains("script"), "{out}");
        assert!(!out.contains("onclick"), "{out}");
        assert!(!out.contains("javascript"), "{out}");
        assert!(
            out.contains(r#"<a href="https://e.com" rel="noopener noreferrer">ok</a>"#),
            "{out}"
        );
        assert!(out.contains("<strong>b</strong>"), "{out}");
    }

    #[test]
    fn visible_content() {
        assert!(!has_visible_content(&sanitize_html(
            "<script>alert(1)</script>"
        )));
        assert!(!has_visible_content("<p>  </p>"));
        assert!(has_visible_content("<p>x</p>"));
    }

    #[test]
    fn typed_text_becomes_paragraphs_and_line_breaks_and_never_markup() {
        assert_eq!(
            text_to_html("Line one\r\nline two\n\n\nNext <b>para</b> & \"more\""),
            "<p>Line one<br>line two</p><p>Next &lt;b&gt;para&lt;/b&gt; &amp; &quot;more&quot;</p>"
        );
        assert_eq!(text_to_html("  \n "), "");
        // What is stored is what the sanitiser keeps.
        let html = text_to_html("a < b\nc");
        assert_eq!(sanitize_html(&html), "<p>a &lt; b<br>c</p>");
    }

    #[test]
    fn stored_html_comes_back_as_the_text_it_shows() {
        assert_eq!(
            html_to_text(
                "<p>Every second page jams.</p><p>Tray 2<br>since Monday &amp; &lt;today&gt;</p>"
            ),
            "Every second page jams.\n\nTray 2\nsince Monday & <today>"
        );
        assert_eq!(
            html_to_text("<ul><li>one</li><li>two</li></ul><p>A <a href=\"https://e.com\">link</a>&#160;x</p>"),
            "one\ntwo\n\nA link x"
        );
        assert_eq!(html_to_text("plain text, no tags"), "plain text, no tags");
        assert_eq!(html_to_text("AT&T &bogus; &"), "AT&T &bogus; &");
        for typed in [
            "a\nb",
            "one\n\ntwo\nthree",
            "x < y & z > \"q\" 'r'",
            "é 中 🙂",
        ] {
            assert_eq!(
                html_to_text(&sanitize_html(&text_to_html(typed))),
                typed,
                "{typed:?}"
            );
        }
    }
}
