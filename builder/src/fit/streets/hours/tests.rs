//! The street hour profiles on the hand-made network (`fixture.rs`), against
//! brute-force references: every band placed and every count summed by hand, and
//! every way × band day × band outcome of every backtest week enumerated with its
//! full Poisson log-probability.

use chrono::{Datelike, NaiveDate, Weekday};
use hexrisk_engine::CrimeClass;
use hexrisk_engine::forecast::CRIME_CLASSES;

use super::*;
use crate::fit::streets::backtest::{self as street_backtest, StreetInputs};
use crate::fit::streets::fixture::{self, POINTS, WAY_CELL, WAYS};
use crate::fit::streets::network::StreetNetwork;

/// Four bands of 6 h per band day from 22:00: 8 bands in the table.
const BANDS: TimeBands = TimeBands {
    band_hours: 6,
    day_start_hour: 22,
};
const WEEKS: usize = 40;
const START: usize = 20;
const REFIT: usize = 13;
const SHRINKAGE: Shrinkage = Shrinkage {
    hood: 20.0,
    cell: 20.0,
};

fn weeks() -> Weeks {
    // 2020-01-06 is a Monday.
    Weeks {
        first: NaiveDate::from_ymd_opt(2020, 1, 6).unwrap(),
        count: WEEKS,
    }
}

/// The grid cell of a point: its first way's cell, cell 0 off the network.
fn cell_of(point: usize) -> usize {
    let (lat, lng) = POINTS[point];
    fixture::brute_force_attribution(lat, lng)
        .first()
        .and_then(|&(way, _)| WAY_CELL[way])
        .unwrap_or(0)
}

/// Incidents a week: enough for every class to learn its own profile.
const PER_WEEK: usize = 150;

/// Incidents over the points: a third on the 30 m stub (the last point), all at
/// night; the others' hours by class (thefts by day, assaults in the evening...);
/// some without an hour, some at a down-weighted default hour; violence on the
/// street in some.
fn incidents() -> Vec<Incident> {
    (0..WEEKS * PER_WEEK)
        .map(|i| {
            let stub = i % 3 == 0;
            let point = if stub {
                POINTS.len() - 1
            } else {
                (i * 7 + i / 5) % POINTS.len()
            };
            let class = i % CRIME_CLASSES.len();
            let hour = if stub {
                [23, 1, 2][i / 3 % 3]
            } else {
                ([8, 18, 12, 20, 4][class] + i * 5 % 8) % 24
            };
            let hour = (i % 11 != 4).then_some(hour as u8);
            let (lat, lng) = POINTS[point];
            Incident {
                date: weeks().start_of(i / PER_WEEK) + chrono::Days::new((i * 3 % 7) as u64),
                class: CRIME_CLASSES[class],
                lat,
                lng,
                cell: cell_of(point),
                hour,
                hour_weight: match hour {
                    None => 0.0,
                    Some(_) if i % 7 == 0 => 0.5,
                    Some(_) => 1.0,
                },
                street: Some(i % 2 == 0),
                reported: None,
            }
        })
        .collect()
}

/// Every backtest week's forecasts of the two cells, growing week by week.
fn rows() -> Vec<BacktestRow> {
    let cell = hexrisk_engine::grid::cell_at(43.7, -79.4).unwrap();
    (START..WEEKS)
        .flat_map(|t| {
            (0..2).map(move |c| BacktestRow {
                week: weeks().start_of(t),
                cell,
                rates: core::array::from_fn(|i| (1 + i + c * 3) as f64 * 0.05 + t as f64 * 0.01),
                probabilities: [0.0; 6],
                dispersion: [1.0; 5],
                level: 1.0,
                counts: [0; 5],
                baselines: [0.0; 4],
                baseline_rates: [[0.0; 5]; 2],
            })
        })
        .collect()
}

fn neighbours() -> Vec<Vec<usize>> {
    vec![vec![1], vec![0]]
}

/// The band day and table index of a date and hour, by hand: from 22:00 the band
/// day is the next date; bands of 6 h from 22:00; weekend bands after the weekday
/// ones.
fn band_by_hand(date: NaiveDate, hour: u8) -> (NaiveDate, usize) {
    let day = if hour >= 22 {
        date + chrono::Days::new(1)
    } else {
        date
    };
    let position = (usize::from(hour) + 2) % 24 / 6;
    let weekend = matches!(day.weekday(), Weekday::Sat | Weekday::Sun);
    (day, if weekend { 4 + position } else { position })
}

fn week_by_hand(date: NaiveDate) -> Option<usize> {
    let days = usize::try_from((date - weeks().first).num_days()).ok()?;
    (days < 7 * WEEKS).then_some(days / 7)
}

fn days_of(band: usize) -> f64 {
    if band >= 4 { 2.0 } else { 5.0 }
}

fn in_group(group: StreetGroup, incident: &Incident) -> bool {
    match group {
        StreetGroup::All => true,
        StreetGroup::StreetViolence => {
            incident.street == Some(true)
                && matches!(
                    incident.class,
                    CrimeClass::BatteryAssault | CrimeClass::SeriousViolent
                )
        }
    }
}

/// `n_wb` by hand: the group's incidents with a positive hour weight dated in
/// `weeks`, each piece `fraction · hour_weight` in its band.
fn counts_by_hand(
    incidents: &[Incident],
    group: StreetGroup,
    weeks: Range<usize>,
) -> [[f64; 8]; WAYS.len()] {
    let mut counts = [[0.0; 8]; WAYS.len()];
    for incident in incidents {
        let (Some(hour), Some(week)) = (incident.hour, week_by_hand(incident.date)) else {
            continue;
        };
        if !in_group(group, incident) || incident.hour_weight <= 0.0 || !weeks.contains(&week) {
            continue;
        }
        let (_, band) = band_by_hand(incident.date, hour);
        for (way, fraction) in fixture::brute_force_attribution(incident.lat, incident.lng) {
            counts[way][band] += fraction * incident.hour_weight;
        }
    }
    counts
}

fn profile_by_hand(counts: &[f64; 8], band: usize, kappa: f64, base: f64) -> f64 {
    if kappa == f64::INFINITY {
        return base;
    }
    let total: f64 = counts.iter().sum();
    (counts[band] + kappa * base) / (total + kappa)
}

/// `Σ rate_class · profile_class,b / Σ rate_class` over the group's classes.
fn mix_by_hand(
    group: StreetGroup,
    rates: &ClassRates,
    profile: &dyn Fn(usize) -> Vec<f64>,
) -> Vec<f64> {
    let mut out = [0.0; 8];
    let mut total = 0.0;
    for (class, &rate) in rates.iter().enumerate() {
        let member = group == StreetGroup::All || matches!(class, 1 | 3);
        if member {
            total += rate;
            for (o, p) in out.iter_mut().zip(profile(class)) {
                *o += rate * p;
            }
        }
    }
    out.iter().map(|o| o / total).collect()
}

fn fitted(incidents: &[Incident], weeks: Range<usize>) -> Profiles {
    let counts = BandCounts::of(incidents, &self::weeks(), weeks, BANDS, 2);
    Profiles::fit(&counts, &neighbours(), SHRINKAGE)
}

fn city_of(profiles: &Profiles, class: usize) -> Vec<f64> {
    profiles.city[class * 8..(class + 1) * 8].to_vec()
}

fn built() -> (StreetBacktest, StreetHours, Vec<Incident>) {
    let graph = fixture::graph();
    let incidents = incidents();
    let rows = rows();
    let streets = street_backtest::run(&StreetInputs {
        graph: &graph,
        cells: 2,
        incidents: &incidents,
        weeks: &weeks(),
        rows: &rows,
        start: START,
        refit_every: REFIT,
    })
    .unwrap();
    let hours = run(&HourInputs {
        streets: &streets,
        graph: &graph,
        incidents: &incidents,
        weeks: &weeks(),
        rows: &rows,
        start: START,
        refit_every: REFIT,
        neighbours: &neighbours(),
        bands: BANDS,
        shrinkage: SHRINKAGE,
    });
    (streets, hours, incidents)
}

/// An incident with its band day and band (if it has an hour) and its pieces.
type Placed<'a> = (&'a Incident, Option<(NaiveDate, usize)>, Vec<(usize, f64)>);

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * (1.0 + a.abs().max(b.abs()))
}

#[test]
fn counts_and_profiles_equal_the_formula_written_out() {
    let graph = fixture::graph();
    let network = StreetNetwork::new(&graph, 2);
    let attributor = Attributor::new(&graph, &network);
    let incidents = incidents();
    let attributed: Vec<Vec<Piece>> = incidents
        .iter()
        .map(|i| {
            let mut pieces = Vec::new();
            attributor.attribute(i.lat, i.lng, &mut pieces);
            pieces
        })
        .collect();
    for group in StreetGroup::ALL {
        let pieces = band_pieces(
            incidents
                .iter()
                .zip(&attributed)
                .filter(|(i, _)| group.includes(i))
                .map(|(i, p)| (i, p.as_slice())),
            &weeks(),
            BANDS,
        );
        for range in [0..1, 0..13, 5..20, 0..WEEKS] {
            let mut ours = WayBandCounts::new(WAYS.len(), 8);
            // Added in two parts, as the backtest adds origin by origin.
            let middle = range.start.midpoint(range.end);
            ours.add(&pieces, range.start..middle);
            ours.add(&pieces, middle..range.end);
            let theirs = counts_by_hand(&incidents, group, range.clone());
            for (way, theirs) in theirs.iter().enumerate() {
                let total: f64 = theirs.iter().sum();
                assert!(
                    close(ours.totals[way], total),
                    "{group:?} {range:?} way {way}"
                );
                for band in 0..8 {
                    assert!(close(ours.counts[way * 8 + band], theirs[band]));
                    for kappa in SHRINKAGE_GRID {
                        let base = 0.05 + 0.1 * band as f64 / 7.0;
                        assert!(close(
                            ours.share(way, band, kappa, base),
                            profile_by_hand(theirs, band, kappa, base)
                        ));
                    }
                }
            }
        }
    }
}

#[test]
fn a_way_profile_sums_to_one_and_kappa_infinite_is_the_base() {
    let mut counts = WayBandCounts::new(1, 4);
    counts.counts = vec![3.0, 0.0, 1.0, 0.5];
    counts.totals = vec![4.5];
    let base = [0.1, 0.2, 0.3, 0.4];
    for kappa in SHRINKAGE_GRID {
        let sum: f64 = (0..4).map(|b| counts.share(0, b, kappa, base[b])).sum();
        assert!(close(sum, 1.0), "{kappa}");
    }
    assert_eq!(counts.share(0, 1, f64::INFINITY, 0.2), 0.2);
    assert!(close(counts.share(0, 0, 1.0, 0.1), 3.1 / 5.5));
}

#[test]
fn the_group_mix_weighs_its_classes_by_their_rates() {
    let profiles = [[1.0, 0.0], [0.0, 1.0], [0.5, 0.5], [0.25, 0.75], [0.0, 1.0]];
    let rates = [1.0, 2.0, 3.0, 4.0, 0.0];
    let mut out = [0.0; 2];
    mixed(StreetGroup::All, &rates, |c| &profiles[c], &mut out);
    assert!(close(out[0], (1.0 + 1.5 + 1.0) / 10.0));
    mixed(
        StreetGroup::StreetViolence,
        &rates,
        |c| &profiles[c],
        &mut out,
    );
    assert!(close(out[0], 1.0 / 6.0) && close(out[1], 5.0 / 6.0));
    // Without a positive rate: the first class's profile.
    mixed(StreetGroup::All, &[0.0; 5], |c| &profiles[c], &mut out);
    assert_eq!(out, [1.0, 0.0]);
}

#[test]
fn the_lowest_validation_score_wins_the_smaller_kappa_on_a_tie() {
    let mut scores = vec![5.0; SHRINKAGE_GRID.len()];
    scores[3] = 4.0;
    scores[5] = 4.0;
    assert_eq!(lowest(&scores), SHRINKAGE_GRID[3]);
    assert_eq!(lowest(&[f64::NAN; 14]), f64::INFINITY);
}

#[test]
fn kappa_is_chosen_on_the_validation_weeks_by_the_band_log_loss() {
    let (_, hours, incidents) = built();
    // START 20: weeks 10..20 validate, 0..10 teach.
    let profiles = fitted(&incidents, 0..10);
    for group in &hours.groups {
        assert_eq!(
            (group.history.clone(), group.validation.clone()),
            (0..10, 10..20)
        );
        let counts = counts_by_hand(&incidents, group.group, 0..10);
        // The class mix of each cell's incidents of the group's classes before week 10.
        let mut mix = [[0.0; 5]; 2];
        for incident in &incidents {
            let member = group.group == StreetGroup::All
                || matches!(
                    incident.class,
                    CrimeClass::BatteryAssault | CrimeClass::SeriousViolent
                );
            if member && week_by_hand(incident.date).is_some_and(|w| w < 10) {
                mix[incident.cell][profiles::slot(incident)] += 1.0;
            }
        }
        let base: Vec<Vec<f64>> = mix
            .iter()
            .map(|rates| mix_by_hand(group.group, rates, &|c| city_of(&profiles, c)))
            .collect();
        let mut best = (f64::INFINITY, 0.0);
        for (i, kappa) in SHRINKAGE_GRID.into_iter().enumerate() {
            let (mut loss, mut observed) = (0.0, 0.0);
            for incident in incidents.iter().filter(|i| in_group(group.group, i)) {
                let Some(hour) = incident.hour else { continue };
                let (day, band) = band_by_hand(incident.date, hour);
                if !week_by_hand(day).is_some_and(|w| (10..20).contains(&w)) {
                    continue;
                }
                for (way, fraction) in fixture::brute_force_attribution(incident.lat, incident.lng)
                {
                    let cell = WAY_CELL[way].unwrap();
                    let p = profile_by_hand(&counts[way], band, kappa, base[cell][band]);
                    loss -= fraction * (p / days_of(band)).ln();
                    observed += fraction;
                }
            }
            let score = loss / observed;
            assert!(
                close(group.validation_scores[i], score),
                "{:?} κ {kappa}",
                group.group
            );
            assert!(close(group.validation_incidents, observed));
            if score < best.0 {
                best = (score, kappa);
            }
        }
        assert_eq!(group.kappa, best.1, "{:?}", group.group);
    }
}

#[test]
fn backtest_scores_equal_a_full_enumeration_of_every_way_band_and_band_day() {
    let (streets, hours, incidents) = built();
    let rows = rows();
    assert_eq!(hours.groups.len(), 2);
    // Each incident's band day, band and pieces, placed once.
    let placed: Vec<Placed<'_>> = incidents
        .iter()
        .map(|i| {
            (
                i,
                i.hour.map(|h| band_by_hand(i.date, h)),
                fixture::brute_force_attribution(i.lat, i.lng),
            )
        })
        .collect();
    for (group, street_group) in hours.groups.iter().zip(&streets.groups) {
        let k = street_group.shrinkage.k;
        let mut loss = [0.0; 3];
        let (mut observed, mut outcomes) = (0.0, 0);
        for t in START..WEEKS {
            let origin = START + (t - START) / REFIT * REFIT;
            let profiles = fitted(&incidents, 0..origin);
            let counts = counts_by_hand(&incidents, group.group, 0..origin);
            // The street shares of the origin: every incident of the group (with an
            // hour or not) dated before it.
            let mut history = [0.0; WAYS.len()];
            for (incident, _, pieces) in &placed {
                if in_group(group.group, incident)
                    && week_by_hand(incident.date).is_some_and(|w| w < origin)
                {
                    for &(way, fraction) in pieces {
                        history[way] += fraction;
                    }
                }
            }
            let way_shares = fixture::brute_force_shares(&history, k);
            for way in 0..WAYS.len() {
                let Some(cell) = WAY_CELL[way] else { continue };
                let rates = &rows[(t - START) * 2 + cell].rates;
                let forecast: f64 = rates
                    .iter()
                    .enumerate()
                    .filter(|&(c, _)| group.group == StreetGroup::All || matches!(c, 1 | 3))
                    .map(|(_, r)| r)
                    .sum();
                let city = mix_by_hand(group.group, rates, &|c| city_of(&profiles, c));
                let cells = mix_by_hand(group.group, rates, &|c| profiles.of(cell, c).to_vec());
                for day in 0..7 {
                    let date = weeks().start_of(t) + chrono::Days::new(day);
                    for position in 0..4 {
                        let band = if day >= 5 { 4 + position } else { position };
                        let y: f64 = placed
                            .iter()
                            .filter(|(i, at, _)| {
                                in_group(group.group, i) && *at == Some((date, band))
                            })
                            .flat_map(|(_, _, pieces)| pieces)
                            .filter(|&&(w, _)| w == way)
                            .map(|&(_, fraction)| fraction)
                            .sum();
                        let street = profile_by_hand(&counts[way], band, group.kappa, city[band]);
                        for (l, p) in loss.iter_mut().zip([city[band], cells[band], street]) {
                            let mu = forecast * way_shares[way] * p / days_of(band);
                            *l += mu - y * mu.ln() + libm::lgamma(y + 1.0);
                        }
                        observed += y;
                        outcomes += 1;
                    }
                }
            }
        }
        assert_eq!(group.outcomes, outcomes);
        assert!(
            close(group.incidents, observed),
            "{} vs {observed}",
            group.incidents
        );
        for (ours, theirs) in [group.city, group.cells, group.street].iter().zip(loss) {
            assert!(
                close(ours.poisson, theirs / observed),
                "{:?}: {} vs {}",
                group.group,
                ours.poisson,
                theirs / observed
            );
        }
        // Two profiles' losses differ by their band log losses.
        assert!(close(
            group.city.poisson - group.street.poisson,
            group.city.band - group.street.band
        ));
    }
    // The stub's incidents are all at night: its own profile knows it better than
    // the city's.
    // Every class learnt its own profile: the cell profiles differ from the city's.
    assert!(
        hours
            .groups
            .iter()
            .all(|g| !close(g.cells.poisson, g.city.poisson))
    );
    let all = &hours.groups[0];
    assert!(all.kappa.is_finite() && all.gain() > 0.0, "{all:?}");
}
