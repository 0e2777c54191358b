//! The model card's hot-spot report: on each city's held-out backtest weeks, the hit
//! rate, PAI and PEI* at 1, 5 and 10 % of the area and the week-to-week stability of
//! the top cells, for the model and every baseline (`fit/hotspots.rs`).

use std::fmt::Write as _;

use crate::fit::backtest::{BASELINES, BacktestRow};
use crate::fit::city_build::CityBuild;
use crate::fit::hotspots::{AREA_FRACTIONS, HotspotBoard, STABLE_FRACTION};

/// A forecaster of the table: the model, or the baseline at an index of
/// [`BASELINES`].
#[derive(Debug, Clone, Copy)]
enum Forecaster {
    Model,
    Baseline(usize),
}

impl Forecaster {
    /// Every forecaster, in the table's order.
    fn all() -> impl Iterator<Item = Self> {
        std::iter::once(Self::Model).chain((0..BASELINES.len()).map(Self::Baseline))
    }

    fn label(self, bandwidth_m: f64) -> String {
        match self {
            Self::Model => "hexrisk model".to_owned(),
            Self::Baseline(i) => match BASELINES[i] {
                "mean52" => "mean of previous 52 weeks".to_owned(),
                "ewma" => "EWMA (α = 0.03)".to_owned(),
                "last_week" => "last week's count".to_owned(),
                _ => format!("kernel density of the last 52 weeks (h = {bandwidth_m} m)"),
            },
        }
    }

    /// A row's expected total count.
    fn total(self, row: &BacktestRow) -> f64 {
        match self {
            Self::Model => row.rates.iter().sum(),
            Self::Baseline(i) => row.baselines[i],
        }
    }
}

fn percent(fraction: f64) -> String {
    format!("{:.0} %", fraction * 100.0)
}

/// Appends the subsection.
pub(super) fn section(md: &mut String, build: &CityBuild) {
    let b = &build.backtest;
    let validation = b.level_choice.validation.len();
    let held_out_from = b.weeks.0 + chrono::Days::new(7 * validation as u64);
    let (bandwidth, _) =
        b.kde_validation
            .iter()
            .copied()
            .fold((f64::NAN, f64::NEG_INFINITY), |best, (h, rate)| {
                if rate > best.1 { (h, rate) } else { best }
            });
    let fractions = AREA_FRACTIONS.map(percent);
    let _ = writeln!(
        *md,
        "\n**Hot spots on the held-out weeks** ({held_out_from} to {}, {} weeks): each week the \
         cells with the highest expected count are the hot spots (ties in cell order). Hit rate: \
         their share of the week's incidents; PAI: the hit rate over the area's share; PEI*: \
         the fewest busiest cells holding as many incidents over the hot spots' number (1 when \
         no smaller area would do); stability: the mean Jaccard index of consecutive weeks' top \
         {} of cells. The kernel density's bandwidth was chosen on the validation weeks by the \
         hit rate at 5 % ({}). The export's `total_*` columns hold each baseline's expected \
         counts.\n",
        b.weeks.1,
        b.week_count - validation,
        percent(AREA_FRACTIONS[STABLE_FRACTION]),
        b.kde_validation
            .iter()
            .map(|(h, rate)| format!("{h} m: {rate:.3}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let _ = writeln!(
        *md,
        "| forecaster | hit rate {0} | hit rate {1} | hit rate {2} | PAI {0} | PAI {1} | PAI {2} | PEI* {0} | PEI* {1} | PEI* {2} | stability |\n|---|---|---|---|---|---|---|---|---|---|---|",
        fractions[0], fractions[1], fractions[2]
    );
    let cells = build.cells;
    for forecaster in Forecaster::all() {
        let label = forecaster.label(bandwidth);
        let mut board = HotspotBoard::default();
        for week in build
            .rows
            .chunks(cells)
            .filter(|w| w[0].week >= held_out_from)
        {
            let forecast: Vec<f64> = week.iter().map(|r| forecaster.total(r)).collect();
            let observed: Vec<f64> = week
                .iter()
                .map(|r| r.counts.iter().map(|&n| f64::from(n)).sum())
                .collect();
            board.add_week(&forecast, &observed);
        }
        let f = board.figures();
        let three =
            |values: [f64; 3], digits: usize| values.map(|v| format!("{v:.digits$}")).join(" | ");
        let _ = writeln!(
            *md,
            "| {label} | {} | {} | {} | {:.3} |",
            three(f.hit_rate, 3),
            three(f.pai, 2),
            three(f.pei_star, 3),
            f.stability
        );
    }
}
