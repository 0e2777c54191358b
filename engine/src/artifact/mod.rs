//! The per-city artifact: a versioned, checksummed, compressed binary file.
//!
//! Layout (all integers little-endian):
//!
//! | bytes | field |
//! |---|---|
//! | 0..4 | magic `HXRK` |
//! | 4..6 | format version ([`FORMAT_VERSION`]) |
//! | 6..8 | reserved, zero |
//! | 8..12 | body length in bytes |
//! | 12..16 | CRC-32 (IEEE) of the body |
//! | 16.. | body: zlib stream (with its own Adler-32) of the postcard encoding of [`CityArtifact`] |
//!
//! Decoding checks each layer in turn, bounds the decompressed size, and validates
//! the decoded tables against each other, so a truncated, corrupted or foreign file
//! is an [`ArtifactError`], never a panic.

use alloc::string::String;
use alloc::vec::Vec;

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

use crate::grid::MicroDegrees;

mod checksum;
#[cfg(any(test, feature = "test-fixtures"))]
pub mod fixture;
mod manifest;

pub use checksum::crc32;
pub use manifest::{
    DivergingFeed, FailingFeed, Freshness, GridFile, MAX_UNMAPPED_LISTED, Manifest, ManifestCity,
    ManifestError, UnmappedOffence, VERSION_HASH_DIGITS, cell_bounds,
};

/// The file magic.
pub const MAGIC: [u8; 4] = *b"HXRK";

/// The format version this engine reads and writes.
pub const FORMAT_VERSION: u16 = 7;

/// Header length in bytes.
pub const HEADER_LEN: usize = 16;

/// Largest decompressed body accepted (guards against decompression bombs).
pub const MAX_BODY_DECOMPRESSED: usize = 64 << 20;

/// Number of crime classes with rates (all but `NO_CRIME`).
pub const RATE_CLASSES: usize = 5;

/// Why an artifact cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ArtifactError {
    /// Shorter than its header or than the body length it declares.
    #[error("artifact is truncated: {0} bytes")]
    Truncated(usize),
    /// Longer than the header says.
    #[error("artifact has {0} bytes after its body")]
    TrailingBytes(usize),
    /// Not a hexrisk artifact.
    #[error("not a hexrisk artifact (bad magic)")]
    BadMagic,
    /// Written by another format version.
    #[error("artifact format version {found} is not supported (this engine reads {expected})")]
    WrongVersion {
        /// Version in the file.
        found: u16,
        /// Version this engine reads.
        expected: u16,
    },
    /// The body does not match its checksum.
    #[error("artifact checksum mismatch: the file is corrupted")]
    ChecksumMismatch,
    /// The compressed stream is invalid or too large.
    #[error("artifact body cannot be decompressed")]
    Decompress,
    /// The decompressed body is not a valid encoding.
    #[error("artifact body cannot be decoded")]
    Decode,
    /// The decoded tables contradict each other.
    #[error("artifact is inconsistent: {0}")]
    Inconsistent(&'static str),
    /// The artifact could not be serialised (writing, not reading).
    #[error("artifact cannot be encoded")]
    Encode,
}

/// Identity of a city.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CityInfo {
    /// City code, `city_<country>_<abbreviation>`.
    pub code: String,
    /// Display name.
    pub name: String,
    /// Country name.
    pub country: String,
    /// IANA time zone.
    pub timezone: String,
}

/// The model behind the forecasts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelInfo {
    /// Version label.
    pub version: String,
    /// Backtest mean absolute error of weekly counts per cell.
    pub mae: f64,
    /// Last data date.
    pub last_updated: NaiveDate,
    /// A caveat about the data (for example a sample), if any.
    pub note: Option<String>,
}

/// The weeks the artifact holds forecasts for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ForecastCalendar {
    /// Monday of the first forecast week (the first backtest week).
    pub first_week: NaiveDate,
    /// Number of forecast weeks.
    pub weeks: u32,
    /// How many of them have observed data (the backtest weeks); the rest are true forecasts.
    pub observed_weeks: u32,
}

/// A precinct with its outline.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PrecinctRecord {
    /// Id, for example `D11`.
    pub id: String,
    /// Display name.
    pub name: String,
    /// Polygons; each is rings (outer first).
    pub polygons: Vec<Vec<Vec<MicroDegrees>>>,
}

/// Bounding box in degrees.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Bounds {
    /// Northern edge.
    pub north: f64,
    /// Southern edge.
    pub south: f64,
    /// Eastern edge.
    pub east: f64,
    /// Western edge.
    pub west: f64,
}

/// Everything one city file holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CityArtifact {
    /// The city.
    pub city: CityInfo,
    /// The model.
    pub model: ModelInfo,
    /// Forecast weeks.
    pub calendar: ForecastCalendar,
    /// Grid bounds.
    pub bounds: Bounds,
    /// H3 resolution-8 cells, ascending.
    pub cells: Vec<u64>,
    /// Per cell, index into `precincts`, or `u16::MAX` for none.
    pub precinct_of: Vec<u16>,
    /// Precincts.
    pub precincts: Vec<PrecinctRecord>,
    /// Quantised expected counts, `[week][cell][class]` (see [`quantise_rate`]).
    pub rates: Vec<u16>,
    /// Negative binomial size of each class's counts, per forecast week.
    pub dispersion: Vec<[f64; RATE_CLASSES]>,
    /// The city's UTC offset over the forecast weeks and a margin around them:
    /// `(utc_seconds, offset_seconds)` pairs, each offset in force from its instant
    /// until the next, ascending. Lets the engine find local dates without a time zone
    /// database.
    pub utc_offsets: Vec<(i64, i32)>,
    /// How each cell's weekly expected counts spread over the bands of the week.
    pub profiles: crate::forecast::TimeProfiles,
    /// The city's road graph for routing, if built.
    pub road_graph: Option<crate::roads::RoadGraph>,
    /// How each cell's expected incidents spread over the ways of `road_graph`,
    /// where the build learnt street shares (a road network with incident history);
    /// stored, not yet used by routing.
    pub street_shares: Option<crate::roads::StreetShares>,
    /// The city's place index for search by name, if built (with a road graph, its
    /// street names are entries; see [`crate::places::index`]).
    pub places: Option<crate::places::PlaceIndex>,
}

/// Quantises an expected count to 16 bits on a log scale: 0 stands for 0 (and
/// anything below `e^-12`), otherwise `λ = exp((q - 1) / 1024 - 12)`, a relative
/// step of 0.1% up to about `e^52`.
#[must_use]
pub fn quantise_rate(rate: f64) -> u16 {
    if rate.is_nan() || rate < libm::exp(-12.0) {
        return 0;
    }
    let q = libm::round((libm::log(rate) + 12.0) * 1024.0) + 1.0;
    q.clamp(1.0, f64::from(u16::MAX)) as u16
}

/// The expected count a quantised value stands for.
#[must_use]
pub fn dequantise_rate(q: u16) -> f64 {
    if q == 0 {
        0.0
    } else {
        libm::exp(f64::from(q - 1) / 1024.0 - 12.0)
    }
}

/// Encodes an artifact (deterministic: the same artifact gives the same bytes).
///
/// # Errors
/// [`ArtifactError::Encode`] if serialisation fails, which it does not for valid
/// data; `Inconsistent` for a body over 4 GiB.
pub fn encode(artifact: &CityArtifact) -> Result<Vec<u8>, ArtifactError> {
    let plain = postcard::to_allocvec(artifact).map_err(|_| ArtifactError::Encode)?;
    let body = miniz_oxide::deflate::compress_to_vec_zlib(&plain, 9);
    let mut out = Vec::with_capacity(HEADER_LEN + body.len());
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&[0, 0]);
    let length =
        u32::try_from(body.len()).map_err(|_| ArtifactError::Inconsistent("body over 4 GiB"))?;
    out.extend_from_slice(&length.to_le_bytes());
    out.extend_from_slice(&crc32(&body).to_le_bytes());
    out.extend_from_slice(&body);
    Ok(out)
}

fn le_u32(bytes: &[u8]) -> u32 {
    u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]])
}

/// Decodes and validates an artifact: [`checked_body`], [`inflate`], then
/// [`decode_inflated`].
///
/// # Errors
/// [`ArtifactError`] describing the first check that fails.
pub fn decode(bytes: &[u8]) -> Result<CityArtifact, ArtifactError> {
    decode_inflated(&inflate(checked_body(bytes)?)?)
}

/// The zlib body of an artifact, once its magic, format version, length and CRC-32
/// have been checked. A runtime with its own zlib (the Worker's
/// `DecompressionStream`) inflates it there and hands the result to
/// [`decode_inflated`]; [`inflate`] does it here.
///
/// # Errors
/// [`ArtifactError`] describing the first header check that fails.
pub fn checked_body(bytes: &[u8]) -> Result<&[u8], ArtifactError> {
    if bytes.len() < HEADER_LEN {
        return Err(ArtifactError::Truncated(bytes.len()));
    }
    if bytes[..4] != MAGIC {
        return Err(ArtifactError::BadMagic);
    }
    let version = u16::from_le_bytes([bytes[4], bytes[5]]);
    if version != FORMAT_VERSION {
        return Err(ArtifactError::WrongVersion {
            found: version,
            expected: FORMAT_VERSION,
        });
    }
    let length = le_u32(&bytes[8..12]) as usize;
    let available = bytes.len() - HEADER_LEN;
    if available < length {
        return Err(ArtifactError::Truncated(bytes.len()));
    }
    if available > length {
        return Err(ArtifactError::TrailingBytes(available - length));
    }
    let body = &bytes[HEADER_LEN..];
    if crc32(body) != le_u32(&bytes[12..16]) {
        return Err(ArtifactError::ChecksumMismatch);
    }
    Ok(body)
}

/// Inflates a [`checked_body`] (zlib, its Adler-32 checked), refusing more than
/// [`MAX_BODY_DECOMPRESSED`] bytes.
///
/// # Errors
/// [`ArtifactError::Decompress`] for an invalid or oversized stream.
pub fn inflate(body: &[u8]) -> Result<Vec<u8>, ArtifactError> {
    miniz_oxide::inflate::decompress_to_vec_zlib_with_limit(body, MAX_BODY_DECOMPRESSED)
        .map_err(|_| ArtifactError::Decompress)
}

/// Decodes and validates an inflated body.
///
/// # Errors
/// [`ArtifactError::Decode`] or [`ArtifactError::Inconsistent`].
pub fn decode_inflated(plain: &[u8]) -> Result<CityArtifact, ArtifactError> {
    if plain.len() > MAX_BODY_DECOMPRESSED {
        return Err(ArtifactError::Decompress);
    }
    let artifact: CityArtifact = postcard::from_bytes(plain).map_err(|_| ArtifactError::Decode)?;
    validate(&artifact)?;
    Ok(artifact)
}

/// Checks that an artifact's tables agree with each other (cell order and
/// resolution, table lengths, calendar, precinct and graph indexes), as [`decode`]
/// does before handing an artifact out.
///
/// # Errors
/// [`ArtifactError::Inconsistent`] naming the first check that fails.
pub fn validate(artifact: &CityArtifact) -> Result<(), ArtifactError> {
    use ArtifactError::Inconsistent;
    let cells = artifact.cells.len();
    if cells == 0 {
        return Err(Inconsistent("no cells"));
    }
    if !artifact.cells.windows(2).all(|w| w[0] < w[1]) {
        return Err(Inconsistent("cells are not strictly ascending"));
    }
    let resolution_8 = artifact.cells.iter().all(|&raw| {
        h3o::CellIndex::try_from(raw).is_ok_and(|cell| cell.resolution() == crate::grid::RESOLUTION)
    });
    if !resolution_8 {
        return Err(Inconsistent("a cell is not a valid resolution-8 index"));
    }
    if artifact.precinct_of.len() != cells {
        return Err(Inconsistent(
            "precinct table length differs from the cell count",
        ));
    }
    let precincts = artifact.precincts.len();
    if artifact
        .precinct_of
        .iter()
        .any(|&p| p != u16::MAX && usize::from(p) >= precincts)
    {
        return Err(Inconsistent("a cell names a missing precinct"));
    }
    let calendar = artifact.calendar;
    if calendar.weeks == 0 || calendar.observed_weeks > calendar.weeks {
        return Err(Inconsistent("bad forecast calendar"));
    }
    // Every forecast week, and the Sunday ending the last, must be a representable date.
    if calendar
        .first_week
        .checked_add_days(chrono::Days::new(7 * u64::from(calendar.weeks)))
        .is_none()
    {
        return Err(Inconsistent(
            "forecast calendar runs past the last representable date",
        ));
    }
    let expected = (calendar.weeks as usize)
        .checked_mul(cells)
        .and_then(|n| n.checked_mul(RATE_CLASSES));
    if expected != Some(artifact.rates.len()) {
        return Err(Inconsistent(
            "rate table size differs from weeks x cells x classes",
        ));
    }
    if artifact.dispersion.len() != calendar.weeks as usize {
        return Err(Inconsistent(
            "dispersion table length differs from the week count",
        ));
    }
    if !artifact.profiles.fits(cells) {
        return Err(Inconsistent(
            "time-of-day profiles do not fit the cells, or a share table does not sum to 1",
        ));
    }
    // Local time needs an offset for every instant: a non-empty table, ascending,
    // offsets within the ±18 hours a time zone can have.
    if artifact.utc_offsets.is_empty()
        || !artifact.utc_offsets.windows(2).all(|w| w[0].0 < w[1].0)
        || artifact
            .utc_offsets
            .iter()
            .any(|&(_, offset)| offset.unsigned_abs() > MAX_UTC_OFFSET_SECONDS)
    {
        return Err(Inconsistent("bad UTC offset table"));
    }
    let b = artifact.bounds;
    let bounds_ok = [b.north, b.south, b.east, b.west]
        .iter()
        .all(|v| v.is_finite())
        && (-90.0..=90.0).contains(&b.south)
        && (b.south..=90.0).contains(&b.north)
        && (-180.0..=180.0).contains(&b.west)
        && (b.west..=180.0).contains(&b.east);
    if !bounds_ok {
        return Err(Inconsistent("bad bounds"));
    }
    let near = |point: &MicroDegrees| near_bounds(b, *point);
    if let Some(graph) = &artifact.road_graph {
        graph.validate(cells).map_err(|e| Inconsistent(e.0))?;
        // Segments are walked cell by cell: a point far outside the city would make
        // one segment cross millions of cells (found by the fuzzer as a 19 s request).
        if !graph.nodes.iter().chain(&graph.way_points).all(near) {
            return Err(Inconsistent("a road graph point lies far outside the city"));
        }
    }
    match (&artifact.street_shares, &artifact.road_graph) {
        (None, _) => {}
        (Some(shares), Some(graph)) => shares
            .validate(graph, cells)
            .map_err(|e| Inconsistent(e.0))?,
        (Some(_), None) => return Err(Inconsistent("street shares without a road graph")),
    }
    validate_places(artifact)
}

/// Whether a point lies within [`GRAPH_MARGIN_DEG`] of the bounds.
fn near_bounds(b: Bounds, point: MicroDegrees) -> bool {
    let (lng, lat) = (point.lng(), point.lat());
    (b.west - GRAPH_MARGIN_DEG..=b.east + GRAPH_MARGIN_DEG).contains(&lng)
        && (b.south - GRAPH_MARGIN_DEG..=b.north + GRAPH_MARGIN_DEG).contains(&lat)
}

/// The place index against the graph's names and the city's bounds.
fn validate_places(artifact: &CityArtifact) -> Result<(), ArtifactError> {
    let Some(places) = &artifact.places else {
        return Ok(());
    };
    let names = artifact.road_graph.as_ref().map_or(0, |g| g.names.len());
    places
        .validate(names)
        .map_err(|e| ArtifactError::Inconsistent(e.0))?;
    if places
        .places
        .iter()
        .all(|p| near_bounds(artifact.bounds, p.point))
    {
        Ok(())
    } else {
        Err(ArtifactError::Inconsistent(
            "a place lies far outside the city",
        ))
    }
}

/// How far (degrees) road graph points may lie beyond the city's bounds.
const GRAPH_MARGIN_DEG: f64 = 0.5;

/// Largest UTC offset of a time zone, 18 hours (ISO 8601), in seconds.
const MAX_UTC_OFFSET_SECONDS: u32 = 18 * 3600;

#[cfg(test)]
mod tests;
