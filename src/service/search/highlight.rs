//! Highlights: short passages of a hit's text around the words a search matched, HTML-escaped with each
//! matched word in `<mark>…</mark>`. They are cut from the text the caller hands over, which is only what
//! the viewer may read; words are compared by their English stems, as the index compares them.
use crate::sanitize::html_escape;
use rust_stemmers::{Algorithm, Stemmer};

/// Most highlights per hit.
pub const MAX_HIGHLIGHTS: usize = 3;
/// Words shown before the first match of a passage.
const BEFORE: usize = 8;
/// Words in a passage.
const WORDS: usize = 24;

/// Compares words as the index does.
pub struct Highlighter {
    stemmer: Stemmer,
    wanted: Vec<String>,
}

/// A word of a text: where it starts and ends, in bytes.
struct Word {
    start: usize,
    end: usize,
    matched: bool,
}

impl Highlighter {
    /// A highlighter for these words (lowercase, as `Search::wanted_words` gives them).
    pub fn new(words: &[String]) -> Self {
        let stemmer = Stemmer::create(Algorithm::English);
        let mut wanted: Vec<String> = words.iter().map(|w| stemmer.stem(w).into_owned()).collect();
        wanted.sort();
        wanted.dedup();
        Highlighter { stemmer, wanted }
    }

    fn words(&self, text: &str) -> Vec<Word> {
        let mut words = Vec::new();
        let mut start = None;
        for (i, c) in text
            .char_indices()
            .chain(std::iter::once((text.len(), ' ')))
        {
            match (c.is_alphanumeric(), start) {
                (true, None) => start = Some(i),
                (false, Some(s)) => {
                    let word = text[s..i].to_lowercase();
                    let stem = self.stemmer.stem(&word);
                    let matched = self.wanted.iter().any(|w| *w == stem);
                    words.push(Word {
                        start: s,
                        end: i,
                        matched,
                    });
                    start = None;
                }
                _ => {}
            }
        }
        words
    }

    /// A passage of `text` around its first matched word, or nothing when no word matches.
    pub fn passage(&self, text: &str) -> Option<String> {
        let words = self.words(text);
        let first = words.iter().position(|w| w.matched)?;
        let from = first.saturating_sub(BEFORE);
        let to = (from + WORDS).min(words.len());
        let shown = &words[from..to];
        let (start, end) = (shown.first()?.start, shown.last()?.end);
        let mut out = String::new();
        if from > 0 {
            out.push('…');
        }
        let mut at = start;
        for w in shown.iter().filter(|w| w.matched) {
            out.push_str(&html_escape(&text[at..w.start]));
            out.push_str("<mark>");
            out.push_str(&html_escape(&text[w.start..w.end]));
            out.push_str("</mark>");
            at = w.end;
        }
        out.push_str(&html_escape(&text[at..end]));
        if to < words.len() {
            out.push('…');
        }
        Some(collapse(&out))
    }

    /// Up to [`MAX_HIGHLIGHTS`] passages from `texts`, in their order (the title first, then the description,
    /// then the comments).
    pub fn passages<'a>(&self, texts: impl IntoIterator<Item = &'a str>) -> Vec<String> {
        texts
            .into_iter()
            .filter_map(|t| self.passage(t))
            .take(MAX_HIGHLIGHTS)
            .collect()
    }
}

/// Runs of whitespace (line breaks of the text) as one space: a passage is one line.
fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(list: &[&str]) -> Vec<String> {
        list.iter().map(|w| w.to_string()).collect()
    }

    #[test]
    fn matched_words_are_marked_by_their_stems_and_the_rest_escaped() {
        let h = Highlighter::new(&words(&["vpn", "dropping"]));
        assert_eq!(
            h.passage("The VPN <client> keeps dropped & reconnecting")
                .as_deref(),
            Some(
                "The <mark>VPN</mark> &lt;client&gt; keeps <mark>dropped</mark> &amp; reconnecting"
            )
        );
        assert_eq!(h.passage("nothing here"), None);
    }

    #[test]
    fn long_texts_are_cut_around_the_first_match() {
        let h = Highlighter::new(&words(&["printer"]));
        let text = format!("{} printer {}", "word ".repeat(50), "tail ".repeat(50));
        let passage = h.passage(&text).unwrap_or_default();
        assert!(
            passage.starts_with('…') && passage.ends_with('…'),
            "{passage}"
        );
        assert!(passage.contains("<mark>printer</mark>"), "{passage}");
        assert_eq!(passage.split_whitespace().count(), WORDS);
    }

    #[test]
    fn at_most_three_passages_in_order() {
        let h = Highlighter::new(&words(&["disk"]));
        let texts = ["disk one", "no", "disk two", "disk three", "disk four"];
        assert_eq!(
            h.passages(texts),
            [
                "<mark>disk</mark> one",
                "<mark>disk</mark> two",
                "<mark>disk</mark> three"
            ]
        );
    }
}
