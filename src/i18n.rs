//! The words people read: one message catalogue per language (`locales/<code>/*.ftl`, Fluent), English
//! complete and German beside it. A page is in the user's chosen language, else the first one the browser asks
//! for (`Accept-Language`) that there is a catalogue for, else English; an email is in its recipient's chosen
//! language, else English. A message the chosen catalogue lacks is shown in English. What the service says to
//! programs (error messages, the API, webhooks) stays English.
use fluent_templates::fluent_bundle::FluentValue;
use fluent_templates::{langid, LanguageIdentifier, Loader};
use std::borrow::Cow;
use std::collections::HashMap;

fluent_templates::static_loader! {
    static LOCALES = {
        locales: "./locales",
        fallback_language: "en",
        // The templates escape what they are given; Unicode isolation marks around arguments would only
        // get in the way of reading, copying and searching the page.
        customise: |bundle| bundle.set_use_isolating(false),
    };
}

static EN: LanguageIdentifier = langid!("en");
static DE: LanguageIdentifier = langid!("de");

/// A language the pages can be read in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Lang {
    /// English, the catalogue every message is in.
    #[default]
    En,
    /// German.
    De,
}

impl Lang {
    /// Every language, in the order the settings page offers them.
    pub const ALL: [Lang; 2] = [Lang::En, Lang::De];

    /// The BCP 47 code: `<html lang>`, the stored setting and the catalogue's directory.
    pub fn code(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::De => "de",
        }
    }

    /// The language's name in itself, as a language picker shows it.
    pub fn name(self) -> &'static str {
        match self {
            Lang::En => "English",
            Lang::De => "Deutsch",
        }
    }

    /// The language a tag names by its primary subtag (`de`, `de-AT`, `DE_ch`), if there is a catalogue for it.
    pub fn from_tag(tag: &str) -> Option<Lang> {
        let primary = tag.trim().split(['-', '_']).next()?;
        Lang::ALL
            .into_iter()
            .find(|l| l.code().eq_ignore_ascii_case(primary))
    }

    /// The pages' language: the user's setting where it names one there is, else the first language of an
    /// `Accept-Language` header, by its weights, there is a catalogue for, else English.
    pub fn negotiate(chosen: Option<&str>, accept_language: Option<&str>) -> Lang {
        if let Some(lang) = chosen.and_then(Lang::from_tag) {
            return lang;
        }
        let Some(header) = accept_language else {
            return Lang::En;
        };
        // Weighted tags, ordered by weight, stable among equal weights (the header's own order); `q=0` means
        // "not this one". A header is short (the server's header limits), so this stays cheap.
        let mut wanted: Vec<(f32, &str)> = header
            .split(',')
            .take(32)
            .filter_map(|item| {
                let mut parts = item.split(';');
                let tag = parts.next()?.trim();
                let weight = parts
                    .find_map(|p| p.trim().strip_prefix("q="))
                    .map_or(Some(1.0), |q| q.trim().parse::<f32>().ok())?;
                (weight > 0.0 && weight.is_finite()).then_some((weight, tag))
            })
            .collect();
        wanted.sort_by(|a, b| b.0.total_cmp(&a.0));
        wanted
            .into_iter()
            .find_map(|(_, tag)| Lang::from_tag(tag))
            .unwrap_or_default()
    }

    fn id(self) -> &'static LanguageIdentifier {
        match self {
            Lang::En => &EN,
            Lang::De => &DE,
        }
    }

    /// The message `key` in this language.
    pub fn t(&self, key: &str) -> String {
        LOCALES.lookup(self.id(), key)
    }

    /// The message `key` with the argument `name` set to `value` (text, as it is).
    pub fn t1(&self, key: &str, name: &str, value: impl std::fmt::Display) -> String {
        self.with(key, [(name, FluentValue::from(value.to_string()))])
    }

    /// The message `key` with the argument `name` set to the number `n`, which picks the plural form
    /// (`{ $n -> [one] … *[other] … }`).
    pub fn tn(&self, key: &str, name: &str, n: impl std::fmt::Display) -> String {
        self.with(key, [(name, number(n))])
    }

    /// The message `key` with two arguments (whole numbers are numbers, for plural forms; see [`number`]).
    pub fn t2(
        &self,
        key: &str,
        a: &str,
        va: impl std::fmt::Display,
        b: &str,
        vb: impl std::fmt::Display,
    ) -> String {
        self.with(key, [(a, number(va)), (b, number(vb))])
    }

    /// The message `key` with text arguments, each as it is (a name or a title that looks like a number stays
    /// text).
    pub fn texts<const N: usize>(&self, key: &str, args: [(&str, &str); N]) -> String {
        self.with(
            key,
            args.map(|(k, v)| (k, FluentValue::from(v.to_string()))),
        )
    }

    /// How the pages write a moment (`chrono` format): "Nov 30, 2026 14:05", "30.11.2026 14:05".
    pub fn moment_format(self) -> &'static str {
        match self {
            Lang::En => "%b %d, %Y %H:%M",
            Lang::De => "%d.%m.%Y %H:%M",
        }
    }

    /// How the pages write a day: "Nov 3, 2026", "03.11.2026".
    pub fn day_format(self) -> &'static str {
        match self {
            Lang::En => "%b %-d, %Y",
            Lang::De => "%d.%m.%Y",
        }
    }

    /// An HTTP status in words, as an error page's title: `error-<code>`, else its English reason.
    pub fn status(&self, status: axum::http::StatusCode) -> String {
        LOCALES
            .try_lookup(self.id(), &format!("error-{}", status.as_u16()))
            .unwrap_or_else(|| status.canonical_reason().unwrap_or("Error").to_string())
    }

    /// A stored value in words (`in_progress`: "In progress", "In Bearbeitung"): the catalogue's
    /// `value-<value>`, else the value with its first letter raised.
    pub fn label(&self, value: &str) -> String {
        LOCALES
            .try_lookup(self.id(), &format!("value-{value}"))
            .unwrap_or_else(|| label(value))
    }

    /// A whole number of minutes as a person reads it: "2h 05m", "2 Std. 05 Min.".
    pub fn duration(&self, minutes: i64) -> String {
        // The minutes keep their two digits: given as text, not as a number Fluent would write as "5".
        let rest = self.t1("duration-minutes", "m", format!("{:02}", minutes % 60));
        self.t2("duration-hours-minutes", "h", minutes / 60, "rest", rest)
    }

    /// A number written with a decimal point ("3.5") as the language writes it ("3,5" in German).
    pub fn decimal(self, text: String) -> String {
        match self {
            Lang::En => text,
            Lang::De => text.replace('.', ","),
        }
    }

    /// A file size for people: "512 B", "12 KB", "1.5 MB" ("1,5 MB" in German).
    pub fn size(&self, bytes: i64) -> String {
        const KB: i64 = 1024;
        match bytes {
            b if b < KB => self.t1("size-bytes", "n", b),
            b if b < KB * KB => self.t1("size-kb", "n", b / KB),
            b => {
                let n = self.decimal(format!("{:.1}", b as f64 / (KB * KB) as f64));
                self.t1("size-mb", "n", n)
            }
        }
    }

    fn with<'a, const N: usize>(&self, key: &str, args: [(&str, FluentValue<'a>); N]) -> String {
        let args: HashMap<Cow<'static, str>, FluentValue<'a>> = args
            .into_iter()
            .map(|(k, v)| (Cow::Owned(k.to_string()), v))
            .collect();
        LOCALES.lookup_with_args(self.id(), key, &args)
    }
}

/// `in_progress` → `In progress`: a stored value in English words (see [`Lang::label`] for the reader's).
pub fn label(value: &str) -> String {
    let text = value.replace('_', " ");
    let mut chars = text.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().collect::<String>() + chars.as_str())
        .unwrap_or_default()
}

/// A value as Fluent takes it: a whole number where it is written as one (`42`, `-3`; not `007`, `1.50` or
/// `1e5`, which stay as written), so that plural forms can select on counts; anything else as text.
fn number(value: impl std::fmt::Display) -> FluentValue<'static> {
    let text = value.to_string();
    let digits = text.strip_prefix('-').unwrap_or(&text);
    let whole = !digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit())
        && (digits == "0" || !digits.starts_with('0'));
    match text.parse::<i64>() {
        Ok(n) if whole => FluentValue::from(n),
        _ => FluentValue::from(text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_setting_wins_then_the_browser_by_weight_then_english() {
        assert_eq!(Lang::negotiate(Some("de"), Some("en")), Lang::De);
        assert_eq!(Lang::negotiate(Some("klingon"), Some("de-AT")), Lang::De);
        assert_eq!(
            Lang::negotiate(None, Some("fr-FR,de;q=0.8,en;q=0.5")),
            Lang::De
        );
        assert_eq!(Lang::negotiate(None, Some("en;q=0.2, de;q=0.9")), Lang::De);
        assert_eq!(Lang::negotiate(None, Some("de;q=0, en")), Lang::En);
        assert_eq!(Lang::negotiate(None, Some("en-US,en;q=0.9")), Lang::En);
        assert_eq!(Lang::negotiate(None, Some("fr, *;q=0.1")), Lang::En);
        assert_eq!(Lang::negotiate(None, Some(";;q=x,,")), Lang::En);
        assert_eq!(Lang::negotiate(None, None), Lang::En);
    }

    /// Each message's id and the arguments its text names.
    type Catalogue = std::collections::BTreeMap<String, Vec<String>>;

    /// The messages a catalogue directory defines, each with the arguments its text names (`{ $n }`), and
    /// any id defined twice.
    fn ids(code: &str) -> std::io::Result<(Catalogue, Vec<String>)> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("locales")
            .join(code);
        let mut ids = std::collections::BTreeMap::<String, Vec<String>>::new();
        let mut twice = Vec::new();
        for file in std::fs::read_dir(dir)? {
            let text = std::fs::read_to_string(file?.path())?;
            let mut current: Option<String> = None;
            for line in text.lines() {
                let id = line.split_once(" =").map(|(id, _)| id).filter(|id| {
                    id.starts_with(|c: char| c.is_ascii_alphabetic())
                        && id
                            .chars()
                            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
                });
                if let Some(id) = id {
                    if ids.insert(id.to_string(), Vec::new()).is_some() {
                        twice.push(id.to_string());
                    }
                    current = Some(id.to_string());
                } else if line.starts_with('#') {
                    current = None;
                }
                let Some(current) = &current else { continue };
                for (at, _) in line.match_indices('$') {
                    let name: String = line[at + 1..]
                        .chars()
                        .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
                        .collect();
                    if let Some(args) = ids.get_mut(current) {
                        args.push(name);
                    }
                }
            }
        }
        Ok((ids, twice))
    }

    /// The message ids the templates and the code ask for: by name (as `t` calls), and every string literal
    /// in the code shaped like an id of one of the catalogues' areas (`"queue-view-mine"` in a table of
    /// views), so that an id kept in a table or a match is checked too.
    fn used(
        areas: &std::collections::BTreeSet<&str>,
    ) -> std::io::Result<std::collections::BTreeSet<String>> {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut files = Vec::new();
        let mut dirs = vec![root.join("templates"), root.join("src")];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(dir)? {
                let path = entry?.path();
                if path.is_dir() {
                    dirs.push(path);
                } else {
                    files.push(path);
                }
            }
        }
        let mut used = std::collections::BTreeSet::new();
        for file in files {
            let text = std::fs::read_to_string(&file)?;
            for call in [".t(\"", ".t1(\"", ".tn(\"", ".t2(\"", ".texts(\""] {
                for (at, _) in text.match_indices(call) {
                    let rest = &text[at + call.len()..];
                    if let Some(end) = rest.find('"') {
                        used.insert(rest[..end].to_string());
                    }
                }
            }
            if file.extension().is_some_and(|e| e == "rs") {
                for (at, _) in text.match_indices('"') {
                    let rest = &text[at + 1..];
                    let word: String = rest
                        .chars()
                        .take_while(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '-')
                        .collect();
                    let closed = rest[word.len()..].starts_with('"');
                    let area = word.split('-').next().unwrap_or_default();
                    if closed && word.contains('-') && !word.ends_with('-') && areas.contains(area)
                    {
                        used.insert(word);
                    }
                }
            }
        }
        Ok(used)
    }

    #[test]
    fn every_message_asked_for_is_in_english_and_german_has_every_one() -> std::io::Result<()> {
        let (en, en_twice) = ids("en")?;
        let (de, de_twice) = ids("de")?;
        assert!(
            en_twice.is_empty(),
            "defined twice in English: {en_twice:?}"
        );
        assert!(de_twice.is_empty(), "defined twice in German: {de_twice:?}");
        // The areas: each id's first word (`queue`, `email`, …).
        let areas = en.keys().filter_map(|id| id.split('-').next()).collect();
        let missing: Vec<_> = used(&areas)?
            .into_iter()
            .filter(|id| !en.contains_key(id))
            .collect();
        assert!(
            missing.is_empty(),
            "asked for, not in the English catalogue: {missing:?}"
        );
        let untranslated: Vec<_> = en.keys().filter(|id| !de.contains_key(*id)).collect();
        assert!(untranslated.is_empty(), "not in German: {untranslated:?}");
        let stray: Vec<_> = de.keys().filter(|id| !en.contains_key(*id)).collect();
        assert!(stray.is_empty(), "in German only: {stray:?}");
        // Every message formats without errors in both languages, given the arguments either language's text
        // names (an error, or a message the catalogue failed to load, shows as "Unknown localization key").
        for (id, args) in &en {
            let mut args = args.clone();
            args.extend(de[id].iter().cloned());
            for lang in Lang::ALL {
                let given: HashMap<Cow<'static, str>, FluentValue> = args
                    .iter()
                    .map(|a| (Cow::Owned(a.clone()), FluentValue::from(2)))
                    .collect();
                let text = LOCALES.lookup_with_args(lang.id(), id, &given);
                assert!(
                    !text.starts_with("Unknown localization"),
                    "{id} in {lang:?}"
                );
                assert!(!text.is_empty(), "{id} in {lang:?} is empty");
            }
        }
        Ok(())
    }

    #[test]
    fn arguments_and_plurals_fill_in() {
        assert_eq!(Lang::De.t("nav-new-ticket"), "Neues Ticket");
        assert_eq!(
            Lang::En.t1("login-with", "provider", "Okta"),
            "Sign in with Okta"
        );
        assert_eq!(Lang::De.label("in_progress"), "In Bearbeitung");
        assert_eq!(Lang::En.label("in_progress"), "In progress");
        assert_eq!(Lang::De.label("no_such_value"), "No such value");
        // Counts select plural forms; what only looks like a number stays as written.
        assert_eq!(number(3), FluentValue::from(3));
        for text in ["007", "1.50", "1e5", "-", "", " 3"] {
            assert_eq!(number(text), FluentValue::from(text), "{text:?}");
        }
    }
}
