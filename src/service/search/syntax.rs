//! What a search string asks for, read once and written out for each engine: words, `"quoted phrases"`,
//! `or` between alternatives and `-word` to exclude, as PostgreSQL's `websearch_to_tsquery` reads them (and
//! web search engines before it). Nothing a user types is an error: stray quotes close at the end, a lone
//! `-` or `or` is a word's absence, and punctuation is left to each engine's tokenizer.
use crate::error::{AppError, AppResult};

/// Longest search string, in characters.
pub const MAX_CHARS: usize = 1000;
/// Most words and phrases in one search.
pub const MAX_TERMS: usize = 32;

/// A word or a quoted phrase, as typed (without its quotes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Term(pub String);

/// Terms that must all match, and terms that must not.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Alternative {
    /// Every one of these.
    pub all: Vec<Term>,
    /// None of these.
    pub none: Vec<Term>,
}

/// A search: any one of its alternatives matches. Alternatives with nothing that must match are left out
/// (matching everything but a word would visit every ticket), so a search may be [`Search::is_empty`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Search {
    /// The alternatives (`or`).
    pub any: Vec<Alternative>,
}

/// Whether a term has anything an engine would index: a letter or a digit.
fn indexable(term: &str) -> bool {
    term.chars().any(char::is_alphanumeric)
}

impl Search {
    /// `text` read as a search. Longer than [`MAX_CHARS`] characters or with more than [`MAX_TERMS`] terms
    /// is a 400 on `query`; control characters are refused as in every one-line field.
    pub fn parse(text: &str) -> AppResult<Search> {
        crate::service::text::single_line("query", text)?;
        if text.chars().count() > MAX_CHARS {
            return Err(AppError::field(
                "query",
                format!("ensure this field has no more than {MAX_CHARS} characters"),
            ));
        }
        let mut search = Search::default();
        let mut current = Alternative::default();
        let mut terms = 0usize;
        let mut chars = text.chars().peekable();
        loop {
            while chars.next_if(|c| c.is_whitespace()).is_some() {}
            let Some(&first) = chars.peek() else { break };
            let negated = first == '-';
            if negated {
                chars.next();
            }
            let (term, quoted) = if chars.next_if_eq(&'"').is_some() {
                let phrase: String = chars.by_ref().take_while(|c| *c != '"').collect();
                (phrase, true)
            } else {
                let mut word = String::new();
                while let Some(c) = chars.next_if(|c| !c.is_whitespace() && *c != '"') {
                    word.push(c);
                }
                (word, false)
            };
            let term = term.split_whitespace().collect::<Vec<_>>().join(" ");
            if !quoted && !negated && term.eq_ignore_ascii_case("or") {
                if !current.all.is_empty() {
                    search.any.push(std::mem::take(&mut current));
                }
                continue;
            }
            if !indexable(&term) {
                continue;
            }
            terms += 1;
            if terms > MAX_TERMS {
                return Err(AppError::field(
                    "query",
                    format!("a search has at most {MAX_TERMS} words and phrases"),
                ));
            }
            if negated {
                current.none.push(Term(term));
            } else {
                current.all.push(Term(term));
            }
        }
        if !current.all.is_empty() {
            search.any.push(current);
        }
        Ok(search)
    }

    /// Whether nothing is asked for (a blank search, or only exclusions): it finds nothing.
    pub fn is_empty(&self) -> bool {
        self.any.is_empty()
    }

    /// The words that must match somewhere, for highlighting.
    pub fn wanted_words(&self) -> Vec<String> {
        self.any
            .iter()
            .flat_map(|a| &a.all)
            .flat_map(|t| t.0.split(|c: char| !c.is_alphanumeric()))
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect()
    }

    /// The search in `websearch_to_tsquery`'s syntax, every term quoted so that none reads as an operator.
    pub fn websearch(&self) -> String {
        let quoted = |t: &Term| format!("\"{}\"", t.0.replace('"', " "));
        self.any
            .iter()
            .map(|a| {
                let all = a.all.iter().map(quoted);
                let none = a.none.iter().map(|t| format!("-{}", quoted(t)));
                all.chain(none).collect::<Vec<_>>().join(" ")
            })
            .collect::<Vec<_>>()
            .join(" or ")
    }

    /// The search as an FTS5 `MATCH` expression, every term a quoted string (FTS5's own syntax is never
    /// reached by what a user types).
    pub fn fts5(&self) -> String {
        let quoted = |t: &Term| format!("\"{}\"", t.0.replace('"', "\"\""));
        self.any
            .iter()
            .map(|a| {
                let all = a.all.iter().map(quoted).collect::<Vec<_>>().join(" AND ");
                if a.none.is_empty() {
                    format!("({all})")
                } else {
                    let none = a.none.iter().map(quoted).collect::<Vec<_>>().join(" OR ");
                    format!("(({all}) NOT ({none}))")
                }
            })
            .collect::<Vec<_>>()
            .join(" OR ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(text: &str) -> Search {
        Search::parse(text).unwrap_or_default()
    }

    #[test]
    fn words_phrases_alternatives_and_exclusions() {
        let s = parsed(r#"vpn "keeps dropping" -office or wifi"#);
        assert_eq!(
            s.websearch(),
            r#""vpn" "keeps dropping" -"office" or "wifi""#
        );
        assert_eq!(
            s.fts5(),
            r#"(("vpn" AND "keeps dropping") NOT ("office")) OR ("wifi")"#
        );
        assert_eq!(s.wanted_words(), ["vpn", "keeps", "dropping", "wifi"]);
    }

    #[test]
    fn what_users_mistype_is_read_not_refused() {
        for text in [
            "",
            "   ",
            "\"",
            "-",
            "or",
            "or or",
            "\"\"",
            "- -",
            "(((",
            "!!! &",
            "-\"",
            "\"unclosed",
        ] {
            let s = Search::parse(text);
            assert!(s.is_ok(), "{text:?}");
        }
        assert_eq!(parsed("\"unclosed phrase").fts5(), r#"("unclosed phrase")"#);
        assert!(parsed("-printer").is_empty());
        assert!(parsed("!!! & ((").is_empty());
        assert_eq!(parsed("or printer or").fts5(), r#"("printer")"#);
        assert_eq!(parsed(r#"say"hi"#).fts5(), r#"("say" AND "hi")"#);
    }

    #[test]
    fn quotes_never_escape_into_the_engines_syntax() {
        let s = parsed(r#"a"b" OR NEAR(x) "c"" d"#);
        for term in s.any.iter().flat_map(|a| &a.all) {
            assert!(!term.0.contains('"'), "{term:?}");
        }
        assert!(s.fts5().contains(r#""NEAR(x)""#), "{}", s.fts5());
    }

    #[test]
    fn too_long_or_too_many_is_a_field_error() {
        assert!(Search::parse(&"a".repeat(MAX_CHARS + 1)).is_err());
        assert!(Search::parse(&"a ".repeat(MAX_TERMS + 1)).is_err());
        assert!(Search::parse(&"a ".repeat(MAX_TERMS)).is_ok());
        assert!(Search::parse("a\u{0}b").is_err());
    }
}
