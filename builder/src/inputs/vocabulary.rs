//! A published offence vocabulary mapped onto the six classes, shared by every
//! feed that names it (`vocabulary = "nibrs"` in a `[sources.<name>.feed]`): one
//! file in `config/vocabularies/`, not a copy per city.
//!
//! A vocabulary maps each published value to a class (`[classes]`) or lists it as
//! deliberately not used, with the reason (`[excluded]`: reports that are not
//! offences, such as a lost property report). Its values are matched ignoring case
//! and surrounding spaces, since publishers of one standard capitalise it their own
//! way (Houston writes `Simple assault` for NIBRS's `Simple Assault`). A value in
//! neither table is unmapped: the build counts it per source and per value, and
//! health lists it (docs/REFRESH.md).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::classes::Mapped;

/// A vocabulary file.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Vocabulary {
    /// What it is, for people.
    pub name: String,
    /// Where the values and their meanings come from: the publisher's or the
    /// standard's documentation, with its edition.
    pub reference: String,
    /// Each published value's class.
    pub classes: BTreeMap<String, Mapped>,
    /// Published values deliberately not used, each with the reason.
    #[serde(default)]
    pub excluded: BTreeMap<String, String>,
}

/// A vocabulary that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum VocabularyError {
    /// No file of that name.
    #[error("no vocabulary {name}: looked for {}", tried.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(" and "))]
    Missing {
        /// The name asked for.
        name: String,
        /// The files looked for.
        tried: Vec<PathBuf>,
    },
    /// Reading failed.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The TOML does not fit the layout.
    #[error("{path}: {source}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: Box<toml::de::Error>,
    },
    /// Two entries that match the same values, an excluded value without a
    /// reason, a class of `NOT_AN_OFFENCE` (use `[excluded]` with the reason), or
    /// a name that is not a plain file name.
    #[error("{path}: {message}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
}

/// A value as vocabularies compare it: trimmed and lower-cased.
#[must_use]
pub fn folded(value: &str) -> String {
    value.trim().to_lowercase()
}

/// The committed vocabulary folder.
#[must_use]
pub fn default_vocabulary_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../config/vocabularies")
}

impl Vocabulary {
    /// The vocabulary `name`: `vocabularies/<name>.toml` beside the folder of
    /// city configurations `config_dir`, else the committed one.
    ///
    /// # Errors
    /// [`VocabularyError`] when no such file exists or it cannot be used.
    pub fn load(config_dir: &Path, name: &str) -> Result<Self, VocabularyError> {
        let plain = !name.is_empty()
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
        if !plain {
            return Err(VocabularyError::Invalid {
                path: config_dir.to_path_buf(),
                message: format!(
                    "vocabulary {name:?}: a name is letters, digits, '-' and '_' only"
                ),
            });
        }
        let file = format!("{name}.toml");
        let beside = config_dir.join("../vocabularies").join(&file);
        let committed = default_vocabulary_dir().join(&file);
        let path = [&beside, &committed]
            .into_iter()
            .find(|p| p.is_file())
            .ok_or_else(|| VocabularyError::Missing {
                name: name.to_owned(),
                tried: vec![beside.clone(), committed.clone()],
            })?;
        let text = std::fs::read_to_string(path).map_err(|source| VocabularyError::Io {
            path: path.clone(),
            source,
        })?;
        Self::parse(&text, path)
    }

    /// A vocabulary from its TOML text (`path` names it in errors).
    ///
    /// # Errors
    /// [`VocabularyError`] when the text does not fit the layout or two entries
    /// collide.
    pub fn parse(text: &str, path: &Path) -> Result<Self, VocabularyError> {
        let vocabulary: Self = toml::from_str(text).map_err(|source| VocabularyError::Parse {
            path: path.to_path_buf(),
            source: Box::new(source),
        })?;
        let invalid = |message: String| VocabularyError::Invalid {
            path: path.to_path_buf(),
            message,
        };
        let mut seen: BTreeMap<String, &str> = BTreeMap::new();
        let entries = vocabulary.classes.keys().chain(vocabulary.excluded.keys());
        for value in entries {
            if let Some(first) = seen.insert(folded(value), value) {
                return Err(invalid(format!(
                    "{first:?} and {value:?} match the same values (case and spaces are ignored)"
                )));
            }
        }
        if let Some((value, _)) = vocabulary
            .classes
            .iter()
            .find(|(_, class)| **class == Mapped::NotAnOffence)
        {
            return Err(invalid(format!(
                "{value:?} is NOT_AN_OFFENCE: list it under [excluded] with the reason"
            )));
        }
        if let Some((value, _)) = vocabulary
            .excluded
            .iter()
            .find(|(_, reason)| reason.trim().is_empty())
        {
            return Err(invalid(format!("{value:?} is excluded without a reason")));
        }
        Ok(vocabulary)
    }

    /// The mapping a feed reads with, by folded value: each class, and each
    /// excluded value as not an offence (the build rejects its rows with that
    /// reason, not as unmapped).
    #[must_use]
    pub fn folded_classes(&self) -> BTreeMap<String, Mapped> {
        let excluded = self
            .excluded
            .keys()
            .map(|value| (folded(value), Mapped::NotAnOffence));
        self.classes
            .iter()
            .map(|(value, class)| (folded(value), *class))
            .chain(excluded)
            .collect()
    }
}

#[cfg(test)]
mod tests;
