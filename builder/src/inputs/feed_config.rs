//! A source fed by a city's open-data service: `[sources.<name>.feed]` in the
//! city's TOML. The protocol and endpoint, which published field holds each value
//! the build reads, the feed's own offence vocabulary where it differs from the
//! files', how late the source usually runs, and where an app token comes from
//! (the name of an environment variable: a secret never sits in the file).
//! Operator's guide: docs/REFRESH.md.

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer};

use super::classes::Mapped;

/// The query protocols the feeds speak.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Protocol {
    /// Socrata SODA 2.x: `$limit`/`$offset` paging ordered by the row key,
    /// changed-since on the system field `:updated_at`.
    Socrata,
    /// ArcGIS REST FeatureServer or MapServer layer `query`: `resultOffset` paging
    /// ordered by the object id, `returnIdsOnly` for the ids served.
    Arcgis,
    /// CKAN `datastore_search`: `limit`/`offset` paging sorted by `_id`.
    Ckan,
    /// A CSV file at a URL, fetched whole.
    CsvUrl,
}

/// How the occurrence field encodes the time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum OccurredAs {
    /// An instant: epoch milliseconds (ArcGIS), a floating local timestamp
    /// (Socrata), or ISO 8601 with or without an offset (CKAN, CSV; without
    /// one it is local time). Its local date and hour are used.
    #[default]
    Instant,
    /// A date written as epoch milliseconds at 00:00 UTC of the local date (the
    /// Houston NIBRS layer): the UTC date is the local date, and there is no hour.
    UtcMidnightDate,
    /// An instant (as [`Self::Instant`]) whose time of day means nothing (Toronto's
    /// homicides: midnight Toronto time, no hour published): its local date only.
    LocalDate,
}

/// Which published field holds each value the build reads.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FeedFields {
    /// The row key, unique per row (`OBJECTID`, `row_id`).
    pub id: String,
    /// The event a row belongs to, where rows of one event share one.
    pub event: Option<String>,
    /// The occurrence time.
    pub occurred: String,
    /// How [`Self::occurred`] encodes it.
    #[serde(default)]
    pub occurred_as: OccurredAs,
    /// The local hour, where a field of its own holds it.
    pub hour: Option<String>,
    /// The report time, where published: the backtest uses it to know what was
    /// known when.
    pub reported: Option<String>,
    /// The offence; several names are spellings of one field across a rename
    /// (Toronto's `MCI_CATEGORY`, then `CSI_CATEGORY`): the first present is read.
    /// `*` for a source whose every row is the same offence (Toronto's shootings,
    /// as the files' `field = "*"`): no field is read and the value is `*`.
    #[serde(deserialize_with = "one_or_many")]
    pub offence: Vec<String>,
    /// A free-text description.
    pub description: Option<String>,
    /// The premises, where the source's `street` group reads one.
    pub premises: Option<String>,
    /// Latitude; `geometry` reads the feature's point (ArcGIS `y`).
    pub latitude: String,
    /// Longitude; `geometry` reads the feature's point (ArcGIS `x`).
    pub longitude: String,
}

/// A source's feed.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FeedConfig {
    /// The query protocol.
    pub protocol: Protocol,
    /// The endpoint: a Socrata resource (`https://data.sfgov.org/resource/wg3w-h783.json`),
    /// an ArcGIS layer (`.../FeatureServer/0`), a CKAN `datastore_search` with its
    /// `resource_id`, or a CSV file.
    pub url: String,
    /// Rows asked for a page; the protocol's default when absent (Socrata 1,000,
    /// ArcGIS the layer's `maxRecordCount`, CKAN 1,000).
    pub page_size: Option<u32>,
    /// The environment variable holding an app token, if the source takes one
    /// (Socrata's `X-App-Token` lifts the shared per-address throttle).
    pub token_env: Option<String>,
    /// Days the source usually runs behind the present (Chicago's feed leaves out
    /// the last 7 days).
    #[serde(default)]
    pub lag_days: u32,
    /// Days past the usual lag after which the city's data is stale and health
    /// says `degraded`.
    #[serde(default = "default_stale_after_days")]
    pub stale_after_days: u32,
    /// For a layer that keeps only its last N days (Houston's 30): a row that is
    /// no longer served and occurred before the window is aged out, not deleted.
    pub window_days: Option<u32>,
    /// How far behind the last pull's change mark a changed-since pull starts
    /// reading, in days: a publisher's batch can become visible after a later one,
    /// with change marks below what the last pull saw. Rows re-read unchanged cost
    /// bandwidth only. The reconciliation at the end of every sync repairs what
    /// lies further back.
    #[serde(default = "default_lookback_days")]
    pub lookback_days: u32,
    /// Where the field names come from: the publisher's documentation or its own
    /// ingestion configuration.
    pub reference: String,
    /// Published field names.
    pub fields: FeedFields,
    /// The feed's offence vocabulary, where it differs from the files' (the
    /// source's `classes` otherwise). With [`Self::vocabulary`], these entries
    /// add to the vocabulary's or take their place.
    pub classes: Option<BTreeMap<String, Mapped>>,
    /// A shared vocabulary file (`config/vocabularies/<name>.toml`, see
    /// [`super::vocabulary`]) the feed's offence values are mapped by, for a
    /// standard that many publishers use (NIBRS). Loading the configuration
    /// folds it into [`Self::classes`].
    pub vocabulary: Option<String>,
    /// Whether [`Self::classes`] is matched ignoring case and surrounding spaces:
    /// set when a vocabulary was folded in.
    #[serde(skip)]
    pub fold_case: bool,
}

/// The default of [`FeedConfig::lookback_days`]: a week, the cadence of the
/// update schedule, so a batch that surfaces up to a whole schedule late is
/// re-read by the next pull rather than left to the reconciliation.
const fn default_lookback_days() -> u32 {
    7
}

/// The longest [`FeedConfig::lookback_days`]: a lookback beyond a quarter re-reads
/// most of a year's changes each week; the reconciliation covers older batches.
pub const MAX_LOOKBACK_DAYS: u32 = 92;

/// The default of [`FeedConfig::stale_after_days`].
const fn default_stale_after_days() -> u32 {
    21
}

/// A field name, or a list of spellings.
fn one_or_many<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum OneOrMany {
        One(String),
        Many(Vec<String>),
    }
    let names = match OneOrMany::deserialize(deserializer)? {
        OneOrMany::One(name) => vec![name],
        OneOrMany::Many(names) => names,
    };
    if names.is_empty() || names.iter().any(String::is_empty) {
        return Err(serde::de::Error::custom(
            "name at least one non-empty field",
        ));
    }
    Ok(names)
}

impl FeedConfig {
    /// The app token, read from the environment variable the config names.
    /// `Ok(None)` when the feed takes none.
    ///
    /// # Errors
    /// The variable's name, when the config names one and it is unset or empty:
    /// a feed that needs a token must not silently run throttled.
    pub fn token(&self) -> Result<Option<String>, String> {
        let Some(name) = &self.token_env else {
            return Ok(None);
        };
        match std::env::var(name) {
            Ok(value) if !value.trim().is_empty() => Ok(Some(value.trim().to_owned())),
            _ => Err(name.clone()),
        }
    }
}
