use super::*;
use crate::artifact::{self, fixture::CityFixture};

fn model() -> CityModel {
    CityModel::from_bytes(&artifact::encode(&CityFixture::default().build()).unwrap()).unwrap()
}

#[test]
fn kept_scores_are_the_scores_of_their_own_week_and_parameters() {
    use crate::forecast::{Band, DayKind};
    let model = model();
    let base = ScoringParams::default();
    // One change to each input of the scores, and the base week and parameters.
    let mut variants = alloc::vec![(0, base), (1, base)];
    let mut change = |edit: fn(&mut ScoringParams)| {
        let mut params = base;
        edit(&mut params);
        variants.push((0, params));
    };
    change(|p| p.intent = Intent::Walking);
    change(|p| p.active[0] = false);
    change(|p| p.overrides[1] = 2.0);
    change(|p| p.window = TimeWindow::Nights);
    change(|p| {
        p.window = TimeWindow::Band(Band {
            kind: DayKind::Weekend,
            position: 0,
        });
    });
    change(|p| {
        p.window = TimeWindow::Band(Band {
            kind: DayKind::Weekend,
            position: 1,
        });
    });
    let expected: Vec<CityScores> = variants
        .iter()
        .map(|(week, params)| CityScores::compute(&model, *week, params))
        .collect();
    // Every variant scores differently from the base, so a kept entry found under
    // the wrong key shows.
    assert!(expected[1..].iter().all(|scores| *scores != expected[0]));
    // Alternating with the base, so each lookup meets the others' entries.
    for round in 0..2 {
        for (i, (week, params)) in variants.iter().enumerate().skip(1) {
            for j in [0, i] {
                let (week, params) = if j == 0 { (&0, &base) } else { (week, params) };
                let kept = CityScores::kept(&model, *week, params);
                assert_eq!(*kept, expected[j], "variant {j}, round {round}");
            }
        }
    }
    assert!(model.kept_count() <= crate::city::KEPT_VALUES);
    // A kept entry is shared, not recomputed.
    let first = CityScores::kept(&model, 0, &base);
    assert!(Arc::ptr_eq(&first, &CityScores::kept(&model, 0, &base)));
}

#[test]
fn intents_parse_and_unknown_ones_fail() {
    for intent in Intent::ALL {
        assert_eq!(intent.name().parse::<Intent>(), Ok(intent));
    }
    assert_eq!("cycling".parse::<Intent>(), Err(UnknownIntent));
}

#[test]
fn weights_combine_severity_intent_override_and_activity() {
    let mut params = ScoringParams {
        intent: Intent::Walking,
        ..ScoringParams::default()
    };
    params.active[4] = false;
    params.overrides[0] = 2.0;
    let w = params.class_weights();
    assert_eq!(w, [3.0 * 1.0 * 2.0, 4.0 * 1.5, 3.0 * 0.3, 5.0 * 1.5, 0.0]);
    assert_eq!(params.harm(&[1.0, 0.0, 0.0, 0.0, 100.0]), 6.0);
}

#[test]
fn safety_is_a_mid_rank_from_0_to_100() {
    let model = model();
    let scores = CityScores::compute(&model, 0, &ScoringParams::default());
    let mut by_harm: Vec<usize> = (0..model.cell_count()).collect();
    crate::sorting::sort_by(&mut by_harm, |&a, &b| {
        scores.harm(a).total_cmp(&scores.harm(b))
    });
    assert_eq!(scores.safety(by_harm[0]), 100.0);
    assert_eq!(scores.safety(*by_harm.last().unwrap()), 0.0);
    assert!(scores.safety(99).is_nan());
    assert_eq!(scores.colour(99), ColourIndex::NO_DATA);
}

#[test]
fn a_cost_model_is_built_once_per_weight_and_kept_up_to_the_limit() {
    let scores = CityScores::from_harms(alloc::vec![1.0, 2.0]);
    let risks = [0.5, 2.0];
    let built = core::cell::Cell::new(0);
    let model_of = |alpha: f64| {
        scores.own_cost_model(alpha, || {
            built.set(built.get() + 1);
            CostModel::from_risks(&risks, alpha)
        })
    };
    let first = model_of(4.0);
    assert_eq!(model_of(4.0), first);
    assert_eq!(built.get(), 1, "the second request finds the kept model");
    assert_eq!(first.factor(1), 9.0);
    for alpha in [1.0, 0.5] {
        model_of(alpha);
    }
    model_of(0.25);
    model_of(0.25);
    assert_eq!(
        built.get(),
        5,
        "past {KEPT_COST_MODELS} weights, a model is built each time"
    );
    assert_eq!(model_of(1.0).factor(0), 1.5);
    assert_eq!(built.get(), 5);
}

#[test]
fn equal_harms_share_the_middle_rank() {
    let scores = CityScores::from_harms(alloc::vec![1.0, 1.0, 1.0]);
    assert_eq!(scores.safety(0), 50.0);
}

#[test]
fn tiers_cut_the_score_in_fifths() {
    assert_eq!(
        [100.0, 80.0, 79.9, 50.0, 20.0, 19.9, 0.0].map(tier),
        [0, 0, 1, 2, 3, 4, 4]
    );
    assert_eq!(tier(f64::NAN), 4);
}

#[test]
fn breakdown_shares_sum_to_one() {
    let model = model();
    let rows = breakdown(&model, 0, 0, &ScoringParams::default());
    assert_eq!(rows.len(), 5);
    let share: f64 = rows.iter().map(|r| r.share).sum();
    assert!((share - 1.0).abs() < 1e-12);
}

#[test]
fn precinct_sums_cover_their_cells() {
    let model = model();
    let scores = CityScores::compute(&model, 1, &ScoringParams::default());
    let precincts = precinct_scores(&model, 1, TimeWindow::Week, &scores);
    assert_eq!(precincts.len(), 1);
    assert_eq!(precincts[0].cells, 2);
    let expected: f64 = (0..2).map(|p| model.rates(p, 1)[0]).sum();
    assert!((precincts[0].expected_counts[0] - expected).abs() < 1e-12);
}
