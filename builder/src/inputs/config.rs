//! City configuration: `config/cities/<code>.toml`, committed with the code.
//!
//! Each file names the city, its time zone and data span, where its boundary comes
//! from, and how every source offence field maps to the six crime classes. Sources
//! come in the layouts of [`SourceFormat`]; a new city uses `format = "generic"`
//! (step by step in `docs/ADD_A_CITY.md`). File paths are relative to the data
//! directory; an absolute path is used as it is.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use chrono::NaiveDate;
use serde::Deserialize;

use super::feed_config::{FeedConfig, MAX_LOOKBACK_DAYS};
use super::vocabulary::{Vocabulary, VocabularyError};

pub use super::classes::Mapped;

/// An inclusive span of local dates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub struct Span {
    /// First date.
    pub start: NaiveDate,
    /// Last date.
    pub end: NaiveDate,
}

/// A latitude/longitude box.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
pub struct BoundingBox {
    /// Southern edge.
    pub south: f64,
    /// Northern edge.
    pub north: f64,
    /// Western edge.
    pub west: f64,
    /// Eastern edge.
    pub east: f64,
}

impl BoundingBox {
    /// Whether the point lies inside (edges included).
    #[must_use]
    pub fn contains(&self, lat: f64, lng: f64) -> bool {
        (self.south..=self.north).contains(&lat) && (self.west..=self.east).contains(&lng)
    }
}

/// Where the city's boundary comes from.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct BoundaryConfig {
    /// GeoJSON of police precinct polygons, relative to the data directory.
    pub file: Option<PathBuf>,
    /// Property holding the precinct id.
    pub precinct_id: Option<String>,
    /// Property holding the precinct display name.
    pub precinct_name: Option<String>,
    /// Derive the boundary from the cleaned incidents (no polygons published).
    #[serde(default)]
    pub derived_from_incidents: bool,
    /// Points outside this box are geocoding errors.
    pub plausible_box: Option<BoundingBox>,
}

/// A description-based exception for a mixed category.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Override {
    /// The category it applies to.
    pub category: String,
    /// Phrases; the override applies when the description contains one.
    pub contains: Vec<String>,
    /// The class to use.
    pub class: Mapped,
}

/// The file layouts the build can read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SourceFormat {
    /// Toronto Police Major Crime Indicators (`occurrencedate`, `MCI`, `Lat`, `Long`).
    TorontoMci,
    /// Toronto Police homicides (`OCC_DATE` epoch ms, dict-style MultiPoint `geometry`).
    TorontoHomicides,
    /// Toronto Police shootings (`OCC_DATE` date, R-style `c(lon, lat)` `geometry`).
    TorontoShootings,
    /// SFPD incidents (`Category`, `Descript`, `Date`, `lon`, `lat`).
    SfpdIncidents,
    /// Houston Police crime (`time` UTC instant, `offense`, `lon`, `lat`).
    HoustonCrime,
    /// The generic incident CSV of a new city (`latitude`, `longitude`,
    /// `occurred_at` with offset, the offence, optional `id` and `description`):
    /// [`super::generic_csv`], specified in `docs/ADD_A_CITY.md`.
    Generic,
}

/// One source data set of a city.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct SourceConfig {
    /// The file layout.
    pub format: SourceFormat,
    /// Files, relative to the data directory (none for a source only fed).
    #[serde(default)]
    pub files: Vec<PathBuf>,
    /// Column holding the offence (`*` when every row is the same offence).
    pub field: String,
    /// Offence value to class (`*` matches every value).
    pub classes: BTreeMap<String, Mapped>,
    /// Description-based exceptions, tried first.
    #[serde(default)]
    pub overrides: Vec<Override>,
    /// Where the source records the premises, and which premises are the street
    /// (the street-violence group of `fit/streets/backtest.rs`); none when the
    /// source has no premises column.
    pub street: Option<StreetPremises>,
    /// The open-data service that feeds this source, if one is configured
    /// ([`super::feed_config`]). Once `hexrisk-build update` has synced it, its
    /// stored rows replace the files'.
    pub feed: Option<FeedConfig>,
    /// Whether [`Self::classes`] is matched ignoring case and surrounding spaces
    /// (a feed's vocabulary, see [`super::vocabulary`]).
    #[serde(skip)]
    pub fold_case: bool,
}

/// A source's premises column and the values of it that put an incident on the
/// street, for example Toronto's `premises_type` `Outside` and `Transit`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct StreetPremises {
    /// The premises column.
    pub field: String,
    /// The values (compared exactly, after trimming) that are the street.
    pub premises: Vec<String>,
}

impl StreetPremises {
    /// Whether a premises value is the street.
    #[must_use]
    pub fn is_street(&self, value: &str) -> bool {
        let value = value.trim();
        self.premises.iter().any(|p| p == value)
    }
}

impl SourceConfig {
    /// The source as its rows are read: from its feed (`fed`), in the feed's own
    /// offence vocabulary where it has one; else as configured.
    #[must_use]
    pub fn as_read(&self, fed: bool) -> std::borrow::Cow<'_, Self> {
        match (fed, self.feed.as_ref().and_then(|f| f.classes.as_ref())) {
            (true, Some(classes)) => {
                let mut source = self.clone();
                source.classes.clone_from(classes);
                source.fold_case = self.feed.as_ref().is_some_and(|f| f.fold_case);
                // The overrides name the files' categories and descriptions.
                source.overrides.clear();
                std::borrow::Cow::Owned(source)
            }
            _ => std::borrow::Cow::Borrowed(self),
        }
    }

    /// The premises column, where the source has one configured.
    #[must_use]
    pub fn premises_field(&self) -> Option<&str> {
        self.street.as_ref().map(|s| s.field.as_str())
    }

    /// Maps an offence value and optional description.
    ///
    /// `None` means the value is not in the mapping (the row is rejected as unmapped).
    #[must_use]
    pub fn map(&self, value: &str, description: Option<&str>) -> Option<Mapped> {
        if let Some(description) = description {
            let hit = self.overrides.iter().find(|o| {
                o.category == value && o.contains.iter().any(|p| description.contains(p.as_str()))
            });
            if let Some(hit) = hit {
                return Some(hit.class);
            }
        }
        let found = if self.fold_case {
            self.classes.get(&super::vocabulary::folded(value))
        } else {
            self.classes.get(value)
        };
        found.or_else(|| self.classes.get("*")).copied()
    }
}

/// Road data layouts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RoadFormat {
    /// City of Toronto HERE-derived streets, zipped shapefile, split at intersections.
    TorontoHere,
    /// US Census TIGER/Line roads shapefile; lines share vertices at intersections.
    Tiger,
    /// OpenStreetMap PBF.
    OsmPbf,
    /// OpenStreetMap XML.
    OsmXml,
}

/// Where a city's roads come from.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct RoadsConfig {
    /// Layout.
    pub format: RoadFormat,
    /// File, relative to the data directory.
    pub file: PathBuf,
    /// Attribution, reported with routes.
    pub source: String,
}

/// Named areas searched by name, besides the precincts and the street names.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct PlacesConfig {
    /// Neighbourhood polygons.
    pub neighbourhoods: Option<NeighbourhoodsConfig>,
}

/// A GeoJSON file of neighbourhood polygons.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct NeighbourhoodsConfig {
    /// File, relative to the data directory.
    pub file: PathBuf,
    /// Property holding each neighbourhood's name; a trailing number in brackets
    /// ("Wychwood (94)") is dropped.
    pub name: String,
}

/// Toronto's de-duplication of events that appear in several files.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
pub struct DedupeConfig {
    /// An MCI assault this close to a homicide or shooting on the same date is the same event.
    pub mci_assault_radius_m: f64,
}

/// Everything the build knows about one city.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct CityConfig {
    /// City code, `city_<country>_<abbreviation>`.
    pub code: String,
    /// Display name.
    pub name: String,
    /// Country name.
    pub country: String,
    /// IANA time zone.
    pub timezone: String,
    /// Local dates of the data used.
    pub span: Span,
    /// Weeks of rolling-origin backtest at the end of the data.
    pub backtest_weeks: u32,
    /// Weeks forecast beyond the last data week.
    pub horizon_weeks: u32,
    /// A caveat about the data, shown in the model card and model info.
    pub sample_note: Option<String>,
    /// What the incident locations are (intersections, geocoded addresses...),
    /// shown in the model card's street-level section.
    pub location_note: Option<String>,
    /// Who publishes the incident data, as maps credit it (the vector tiles'
    /// `TileJSON` names it in its attribution).
    pub attribution: Option<String>,
    /// Boundary source.
    pub boundary: BoundaryConfig,
    /// Source data sets by name.
    pub sources: BTreeMap<String, SourceConfig>,
    /// Cross-file de-duplication (Toronto).
    pub dedupe: Option<DedupeConfig>,
    /// Road network for routing; none means routing over the hex lattice.
    pub roads: Option<RoadsConfig>,
    /// Named areas for place search beyond the precincts.
    pub places: Option<PlacesConfig>,
}

/// A configuration file that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// Reading failed.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The TOML does not fit the schema.
    #[error("{path}: {source}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: Box<toml::de::Error>,
    },
    /// A value is outside its documented limits.
    #[error("{path}: {message}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// A feed's vocabulary cannot be used.
    #[error("{path}: {source}")]
    Vocabulary {
        /// The city's file.
        path: PathBuf,
        /// The cause.
        source: Box<VocabularyError>,
    },
}

/// Reads one city configuration.
///
/// # Errors
/// [`ConfigError`] when the file cannot be read or parsed.
pub fn load(path: &Path) -> Result<CityConfig, ConfigError> {
    let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Io {
        path: path.to_owned(),
        source,
    })?;
    let mut city: CityConfig = toml::from_str(&text).map_err(|source| ConfigError::Parse {
        path: path.to_owned(),
        source: Box::new(source),
    })?;
    let config_dir = path.parent().unwrap_or_else(|| Path::new("."));
    for (name, source) in &mut city.sources {
        let Some(feed) = source.feed.as_mut() else {
            continue;
        };
        if feed.lookback_days > MAX_LOOKBACK_DAYS {
            return Err(ConfigError::Invalid {
                path: path.to_owned(),
                message: format!(
                    "sources.{name}.feed.lookback_days is {}; at most {MAX_LOOKBACK_DAYS}",
                    feed.lookback_days
                ),
            });
        }
        if let Some(vocabulary) = &feed.vocabulary {
            let loaded =
                Vocabulary::load(config_dir, vocabulary).map_err(|e| ConfigError::Vocabulary {
                    path: path.to_owned(),
                    source: Box::new(e),
                })?;
            let mut classes = loaded.folded_classes();
            for (value, class) in feed.classes.iter().flatten() {
                classes.insert(super::vocabulary::folded(value), *class);
            }
            feed.classes = Some(classes);
            feed.fold_case = true;
        }
    }
    Ok(city)
}

/// The committed configuration directory.
#[must_use]
pub fn default_config_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../config/cities")
}

/// Reads every `*.toml` in a directory, sorted by city code.
///
/// # Errors
/// [`ConfigError`] for the first file that fails.
pub fn load_all(dir: &Path) -> Result<Vec<CityConfig>, ConfigError> {
    let entries = std::fs::read_dir(dir).map_err(|source| ConfigError::Io {
        path: dir.to_owned(),
        source,
    })?;
    let mut paths: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    paths.sort();
    let mut cities = paths
        .iter()
        .map(|p| load(p))
        .collect::<Result<Vec<_>, _>>()?;
    cities.sort_by(|a, b| a.code.cmp(&b.code));
    Ok(cities)
}

#[cfg(test)]
mod tests;
