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
mod tests {
    use hexrisk_engine::artifact::fixture::CityFixture;
    use hexrisk_engine::forecast::CRIME_CLASSES;

    use super::*;

    fn incident(date: &str, class: usize, (lat, lng): (f64, f64)) -> Incident {
        Incident {
            date: date.parse().unwrap(),
            class: CRIME_CLASSES[class],
            lat,
            lng,
            cell: 0,
            hour: None,
            hour_weight: 0.0,
            street: None,
            reported: None,
        }
    }

    #[test]
    fn a_served_week_is_scored_against_its_own_incidents_in_the_artifacts_cells() {
        let model = CityModel::from_artifact(CityFixture::default().build());
        let centre = |p: usize| {
            let point = h3o::LatLng::from(model.cell(p).unwrap());
            (point.lat(), point.lng())
        };
        let monday: NaiveDate = "2021-12-27".parse().unwrap();
        let incidents = [
            incident("2021-12-27", 0, centre(0)),
            incident("2022-01-02", 0, centre(0)),
            incident("2021-12-29", 2, centre(1)),
            // Another week, and a place outside the grid: neither counts.
            incident("2022-01-03", 1, centre(2)),
            incident("2021-12-28", 1, (43.9, -79.0)),
        ];
        let mut board = Scoreboard::default();
        score_week(&model, (monday, Cells::All), &incidents, &mut board).unwrap();

        let week = 1;
        let mut observed = vec![[0_u16; CLASSES]; model.cell_count()];
        observed[0][0] = 2;
        observed[1][2] = 1;
        let forecasts: Vec<_> = (0..model.cell_count())
            .map(|p| model.forecast(p, week))
            .map(|f| (f.rates, f.probabilities))
            .collect();
        let mut expected = Scoreboard::default();
        expected.add_week(&forecasts, &model.dispersion(week), &observed);
        assert_eq!(board, expected);

        // Only the cells shared with another artifact: here the first two.
        let shared: BTreeSet<CellIndex> = (0..2).filter_map(|p| model.cell(p)).collect();
        let mut board = Scoreboard::default();
        score_week(
            &model,
            (monday, Cells::Shared(&shared)),
            &incidents,
            &mut board,
        )
        .unwrap();
        let mut expected = Scoreboard::default();
        expected.add_week(&forecasts[..2], &model.dispersion(week), &observed[..2]);
        assert_eq!(board, expected);
    }

    #[test]
    fn a_week_the_artifact_does_not_forecast_is_refused() {
        let model = CityModel::from_artifact(CityFixture::default().build());
        let mut board = Scoreboard::default();
        let late = "2022-01-10".parse().unwrap();
        assert!(score_week(&model, (late, Cells::All), &[], &mut board).is_err());
        assert_eq!(board, Scoreboard::default());
    }
}
