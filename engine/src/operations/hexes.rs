//! The router API's hex operations: configuration, scores of listed cells, ring
//! lookups, breakdowns and viewport lists, as JSON rows or as columns.

use alloc::borrow::ToOwned;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::breakdown::{Breakdown, breakdown_object, no_data_breakdown};
use super::columns::{ScoreCache, ScoreMemo, ScoredCells, locate};
use super::json::{param, parse};
use super::options::{Modifiers, Scoring, ScoringQuery, TimeModifier, window_label};
use super::score_rows::{RingLookup, ScoreRows};
use super::wire::{CellText, PerClass, PerIntent};
use super::{ErrorCode, QueryError, Success, array, coordinate_error, malformed, missing};
use crate::city::{Atlas, CityModel};
use crate::forecast::CRIME_CLASSES;
use crate::grid::{self, MAX_RING_DISTANCE, RESOLUTION};
use crate::scoring::{CityScores, ColourIndex, Intent, PALETTE, ScoringParams};
use crate::{CellIndex, RingError};

/// Header with the number of hexes in a list answer (HTTP only; the value is the
/// list's length).
pub const HEX_COUNT_HEADER: &str = "x-hex-count";

/// Most cell ids in one `POST /hexes/score`.
pub const MAX_SCORE_IDS: usize = 5000;

/// Largest side of a `GET /hexes/all` box, in degrees.
pub const MAX_BOX_SIDE_DEG: f64 = 2.0;

fn cell_error(index: usize, err: &RingError) -> QueryError {
    let mut api = QueryError::new(
        ErrorCode::InvalidRequest,
        "",
        format!("hexIds[{index}]: {err}"),
    )
    .on("hexIds")
    .at(index);
    if let RingError::WrongResolution(r) = err {
        api = api.with("resolution", *r);
    }
    api
}

/// The answer of `GET /hexes/config`: the palette and resolution of every hex answer.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct HexConfig {
    /// Always `success`.
    pub status: Success,
    /// The palette, the resolution and how cells without data are shown.
    pub data: HexConfigData,
}

/// The palette and resolution of `GET /hexes/config`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(inline))]
#[serde(rename_all = "camelCase")]
#[serde(deny_unknown_fields)]
pub struct HexConfigData {
    /// The 17 colours of `colorIndex` 0 (red, least safe) to 16 (green, safest).
    #[cfg_attr(feature = "schema", schemars(inner(pattern(r"^#[0-9a-f]{6}$"))))]
    pub colors: [&'static str; PALETTE.len()],
    /// The H3 resolution of every cell answered.
    #[cfg_attr(feature = "schema", schemars(schema_with = "resolution_schema"))]
    pub resolution: u8,
    /// How a cell without data is shown.
    pub no_data: NoData,
    /// How to label the colours.
    pub legend: &'static str,
}

/// A cell without data in `GET /hexes/config`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(inline))]
#[serde(rename_all = "camelCase")]
#[serde(deny_unknown_fields)]
pub struct NoData {
    /// The `colorIndex` of a cell without data: -1.
    #[cfg_attr(feature = "schema", schemars(schema_with = "no_data_schema"))]
    pub color_index: i8,
    /// Its label: `N/A`.
    pub label: &'static str,
}

/// The schema of the resolution every answer has: the constant 8.
#[cfg(feature = "schema")]
pub(super) fn resolution_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({ "const": u8::from(RESOLUTION) })
}

/// The schema of the colour index of no data: the constant -1.
#[cfg(feature = "schema")]
fn no_data_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({ "const": ColourIndex::NO_DATA.get() })
}

/// `GET /hexes/config`.
#[must_use]
pub fn hexes_config() -> HexConfig {
    HexConfig {
        status: Success,
        data: HexConfigData {
            colors: PALETTE,
            resolution: u8::from(RESOLUTION),
            no_data: NoData {
                color_index: ColourIndex::NO_DATA.get(),
                label: "N/A",
            },
            legend: "labels 1 to 17 for colorIndex 0 to 16 (red, least safe, to green, safest); -1 is N/A",
        },
    }
}

// Read by hand (`hexes_score`), for errors that name the index of a bad id; the
// tests hold the two together.
/// The body of `POST /hexes/score`: the cells and the scoring options.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct HexesScoreRequest {
    /// Resolution-8 cell ids, answered in this order.
    #[cfg_attr(feature = "schema", schemars(length(max = MAX_SCORE_IDS)))]
    pub hex_ids: Vec<String>,
    /// The scoring options.
    #[serde(flatten)]
    pub scoring: ScoringQuery,
}

/// `POST /hexes/score`: rows in the order of `hexIds`.
///
/// # Errors
/// `INVALID_REQUEST` for a missing or oversize `hexIds`, a malformed id or one of
/// another resolution (with its index), or bad scoring options.
pub fn hexes_score(
    atlas: &Atlas,
    body: &Map<String, Value>,
    now: i64,
) -> Result<ScoreRows, QueryError> {
    let ids = array(body, "hexIds")?;
    if ids.len() > MAX_SCORE_IDS {
        return Err(QueryError::new(
            ErrorCode::InvalidRequest,
            "",
            format!("hexIds has {} ids; the limit is {MAX_SCORE_IDS}", ids.len()),
        )
        .on("hexIds")
        .with("limit", MAX_SCORE_IDS)
        .with("count", ids.len()));
    }
    let scoring: ScoringQuery = parse(body)?;
    scoring.params()?;
    let cells = ids
        .iter()
        .enumerate()
        .map(|(index, id)| {
            let text = id
                .as_str()
                .ok_or_else(|| cell_error(index, &RingError::InvalidCell))?;
            grid::parse_cell(text).map_err(|e| cell_error(index, &e))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let scored = ScoredCells::score(atlas, cells, &scoring, now, &mut ScoreMemo::new())?;
    Ok(ScoreRows::new(scored))
}

/// Scores cells given as 64-bit H3 indexes, in order (the npm package's
/// `cellScores`); `options` holds the scoring options of `POST /hexes/score`.
/// There is no count limit: the caller holds the ids in memory already. City
/// scores are reused from and kept in `memo`.
///
/// # Errors
/// `INVALID_REQUEST` on `cells` with the index of a value that is not a cell or
/// not of resolution 8; bad scoring options.
pub fn cell_scores(
    atlas: &Atlas,
    ids: &[u64],
    options: &Map<String, Value>,
    now: i64,
    memo: &mut ScoreMemo,
) -> Result<ScoredCells, QueryError> {
    let scoring: ScoringQuery = parse(options)?;
    scoring.params()?;
    let cells = ids
        .iter()
        .enumerate()
        .map(|(index, &raw)| {
            let error = |err: &RingError| {
                QueryError::invalid("cells", format!("cells[{index}]: {err}")).at(index)
            };
            let cell = CellIndex::try_from(raw).map_err(|_| error(&RingError::InvalidCell))?;
            if cell.resolution() == RESOLUTION {
                Ok(cell)
            } else {
                Err(error(&RingError::WrongResolution(u8::from(
                    cell.resolution(),
                ))))
            }
        })
        .collect::<Result<Vec<_>, _>>()?;
    ScoredCells::score(atlas, cells, &scoring, now, memo)
}

/// What a city's answer was scored with.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(rename = "Modifiers"))]
#[serde(rename_all = "camelCase")]
#[serde(deny_unknown_fields)]
pub struct ModifiersAnswer {
    /// The intent.
    pub intent: &'static str,
    /// Monday of the forecast week.
    #[cfg_attr(feature = "schema", schemars(with = "super::wire::Date"))]
    pub week_of: String,
    /// The classes counted.
    #[cfg_attr(feature = "schema", schemars(with = "Vec<super::wire::ClassCode>"))]
    pub active_codes: Vec<&'static str>,
    /// The multiplier on each class's weight.
    pub class_weights: PerClass,
    /// the hours scored: week, nights (intent night) or a band such as "weekend 22:00-00:00" (local time)
    pub time_window: String,
}

pub(super) fn modifiers(scoring: &Scoring, city: &CityModel) -> ModifiersAnswer {
    ModifiersAnswer {
        intent: scoring.params.intent.name(),
        week_of: city.week_monday(scoring.week).to_string(),
        active_codes: CRIME_CLASSES
            .iter()
            .zip(scoring.params.active)
            .filter(|(_, on)| *on)
            .map(|(c, _)| c.code())
            .collect(),
        class_weights: PerClass(scoring.params.overrides),
        time_window: window_label(city, scoring.params.window),
    }
}

// Read by hand (`lookup_request`), for errors that name each field; the tests hold
// the two together.
/// The body of `POST /hexes/lookup`: a point, the ring around its cell and the scoring
/// options.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct HexesLookupRequest {
    /// Latitude of the point, degrees.
    pub lat: f64,
    /// Longitude of the point, degrees.
    pub lng: f64,
    /// The cells within this many steps of the point's cell (default 0: its cell).
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(range(min = 0, max = MAX_RING_DISTANCE), transform = super::wire::no_default))]
    pub ring: Option<u32>,
    /// Each cell's breakdown too (default false).
    pub detail: Option<bool>,
    /// The H3 resolution: only 8 is served.
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(schema_with = "resolution_schema", transform = super::wire::no_default))]
    pub resolution: Option<u8>,
    /// The scoring options.
    #[serde(flatten)]
    pub scoring: ScoringQuery,
}

/// A `POST /hexes/lookup` body checked: the centre cell, the ring, `detail` and the
/// scoring options.
struct CheckedLookup {
    centre: CellIndex,
    ring: u32,
    detail: bool,
    scoring: ScoringQuery,
}

fn lookup_request(body: &Map<String, Value>) -> Result<CheckedLookup, QueryError> {
    let number = |field: &str| -> Result<f64, QueryError> {
        match body.get(field) {
            None => Err(missing(field)),
            Some(Value::Number(n)) => n.as_f64().ok_or_else(|| malformed(field, "a number")),
            Some(_) => Err(QueryError::new(
                ErrorCode::InvalidCoordinates,
                "",
                format!("{field} must be a number"),
            )
            .on(field)),
        }
    };
    let (lat, lng) = (number("lat")?, number("lng")?);
    let integer = |field: &str, default: i64| -> Result<i64, QueryError> {
        match body.get(field) {
            None | Some(Value::Null) => Ok(default),
            Some(v) => v.as_i64().ok_or_else(|| malformed(field, "an integer")),
        }
    };
    let ring = integer("ring", 0)?;
    if !(0..=i64::from(MAX_RING_DISTANCE)).contains(&ring) {
        return Err(QueryError::new(
            ErrorCode::InvalidRequest,
            "",
            format!("ring must be between 0 and {MAX_RING_DISTANCE}, got {ring}"),
        )
        .on("ring")
        .with("valid_range", json!([0, MAX_RING_DISTANCE])));
    }
    let resolution = integer("resolution", 8)?;
    if resolution != 8 {
        return Err(QueryError::new(
            ErrorCode::InvalidRequest,
            "",
            format!("only resolution 8 is served, got {resolution}"),
        )
        .on("resolution"));
    }
    let detail = match body.get("detail") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(_) => return Err(malformed("detail", "a boolean")),
    };
    let centre = grid::cell_at(lat, lng).map_err(|e| {
        let (field, value) = match e.field() {
            grid::CoordinateField::Latitude => ("lat", lat),
            grid::CoordinateField::Longitude => ("lng", lng),
        };
        coordinate_error(&e, field, value)
    })?;
    Ok(CheckedLookup {
        centre,
        ring: ring as u32,
        detail,
        scoring: parse(body)?,
    })
}

/// The cells of a `POST /hexes/lookup` body's ring with their scores, in columns
/// (the npm package's `ringScores`); `detail` is read and ignored. City scores are
/// reused from and kept in `memo`.
///
/// # Errors
/// As [`hexes_lookup`].
pub fn ring_scores(
    atlas: &Atlas,
    body: &Map<String, Value>,
    now: i64,
    memo: &mut ScoreMemo,
) -> Result<ScoredCells, QueryError> {
    let request = lookup_request(body)?;
    ScoredCells::ring(
        atlas,
        request.centre,
        request.ring,
        &request.scoring,
        now,
        memo,
    )
}

/// `POST /hexes/lookup`.
///
/// # Errors
/// `INVALID_REQUEST` for a ring outside 0..=41, a resolution other than 8, wrong
/// types; `INVALID_COORDINATES` for a bad point.
pub fn hexes_lookup(
    atlas: &Atlas,
    body: &Map<String, Value>,
    now: i64,
) -> Result<RingLookup, QueryError> {
    let CheckedLookup {
        centre,
        ring,
        detail,
        scoring,
    } = lookup_request(body)?;
    // One memo for the scores and the breakdowns: each city is scored once.
    let mut memo = ScoreMemo::new();
    let disk = ScoredCells::ring(atlas, centre, ring, &scoring, now, &mut memo)?;
    let cells = if detail {
        let mut cache = ScoreCache::with_memo(&scoring, now, &mut memo)?;
        let breakdowns = disk
            .cells
            .iter()
            .map(|&cell| match locate(atlas, cell) {
                Some((index, city, position)) => {
                    let (scoring, scores) = cache.get(atlas, index)?;
                    Ok(breakdown_object(city, position, scoring, scores))
                }
                None => Ok(no_data_breakdown()),
            })
            .collect::<Result<Vec<_>, QueryError>>()?;
        ScoreRows::with_breakdowns(disk, breakdowns)
    } else {
        ScoreRows::new(disk)
    };
    Ok(RingLookup::new(centre, ring, cells))
}

// Read by hand (`scoring_from_params`): the package passes `activeCodes` as an array
// and may pass a `modifiers` object as in POST bodies; the tests hold the two together.
/// The scoring options of a GET request's query string (`/hexes/breakdown`,
/// `/hexes/all`, `/streets`, the tiles, the precincts).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ScoringParamsQuery {
    /// The intent (default overall).
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(with = "crate::scoring::Intent", transform = super::wire::no_default))]
    pub intent: Option<String>,
    /// comma-separated class codes
    pub active_codes: Option<String>,
    /// A date in the forecast week (default the current week, or the nearest with
    /// forecasts).
    #[cfg_attr(feature = "schema", schemars(with = "Option<super::wire::Date>"))]
    pub week: Option<String>,
    /// an ISO 8601 time, or an hour of the week 0-167 (Monday 00:00 local = 0): score that time band (see modifiers.time)
    pub time: Option<String>,
}

/// Scoring options of a GET request: `intent`, `activeCodes` (comma-separated text or
/// an array) and `week`; a `modifiers` object is read as in POST bodies.
pub(super) fn scoring_from_params(params: &Map<String, Value>) -> Result<ScoringQuery, QueryError> {
    let active_codes = match params.get("activeCodes") {
        None | Some(Value::Null) => None,
        Some(Value::String(codes)) => Some(codes.split(',').map(|c| c.trim().to_owned()).collect()),
        Some(Value::Array(items)) => Some(
            items
                .iter()
                .map(|c| {
                    c.as_str()
                        .map(str::to_owned)
                        .ok_or_else(|| malformed("activeCodes", "class codes"))
                })
                .collect::<Result<Vec<_>, _>>()?,
        ),
        Some(_) => return Err(malformed("activeCodes", "class codes")),
    };
    let mut modifiers: Modifiers = match params.get("modifiers") {
        None | Some(Value::Null) => Modifiers::default(),
        Some(value) => serde_json::from_value(value.clone())
            .map_err(|e| QueryError::invalid("modifiers", e.to_string()))?,
    };
    if let Some(week) = param(params, "week") {
        modifiers.week = Some(week.to_owned());
    }
    // `time=` is an hour of the week when it is a number, else an ISO 8601 time.
    if let Some(time) = param(params, "time") {
        modifiers.time = Some(match time.trim().parse::<i64>() {
            Ok(hour) => TimeModifier::HourOfWeek(hour),
            Err(_) => TimeModifier::At(time.to_owned()),
        });
    }
    Ok(ScoringQuery {
        intent: param(params, "intent").map(str::to_owned),
        active_codes,
        toggles: None,
        modifiers: Some(modifiers),
    })
}

/// The query of `GET /hexes/breakdown`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct BreakdownQuery {
    /// The cell, an H3 id of resolution 8.
    pub h3: String,
    /// The scoring options.
    #[serde(flatten)]
    pub scoring: ScoringParamsQuery,
}

/// The answer of `GET /hexes/breakdown`: one cell's per-class breakdown, with the city
/// and what it was scored with when the cell is covered.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
#[serde(deny_unknown_fields)]
pub struct CellBreakdown {
    /// Always `success`.
    pub status: Success,
    /// The cell.
    pub h3: CellText,
    /// The city holding the cell; absent when no city covers it.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schemars(with = "String"))]
    pub city: Option<String>,
    /// The breakdown.
    #[serde(flatten)]
    pub breakdown: Breakdown,
    /// What the cell was scored with; absent when no city covers it.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schemars(with = "ModifiersAnswer"))]
    pub modifiers: Option<ModifiersAnswer>,
}

/// `GET /hexes/breakdown?h3=…&intent=…`.
///
/// # Errors
/// `INVALID_REQUEST` for a missing or malformed `h3`, or bad scoring options.
pub fn hexes_breakdown(
    atlas: &Atlas,
    params: &Map<String, Value>,
    now: i64,
) -> Result<CellBreakdown, QueryError> {
    let text = param(params, "h3").ok_or_else(|| missing("h3"))?;
    let cell = grid::parse_cell(text)
        .map_err(|e| QueryError::new(ErrorCode::InvalidRequest, "", format!("h3: {e}")).on("h3"))?;
    let scoring = scoring_from_params(params)?;
    scoring.params()?;
    // `status` and the cell first, then the breakdown in the specification's order.
    Ok(match locate(atlas, cell) {
        Some((index, city, position)) => {
            let mut cache = ScoreCache::new(&scoring, now)?;
            let (resolved, scores) = cache.get(atlas, index)?;
            CellBreakdown {
                status: Success,
                h3: CellText(cell),
                city: Some(city.artifact().city.code.clone()),
                breakdown: breakdown_object(city, position, resolved, scores),
                modifiers: Some(modifiers(resolved, city)),
            }
        }
        None => CellBreakdown {
            status: Success,
            h3: CellText(cell),
            city: None,
            breakdown: no_data_breakdown(),
            modifiers: None,
        },
    })
}

pub(super) fn box_side(
    params: &Map<String, Value>,
    name: &str,
    range: f64,
) -> Result<f64, QueryError> {
    // Query strings give text; the npm package's callers give numbers.
    let text = match params.get(name) {
        Some(Value::Number(n)) => n.to_string(),
        Some(Value::String(text)) => text.clone(),
        None | Some(Value::Null) => return Err(missing(name)),
        Some(other) => other.to_string(),
    };
    let value: f64 = text
        .parse()
        .ok()
        .filter(|v: &f64| v.is_finite() && v.abs() <= range)
        .ok_or_else(|| {
            QueryError::new(
                ErrorCode::InvalidCoordinates,
                "",
                format!("{name} must be a number between -{range} and {range}"),
            )
            .on(name)
            .with("value", text)
        })?;
    Ok(value)
}

/// The box of a `GET /hexes/all` request, checked: every side a coordinate, west
/// below east, south below north, no side over [`MAX_BOX_SIDE_DEG`].
/// The box of `west`, `south`, `east`, `north`, each side at most `max_side`
/// degrees.
pub(super) fn viewport(params: &Map<String, Value>, max_side: f64) -> Result<[f64; 4], QueryError> {
    let west = box_side(params, "west", 180.0)?;
    let east = box_side(params, "east", 180.0)?;
    let south = box_side(params, "south", 90.0)?;
    let north = box_side(params, "north", 90.0)?;
    if west >= east || south >= north {
        return Err(QueryError::new(
            ErrorCode::InvalidRequest,
            "",
            "the box must have west < east and south < north",
        )
        .on("west,south,east,north"));
    }
    if east - west > max_side || north - south > max_side {
        return Err(QueryError::new(
            ErrorCode::InvalidRequest,
            "",
            format!("each side of the box must be at most {max_side} degrees"),
        )
        .on("west,south,east,north")
        .with("limit_degrees", max_side)
        .with("width_degrees", east - west)
        .with("height_degrees", north - south));
    }
    Ok([west, south, east, north])
}

/// The covered cells in a `GET /hexes/all` box with their scores, in columns (the
/// npm package's `boxScores`). City scores are reused from and kept in `memo`.
///
/// # Errors
/// As [`hexes_all`].
pub fn box_scores(
    atlas: &Atlas,
    params: &Map<String, Value>,
    now: i64,
    memo: &mut ScoreMemo,
) -> Result<ScoredCells, QueryError> {
    let viewport = viewport(params, MAX_BOX_SIDE_DEG)?;
    let scoring = scoring_from_params(params)?;
    ScoredCells::in_box(atlas, viewport, &scoring, now, memo)
}

/// How a list answer is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(inline))]
#[serde(rename_all = "lowercase")]
pub enum ListFormat {
    /// The list as JSON rows (the default).
    Json,
    /// An RFC 7946 GeoJSON FeatureCollection.
    Geojson,
}

/// The query of `GET /hexes/all`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct HexesAllQuery {
    /// The box's west side, degrees.
    #[cfg_attr(feature = "schema", schemars(range(min = -180, max = 180)))]
    pub west: f64,
    /// The box's south side, degrees.
    #[cfg_attr(feature = "schema", schemars(range(min = -90, max = 90)))]
    pub south: f64,
    /// The box's east side, degrees.
    #[cfg_attr(feature = "schema", schemars(range(min = -180, max = 180)))]
    pub east: f64,
    /// The box's north side, degrees.
    #[cfg_attr(feature = "schema", schemars(range(min = -90, max = 90)))]
    pub north: f64,
    /// json (default) or geojson: a Polygon per cell (properties h3, colorIndex, crimeRates, safetyScores). Accept: application/geo+json asks for geojson too; a format in the query wins.
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(with = "ListFormat", transform = super::wire::no_default))]
    pub format: Option<ListFormat>,
    /// The scoring options.
    #[serde(flatten)]
    pub scoring: ScoringParamsQuery,
}

/// A covered cell of `GET /hexes/all`, in short members for large boxes.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct SlimHex {
    /// The cell.
    pub h: CellText,
    /// Latitude of its centre.
    pub la: f64,
    /// Longitude of its centre.
    pub ln: f64,
    /// Its colour band for the request's options.
    #[cfg_attr(feature = "schema", schemars(with = "super::wire::ColourBand"))]
    pub ci: i8,
    /// Expected incidents of each class in the week and hours scored.
    pub cr: PerClass,
    /// Its safety score under each intent.
    pub ss: PerIntent,
}

/// `GET /hexes/all?west=…&south=…&east=…&north=…`: slim objects for every covered
/// cell whose centre lies in the box, and the count (for `X-Hex-Count`).
///
/// # Errors
/// `INVALID_COORDINATES` for a bad side; `INVALID_REQUEST` for an inverted box or a
/// side longer than 2 degrees.
pub fn hexes_all(
    atlas: &Atlas,
    params: &Map<String, Value>,
    now: i64,
) -> Result<(Vec<SlimHex>, usize), QueryError> {
    let [west, south, east, north] = viewport(params, MAX_BOX_SIDE_DEG)?;
    let scoring = scoring_from_params(params)?;
    scoring.params()?;
    let mut items = Vec::new();
    for city in atlas.cities() {
        let b = &city.artifact().bounds;
        if b.east < west || b.west > east || b.north < south || b.south > north {
            continue;
        }
        let resolved = scoring.resolve(city, now)?;
        let requested = CityScores::compute(city, resolved.week, &resolved.params);
        let by_intent: Vec<CityScores> = Intent::ALL
            .iter()
            .map(|&intent| {
                let params = ScoringParams {
                    intent,
                    ..resolved.params
                };
                CityScores::compute(city, resolved.week, &params)
            })
            .collect();
        for position in 0..city.cell_count() {
            let Some(cell) = city.cell(position) else {
                continue;
            };
            let (la, ln) = grid::cell_centre(cell);
            if !(west..=east).contains(&ln) || !(south..=north).contains(&la) {
                continue;
            }
            let mut ss = [0.0; 4];
            for (safety, scores) in ss.iter_mut().zip(&by_intent) {
                *safety = scores.safety(position);
            }
            items.push(SlimHex {
                h: CellText(cell),
                la,
                ln,
                ci: requested.colour(position).get(),
                cr: PerClass(city.window_rates(position, resolved.week, resolved.params.window)),
                ss: PerIntent(ss),
            });
        }
    }
    let count = items.len();
    Ok((items, count))
}

#[cfg(test)]
mod tests;
