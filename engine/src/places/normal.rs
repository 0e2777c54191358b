//! How place names and queries are compared: one normal form for both, so that
//! "Saint George Street", "ST GEORGE ST" and "st. george st" are the same key.
//!
//! A name's normal form is its words, lowercased, with accents folded to their base
//! letters, apostrophes dropped ("O'Connor" is "oconnor"), every other mark a space
//! ("St.Clair" is "st clair"), and each street word written the one short way
//! of [`ABBREVIATIONS`] ("Street", "Saint" and "St" are all "st"; "West" is "w").

use alloc::string::String;
use alloc::vec::Vec;

/// Words of street names and their short form, long first. A word written either
/// way normalises to the short one; a query's unfinished last word that begins a
/// long form also stands for its short form ("Spadina Aven" is "spadina ave").
pub const ABBREVIATIONS: &[(&str, &str)] = &[
    ("street", "st"),
    ("saint", "st"),
    ("avenue", "ave"),
    ("av", "ave"),
    ("road", "rd"),
    ("boulevard", "blvd"),
    ("drive", "dr"),
    ("crescent", "cres"),
    ("court", "crt"),
    ("ct", "crt"),
    ("place", "pl"),
    ("lane", "ln"),
    ("terrace", "terr"),
    ("parkway", "pkwy"),
    ("gardens", "gdns"),
    ("circle", "cir"),
    ("circ", "cir"),
    ("square", "sq"),
    ("trail", "trl"),
    ("highway", "hwy"),
    ("heights", "hts"),
    ("expressway", "expy"),
    ("mount", "mt"),
    ("east", "e"),
    ("west", "w"),
    ("north", "n"),
    ("south", "s"),
];

/// The short form of a whole word, or the word.
fn short_form(word: &str) -> &str {
    ABBREVIATIONS
        .iter()
        .find(|(long, _)| *long == word)
        .map_or(word, |(_, short)| short)
}

/// Whether a normalised word says only what kind of way or which side it is
/// ("st", "ave", "w"): an index key never starts with one.
#[must_use]
pub fn is_generic(word: &str) -> bool {
    ABBREVIATIONS.iter().any(|(_, short)| *short == word)
}

/// The short forms a query's unfinished last word may stand for: those of the long
/// forms it begins (at least two letters), other than itself.
#[must_use]
pub fn completions(partial: &str) -> Vec<&'static str> {
    let mut shorts: Vec<&'static str> = Vec::new();
    if partial.len() < 2 {
        return shorts;
    }
    for (long, short) in ABBREVIATIONS {
        if long.starts_with(partial) && *short != partial && !shorts.contains(short) {
            shorts.push(short);
        }
    }
    shorts
}

/// A letter with its accent taken off (Latin-1 and Latin Extended-A), lowercase;
/// other characters lowercased as they are.
fn fold(c: char, out: &mut String) {
    let base = match c {
        'À'..='Å' | 'à'..='å' | 'Ā' | 'ā' | 'Ă' | 'ă' | 'Ą' | 'ą' => "a",
        'Æ' | 'æ' => "ae",
        'Ç' | 'ç' | 'Ć' | 'ć' | 'Ĉ' | 'ĉ' | 'Ċ' | 'ċ' | 'Č' | 'č' => "c",
        'Ď' | 'ď' | 'Đ' | 'đ' | 'Ð' | 'ð' => "d",
        'È'..='Ë' | 'è'..='ë' | 'Ē' | 'ē' | 'Ĕ' | 'ĕ' | 'Ė' | 'ė' | 'Ę' | 'ę' | 'Ě' | 'ě' => {
            "e"
        }
        'Ĝ' | 'ĝ' | 'Ğ' | 'ğ' | 'Ġ' | 'ġ' | 'Ģ' | 'ģ' => "g",
        'Ĥ' | 'ĥ' | 'Ħ' | 'ħ' => "h",
        'Ì'..='Ï' | 'ì'..='ï' | 'Ĩ' | 'ĩ' | 'Ī' | 'ī' | 'Ĭ' | 'ĭ' | 'Į' | 'į' | 'İ' | 'ı' => {
            "i"
        }
        'Ĵ' | 'ĵ' => "j",
        'Ķ' | 'ķ' => "k",
        'Ĺ' | 'ĺ' | 'Ļ' | 'ļ' | 'Ľ' | 'ľ' | 'Ŀ' | 'ŀ' | 'Ł' | 'ł' => "l",
        'Ñ' | 'ñ' | 'Ń' | 'ń' | 'Ņ' | 'ņ' | 'Ň' | 'ň' => "n",
        'Ò'..='Ö' | 'Ø' | 'ò'..='ö' | 'ø' | 'Ō' | 'ō' | 'Ŏ' | 'ŏ' | 'Ő' | 'ő' => "o",
        'Œ' | 'œ' => "oe",
        'Ŕ' | 'ŕ' | 'Ŗ' | 'ŗ' | 'Ř' | 'ř' => "r",
        'Ś' | 'ś' | 'Ŝ' | 'ŝ' | 'Ş' | 'ş' | 'Š' | 'š' => "s",
        'ß' => "ss",
        'Ţ' | 'ţ' | 'Ť' | 'ť' | 'Ŧ' | 'ŧ' => "t",
        'Ù'..='Ü' | 'ù'..='ü' | 'Ũ' | 'ũ' | 'Ū' | 'ū' | 'Ŭ' | 'ŭ' | 'Ů' | 'ů' | 'Ű' | 'ű' => {
            "u"
        }
        'Ŵ' | 'ŵ' => "w",
        'Ý' | 'ý' | 'ÿ' | 'Ŷ' | 'ŷ' | 'Ÿ' => "y",
        'Ź' | 'ź' | 'Ż' | 'ż' | 'Ž' | 'ž' => "z",
        'Þ' | 'þ' => "th",
        _ => {
            out.extend(c.to_lowercase());
            return;
        }
    };
    out.push_str(base);
}

/// Marks dropped without leaving a word break.
fn is_dropped(c: char) -> bool {
    matches!(c, '\'' | '\u{2019}' | '\u{2018}' | '\u{301}' | '\u{300}')
}

/// Marks that join two streets into an intersection ("Queen & Spadina").
fn is_joiner(c: char) -> bool {
    matches!(c, '&' | '/' | '@' | '+')
}

/// A piece of a normalised text: a word, or a mark joining two streets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Token {
    /// A word in its normal form.
    Word(String),
    /// `&`, `/`, `@` or `+`.
    Joiner,
}

/// The tokens of `text`: words in normal form and joining marks.
#[must_use]
pub fn tokens(text: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut Vec<Token>| {
        if !word.is_empty() {
            out.push(Token::Word(String::from(short_form(word))));
            word.clear();
        }
    };
    for c in text.chars() {
        if c.is_alphanumeric() {
            fold(c, &mut word);
        } else if is_dropped(c) {
        } else {
            flush(&mut word, &mut out);
            if is_joiner(c) {
                out.push(Token::Joiner);
            }
        }
    }
    flush(&mut word, &mut out);
    out
}

/// The words of `tokens`, joining marks left out.
#[must_use]
pub fn words_of(tokens: &[Token]) -> Vec<String> {
    tokens
        .iter()
        .filter_map(|t| match t {
            Token::Word(w) => Some(w.clone()),
            Token::Joiner => None,
        })
        .collect()
}

/// The words of `text` in normal form (joining marks are word breaks).
#[must_use]
pub fn words(text: &str) -> Vec<String> {
    words_of(&tokens(text))
}

/// The normal form of a name: its words joined by single spaces.
///
/// ```
/// use hexrisk_engine::places::normal::normalise;
/// assert_eq!(normalise("Saint George Street"), "st george st");
/// assert_eq!(normalise("ST GEORGE ST"), "st george st");
/// assert_eq!(normalise("Queen's Park Crescent West"), "queens park cres w");
/// assert_eq!(normalise("Rue Sainte-Thérèse"), "rue sainte therese");
/// ```
#[must_use]
pub fn normalise(text: &str) -> String {
    words(text).join(" ")
}

#[cfg(test)]
mod tests;
