//! Scoring a corridor: the cells a line or an ordered hex path passes through, their
//! tiers, and the metrics both APIs and the npm package report.
//!
//! - **hexPath**: every cell the line crosses, in the order the line first enters
//!   them, without repeats. When a line folds back (as a street along a hexagon
//!   edge does), a cell's later visits add their metres to its first entry.
//! - **Metrics**: `distanceM` along the line; `durationS` at the [`TravelMode`]'s
//!   speed; `meanSafety` weighted by metres (cells crossed for zero metres count
//!   only when the whole line has no length); `worstSafety` over every covered
//!   cell crossed; `exposure`, the expected incidents passed at the cells' level,
//!   `Σ metres × density` with each cell's counted incidents per street metre
//!   ([`CityScores::density`]; the city's mean outside the grid or in a cell without
//!   streets); a route on the network replaces it with its streets' own
//!   ([`crate::plan`]); `outsideCoverageM`; `cellCount`;
//!   `detourPct` against the shortest route (set by the caller when it knows one).
//! - **Segments**: maximal runs of the line within one tier, in travel order.
//! - **Hex paths** are scored along the line through their cell centres, in the
//!   given order: each leg's metres are shared equally by its two cells.

use alloc::vec::Vec;

use h3o::{CellIndex, LatLng};
use serde::{Serialize, Serializer};

use crate::city::CityModel;
use crate::grid::RESOLUTION;
use crate::scoring::ColourIndex;
use crate::scoring::{CityScores, Intent, tier};

/// Longest hex path accepted for evaluation, in cells.
pub const MAX_HEX_PATH_CELLS: usize = 5000;

/// How the route is travelled, which sets the duration estimate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema), schemars(inline))]
#[serde(rename_all = "lowercase")]
pub enum TravelMode {
    /// On foot, 5 km/h.
    Walking,
    /// By bicycle, 15 km/h.
    Cycling,
    /// By car, 30 km/h: an urban average including stops.
    Driving,
}

api_names! {
    /// The text is not a travel mode.
    TravelMode, UnknownMode, "mode" {
        Walking => "walking",
        Cycling => "cycling",
        Driving => "driving",
    }
}

impl TravelMode {
    /// Assumed speed in kilometres per hour.
    #[must_use]
    pub const fn speed_kmh(self) -> f64 {
        match self {
            Self::Walking => 5.0,
            Self::Cycling => 15.0,
            Self::Driving => 30.0,
        }
    }

    /// Assumed speed in metres per second.
    #[must_use]
    pub const fn speed_m_per_s(self) -> f64 {
        self.speed_kmh() / 3.6
    }

    /// The mode an intent implies when a request names none: driving for the
    /// driving intent, walking otherwise.
    #[must_use]
    pub const fn for_intent(intent: Intent) -> Self {
        match intent {
            Intent::Driving => Self::Driving,
            _ => Self::Walking,
        }
    }
}

// serde's `serialize_with` passes a reference.
#[allow(clippy::trivially_copy_pass_by_ref)]
pub(crate) fn cell_id<S: Serializer>(cell: &CellIndex, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_str(cell)
}

/// Serialises cells as their hexadecimal ids.
pub(crate) fn cell_ids<S: Serializer>(
    cells: &[CellIndex],
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.collect_seq(cells.iter().map(alloc::string::ToString::to_string))
}

/// A corridor cell with its tier, for colouring.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
#[serde(deny_unknown_fields)]
pub struct TieredCell {
    /// The cell.
    #[serde(serialize_with = "cell_id")]
    #[cfg_attr(feature = "schema", schemars(with = "crate::operations::wire::CellId"))]
    pub h3: CellIndex,
    /// Tier 0 (safest) to 4; null outside coverage.
    #[cfg_attr(feature = "schema", schemars(range(max = 4)))]
    pub tier: Option<u8>,
    /// Safety score 0 to 100; null outside coverage.
    pub safety_score: Option<f64>,
    /// Colour band 0 to 16, -1 outside coverage.
    #[cfg_attr(
        feature = "schema",
        schemars(with = "crate::operations::wire::ColourBand")
    )]
    pub color_index: i8,
}

/// Summary figures of a line or hex path (docs/ROUTING.md).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
#[serde(deny_unknown_fields)]
pub struct Metrics {
    /// Length in metres.
    pub distance_m: f64,
    /// Estimated travel time in seconds.
    pub duration_s: f64,
    /// The travel mode of the estimate.
    pub mode: TravelMode,
    /// Metre-weighted mean safety score of covered cells; null when none is covered.
    pub mean_safety: Option<f64>,
    /// Lowest safety score crossed; null when no covered cell is crossed.
    pub worst_safety: Option<f64>,
    /// Expected incidents passed: the forecast's expected incidents (active classes, each counted at the intent's weight, over the request's week or time window) on the stretches of street walked. A route on the network counts its ways' street-level expected incidents per metre; a line is matched to the streets in pieces of at most 20 m (a piece within 15 m of a way counts that way's, any other its cell's); a hex path counts each cell's incidents per street metre.
    pub exposure: f64,
    /// Metres outside the city grid.
    pub outside_coverage_m: f64,
    /// Number of distinct cells.
    pub cell_count: usize,
    /// Extra length over the shortest route, in percent, when known.
    pub detour_pct: Option<f64>,
}

/// A run of the line within one tier.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
#[serde(deny_unknown_fields)]
pub struct Segment {
    /// Tier of the run, 0 (safest) to 4; null outside coverage.
    #[cfg_attr(feature = "schema", schemars(range(max = 4)))]
    pub tier: Option<u8>,
    /// Metres from the start of the line where the run begins.
    pub start_m: f64,
    /// Metres of the run.
    pub distance_m: f64,
    /// Metre-weighted mean safety of the run; null outside coverage.
    pub mean_safety: Option<f64>,
    /// Cells crossed in the run, counting re-entries.
    pub cells: usize,
}

/// A scored corridor.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(inline, rename = "Corridor"))]
#[serde(rename_all = "camelCase")]
#[serde(deny_unknown_fields)]
pub struct Evaluation {
    /// Cells in order of first entry, without repeats.
    #[serde(serialize_with = "cell_ids")]
    #[cfg_attr(
        feature = "schema",
        schemars(with = "Vec<crate::operations::wire::CellId>")
    )]
    pub hex_path: Vec<CellIndex>,
    /// The same cells with their tiers.
    pub hex_path_with_tiers: Vec<TieredCell>,
    /// Summary figures.
    pub metrics: Metrics,
    /// Tier runs in travel order.
    pub segments: Vec<Segment>,
}

/// A hex path that cannot be evaluated.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HexPathError {
    /// No cells.
    #[error("hexPath must contain at least one cell")]
    Empty,
    /// More cells than [`MAX_HEX_PATH_CELLS`].
    #[error("hexPath has {0} cells; the limit is {limit}", limit = MAX_HEX_PATH_CELLS)]
    TooLong(usize),
    /// A cell of another resolution.
    #[error("hexPath[{index}] has resolution {resolution}; only 8 is accepted")]
    WrongResolution {
        /// Position in the path.
        index: usize,
        /// Its resolution.
        resolution: u8,
    },
    /// A cell listed twice.
    #[error("hexPath[{index}] repeats hexPath[{first}]")]
    Repeated {
        /// Position of the repeat.
        index: usize,
        /// Position of the first listing.
        first: usize,
    },
    /// A cell that touches no cell before it.
    #[error("hexPath[{index}] does not share an edge with any earlier cell: the path has a gap")]
    Gap {
        /// Position of the first cell after the gap.
        index: usize,
    },
}

impl HexPathError {
    /// The position in the path the error is about, if any.
    #[must_use]
    pub const fn index(&self) -> Option<usize> {
        match self {
            Self::Empty | Self::TooLong(_) => None,
            Self::WrongResolution { index, .. }
            | Self::Repeated { index, .. }
            | Self::Gap { index } => Some(*index),
        }
    }
}

/// Scores the crossings of a line: `(cell, metres)` in travel order.
#[must_use]
pub fn evaluate_crossings(
    model: &CityModel,
    scores: &CityScores,
    crossings: &[(CellIndex, f64)],
    mode: TravelMode,
) -> Evaluation {
    let safety_of = |cell: CellIndex| model.position(cell).map(|p| scores.safety(p));
    let mut hex_path: Vec<CellIndex> = Vec::new();
    let mut seen = alloc::collections::BTreeSet::new();
    let (mut distance, mut exposure, mut outside) = (0.0, 0.0, 0.0);
    let (mut covered_m, mut weighted) = (0.0, 0.0);
    let (mut covered_cells, mut unweighted) = (0_usize, 0.0);
    let mut worst: Option<f64> = None;
    let mut segments: Vec<Segment> = Vec::new();
    for &(cell, metres) in crossings {
        if seen.insert(cell) {
            hex_path.push(cell);
        }
        let safety = safety_of(cell);
        exposure += metres * scores.density_or_mean(model.position(cell));
        let cell_tier = safety.map(tier);
        match safety {
            Some(s) => {
                covered_m += metres;
                weighted += metres * s;
                covered_cells += 1;
                unweighted += s;
                worst = Some(worst.map_or(s, |w: f64| w.min(s)));
            }
            None => outside += metres,
        }
        match segments.last_mut() {
            Some(run) if run.tier == cell_tier => {
                run.distance_m += metres;
                run.cells += 1;
                if let (Some(mean), Some(s)) = (run.mean_safety.as_mut(), safety) {
                    *mean += metres * s;
                }
            }
            // A corner clipped for no length does not start a run of its own.
            Some(_) if metres <= 0.0 => {}
            _ => segments.push(Segment {
                tier: cell_tier,
                start_m: distance,
                distance_m: metres,
                mean_safety: safety.map(|s| metres * s),
                cells: 1,
            }),
        }
        distance += metres;
    }
    for run in &mut segments {
        // Runs hold metre-weighted sums until here.
        run.mean_safety = run.mean_safety.map(|sum| {
            // Rounding must not lift a mean of scores above 100.
            if run.distance_m > 0.0 {
                (sum / run.distance_m).min(100.0)
            } else {
                sum
            }
        });
    }
    let mean_safety = if covered_m > 0.0 {
        Some((weighted / covered_m).min(100.0))
    } else if covered_cells > 0 {
        Some(unweighted / covered_cells as f64)
    } else {
        None
    };
    if covered_m <= 0.0 {
        // A line of no length: runs carry the cells' plain scores.
        for run in &mut segments {
            if run.distance_m <= 0.0 {
                run.mean_safety = run.tier.and(mean_safety);
            }
        }
    }
    let hex_path_with_tiers = hex_path
        .iter()
        .map(|&cell| {
            let safety = safety_of(cell);
            TieredCell {
                h3: cell,
                tier: safety.map(tier),
                safety_score: safety,
                color_index: safety
                    .map_or(ColourIndex::NO_DATA, ColourIndex::from_safety_score)
                    .get(),
            }
        })
        .collect();
    Evaluation {
        metrics: Metrics {
            distance_m: distance,
            duration_s: distance / mode.speed_m_per_s(),
            mode,
            mean_safety,
            worst_safety: worst,
            exposure,
            outside_coverage_m: outside,
            cell_count: hex_path.len(),
            detour_pct: None,
        },
        hex_path,
        hex_path_with_tiers,
        segments,
    }
}

/// Scores a polyline (at least one point).
#[must_use]
pub fn evaluate_line(
    model: &CityModel,
    scores: &CityScores,
    points: &[LatLng],
    mode: TravelMode,
) -> Evaluation {
    evaluate_measured_line(model, scores, points, &[], mode)
}

/// [`evaluate_line`] for a line whose segments' lengths are known
/// ([`cells_crossed_measured`](crate::grid::cells_crossed_measured); none given are
/// computed), with the city's kept cell boundaries.
#[must_use]
pub fn evaluate_measured_line(
    model: &CityModel,
    scores: &CityScores,
    points: &[LatLng],
    segment_m: &[f64],
    mode: TravelMode,
) -> Evaluation {
    let boundary = |cell| model.cell_boundary(cell);
    let crossings = crate::grid::cells_crossed_measured(points, segment_m, boundary, RESOLUTION);
    evaluate_crossings(model, scores, &crossings, mode)
}

/// Checks an ordered hex path: resolution 8, no repeats, no gaps.
///
/// # Errors
/// [`HexPathError`] naming the first offending position.
pub fn check_hex_path(cells: &[CellIndex]) -> Result<(), HexPathError> {
    if cells.is_empty() {
        return Err(HexPathError::Empty);
    }
    if cells.len() > MAX_HEX_PATH_CELLS {
        return Err(HexPathError::TooLong(cells.len()));
    }
    let mut seen = alloc::collections::BTreeMap::new();
    for (index, &cell) in cells.iter().enumerate() {
        if cell.resolution() != RESOLUTION {
            return Err(HexPathError::WrongResolution {
                index,
                resolution: u8::from(cell.resolution()),
            });
        }
        if let Some(&first) = seen.get(&cell) {
            return Err(HexPathError::Repeated { index, first });
        }
        // A corridor may fold back, so a cell needs a neighbour anywhere before it;
        // mostly that is the cell just before.
        let touches = index == 0
            || cells[index - 1].is_neighbor_with(cell).unwrap_or(false)
            || cell
                .grid_disk::<Vec<_>>(1)
                .iter()
                .any(|n| *n != cell && seen.contains_key(n));
        if !touches {
            return Err(HexPathError::Gap { index });
        }
        seen.insert(cell, index);
    }
    Ok(())
}

/// Scores an ordered hex path along the line through its cell centres, with
/// `detourPct` against the straight grid path between its end cells.
///
/// # Errors
/// [`HexPathError`] when the path is not valid ([`check_hex_path`]).
pub fn evaluate_hex_path(
    model: &CityModel,
    scores: &CityScores,
    cells: &[CellIndex],
    mode: TravelMode,
) -> Result<Evaluation, HexPathError> {
    check_hex_path(cells)?;
    let mut evaluation = evaluate_crossings(model, scores, &centre_line(cells), mode);
    let (first, last) = (cells[0], cells[cells.len() - 1]);
    if let Ok(straight) = first.grid_path_cells(last) {
        let straight: Vec<CellIndex> = straight.flatten().collect();
        let straight_m: f64 = centre_line(&straight).iter().map(|(_, m)| m).sum();
        if straight_m > 0.0 {
            evaluation.metrics.detour_pct =
                Some(100.0 * (evaluation.metrics.distance_m - straight_m) / straight_m);
        }
    }
    Ok(evaluation)
}

/// `(cell, metres)` along the line through the centres: each leg split in half.
fn centre_line(cells: &[CellIndex]) -> Vec<(CellIndex, f64)> {
    let mut out: Vec<(CellIndex, f64)> = cells.iter().map(|&c| (c, 0.0)).collect();
    // Each centre once: H3 computes it with trigonometry.
    let centres: Vec<LatLng> = cells.iter().map(|&c| LatLng::from(c)).collect();
    for (i, pair) in centres.windows(2).enumerate() {
        let leg = pair[0].distance_m(pair[1]);
        out[i].1 += leg / 2.0;
        out[i + 1].1 += leg / 2.0;
    }
    out
}

#[cfg(test)]
mod tests;
