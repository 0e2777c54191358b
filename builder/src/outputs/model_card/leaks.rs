//! The model card's measure of what the backtest's inputs took from its own weeks
//! (`fit/leaks.rs`): the default-hour weights and a grid derived from incidents.

use std::fmt::Write as _;

use crate::pipeline::CityBuild;

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
    let _ = writeln!(
        *md,
        "\n**What the inputs took from the backtest's weeks.** Each source's default-hour \
         weights come from its whole hour histogram, these weeks included; the weights from \
         the rows before the backtest alone are in brackets: {}. The largest difference is \
         {largest:.3} of an incident at a default hour, and only the time-of-day profiles use \
         these weights.",
        sources.join("; ")
    );
    if let Some(grid) = b.grid_leak {
        let _ = writeln!(
            *md,
            "The grid is derived from every incident, these weeks' included: one derived from \
             the kept incidents before the backtest would lack {} of its {} cells, which hold \
             {} of the backtest's {} incidents ({:.2} %).",
            grid.missing,
            grid.cells,
            grid.in_missing,
            grid.backtest_incidents,
            100.0 * grid.in_missing as f64 / grid.backtest_incidents.max(1) as f64
        );
    }
}
