//! What the portal accepts as text from a person (organisation names, contacts,
//! intended uses, key labels): no control characters (general category Cc) and no
//! format characters (Cf): bidirectional overrides and isolates, zero-width
//! spaces and joiners, soft hyphens and tags, which render as nothing or reorder
//! what follows, so that a name in the operator's table could pass for another.

/// The format characters (general category Cf) of Unicode 15.1
/// (`DerivedGeneralCategory.txt`), as inclusive ranges.
const FORMAT: [(char, char); 21] = [
    ('\u{00AD}', '\u{00AD}'),
    ('\u{0600}', '\u{0605}'),
    ('\u{061C}', '\u{061C}'),
    ('\u{06DD}', '\u{06DD}'),
    ('\u{070F}', '\u{070F}'),
    ('\u{0890}', '\u{0891}'),
    ('\u{08E2}', '\u{08E2}'),
    ('\u{180E}', '\u{180E}'),
    ('\u{200B}', '\u{200F}'),
    ('\u{202A}', '\u{202E}'),
    ('\u{2060}', '\u{2064}'),
    ('\u{2066}', '\u{206F}'),
    ('\u{FEFF}', '\u{FEFF}'),
    ('\u{FFF9}', '\u{FFFB}'),
    ('\u{110BD}', '\u{110BD}'),
    ('\u{110CD}', '\u{110CD}'),
    ('\u{13430}', '\u{1343F}'),
    ('\u{1BCA0}', '\u{1BCA3}'),
    ('\u{1D173}', '\u{1D17A}'),
    ('\u{E0001}', '\u{E0001}'),
    ('\u{E0020}', '\u{E007F}'),
];

/// Whether `c` shows as nothing or changes how other characters show: a control
/// or a format character.
#[must_use]
pub fn is_hidden(c: char) -> bool {
    c.is_control() || FORMAT.iter().any(|&(from, to)| (from..=to).contains(&c))
}

/// Whether `text` holds a character a person cannot see ([`is_hidden`]).
#[must_use]
pub fn has_hidden(text: &str) -> bool {
    text.chars().any(is_hidden)
}

#[cfg(test)]
mod tests;
