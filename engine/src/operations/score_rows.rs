//! The router API's list answers, serialised straight from the scored columns: a
//! 5,000-cell `POST /hexes/score` or a ring-41 `POST /hexes/lookup` builds no JSON
//! value (an insertion-ordered map) per cell.

use alloc::vec::Vec;

use serde::ser::{Serialize, SerializeSeq, SerializeStruct, Serializer};
use serde_json::Value;

use super::columns::ScoredCells;
use crate::CellIndex;
use crate::grid::RESOLUTION;

/// Rows `{h3, safetyScore, colorIndex}` of scored cells, in order, each with its
/// `breakdown` when one was asked for; no data is `null` and `-1`.
#[derive(Debug, Clone, PartialEq)]
pub struct ScoreRows {
    scored: ScoredCells,
    /// One breakdown object per cell (`POST /hexes/lookup` with `detail`).
    breakdowns: Option<Vec<Value>>,
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
    pub(super) fn with_breakdowns(scored: ScoredCells, breakdowns: Vec<Value>) -> Self {
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
    breakdown: Option<&'a Value>,
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

/// A cell as its id text, written without an intermediate string.
#[derive(Debug, Clone, Copy, PartialEq)]
struct CellText(CellIndex);

impl Serialize for CellText {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(&self.0)
    }
}

/// The `POST /hexes/lookup` answer: the centre cell, the ring and its rows.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct RingLookup {
    status: &'static str,
    center: CellText,
    ring: u32,
    resolution: u8,
    count: usize,
    cells: ScoreRows,
}

impl RingLookup {
    /// The answer for the disk of `ring` around `center`.
    pub(super) fn new(center: CellIndex, ring: u32, cells: ScoreRows) -> Self {
        Self {
            status: "success",
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
