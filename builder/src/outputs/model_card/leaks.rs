//! The model card's measure of what the backtest's inputs took from its own weeks
//! (`fit/leaks.rs`): the default-hour weights and a grid derived from incidents.

use std::fmt::Write as _;

use crate::fit::city_build::CityBuild;
use crate::fit::leaks::scores_without;

/// Appends the paragraph.
pub(super) fn section(md: &mut String, build: &CityBuild) {
    let b = &build.backtest;
    let sources: Vec<String> = b
        .default_hour_leaks
        .iter()
        .map(|leak| {
            if leak.hours.is_empty() {
                format!("{}: none either way", leak.source)
            } else {
                let hours: Vec<String> = leak
                    .hours
                    .iter()
                    .map(|&(hour, all, before)| format!("{hour:02} h {all:.3} ({before:.3})"))
                    .collect();
                format!("{}: {}", leak.source, hours.join(", "))
            }
        })
        .collect();
    let largest = b
        .default_hour_leaks
        .iter()
        .map(crate::fit::leaks::DefaultHourLeak::largest_difference)
        .fold(0.0, f64::max);
    let (moved, weight) = b
        .default_hour_leaks
        .iter()
        .fold((0.0, 0.0), |(m, w), leak| {
            (m + leak.moved_before, w + leak.weight_before)
        });
    let _ = writeln!(
        *md,
        "\n**What the inputs took from the backtest's weeks.** Each source's default-hour \
         weights come from its whole hour histogram, these weeks included; the weights from \
         the rows before the backtest alone are in brackets: {}. The largest difference is \
         {largest:.3} of an incident at a default hour, and only the time-of-day profiles use \
         these weights: in the profiles fitted before the backtest, the weights from all rows \
         move {moved:.1} of the {weight:.0} incidents' weight ({:.3} %).",
        sources.join("; "),
        100.0 * moved / weight.max(f64::MIN_POSITIVE)
    );
    if let Some(grid) = &b.grid_leak {
        let [model, mean52] = scores_without(&build.rows, &grid.missing_cells);
        let all = |name| b.metrics.get(name).copied();
        let (Some(all_model), Some(all_mean52)) = (all("model"), all("mean52")) else {
            return;
        };
        let _ = writeln!(
            *md,
            "The grid is derived from every incident, these weeks' included: one derived from \
             the kept incidents before the backtest would lack {} of its {} cells, which hold \
             {} of the backtest's {} incidents ({:.2} %). The grid decides which cells are \
             forecast and scored, and which incidents count (the neighbour features of a cell \
             at its edge included). Scored on the {} cells of the grid before the backtest \
             alone, with the same forecasts, the model's log loss is {:.3} against the 52-week \
             mean's {:.3} (on every cell: {:.3} and {:.3}), its multi-class Brier {:.3} against \
             {:.3} ({:.3} and {:.3}), and its PAI at 5 % {:.2} against {:.2} ({:.2} and {:.2}).",
            grid.missing,
            grid.cells,
            grid.in_missing,
            grid.backtest_incidents,
            100.0 * grid.in_missing as f64 / grid.backtest_incidents.max(1) as f64,
            grid.cells - grid.missing,
            model.log_loss,
            mean52.log_loss,
            all_model.log_loss,
            all_mean52.log_loss,
            model.brier,
            mean52.brier,
            all_model.brier,
            all_mean52.brier,
            model.pai[1],
            mean52.pai[1],
            all_model.pai[1],
            all_mean52.pai[1],
        );
    }
}
