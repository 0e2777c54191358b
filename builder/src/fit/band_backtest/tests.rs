use super::*;
use chrono::NaiveDate;
use hexrisk_engine::CrimeClass;
use hexrisk_engine::forecast::{Band, ProfileBasis};

const BANDS: TimeBands = TimeBands {
    band_hours: 6,
    day_start_hour: 22,
};

/// Two cells, both with a week's theft rate of 1; every observed theft is on a
/// Wednesday between 10:00 and 16:00. One profile knows it, the other is flat.
#[test]
fn a_profile_that_knows_the_hours_scores_better_than_flat() {
    let calendar = Weeks::within(
        NaiveDate::from_ymd_opt(2021, 1, 4).unwrap(),
        NaiveDate::from_ymd_opt(2021, 1, 31).unwrap(),
    );
    let cells = 2;
    let wednesday_day = BANDS.index(Band {
        kind: DayKind::Weekday,
        position: 2,
    });
    let mut shares = Vec::new();
    for _ in 0..cells {
        for class in 0..CLASSES {
            shares.extend((0..BANDS.count()).map(|b| {
                if class == 0 {
                    // Most of the week's thefts in the weekday 10:00-16:00 band.
                    if b == wednesday_day {
                        0.9
                    } else {
                        0.1 / (BANDS.count() - 1) as f64
                    }
                } else {
                    BANDS.flat_share(BANDS.band(b))
                }
            }));
        }
    }
    let flat: Vec<f64> = (0..BANDS.count())
        .map(|b| BANDS.flat_share(BANDS.band(b)))
        .collect();
    let learnt = Profiles {
        bands: BANDS,
        shares,
        city: (0..CLASSES).flat_map(|_| flat.clone()).collect(),
        basis: [ProfileBasis::Cells; CLASSES],
    };
    let row = |week: usize, cell: usize| BacktestRow {
        week: calendar.start_of(week),
        cell: hexrisk_engine::grid::cell_at(43.65, -79.38 + 0.01 * cell as f64).unwrap(),
        rates: [1.0, 0.0, 0.0, 0.0, 0.0],
        probabilities: [0.0; 6],
        dispersion: [5.0; 5],
        level: 1.0,
        counts: [0; CLASSES],
        baselines: [0.0; 4],
        baseline_rates: [[0.0; 5]; 2],
    };
    let rows: Vec<BacktestRow> = (2..4)
        .flat_map(|w| (0..cells).map(move |c| row(w, c)))
        .collect();
    let theft = |cell: usize, week: u64| Incident {
        // Wednesday 13:00 of the week.
        date: calendar.start_of(0) + chrono::Days::new(7 * week + 2),
        class: CrimeClass::TheftBurglary,
        lat: 0.0,
        lng: 0.0,
        cell,
        hour: Some(13),
        hour_weight: 1.0,
        street: None,
        reported: None,
    };
    let incidents = [theft(0, 2), theft(1, 3), theft(0, 1)];
    let scored = run(&rows, 2, &incidents, &calendar, &learnt);
    assert_eq!(scored.outcomes, (2 * cells * 7 * BANDS.per_day()) as u64);
    assert!(scored.profiles.log_loss < scored.flat.log_loss);
    // Only the two thefts of the backtest weeks are observed, in their bands.
    assert_eq!(scored.observed.len(), 2);
    assert!(
        scored
            .observed
            .iter()
            .all(|o| o.position == 2 && o.counts[0] == 1)
    );
    assert_eq!(
        scored.observed[0].day,
        NaiveDate::from_ymd_opt(2021, 1, 20).unwrap()
    );
}
