//! Scoring the forecasts a deployment served: each week's artifact, as published
//! then, against the incidents of the week it served, as known now. The live loop
//! (`tests/support/feed-loop.mjs`) keeps each week's artifact; set beside the same
//! weeks of the offline backtest (the past weeks of a later artifact), the two say
//! whether the loop forecasts as well as the backtest claims, and what late reports
//! cost.
//!
//! An incident counts in the cell of the artifact's resolution that holds it, and
//! outside the cells scored not at all, as the backtest counts incidents outside its
//! grid. A grid derived from incidents grows as they come in, so two artifacts are
//! compared on the cells they share ([`Cells::Shared`]).

use std::collections::BTreeSet;

use chrono::NaiveDate;
use h3o::CellIndex;
use hexrisk_engine::city::{CityModel, DateOutOfRange, week_start};

use super::backtest::Scoreboard;
use super::counts::{CLASSES, class_slot};
use crate::inputs::cleaning::Incident;

/// Which of an artifact's cells are scored.
#[derive(Debug, Clone, Copy)]
pub enum Cells<'a> {
    /// Every cell of the artifact.
    All,
    /// Only these (the cells two artifacts share).
    Shared(&'a BTreeSet<CellIndex>),
}

/// The cells of `model`.
#[must_use]
pub fn cells_of(model: &CityModel) -> BTreeSet<CellIndex> {
    (0..model.cell_count())
        .filter_map(|p| model.cell(p))
        .collect()
}

/// Adds the forecast `model` gives for the week starting `monday` over `scored`
/// cells to `board`, scored against `incidents` of that week.
///
/// # Errors
/// [`DateOutOfRange`] when the artifact has no forecast for the week.
pub fn score_week(
    model: &CityModel,
    (monday, scored): (NaiveDate, Cells<'_>),
    incidents: &[Incident],
    board: &mut Scoreboard,
) -> Result<(), DateOutOfRange> {
    let week = model.week_index(monday)?;
    let positions: Vec<usize> = (0..model.cell_count())
        .filter(|&p| match scored {
            Cells::All => true,
            Cells::Shared(set) => model.cell(p).is_some_and(|c| set.contains(&c)),
        })
        .collect();
    let Some(resolution) = model.cell(0).map(CellIndex::resolution) else {
        return Ok(());
    };
    // Slot of each scored position; the others are not scored.
    let mut slot = vec![None; model.cell_count()];
    for (i, &p) in positions.iter().enumerate() {
        slot[p] = Some(i);
    }
    let mut observed = vec![[0_u16; CLASSES]; positions.len()];
    for incident in incidents.iter().filter(|i| week_start(i.date) == monday) {
        let Ok(point) = h3o::LatLng::new(incident.lat, incident.lng) else {
            continue;
        };
        if let Some(i) = model
            .position(point.to_cell(resolution))
            .and_then(|position| slot[position])
        {
            let count = &mut observed[i][class_slot(incident.class)];
            *count = count.saturating_add(1);
        }
    }
    let forecasts: Vec<_> = positions
        .iter()
        .map(|&position| {
            let forecast = model.forecast(position, week);
            (forecast.rates, forecast.probabilities)
        })
        .collect();
    board.add_week(&forecasts, &model.dispersion(week), &observed);
    Ok(())
}

#[cfg(test)]
mod tests;
