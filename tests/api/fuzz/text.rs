//! Property tests (proptest) over text parsers: HTML sanitising and ticket numbers.
use deskgraph::domain::{format_ticket_number, parse_ticket_number};
use deskgraph::sanitize::sanitize_html;
use proptest::prelude::*;

/// Pieces of hostile HTML, shuffled together with random text.
fn hostile_html() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("<script>alert(1)</script>".to_string()),
        Just("<SCRIPT SRC=//x.example/x.js>".to_string()),
        Just("<scr".to_string()),
        Just("ipt>".to_string()),
        Just("<a href=\"javascript:alert(1)\">x</a>".to_string()),
        Just("<a href=\"JaVaScRiPt:alert(1)\">".to_string()),
        Just("<a href=\"jav&#x61;script:alert(1)\">".to_string()),
        Just("<a href=\" javascript:x\">".to_string()),
        Just("<a href=\"https://ok.example/\">".to_string()),
        Just("<img src=x onerror=alert(1)>".to_string()),
        Just("<p onclick=\"x()\">".to_string()),
        Just("<svg/onload=alert(1)>".to_string()),
        Just("<style>p{}</style>".to_string()),
        Just("<iframe src=x>".to_string()),
        Just("<!--".to_string()),
        Just("-->".to_string()),
        Just("<![CDATA[".to_string()),
        Just("</p>".to_string()),
        Just("<p>".to_string()),
        Just("<strong>".to_string()),
        Just("<".to_string()),
        Just(">".to_string()),
        Just("\"".to_string()),
        Just("'".to_string()),
        Just("=".to_string()),
        Just(" on".to_string()),
        Just("click".to_string()),
        Just("&lt;".to_string()),
        Just("&amp;".to_string()),
        Just("\u{0}".to_string()),
        "\\PC{0,8}",
    ];
    proptest::collection::vec(piece, 0..24).prop_map(|p| p.concat())
}

/// The tags of sanitised HTML (text `<` is always escaped, so every `<` opens a real tag).
fn tags(html: &str) -> Vec<String> {
    html.split('<')
        .skip(1)
        .map(|rest| rest.split('>').next().unwrap_or("").to_ascii_lowercase())
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1024, ..ProptestConfig::default() })]

    #[test]
    fn sanitised_html_is_inert_and_stable(input in hostile_html()) {
        let out = sanitize_html(&input);
        for tag in tags(&out) {
            prop_assert!(!tag.starts_with("script"), "{out}");
            prop_assert!(!tag.starts_with("style") && !tag.starts_with("iframe") && !tag.starts_with("svg"), "{out}");
            prop_assert!(!tag.contains("javascript:"), "{out}");
            // No event-handler attribute: ` on…=` inside a tag.
            let handler = tag
                .split_whitespace()
                .skip(1)
                .any(|attr| attr.starts_with("on") && attr.contains('='));
            prop_assert!(!handler, "{out}");
        }
        prop_assert_eq!(sanitize_html(&out), out.clone(), "not idempotent for {:?}", input);
    }

    #[test]
    fn ticket_numbers_round_trip(n in 0i64..=i64::MAX, prefix in "[A-Z][A-Z0-9]{0,9}") {
        let formatted = format_ticket_number(&prefix, n);
        prop_assert_eq!(parse_ticket_number(&formatted, &prefix), Some(n));
        prop_assert_eq!(parse_ticket_number(&formatted.to_lowercase(), &prefix), Some(n));
        prop_assert_eq!(parse_ticket_number(&format!(" {n} "), &prefix), Some(n));
    }

    #[test]
    fn ticket_number_parsing_never_panics(input in "\\PC{0,30}", prefix in "[A-Z]{1,4}") {
        if let Some(n) = parse_ticket_number(&input, &prefix) {
            prop_assert!(n >= 0);
            // Whatever was read is a number that reads back the same way from its canonical form.
            prop_assert_eq!(parse_ticket_number(&format_ticket_number(&prefix, n), &prefix), Some(n));
        }
    }
}

#[test]
fn regression_nineteen_digit_ticket_numbers_parse() {
    // Found by `ticket_numbers_round_trip`: numbers of 19 digits were formatted but not read back.
    let n = 1_000_000_000_000_000_000_i64;
    assert_eq!(
        parse_ticket_number(&format_ticket_number("TKT", n), "TKT"),
        Some(n)
    );
    assert_eq!(
        parse_ticket_number("TKT-9223372036854775807", "TKT"),
        Some(i64::MAX)
    );
    assert_eq!(parse_ticket_number("TKT-9223372036854775808", "TKT"), None);
    assert_eq!(
        parse_ticket_number("TKT-00000000000000000000000001", "TKT"),
        None
    );
}
