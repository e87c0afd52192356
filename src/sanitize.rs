//! HTML sanitising for rich text (comment bodies, ticket descriptions) with a strict allow-list.
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
}
