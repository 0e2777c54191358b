//! A cell's breakdown by crime class (`GET /hexes/breakdown`, and `POST /hexes/lookup`
//! with `detail`): each class's expected incidents, weight and share of the harm, and
//! the cell's scores.

use alloc::borrow::Cow;
use alloc::vec::Vec;

use serde::Serialize;

use super::options::Scoring;
use crate::city::CityModel;
use crate::scoring::{self, CityScores, ColourIndex};

/// One crime class of a cell's breakdown.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(test, derive(serde::Deserialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(rename = "CrimeTypeRow"))]
#[serde(rename_all = "camelCase")]
#[serde(deny_unknown_fields)]
pub struct CrimeTypeRow {
    /// The class code.
    #[cfg_attr(feature = "schema", schemars(with = "super::wire::ClassCode"))]
    pub code: Cow<'static, str>,
    /// The class's display name.
    pub name: Cow<'static, str>,
    /// Expected incidents of the class in the week and hours scored.
    pub expected_count: f64,
    /// Probability that the class is the week's outcome.
    pub probability: f64,
    /// The class's effective weight (0 when it is not active).
    pub weight: f64,
    /// Weighted expected harm.
    pub harm: f64,
    /// Share of the cell's harm (0 when the cell has none).
    pub share: f64,
}

/// A cell's per-class breakdown and its scores (no data: no classes, null scores and
/// `colorIndex` -1).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(test, derive(serde::Deserialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
#[serde(deny_unknown_fields)]
pub struct Breakdown {
    /// One row per class, in the API's order (none without data).
    pub crime_types: Vec<CrimeTypeRow>,
    /// 1 − safetyScore / 100; null without data.
    pub normalized_risk: Option<f64>,
    /// 0 (least safe) to 100 (safest); null without data.
    pub safety_score: Option<f64>,
    /// The colour band, -1 without data.
    #[cfg_attr(feature = "schema", schemars(with = "super::wire::ColourBand"))]
    pub color_index: i8,
    /// Whether the cell is covered.
    pub has_data: bool,
}

pub(super) fn breakdown_object(
    city: &CityModel,
    position: usize,
    scoring: &Scoring,
    scores: &CityScores,
) -> Breakdown {
    let rows = scoring::breakdown(city, position, scoring.week, &scoring.params)
        .iter()
        .map(|b| CrimeTypeRow {
            code: Cow::Borrowed(b.class.code()),
            name: Cow::Borrowed(b.class.name()),
            expected_count: b.expected_count,
            probability: b.probability,
            weight: b.weight,
            harm: b.harm,
            share: b.share,
        })
        .collect();
    let safety = scores.safety(position);
    Breakdown {
        crime_types: rows,
        normalized_risk: Some(1.0 - safety / 100.0),
        safety_score: Some(safety),
        color_index: scores.colour(position).get(),
        has_data: true,
    }
}

pub(super) fn no_data_breakdown() -> Breakdown {
    Breakdown {
        crime_types: Vec::new(),
        normalized_risk: None,
        safety_score: None,
        color_index: ColourIndex::NO_DATA.get(),
        has_data: false,
    }
}
