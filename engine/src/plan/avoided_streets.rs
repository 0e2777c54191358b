//! The streets a route avoids: the stretches of the shortest route on ways the route
//! does not take, joined while they keep one name, most expected incidents first.

use alloc::string::String;
use alloc::vec::Vec;

use serde::Serialize;

use crate::roads::RoadGraph;
use crate::routing::{OUTSIDE_COVERAGE_RISK, Path};
use crate::scoring::StreetRisk;

/// Most avoided streets an explanation names.
pub const MAX_EXPLAINED_STREETS: usize = 5;

/// A stretch of the shortest route that the explained route does not take.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(inline))]
#[serde(rename_all = "camelCase")]
#[serde(deny_unknown_fields)]
pub struct AvoidedStreet {
    /// The street's name as the network's source spells it; null where it has none.
    pub name: Option<String>,
    /// Metres of the stretch.
    #[cfg_attr(feature = "schema", schemars(range(min = 0)))]
    pub distance_m: f64,
    /// Expected incidents passed on the stretch.
    #[cfg_attr(feature = "schema", schemars(range(min = 0)))]
    pub exposure: f64,
    /// Expected incidents per kilometre of it.
    #[cfg_attr(feature = "schema", schemars(range(min = 0)))]
    pub incidents_per_km: f64,
}

/// The stretches of `shortest` on ways `taken` says the route does not use, joined
/// while consecutive pieces share a name (or lack one), the [`MAX_EXPLAINED_STREETS`]
/// with the most expected incidents first.
#[must_use]
pub fn avoided_streets(
    graph: &RoadGraph,
    risk: &StreetRisk,
    shortest: &Path,
    taken: impl Fn(u32) -> bool,
) -> Vec<AvoidedStreet> {
    let mut streets: Vec<AvoidedStreet> = Vec::new();
    let mut joining = false;
    for piece in &shortest.pieces {
        if taken(piece.way) {
            joining = false;
            continue;
        }
        let way = piece.way as usize;
        let metres = libm::fabs(piece.to_m - piece.from_m);
        let way_risk = risk
            .risks()
            .get(way)
            .copied()
            .unwrap_or(OUTSIDE_COVERAGE_RISK);
        let exposure = risk.incidents(metres * way_risk);
        let name = graph.way_name(way);
        match streets.last_mut() {
            Some(last) if joining && last.name.as_deref() == name => {
                last.distance_m += metres;
                last.exposure += exposure;
            }
            _ => streets.push(AvoidedStreet {
                name: name.map(String::from),
                distance_m: metres,
                exposure,
                incidents_per_km: 0.0,
            }),
        }
        joining = true;
    }
    streets.retain(|s| s.distance_m > 0.0);
    for street in &mut streets {
        street.incidents_per_km = street.exposure / street.distance_m * 1000.0;
    }
    crate::sorting::sort_by(&mut streets, |a, b| b.exposure.total_cmp(&a.exposure));
    streets.truncate(MAX_EXPLAINED_STREETS);
    streets
}
