//! The router API's list answers, serialised straight from the scored columns: a
//! 5,000-cell `POST /hexes/score` or a ring-41 `POST /hexes/lookup` builds no JSON
//! value (an insertion-ordered map) per cell.

use alloc::vec::Vec;

use serde::ser::{Serialize, SerializeSeq, SerializeStruct, Serializer};

use super::Success;
use super::breakdown::Breakdown;
use super::columns::ScoredCells;
use super::wire::CellText;
use crate::CellIndex;
use crate::grid::RESOLUTION;

/// Rows `{h3, safetyScore, colorIndex}` of scored cells, in order, each with its
/// `breakdown` when one was asked for; no data is `null` and `-1`.
///
/// Written by hand, straight from the columns; the rows it writes are those of
/// [`HexScoreRow`] and [`LookupCell`], which describe them in the OpenAPI document
/// (the tests hold the writer to them).
#[derive(Debug, Clone, PartialEq)]
pub struct ScoreRows {
    scored: ScoredCells,
    /// One breakdown per cell (`POST /hexes/lookup` with `detail`).
    breakdowns: Option<Vec<Breakdown>>,
}

impl ScoreRows {
    /// The rows of `scored`.
    #[must_use]
    pub const fn new(scored: ScoredCells) -> Self {
        Self {
            scored,
            breakdowns: None,
        }
    }

    /// The rows of `scored` with one breakdown object per cell, in the same order.
    #[must_use]
    pub(super) fn with_breakdowns(scored: ScoredCells, breakdowns: Vec<Breakdown>) -> Self {
        debug_assert_eq!(scored.cells.len(), breakdowns.len());
        Self {
            scored,
            breakdowns: Some(breakdowns),
        }
    }

    /// The number of rows.
    #[must_use]
    pub fn len(&self) -> usize {
        self.scored.cells.len()
    }

    /// Whether there is no row.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.scored.cells.is_empty()
    }
}

impl Serialize for ScoreRows {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let scored = &self.scored;
        let mut rows = serializer.serialize_seq(Some(self.len()))?;
        for (i, &cell) in scored.cells.iter().enumerate() {
            rows.serialize_element(&Row {
                cell,
                safety: scored.safety_scores[i],
                colour: scored.color_indexes[i],
                breakdown: self.breakdowns.as_ref().map(|b| &b[i]),
            })?;
        }
        rows.end()
    }
}

/// One row, serialised as an object (a struct, so that the npm package's serialiser
/// makes a plain JavaScript object of it too).
struct Row<'a> {
    cell: CellIndex,
    safety: f64,
    colour: i8,
    breakdown: Option<&'a Breakdown>,
}

impl Serialize for Row<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let fields = if self.breakdown.is_some() { 4 } else { 3 };
        let mut row = serializer.serialize_struct("Row", fields)?;
        row.serialize_field("h3", &CellText(self.cell))?;
        row.serialize_field(
            "safetyScore",
            &(!self.safety.is_nan()).then_some(self.safety),
        )?;
        row.serialize_field("colorIndex", &self.colour)?;
        if let Some(breakdown) = self.breakdown {
            row.serialize_field("breakdown", breakdown)?;
        }
        row.end()
    }
}

/// A row of `POST /hexes/score`: a cell and its score.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[cfg_attr(test, derive(serde::Deserialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
#[serde(deny_unknown_fields)]
pub struct HexScoreRow {
    /// The cell, as asked.
    #[cfg_attr(feature = "schema", schemars(with = "super::wire::CellId"))]
    pub h3: alloc::string::String,
    /// 0 (least safe) to 100 (safest) among the city's cells; null without data.
    #[cfg_attr(feature = "schema", schemars(range(min = 0, max = 100)))]
    pub safety_score: Option<f64>,
    /// The colour band of the score, -1 without data.
    #[cfg_attr(feature = "schema", schemars(with = "super::wire::ColourBand"))]
    pub color_index: i8,
}

/// A cell of `POST /hexes/lookup`: a score row, with the cell's breakdown when
/// `detail` was asked for.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[cfg_attr(test, derive(serde::Deserialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
#[serde(deny_unknown_fields)]
pub struct LookupCell {
    /// The cell.
    #[cfg_attr(feature = "schema", schemars(with = "super::wire::CellId"))]
    pub h3: alloc::string::String,
    /// 0 (least safe) to 100 (safest) among the city's cells; null without data.
    pub safety_score: Option<f64>,
    /// The colour band of the score, -1 without data.
    #[cfg_attr(feature = "schema", schemars(with = "super::wire::ColourBand"))]
    pub color_index: i8,
    /// The cell's per-class breakdown, with `detail` only.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schemars(with = "Breakdown"))]
    pub breakdown: Option<Breakdown>,
}

/// The answer of `POST /hexes/lookup`: the centre cell, the ring and its cells.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(rename = "Lookup"))]
#[serde(deny_unknown_fields)]
pub struct RingLookup {
    /// Always `success`.
    status: Success,
    /// The cell holding the point.
    center: CellText,
    /// The ring asked for.
    #[cfg_attr(
        feature = "schema",
        schemars(range(min = 0, max = crate::grid::MAX_RING_DISTANCE))
    )]
    ring: u32,
    /// The H3 resolution of the cells: 8.
    #[cfg_attr(
        feature = "schema",
        schemars(schema_with = "super::hexes::resolution_schema")
    )]
    resolution: u8,
    /// The number of cells.
    count: usize,
    /// The centre first, then ring by ring (H3 gridDisk order).
    #[cfg_attr(feature = "schema", schemars(with = "Vec<LookupCell>"))]
    cells: ScoreRows,
}

impl RingLookup {
    /// The answer for the disk of `ring` around `center`.
    pub(super) fn new(center: CellIndex, ring: u32, cells: ScoreRows) -> Self {
        Self {
            status: Success,
            center: CellText(center),
            ring,
            resolution: u8::from(RESOLUTION),
            count: cells.len(),
            cells,
        }
    }

    /// The number of cells listed.
    #[must_use]
    pub const fn count(&self) -> usize {
        self.count
    }
}

#[cfg(test)]
mod tests;
