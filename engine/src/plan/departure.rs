//! Routes scored at the time they are walked: with a departure time, each cell is
//! scored in the time-of-day band in which a traveller leaving then reaches it, at
//! the travel mode's speed along the shortest way from the origin. The route search
//! and its evaluation then use those scores as they use one band's.
//!
//! The reach time comes from the shortest way, not from each candidate route: a
//! safer route is a few percent longer, so its cells are reached minutes later than
//! assumed, which matters only for a cell right at a band's edge.

use alloc::vec::Vec;

use h3o::LatLng;

use super::RouteError;
use crate::city::CityModel;
use crate::corridor::TravelMode;
use crate::forecast::{Band, TimeWindow};
use crate::scoring::{CityScores, ScoringParams};

/// Hours in a week.
pub const HOURS_PER_WEEK: f64 = 168.0;

/// When a route starts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Departure {
    /// Forecast week index.
    pub week: usize,
    /// Local hours since Monday 00:00 of that week (fractions are minutes), below 168.
    pub hour_of_week: f64,
}

/// One time-of-day band a route's cells are scored in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BandOnTheWay {
    /// Forecast week index.
    pub week: usize,
    /// The band.
    pub band: Band,
}

/// Every cell's scores at the time a traveller reaches it.
#[derive(Debug, Clone, PartialEq)]
pub struct ScoresOnTheWay {
    /// The scores, cell by cell from the band of its reach time.
    pub scores: CityScores,
    /// The bands used, the departure's first, then in order of first reach.
    pub bands: Vec<BandOnTheWay>,
}

/// The band in which a traveller leaving at `departure` is `hours_later` hours later.
/// Beyond the last forecast week the departure's week stands in.
fn band_after(model: &CityModel, departure: Departure, hours_later: f64) -> BandOnTheWay {
    let hours = departure.hour_of_week + hours_later.max(0.0);
    let weeks_on = libm::floor(hours / HOURS_PER_WEEK);
    let hour_of_week = (hours - weeks_on * HOURS_PER_WEEK).clamp(0.0, HOURS_PER_WEEK - 1.0);
    let week = departure.week + weeks_on as usize;
    BandOnTheWay {
        week: if week < model.week_count() {
            week
        } else {
            departure.week
        },
        band: model
            .artifact()
            .profiles
            .bands
            .at_hour_of_week(hour_of_week as u32),
    }
}

/// Scores every cell of `model` in the band in which a traveller leaving `origin` at
/// `departure` reaches it on the network a route with `snap_to_roads` uses, at
/// `mode`'s speed. Cells the network does not reach take the departure's band.
///
/// # Errors
/// [`RouteError::OriginTooFar`] and [`RouteError::NoNetwork`], as for the route.
pub fn scores_on_the_way(
    model: &CityModel,
    params: &ScoringParams,
    departure: Departure,
    origin: LatLng,
    mode: TravelMode,
    snap_to_roads: bool,
) -> Result<ScoresOnTheWay, RouteError> {
    let network = if snap_to_roads {
        model.road_network().ok_or(RouteError::NoNetwork)?
    } else {
        model.grid_network()
    };
    let from = network
        .index
        .snap(network.graph, origin)
        .map_err(RouteError::OriginTooFar)?;
    let distances = network
        .index
        .cell_distances_m(network.graph, &from, model.cell_count());
    let seconds_per_m = 1.0 / mode.speed_m_per_s();
    let mut bands = alloc::vec![band_after(model, departure, 0.0)];
    let mut nearest_m = alloc::vec![0.0];
    let mut part_of: Vec<usize> = distances
        .iter()
        .map(|&m| {
            if !m.is_finite() {
                return 0;
            }
            let band = band_after(model, departure, m * seconds_per_m / 3600.0);
            if let Some(k) = bands.iter().position(|b| *b == band) {
                nearest_m[k] = f64::min(nearest_m[k], m);
                return k;
            }
            bands.push(band);
            nearest_m.push(m);
            bands.len() - 1
        })
        .collect();
    // List the bands in the order the traveller reaches them.
    let mut order: Vec<usize> = (0..bands.len()).collect();
    crate::sorting::sort_by(&mut order, |&a, &b| {
        nearest_m[a].total_cmp(&nearest_m[b]).then(a.cmp(&b))
    });
    let mut rank = alloc::vec![0; bands.len()];
    for (r, &k) in order.iter().enumerate() {
        rank[k] = r;
    }
    for k in &mut part_of {
        *k = rank[*k];
    }
    let bands: Vec<BandOnTheWay> = order.iter().map(|&k| bands[k]).collect();
    let parts: Vec<CityScores> = bands
        .iter()
        .map(|b| {
            let params = ScoringParams {
                window: TimeWindow::Band(b.band),
                ..*params
            };
            CityScores::compute(model, b.week, &params)
        })
        .collect();
    Ok(ScoresOnTheWay {
        scores: CityScores::mixed(&parts, &part_of),
        bands,
    })
}

#[cfg(test)]
mod tests;
