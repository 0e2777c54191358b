//! The model card's "as known then" paragraph of a city's backtest: the model's
//! figures when each week is forecast only from the incidents reported before it
//! (`fit/known_then.rs`), and each source's reporting lag; or, for a city whose
//! sources publish no report time, that it cannot be judged so.

use std::fmt::Write as _;

use super::figures::metric;
use crate::fit::city_build::CityBuild;

/// Appends the paragraph for `build`.
pub(super) fn section(md: &mut String, build: &CityBuild) {
    let b = &build.backtest;
    let Some(known) = &b.known_then else {
        let names: Vec<String> = build.sources.keys().map(|n| format!("`{n}`")).collect();
        let _ = writeln!(
            *md,
            "\nAs known then: no source of this city ({}) publishes a report time, so the \
             backtest cannot leave out what was reported late; its figures assume every \
             incident was known when its week was forecast.",
            names.join(", ")
        );
        return;
    };
    let complete = &b.metrics["model"];
    let _ = writeln!(
        *md,
        "\nAs known then (each week forecast only from the incidents reported before it \
         began, scored against all of the week's incidents): multi-class Brier {} (as if \
         complete: {}), log loss {} ({}), MAE of the median forecast {} ({}), PAI 5% {} ({}).\n",
        metric(known.brier),
        metric(complete.brier),
        metric(known.log_loss),
        metric(complete.log_loss),
        metric(known.mae_median),
        metric(complete.mae_median),
        metric(known.pai[1]),
        metric(complete.pai[1]),
    );
    md.push_str(
        "| source | incidents with a report time | median lag (days) | 90th percentile | reported 8 or more days after |\n|---|---|---|---|---|\n",
    );
    for (name, report) in &build.sources {
        let mut lags = report.report_lags.clone();
        if lags.is_empty() {
            let _ = writeln!(*md, "| {name} | none: no report time | | | |");
            continue;
        }
        lags.sort_unstable();
        let at = |q: f64| lags[((lags.len() - 1) as f64 * q).round() as usize];
        let late = lags.iter().filter(|&&d| d >= 8).count();
        let _ = writeln!(
            *md,
            "| {name} | {} | {} | {} | {:.1} % |",
            lags.len(),
            at(0.5),
            at(0.9),
            100.0 * late as f64 / lags.len() as f64
        );
    }
}
