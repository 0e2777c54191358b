use super::*;
use chrono::NaiveDate;
use hexrisk_engine::CrimeClass;

const BANDS: TimeBands = TimeBands {
    band_hours: 4,
    day_start_hour: 22,
};

fn calendar() -> Weeks {
    // 2021-01-04 is a Monday.
    Weeks::within(
        NaiveDate::from_ymd_opt(2021, 1, 4).unwrap(),
        NaiveDate::from_ymd_opt(2021, 12, 26).unwrap(),
    )
}

fn incident(cell: usize, class: CrimeClass, day: u64, hour: Option<u8>) -> Incident {
    Incident {
        date: NaiveDate::from_ymd_opt(2021, 1, 4).unwrap() + chrono::Days::new(day),
        class,
        lat: 0.0,
        lng: 0.0,
        cell,
        hour,
        hour_weight: if hour.is_some() { 1.0 } else { 0.0 },
        street: None,
        reported: None,
    }
}

/// Cell 0: 300 thefts, all on Wednesday afternoons; cell 1: 300 thefts spread
/// over the hours; cell 2: none. Cells 0 and 1 are neighbours, 2 is alone.
fn sample() -> (Vec<Incident>, Vec<Vec<usize>>) {
    let mut incidents = Vec::new();
    for i in 0..300_u64 {
        incidents.push(incident(
            0,
            CrimeClass::TheftBurglary,
            2 + 7 * (i % 50),
            Some(15),
        ));
        incidents.push(incident(
            1,
            CrimeClass::TheftBurglary,
            i % 350,
            Some(u8::try_from(i % 24).unwrap()),
        ));
    }
    (incidents, vec![vec![1], vec![0], vec![]])
}

/// Profiles fitted with the same shrinkage towards the neighbourhood and the city.
fn fit(counts: &BandCounts, neighbours: &[Vec<usize>], strength: f64) -> Profiles {
    let shrinkage = Shrinkage {
        hood: strength,
        cell: strength,
    };
    Profiles::fit(counts, neighbours, shrinkage)
}

#[test]
fn busy_cells_learn_their_own_hours_and_empty_ones_take_the_city() {
    let (incidents, neighbours) = sample();
    let counts = BandCounts::of(&incidents, &calendar(), 0..52, BANDS, 3);
    let fitted = fit(&counts, &neighbours, 20.0);
    let theft = 0;
    let wednesday_afternoon = BANDS.index(Band {
        kind: hexrisk_engine::forecast::DayKind::Weekday,
        position: 4,
    });
    for cell in 0..3 {
        let shares = fitted.of(cell, theft);
        assert!((shares.iter().sum::<f64>() - 1.0).abs() < 1e-9);
    }
    // Cell 0 puts most of its week where its incidents were; its neighbour, with
    // the same neighbourhood but incidents at every hour, much less.
    assert!(fitted.of(0, theft)[wednesday_afternoon] > 0.5);
    assert!(fitted.of(1, theft)[wednesday_afternoon] < 0.3);
    // Cell 2 has no incident and no neighbour: the city's profile.
    let city = &fitted.city[..BANDS.count()];
    assert!(
        fitted
            .of(2, theft)
            .iter()
            .zip(city)
            .all(|(a, b)| (a - b).abs() < 1e-12)
    );
    // Too few incidents of the other classes: the city's all-class profile.
    assert_eq!(fitted.basis[0], ProfileBasis::Cells);
    assert!(fitted.basis[1..].iter().all(|&b| b == ProfileBasis::City));
    // More shrinkage pulls cell 0 towards the city.
    let shrunk = fit(&counts, &neighbours, 5000.0);
    assert!(shrunk.of(0, theft)[wednesday_afternoon] < fitted.of(0, theft)[wednesday_afternoon]);
}

#[test]
fn without_hours_every_profile_is_flat_and_scores_one_in_168() {
    let (incidents, neighbours) = sample();
    let no_hours: Vec<Incident> = incidents
        .iter()
        .map(|i| Incident {
            hour: None,
            hour_weight: 0.0,
            ..*i
        })
        .collect();
    let counts = BandCounts::of(&no_hours, &calendar(), 0..52, BANDS, 3);
    let fitted = fit(&counts, &neighbours, 20.0);
    assert_eq!(fitted.basis, [ProfileBasis::Flat; CLASSES]);
    assert_eq!(fitted, fitted.flat());
    // The flat profile gives every hour of the week 1/168.
    let score = fitted.hour_log_score(&incidents, &calendar(), 0..52);
    assert!((score - (1.0_f64 / 168.0).ln()).abs() < 1e-12);
    // Learnt profiles score better on the hours they learnt from.
    let counts = BandCounts::of(&incidents, &calendar(), 0..52, BANDS, 3);
    let learnt = fit(&counts, &neighbours, 20.0);
    assert!(learnt.hour_log_score(&incidents, &calendar(), 0..52) > score);
}

#[test]
fn a_sunday_evening_incident_belongs_to_the_next_weeks_first_band() {
    // Day 6 is Sunday 2021-01-10; at 23:00 its band day is Monday 2021-01-11,
    // the first day of week 1. At 21:00 it is still Sunday's, in week 0.
    let late = incident(0, CrimeClass::TheftBurglary, 6, Some(23));
    let early = incident(0, CrimeClass::TheftBurglary, 6, Some(21));
    let total = |weeks: Range<usize>, incidents: &[Incident]| -> f64 {
        BandCounts::of(incidents, &calendar(), weeks, BANDS, 1)
            .counts
            .iter()
            .sum()
    };
    assert_eq!(total(0..1, &[late]), 0.0);
    assert_eq!(total(1..2, &[late]), 1.0);
    assert_eq!(total(0..1, &[early]), 1.0);
    assert_eq!(total(1..2, &[early]), 0.0);
    // The layouts' validation scores it in its band day's week too.
    let flat = fit(
        &BandCounts::of(&[], &calendar(), 0..1, BANDS, 1),
        &[vec![]],
        20.0,
    );
    assert_eq!(flat.hour_log_score(&[late], &calendar(), 0..1), 0.0);
    assert!(flat.hour_log_score(&[late], &calendar(), 1..2) < 0.0);
}
