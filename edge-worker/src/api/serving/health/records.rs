//! The two health answers as types, member for member in the order they are sent;
//! their schemas are the `Health` components of the generated OpenAPI documents.

use serde::Serialize;

#[cfg(test)]
use schemars::JsonSchema;

use super::Component;

/// The version pattern of a city's model: its data-through date and the first 12
/// hex digits of its artifact's SHA-256.
#[cfg(test)]
const VERSION_PATTERN: &str = r"^\d{4}-\d{2}-\d{2}\.[0-9a-f]{12}$";

/// `GET /v1/health`.
#[derive(Debug, Serialize)]
#[cfg_attr(test, derive(JsonSchema), schemars(rename = "Health"))]
#[serde(deny_unknown_fields)]
pub(crate) struct PredictionHealth {
    /// `degraded` (HTTP 200): a published model version cannot be used and an
    /// earlier one still serves, or a fed city's data lags; `unhealthy` (HTTP 503):
    /// a component fails.
    pub status: Component,
    /// The engine's version.
    pub version: &'static str,
    /// When the record was made.
    #[cfg_attr(test, schemars(extend("format" = "date-time")))]
    pub timestamp: String,
    /// Each component's health.
    pub services: PredictionServices,
}

/// The prediction API's components.
#[derive(Debug, Serialize)]
#[cfg_attr(test, derive(JsonSchema), schemars(inline))]
#[serde(deny_unknown_fields)]
pub(crate) struct PredictionServices {
    /// The request pipeline itself.
    pub api: Component,
    /// The model artifacts.
    pub models: Component,
    /// The key and quota store.
    pub database: Component,
}

/// `GET /health`: status and a coverage snapshot.
#[derive(Debug, Serialize)]
#[cfg_attr(test, derive(JsonSchema), schemars(rename = "Health"))]
#[serde(deny_unknown_fields)]
pub(crate) struct RouterHealth {
    /// `degraded` (HTTP 200): a published model version cannot be used and an
    /// earlier one still serves, or a fed city's data lags; `unhealthy` (HTTP 503):
    /// a component fails.
    pub status: Component,
    /// `hexrisk-router`.
    #[cfg_attr(test, schemars(extend("const" = "hexrisk-router")))]
    pub service: &'static str,
    /// The engine's version.
    pub version: &'static str,
    /// When the record was made.
    #[cfg_attr(test, schemars(extend("format" = "date-time")))]
    pub timestamp: String,
    /// The H3 resolution of every cell: 8.
    #[cfg_attr(test, schemars(extend("const" = 8)))]
    pub resolution: u8,
    /// What is covered.
    pub coverage: CoverageSnapshot,
    /// The model versions: the manifest in force, each city's published and served
    /// version, and versions refused (with why). Null when no manifest could be read.
    pub models: Option<ModelsRecord>,
    /// Each component's health.
    pub services: RouterServices,
}

/// The cities, cells and precincts covered.
#[derive(Debug, Serialize)]
#[cfg_attr(test, derive(JsonSchema), schemars(inline))]
#[serde(deny_unknown_fields)]
pub(crate) struct CoverageSnapshot {
    /// The cities' codes.
    pub cities: Vec<String>,
    /// Their grid cells.
    pub cells: u64,
    /// Their precincts.
    pub precincts: u64,
}

/// The router's components.
#[derive(Debug, Serialize)]
#[cfg_attr(test, derive(JsonSchema), schemars(inline))]
#[serde(deny_unknown_fields)]
pub(crate) struct RouterServices {
    /// The model artifacts.
    pub models: Component,
    /// The key and quota store.
    pub database: Component,
}

/// The manifest in force and what became of each city's version.
#[derive(Debug, Serialize)]
#[cfg_attr(test, derive(JsonSchema), schemars(inline))]
#[serde(deny_unknown_fields)]
pub(crate) struct ModelsRecord {
    /// Label of the manifest in force.
    pub version: String,
    /// Each city of the manifest.
    pub cities: Vec<CityRecord>,
    /// Versions refused and still named by the manifest, or a manifest refused.
    pub problems: Vec<ProblemRecord>,
}

/// One city of the manifest.
#[derive(Debug, Serialize)]
#[cfg_attr(test, derive(JsonSchema), schemars(inline))]
#[serde(deny_unknown_fields)]
pub(crate) struct CityRecord {
    /// The city's code.
    pub city: String,
    /// The version the manifest names.
    #[cfg_attr(test, schemars(regex(pattern = VERSION_PATTERN)))]
    pub version: String,
    /// The version answers come from: the manifest's, or an older one while the
    /// manifest's cannot be used; null before the city is first needed, and for a
    /// refused version with nothing to fall back on.
    #[cfg_attr(test, schemars(regex(pattern = VERSION_PATTERN)))]
    pub serving: Option<String>,
    /// The last date of the data behind the manifest's version.
    #[cfg_attr(test, schemars(extend("format" = "date")))]
    pub data_through: String,
    /// Grid cells.
    pub cells: u64,
    /// Precincts.
    pub precincts: u64,
    /// How fresh the city's data is.
    pub freshness: FreshnessRecord,
}

/// How fresh the city's data is. For a city fed from open-data services (`fed`),
/// `stale_after_days` is its feeds' limit and `lagging` says why it is degraded; a
/// city built from files only has no limit.
#[derive(Debug, Serialize)]
#[cfg_attr(test, derive(JsonSchema), schemars(inline))]
#[serde(deny_unknown_fields)]
pub(crate) struct FreshnessRecord {
    /// The last date of the data.
    #[cfg_attr(test, schemars(extend("format" = "date")))]
    pub data_through: String,
    /// Days from `data_through` to the forecasting clock's date.
    pub age_days: i64,
    /// Whether the city is fed from open-data services.
    pub fed: bool,
    /// When its feeds last synced.
    #[cfg_attr(test, schemars(extend("format" = "date-time")))]
    pub last_sync: Option<String>,
    /// Days its feeds allow the data to age.
    pub stale_after_days: Option<u32>,
    /// Feeds failing, and since when.
    pub failing: Vec<FailingRecord>,
    /// Feeds whose reconciliation repaired rows in any of their recent syncs (at
    /// most eight): the service published revisions its change marks did not
    /// announce.
    pub diverging: Vec<DivergingRecord>,
    /// Offence values the feeds serve that their mappings do not name, most rows
    /// first, at most 20 a source: rows counted and not used.
    pub unmapped: Vec<UnmappedRecord>,
    /// Why the city is degraded: its data too old, or a feed failing.
    pub lagging: Vec<String>,
}

/// A failing feed.
#[derive(Debug, Serialize)]
#[cfg_attr(test, derive(JsonSchema), schemars(inline))]
#[serde(deny_unknown_fields)]
pub(crate) struct FailingRecord {
    /// The feed.
    pub source: String,
    /// Since when.
    #[cfg_attr(test, schemars(extend("format" = "date-time")))]
    pub since: String,
    /// Its last error.
    pub error: String,
}

/// A feed whose reconciliation repaired rows.
#[derive(Debug, Serialize)]
#[cfg_attr(test, derive(JsonSchema), schemars(inline))]
#[serde(deny_unknown_fields)]
pub(crate) struct DivergingRecord {
    /// The feed.
    pub source: String,
    /// Rows its last sync repaired.
    pub last_sync_repaired: u64,
    /// Rows repaired in its recent syncs.
    pub repaired: u64,
    /// Recent syncs that repaired rows.
    pub syncs_repairing: u32,
    /// Recent syncs.
    pub syncs: u32,
}

/// An offence value no mapping names.
#[derive(Debug, Serialize)]
#[cfg_attr(test, derive(JsonSchema), schemars(inline))]
#[serde(deny_unknown_fields)]
pub(crate) struct UnmappedRecord {
    /// The feed.
    pub source: String,
    /// The value.
    pub value: String,
    /// Rows with it.
    pub rows: u64,
}

/// A refused version, or manifest.
#[derive(Debug, Serialize)]
#[cfg_attr(test, derive(JsonSchema), schemars(inline))]
#[serde(deny_unknown_fields)]
pub(crate) struct ProblemRecord {
    /// The city, or null for the manifest itself.
    pub city: Option<String>,
    /// The refused version, when known.
    pub version: Option<String>,
    /// What was wrong.
    pub reason: String,
}
