//! Why a route: what it avoids against the shortest route between the same points —
//! the exposure avoided, what that costs in metres and minutes, and the riskiest
//! cells the shortest route crosses and this one does not, each with the crime class
//! that weighs most in it (the streets avoided are [`super::avoided_streets`]).

use alloc::vec::Vec;

use h3o::CellIndex;
use serde::Serialize;

use crate::city::CityModel;
use crate::corridor::{Evaluation, Metrics};
use crate::forecast::{CRIME_CLASSES, CrimeClass};
use crate::scoring::ScoringParams;

/// Most avoided cells an explanation names.
pub const MAX_EXPLAINED_CELLS: usize = 5;

/// Share of the larger figure within which two routes' lengths, durations or
/// exposures count as equal. Two lines over the same streets can sum their metres
/// in another order (pieces joined at other points, ends snapped again by
/// `/evaluate`) and measure them otherwise: a route's exposure takes its ways'
/// stored lengths (`f32`), the same route's line evaluated again its segments'
/// great-circle metres, and the two differ by a few billionths. Without this, such a
/// route "avoided" a few billionths of its exposure at millions of metres per
/// incident.
pub const EQUAL_WITHIN: f64 = 1e-6;

/// `after − before`, or exactly 0 when the two are equal within [`EQUAL_WITHIN`].
#[must_use]
pub fn difference(before: f64, after: f64) -> f64 {
    let change = after - before;
    if libm::fabs(change) <= EQUAL_WITHIN * libm::fabs(before).max(libm::fabs(after)) {
        0.0
    } else {
        change
    }
}

/// The shortest route a route is compared with.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(inline))]
#[serde(rename_all = "camelCase")]
#[serde(deny_unknown_fields)]
pub struct ShortestRoute {
    /// Its length, metres.
    pub distance_m: f64,
    /// Its travel time, seconds.
    pub duration_s: f64,
    /// Expected incidents passed: the forecast's expected incidents (active classes, each counted at the intent's weight, over the request's week or time window) on the stretches of street walked. A route on the network counts its ways' street-level expected incidents per metre; a line is matched to the streets in pieces of at most 20 m (a piece within 15 m of a way counts that way's, any other its cell's); a hex path counts each cell's incidents per street metre.
    pub exposure: f64,
}

/// A cell the shortest route crosses and the explained route does not.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(inline))]
#[serde(rename_all = "camelCase")]
#[serde(deny_unknown_fields)]
pub struct AvoidedCell {
    /// The cell.
    #[serde(serialize_with = "crate::corridor::cell_id")]
    #[cfg_attr(feature = "schema", schemars(with = "crate::operations::wire::CellId"))]
    pub h3: CellIndex,
    /// Its safety score, 0 to 100.
    #[cfg_attr(feature = "schema", schemars(range(min = 0, max = 100)))]
    pub safety_score: f64,
    /// The class with the largest share of the cell's weighed expected harm, as
    /// scored; null when the cell has none.
    #[serde(serialize_with = "class_code")]
    #[cfg_attr(
        feature = "schema",
        schemars(with = "Option<crate::operations::wire::ClassCode>")
    )]
    pub driven_by: Option<CrimeClass>,
    /// That class's share of the cell's harm, 0 to 1.
    #[cfg_attr(feature = "schema", schemars(range(min = 0, max = 1)))]
    pub driven_by_share: f64,
}

// serde's `serialize_with` hands the field over by reference.
#[allow(clippy::ref_option, clippy::trivially_copy_pass_by_ref)]
fn class_code<S: serde::Serializer>(
    class: &Option<CrimeClass>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    match class {
        Some(class) => serializer.serialize_str(class.code()),
        None => serializer.serialize_none(),
    }
}

/// the route against the shortest route between the same points (docs/ROUTING.md, Why this route)
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
#[serde(deny_unknown_fields)]
pub struct Explanation {
    /// The shortest route's figures.
    pub shortest: ShortestRoute,
    /// Expected incidents avoided: the shortest route's exposure less this one's.
    pub exposure_avoided: f64,
    /// The same in percent of the shortest route's exposure; null when that is 0.
    pub exposure_avoided_pct: Option<f64>,
    /// Metres longer than the shortest route.
    pub extra_m: f64,
    /// Minutes longer at the route's travel mode.
    pub extra_minutes: f64,
    /// Extra metres paid per expected incident avoided; null when nothing is avoided.
    pub metres_per_exposure_avoided: Option<f64>,
    /// The riskiest cells of the shortest route this one avoids, riskiest first, at
    /// most 5.
    #[cfg_attr(feature = "schema", schemars(length(max = MAX_EXPLAINED_CELLS)))]
    pub avoided_cells: Vec<AvoidedCell>,
    /// The stretches of the shortest route on streets this route does not take, joined while they keep one name, most expected incidents first, at most 5. Empty for a hex path, which follows no street.
    #[cfg_attr(
        feature = "schema",
        schemars(length(max = super::avoided_streets::MAX_EXPLAINED_STREETS))
    )]
    pub avoided_streets: Vec<super::AvoidedStreet>,
}

/// Explains `route` against `shortest`, both evaluated with the same scores; the
/// class behind each avoided cell is found in `week` with `params`.
#[must_use]
pub fn explain(
    model: &CityModel,
    week: usize,
    params: &ScoringParams,
    route: &Evaluation,
    shortest: &Evaluation,
) -> Explanation {
    let (this, base): (&Metrics, &Metrics) = (&route.metrics, &shortest.metrics);
    let exposure_avoided = difference(this.exposure, base.exposure);
    let extra_m = difference(base.distance_m, this.distance_m);
    let mut on_route: Vec<CellIndex> = route.hex_path.clone();
    crate::sorting::sort(&mut on_route);
    let mut avoided: Vec<AvoidedCell> = shortest
        .hex_path_with_tiers
        .iter()
        .filter(|cell| on_route.binary_search(&cell.h3).is_err())
        .filter_map(|cell| {
            let safety_score = cell.safety_score?;
            let position = model.position(cell.h3)?;
            let (driven_by, driven_by_share) = driving_class(model, position, week, params);
            Some(AvoidedCell {
                h3: cell.h3,
                safety_score,
                driven_by,
                driven_by_share,
            })
        })
        .collect();
    crate::sorting::sort_by(&mut avoided, |a, b| {
        a.safety_score
            .total_cmp(&b.safety_score)
            .then(a.h3.cmp(&b.h3))
    });
    avoided.truncate(MAX_EXPLAINED_CELLS);
    Explanation {
        shortest: ShortestRoute {
            distance_m: base.distance_m,
            duration_s: base.duration_s,
            exposure: base.exposure,
        },
        exposure_avoided,
        exposure_avoided_pct: (base.exposure > 0.0)
            .then(|| 100.0 * exposure_avoided / base.exposure),
        extra_m,
        extra_minutes: difference(base.duration_s, this.duration_s) / 60.0,
        metres_per_exposure_avoided: (exposure_avoided > 0.0).then(|| extra_m / exposure_avoided),
        avoided_cells: avoided,
        avoided_streets: Vec::new(),
    }
}

/// The class with the largest weighed expected harm in a cell over `params`'
/// window, and its share of the cell's harm.
fn driving_class(
    model: &CityModel,
    position: usize,
    week: usize,
    params: &ScoringParams,
) -> (Option<CrimeClass>, f64) {
    let rates = model.window_rates(position, week, params.window);
    let harms: Vec<f64> = params
        .class_weights()
        .iter()
        .zip(&rates)
        .map(|(w, r)| w * r)
        .collect();
    let total: f64 = harms.iter().sum();
    let top = harms
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.total_cmp(b.1))
        .filter(|(_, harm)| **harm > 0.0 && total > 0.0);
    match top {
        Some((i, harm)) => (Some(CRIME_CLASSES[i]), harm / total),
        None => (None, 0.0),
    }
}
