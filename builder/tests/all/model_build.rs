//! The model built from the real data in `../shared/data` (or `HEXRISK_DATA_DIR`):
//! accounting of every row, the backtest requirements, the calendar, the artifact.

use std::path::PathBuf;

use chrono::NaiveDate;
use hexrisk_builder::fit::backtest::{CALIBRATION_AIM, Scoreboard, largest_gap, reliability_of};
use hexrisk_builder::fit::city_build::CityBuild;
use hexrisk_builder::fit::counts::WeeklyCounts;
use hexrisk_builder::fit::model;
use hexrisk_builder::inputs::cleaning::RowFate;
use hexrisk_builder::inputs::config::{self, CityConfig};
use hexrisk_builder::inputs::default_hours;
use hexrisk_builder::inputs::{cleaning, data};
use hexrisk_builder::pipeline;
use hexrisk_engine::artifact;
use hexrisk_engine::city::CityModel;
use hexrisk_engine::forecast::{ClassRates, OutcomeProbabilities, outcome_distribution_with};
use indicatif::ProgressBar;

use crate::support::{full_builds, graph_size};

fn data_dir() -> PathBuf {
    data::workspace_data_dir()
}

fn configs() -> Vec<CityConfig> {
    config::load_all(&config::default_config_dir()).unwrap()
}

fn city(code: &str) -> CityConfig {
    configs().into_iter().find(|c| c.code == code).unwrap()
}

fn built(code: &str) -> &'static CityBuild {
    full_builds::full_build(code)
}

fn date(y: i32, m: u32, d: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(y, m, d).unwrap()
}

#[test]
fn every_source_row_is_kept_or_rejected_with_a_reason() {
    for code in ["city_ca_tor", "city_us_sfo", "city_us_hou"] {
        for (name, report) in &built(code).sources {
            let rejected: u64 = report.rejected.values().sum();
            assert!(report.rows > 0, "{code}/{name} read no rows");
            assert_eq!(
                report.accepted_total() + rejected,
                report.rows,
                "{code}/{name}"
            );
            // The ledger holds each row once, in order, and adds up to the tallies.
            let positions: Vec<u64> = report.ledger.iter().map(|e| e.position).collect();
            assert_eq!(
                positions,
                (0..report.rows).collect::<Vec<_>>(),
                "{code}/{name}"
            );
            for (&reason, &n) in &report.rejected {
                let listed = report
                    .ledger
                    .iter()
                    .filter(|e| e.fate == RowFate::Rejected(reason));
                assert_eq!(listed.count() as u64, n, "{code}/{name}: {reason}");
            }
            for (&class, &n) in &report.accepted {
                let listed = report
                    .ledger
                    .iter()
                    .filter(|e| matches!(e.fate, RowFate::Kept(c, _) if c == class));
                assert_eq!(listed.count() as u64, n, "{code}/{name}: {class:?}");
            }
            // The candidates' hours are the histogram the default hours come from.
            let hours = default_hours::histogram(
                report
                    .ledger
                    .iter()
                    .filter_map(|e| e.occurred.and_then(|(_, h)| h))
                    .map(Some),
            );
            assert_eq!(hours, report.hours, "{code}/{name}");
        }
    }
}

#[test]
fn known_counts_of_the_sources() {
    // Row counts from the data README.
    let tor = &built("city_ca_tor").sources;
    assert_eq!(tor["mci"].rows, 210_992 + 30_000);
    assert_eq!(tor["homicides"].rows, 1_396);
    assert_eq!(tor["shootings"].rows, 6_295);
    assert_eq!(built("city_us_sfo").sources["incidents"].rows, 5_000);
    assert_eq!(built("city_us_hou").sources["crime"].rows, 86_314);
    // Shootings at about (0, 0) are rejected for their coordinates (62 of them), unless
    // their date already put them outside the span.
    let bad = tor["shootings"]
        .rejected
        .get(&cleaning::Rejection::BadCoordinates)
        .copied()
        .unwrap_or(0);
    assert!(bad <= 62, "{bad}");
    // A homicide by shooting appears in both files: some shooting rows are duplicates.
    assert!(tor["shootings"].rejected[&cleaning::Rejection::Duplicate] > 0);
}

#[test]
fn toronto_model_beats_both_baselines_on_brier_log_loss_and_mae() {
    let metrics = &built("city_ca_tor").backtest.metrics;
    let model = metrics["model"];
    for baseline in ["mean52", "ewma"] {
        let base = metrics[baseline];
        assert!(
            model.brier < base.brier,
            "Brier vs {baseline}: {} / {}",
            model.brier,
            base.brier
        );
        assert!(model.log_loss < base.log_loss, "log loss vs {baseline}");
        assert!(model.mae_median < base.mae_median, "MAE vs {baseline}");
    }
}

#[test]
fn toronto_no_crime_probability_is_calibrated_by_the_recent_level_at_no_cost_in_score() {
    let build = built("city_ca_tor");
    let gap = largest_gap(&reliability_of(&build.rows)).unwrap();
    // The regression's own rates (the level divided out), scored the same way: they
    // miss the aim by more, and score no better than the calibrated ones.
    let cells = build.artifact.cells.len();
    let mut uncalibrated = Scoreboard::default();
    for week in build.rows.chunks(cells) {
        let forecasts: Vec<(ClassRates, OutcomeProbabilities)> = week
            .iter()
            .map(|row| {
                let rates = row.rates.map(|r| r / row.level);
                (rates, outcome_distribution_with(&rates, &row.dispersion))
            })
            .collect();
        let observed: Vec<[u16; 5]> = week.iter().map(|row| row.counts).collect();
        uncalibrated.add_week(&forecasts, &week[0].dispersion, &observed);
    }
    let before = largest_gap(&uncalibrated.reliability).unwrap();
    assert!(before > CALIBRATION_AIM, "uncalibrated gap {before}");
    assert!(gap < before, "calibrated gap {gap}, uncalibrated {before}");
    // The setting was chosen on the first half of the backtest weeks.
    let choice = &build.backtest.level_choice;
    assert_eq!(choice.validation, 0..build.backtest.week_count / 2);
    let lowest = choice
        .losses
        .iter()
        .map(|&(_, l)| l)
        .fold(f64::INFINITY, f64::min);
    assert!(choice.losses.contains(&(choice.setting, lowest)));
    let (before, after) = (uncalibrated.metrics(), build.backtest.metrics["model"]);
    assert!(
        after.brier <= before.brier,
        "{} > {}",
        after.brier,
        before.brier
    );
    assert!(after.log_loss <= before.log_loss);
    assert!(after.no_crime_brier <= before.no_crime_brier);
    assert!(
        build
            .backtest
            .levels
            .iter()
            .any(|&l| (l - 1.0).abs() > 0.05)
    );
}

#[test]
fn toronto_calendar_covers_the_backtest_and_twelve_weeks_beyond() {
    let build = built("city_ca_tor");
    let calendar = build.artifact.calendar;
    assert_eq!(build.backtest.week_count, 104);
    assert_eq!(calendar.first_week, date(2019, 12, 30));
    assert_eq!((calendar.weeks, calendar.observed_weeks), (116, 104));
    assert_eq!(build.backtest.weeks.1, date(2021, 12, 20));
    let model = CityModel::from_artifact(build.artifact.clone());
    // The week `make run` pins as current lies inside the range.
    assert_eq!(model.week_index(date(2022, 1, 3)), Ok(105));
    assert!(model.week_index(date(2022, 3, 21)).is_err());
    // Weeks turn at local midnight: 2022-01-03 04:30 UTC is Sunday night in Toronto.
    let range = model.prediction_range(1_641_184_200);
    assert_eq!(
        (range.start, range.end),
        (date(2019, 12, 30), date(2022, 3, 20))
    );
    assert_eq!(range.weeks_available, 116);
    assert_eq!(range.current_week, Some(date(2021, 12, 27)));
    assert_eq!(
        model.current_week(1_641_184_200 + 3600),
        Some(date(2022, 1, 3))
    );
    // Daylight time began on 2020-03-08 at 07:00 UTC.
    assert_eq!(model.utc_offset(1_583_650_799), -5 * 3600);
    assert_eq!(model.utc_offset(1_583_650_800), -4 * 3600);
}

#[test]
fn artifacts_are_small_valid_and_deterministic() {
    for code in ["city_ca_tor", "city_us_sfo", "city_us_hou"] {
        let build = built(code);
        let bytes = artifact::encode(&build.artifact).unwrap();
        let decoded = CityModel::from_bytes(&bytes).unwrap();
        assert_eq!(decoded.artifact(), &build.artifact);
        if code == "city_ca_tor" {
            // Budgets: forecasts and scores under 1.5 MB, the road graph under 3 MB.
            let forecasts_only = artifact::CityArtifact {
                road_graph: None,
                street_shares: None,
                places: None,
                ..build.artifact.clone()
            };
            let forecast_bytes = artifact::encode(&forecasts_only).unwrap().len();
            assert!(
                forecast_bytes < 1_500_000,
                "Toronto forecasts take {forecast_bytes} bytes"
            );
            assert!(build.artifact.road_graph.is_some(), "Toronto has roads");
            let graph_bytes = graph_size::stored_graph_bytes(&build.artifact);
            assert!(
                graph_bytes < 3_000_000,
                "Toronto's road graph takes {graph_bytes} bytes"
            );
            assert_eq!(build.cells, 815);
            assert_eq!(decoded.artifact().precincts.len(), 16);
        }
    }
    // A second build of the same inputs gives the same bytes.
    let again =
        pipeline::build_city(&city("city_us_sfo"), &data_dir(), &ProgressBar::hidden()).unwrap();
    assert_eq!(
        artifact::encode(&again.artifact).unwrap(),
        artifact::encode(&built("city_us_sfo").artifact).unwrap()
    );
}

#[test]
fn road_graphs_name_their_streets_and_lattices_do_not() {
    for (code, known) in [
        ("city_ca_tor", "QUEEN ST W"),
        ("city_us_sfo", "Valencia St"),
    ] {
        let graph = built(code).artifact.road_graph.as_ref().unwrap();
        // The served graph is renumbered for locality: the names must come along.
        assert!(graph.names.iter().any(|n| n == known), "{code}: {known}");
        let named = (0..graph.way_count())
            .filter(|&w| graph.way_name(w).is_some())
            .count();
        assert!(
            named as f64 > 0.95 * graph.way_count() as f64,
            "{code}: {named} of {} ways named",
            graph.way_count()
        );
    }
    let lattice = built("city_us_hou").artifact.road_graph.as_ref().unwrap();
    assert!(lattice.names.is_empty() && lattice.way_name.is_empty());
}

#[test]
fn forecasts_are_distributions_for_every_cell_and_week() {
    for code in ["city_ca_tor", "city_us_sfo", "city_us_hou"] {
        let model = CityModel::from_artifact(built(code).artifact.clone());
        for week in (0..model.week_count()).step_by(7) {
            for position in 0..model.cell_count() {
                let p = model.forecast(position, week).probabilities;
                assert!(
                    (p.iter().sum::<f64>() - 1.0).abs() < 1e-9,
                    "{code} {week} {position}"
                );
                assert!(p.iter().all(|x| (0.0..=1.0).contains(x)));
            }
        }
    }
}

#[test]
fn a_forecast_does_not_change_when_later_weeks_change() {
    // San Francisco: refit at an origin with every later week's counts replaced, and
    // the forecasts for the origin week must not move.
    let ingested = cleaning::ingest(&city("city_us_sfo"), &data_dir()).unwrap();
    let counts = WeeklyCounts::from_ingested(&ingested);
    let neighbours = model::neighbours(&ingested.grid.cells);
    let origin = 40;
    let mut raw = Vec::with_capacity(counts.weeks * counts.cells * 5);
    for t in 0..counts.weeks {
        for i in 0..counts.cells {
            let cell_week = counts.cell_week(t, i);
            raw.extend(if t < origin {
                cell_week
            } else {
                cell_week.map(|n| n * 3 + 1)
            });
        }
    }
    let altered = WeeklyCounts::from_counts(counts.weeks, counts.cells, raw);
    let (real, fake) = (
        model::FeatureBuilder::new(&counts, &neighbours),
        model::FeatureBuilder::new(&altered, &neighbours),
    );
    let real_fit = model::fit(&real, origin, 10);
    let fake_fit = model::fit(&fake, origin, 10);
    assert_eq!(real_fit, fake_fit);
    assert_eq!(
        model::predict_week(&real, &real_fit, origin, origin),
        model::predict_week(&fake, &fake_fit, origin, origin)
    );
}

#[test]
fn the_street_level_layer_covers_the_cities_with_streets_and_beats_the_uniform_spread() {
    use hexrisk_builder::fit::streets::backtest::StreetGroup;
    // Houston has no road data: its layer is over its hex lattice, where no incident
    // is split at a node and every one lies within reach of a way.
    let hou = built("city_us_hou").streets.as_ref().unwrap();
    for group in &hou.groups {
        let p = group.placements;
        assert_eq!((p.node, p.off_network), (0, 0), "{p:?}");
        assert!(p.way > 0);
        // Finer than the cell on the lattice too.
        assert!(
            group.street[0].hit_rate() > group.uniform[0].hit_rate(),
            "{group:?}"
        );
    }
    // San Francisco's source records no premises: only the `all` group.
    let sf = built("city_us_sfo").streets.as_ref().unwrap();
    let groups: Vec<StreetGroup> = sf.groups.iter().map(|g| g.group).collect();
    assert_eq!(groups, [StreetGroup::All]);
    let tor = built("city_ca_tor").streets.as_ref().unwrap();
    let groups: Vec<StreetGroup> = tor.groups.iter().map(|g| g.group).collect();
    assert_eq!(groups, StreetGroup::ALL);
    for group in &tor.groups {
        // Nearly every Toronto location is an intersection point on the network.
        let p = group.placements;
        assert!(p.node as f64 > 0.9 * p.total() as f64, "{p:?}");
        assert!((p.off_network as f64) < 0.02 * p.total() as f64, "{p:?}");
        // The shrinkage was chosen on 52 validation weeks ending at the backtest.
        assert_eq!(group.shrinkage.validation.len(), 52);
        assert_eq!(
            group.shrinkage.validation.end,
            group.shrinkage.history.end + 52
        );
        // Learnt shares rank the streets better than spreading a cell uniformly.
        for (street, uniform) in group.street.iter().zip(&group.uniform) {
            assert!(street.hit_rate() > uniform.hit_rate(), "{group:?}");
            assert!((street.incidents - uniform.incidents).abs() < 1e-9);
        }
    }
    // Every attributed incident counted in the export lies on an assigned way.
    let all = &tor.groups[0];
    let counted: f64 = all.counts.weeks.iter().flatten().map(|&(_, n)| n).sum();
    let on_network = (all.placements.node + all.placements.way) as f64;
    assert!((counted - on_network).abs() < 1e-6 * on_network);
    assert!(
        all.counts
            .weeks
            .iter()
            .flatten()
            .all(|&(way, _)| tor.network.way_cell[way as usize].is_some())
    );
}

#[test]
fn the_artifact_carries_the_served_street_shares_within_rounding() {
    use hexrisk_builder::fit::streets::shares;
    use hexrisk_engine::roads::{NO_CELL, class_bits, decode_shares};
    // Rounding to eighths of a doubling, then renormalising a cell: each share within
    // a step of what the build learnt.
    let step = 2_f64.powf(1.0 / 8.0);
    // Houston's shares are over its hex lattice's ways.
    for code in ["city_ca_tor", "city_us_hou", "city_us_sfo"] {
        let build = built(code);
        let (artifact, streets) = (&build.artifact, build.streets.as_ref().unwrap());
        let graph = artifact.road_graph.as_ref().unwrap();
        let stored = artifact.street_shares.as_ref().unwrap();
        assert_eq!(stored.groups.len(), streets.groups.len(), "{code}");
        for (group, learnt) in stored.groups.iter().zip(&streets.groups) {
            assert_eq!(group.classes, class_bits(learnt.group.classes()), "{code}");
            let history = learnt
                .counts
                .totals(0..learnt.counts.weeks.len(), graph.way_count());
            let served = shares::shares(&streets.network, &history, learnt.shrinkage.k);
            let decoded = decode_shares(graph, artifact.cells.len(), &group.codes);
            for (way, cell) in streets.network.way_cell.iter().enumerate() {
                if cell.is_none() {
                    assert_eq!(group.codes[way], NO_CELL);
                    continue;
                }
                let ratio = decoded[way] / served[way];
                assert!(
                    (1.0 / step..=step).contains(&ratio),
                    "{code} way {way}: {ratio}"
                );
            }
        }
    }
}

/// What one refit origin's forecasts of the ways learn from the weeks before it:
/// the cell profiles, each way's weighted incidents per band and its street share.
struct OriginLearning {
    profiles: hexrisk_builder::fit::profiles::Profiles,
    way_bands: Vec<f64>,
    shares: Vec<f64>,
}

/// Each incident with its pieces on the ways.
type Attributed<'a> = [(
    &'a cleaning::Incident,
    Vec<hexrisk_builder::fit::streets::attribution::Piece>,
)];

fn learnt_before(
    origin: usize,
    build: &CityBuild,
    ingested: &cleaning::Ingested,
    placed: &Attributed<'_>,
) -> OriginLearning {
    use hexrisk_builder::fit::profiles::{BandCounts, Profiles};
    let streets = build.streets.as_ref().unwrap();
    let choice = &build.backtest.profile_choice;
    let (bands, n) = (choice.bands, choice.bands.count());
    let neighbours = model::neighbours(&ingested.grid.cells);
    let counted = BandCounts::of(
        &ingested.incidents,
        &ingested.weeks,
        0..origin,
        bands,
        build.cells,
    );
    let ways = streets.network.way_count();
    let (mut history, mut way_bands) = (vec![0.0; ways], vec![0.0; ways * n]);
    for (incident, pieces) in placed {
        if ingested
            .weeks
            .index_of(incident.date)
            .is_none_or(|w| w >= origin)
        {
            continue;
        }
        for piece in pieces {
            history[piece.way as usize] += piece.fraction;
            if let (Some(hour), true) = (incident.hour, incident.hour_weight > 0.0) {
                let (band, _) = bands.at(incident.date, hour);
                way_bands[piece.way as usize * n + bands.index(band)] +=
                    piece.fraction * incident.hour_weight;
            }
        }
    }
    OriginLearning {
        profiles: Profiles::fit(&counted, &neighbours, choice.shrinkage),
        way_bands,
        shares: hexrisk_builder::fit::streets::shares::shares(
            &streets.network,
            &history,
            streets.groups[0].shrinkage.k,
        ),
    }
}

/// San Francisco's street hour figures recomputed from scratch: every way × band
/// day × band outcome of every backtest week enumerated with its Poisson
/// log-probability, the street profiles, shares and cell profiles learnt anew from
/// the weeks before each refit origin.
#[test]
fn san_francisco_street_hour_figures_recompute_outcome_by_outcome() {
    use hexrisk_builder::fit::streets::attribution::Attributor;
    use hexrisk_engine::forecast::{Band, DayKind};
    let build = built("city_us_sfo");
    let (streets, hours) = (
        build.streets.as_ref().unwrap(),
        build.street_hours.as_ref().unwrap(),
    );
    let ingested = cleaning::ingest(&city("city_us_sfo"), &data_dir()).unwrap();
    let (cells, weeks) = (build.cells, build.data_weeks.1);
    let start = weeks - build.backtest.week_count;
    let bands = build.backtest.profile_choice.bands;
    let (n, per_day) = (bands.count(), bands.per_day());
    let network = &streets.network;
    let attributor = Attributor::new(build.artifact.road_graph.as_ref().unwrap(), network);
    let placed: Vec<_> = ingested
        .incidents
        .iter()
        .map(|i| {
            let mut pieces = Vec::new();
            attributor.attribute(i.lat, i.lng, &mut pieces);
            (i, pieces)
        })
        .collect();
    // Only the `all` group (no premises): its forecast and mix take every class.
    assert_eq!(hours.groups.len(), 1);
    let group = &hours.groups[0];
    let mut loss = [0.0; 3];
    let (mut observed, mut outcomes) = (0.0, 0_u64);
    let mut learnt = learnt_before(start, build, &ingested, &placed);
    for t in start..weeks {
        if (t - start).is_multiple_of(hexrisk_builder::fit::forecasting::REFIT_EVERY) {
            learnt = learnt_before(t, build, &ingested, &placed);
        }
        let monday = ingested.weeks.start_of(t);
        let mut y = vec![0.0; network.way_count() * 7 * per_day];
        for (incident, pieces) in &placed {
            let Some(hour) = incident.hour else { continue };
            let (band, day) = bands.at(incident.date, hour);
            let Ok(offset @ 0..7) = usize::try_from((day - monday).num_days()) else {
                continue;
            };
            for piece in pieces {
                y[(piece.way as usize * 7 + offset) * per_day + usize::from(band.position)] +=
                    piece.fraction;
            }
        }
        for (way, cell) in network.assigned() {
            let rates = &build.rows[(t - start) * cells + cell].rates;
            let total: f64 = rates.iter().sum();
            let mix = |profile: &dyn Fn(usize) -> f64| {
                (0..5).map(|c| rates[c] * profile(c)).sum::<f64>() / total
            };
            let own: f64 = learnt.way_bands[way * n..(way + 1) * n].iter().sum();
            for (day, position) in (0..7).flat_map(|d| (0..per_day).map(move |p| (d, p))) {
                let kind = DayKind::of(monday + chrono::Days::new(day as u64));
                let band = bands.index(Band {
                    kind,
                    position: position as u8,
                });
                let city = mix(&|c| learnt.profiles.city[c * n + band]);
                let cell_profile = mix(&|c| learnt.profiles.of(cell, c)[band]);
                let street =
                    (learnt.way_bands[way * n + band] + group.kappa * city) / (own + group.kappa);
                let count = y[(way * 7 + day) * per_day + position];
                for (l, p) in loss.iter_mut().zip([city, cell_profile, street]) {
                    let mu = total * learnt.shares[way] * p / f64::from(kind.days_per_week());
                    *l += mu - count * mu.ln() + libm::lgamma(count + 1.0);
                }
                observed += count;
                outcomes += 1;
            }
        }
    }
    assert_eq!(group.outcomes, outcomes);
    assert!((group.incidents - observed).abs() < 1e-6, "{observed}");
    for (ours, theirs) in [group.city, group.cells, group.street].iter().zip(loss) {
        let theirs = theirs / observed;
        assert!(
            (ours.poisson - theirs).abs() < 1e-9,
            "{} vs {theirs}",
            ours.poisson
        );
    }
}

/// The street hour subsection of `docs/MODEL.md` holds the build's figures, and its
/// decision follows the rule: on these data no group's street profiles beat the
/// city-wide profile by `MIN_GAIN`, so the artifact carries none.
#[test]
fn the_card_states_the_street_hour_figures_and_the_decision() {
    use hexrisk_builder::fit::streets::hours::{MIN_GAIN, SHRINKAGE_GRID};
    let card = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/MODEL.md"),
    )
    .unwrap();
    let section = card
        .split("### Street level: hours on streets\n")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .expect("docs/MODEL.md has the street hours subsection");
    for code in ["city_ca_tor", "city_us_hou", "city_us_sfo"] {
        let build = built(code);
        let hours = build.street_hours.as_ref().unwrap();
        let streets = build.streets.as_ref().unwrap();
        assert_eq!(hours.groups.len(), streets.groups.len());
        for group in &hours.groups {
            let prefix = format!(
                "| {} | {} | ",
                build.artifact.city.name,
                group.group.label()
            );
            let row = section
                .lines()
                .find(|l| l.starts_with(&prefix))
                .unwrap_or_else(|| panic!("no row {prefix}"));
            let cells: Vec<&str> = row.split('|').map(str::trim).collect();
            // | city | group | κ | validation | incidents | outcomes | city | cells | street | ...
            let number = |i: usize| cells[i].parse::<f64>().unwrap();
            assert_eq!(cells[3], group.kappa.to_string(), "{prefix}");
            assert!((number(7) - group.city.poisson).abs() <= 5.1e-6, "{prefix}");
            assert!(
                (number(8) - group.cells.poisson).abs() <= 5.1e-6,
                "{prefix}"
            );
            assert!(
                (number(9) - group.street.poisson).abs() <= 5.1e-6,
                "{prefix}"
            );
            assert_eq!(number(6) as u64, group.outcomes);
            // The validation chose the lowest band log loss.
            let best = group
                .validation_scores
                .iter()
                .copied()
                .fold(f64::INFINITY, f64::min);
            let chosen = SHRINKAGE_GRID
                .iter()
                .position(|k| k.total_cmp(&group.kappa).is_eq())
                .unwrap();
            assert!(group.validation_scores[chosen].total_cmp(&best).is_eq());
            // The losses differ exactly by the band log losses.
            assert!(
                ((group.city.poisson - group.street.poisson)
                    - (group.city.band - group.street.band))
                    .abs()
                    < 1e-9
            );
            // Not used: below the rule's margin.
            assert!(group.gain() < MIN_GAIN, "{prefix}: {}", group.gain());
        }
    }
    assert!(section.contains("for no group"));
}
