//! The street-level section's subsection on street hour profiles
//! (`fit/streets/hours.rs`): the method from its constants, each city's figures
//! against the city-wide profile, and the decision they give.

use std::fmt::Write as _;

use crate::fit::city_build::CityBuild;
use crate::fit::forecasting::REFIT_EVERY;
use crate::fit::streets::hours::{GroupHours, MIN_GAIN, SHRINKAGE_GRID};

fn kappa(value: f64) -> String {
    if value.is_infinite() {
        "∞".to_owned()
    } else {
        value.to_string()
    }
}

fn percent(fraction: f64) -> String {
    format!("{:+.3} %", 100.0 * fraction)
}

/// Appends the subsection.
pub(super) fn section(md: &mut String, builds: &[CityBuild]) {
    md.push_str("### Street level: hours on streets\n\n");
    let grid: Vec<String> = SHRINKAGE_GRID.iter().map(|&k| kappa(k)).collect();
    let _ = writeln!(
        md,
        "Whether a way's own hours forecast its incidents' hours better than the city's \
         profile (`builder/src/fit/streets/hours.rs`). A way's profile is the distribution of \
         its attributed incidents (fractions of incidents, default hours weighted as for the \
         cell profiles) over the bands of the layout chosen above for the cell profiles, \
         shrunk towards the city-wide profile of its cell's forecast: `p_wb = (n_wb + κ · \
         base_cb) / (N_w + κ)`, `base_cb = Σ e_c,class · city_class,b / Σ e_c,class` over the \
         group's classes (κ = ∞ is the city-wide profile). κ is chosen from {{{}}} on the \
         street shares' validation weeks, learnt from the weeks before them (the class mix of \
         `base` there is each cell's incidents before them), by the band log loss of the \
         validation incidents. On the backtest weeks, every profile, the street shares and the \
         cell profiles learnt from the weeks before the week's refit origin (every \
         {REFIT_EVERY} weeks), a way's count in a band of a band day is Poisson with mean \
         `e_c · share_w · p_b / d_b` (`d_b` the band days of its kind in a week); the table \
         gives the Poisson log loss over every way, band and band day, per observed incident \
         (incidents with an hour, as fractions on their ways). Every profile gives a way-week \
         the same expected total, so two profiles' losses differ exactly by their band log \
         loss `−Σ y ln (p_b / d_b)` (whose relative difference is given too). The rule: a \
         group's street profiles are used where their log loss is lower than the city-wide \
         profile's by at least {:.1} % of it. `tests/model-card/street-hour-figures.test.mjs` \
         recomputes the table from the exports (`street_hours_<code>_pieces.csv.gz`: each \
         group's incidents with an hour, piece by piece on their ways; \
         `street_hours_<code>_profiles.csv.gz`: the cell profiles learnt before the validation \
         weeks and before each refit origin; with `streets_<code>.csv.gz`, \
         `backtest_<code>.csv.gz` and the ledger `rows_<code>.csv.gz`).\n",
        grid.join(", "),
        100.0 * MIN_GAIN
    );
    md.push_str(
        "| city | group | κ | validation band log loss, κ / ∞ | backtest incidents | way × band-day × band outcomes | log loss, city-wide profile | cell profiles (served) | street profiles | street vs city-wide | cells vs city-wide | street vs city-wide, band log loss |\n\
         |---|---|---|---|---|---|---|---|---|---|---|---|\n",
    );
    let mut unused = Vec::new();
    let mut used = Vec::new();
    for build in builds {
        let name = &build.artifact.city.name;
        let Some(hours) = &build.street_hours else {
            unused.push(format!("{name} (no network)"));
            continue;
        };
        for group in &hours.groups {
            row(md, name, group);
            let label = format!("{name} {}", group.group.label());
            if group.used() {
                used.push(label);
            } else {
                unused.push(label);
            }
        }
    }
    let _ = writeln!(
        md,
        "\nDecision: street hour profiles {}. Transit stops and nightlife streets are not \
         marked in the road data (HERE and TIGER lines carry no such attribute), so the ways \
         are not typed by use; their history is the only sign of a night street.\n",
        if used.is_empty() {
            format!(
                "beat the city-wide profile by {:.1} % for no group ({}); the artifact carries \
                 none, and a way's incidents follow its cell's profiles",
                100.0 * MIN_GAIN,
                unused.join(", ")
            )
        } else {
            format!(
                "beat the city-wide profile by {:.1} % for {}; not for {}",
                100.0 * MIN_GAIN,
                used.join(", "),
                if unused.is_empty() {
                    "none".to_owned()
                } else {
                    unused.join(", ")
                }
            )
        }
    );
}

fn row(md: &mut String, city: &str, group: &GroupHours) {
    let at = |k: f64| {
        SHRINKAGE_GRID
            .iter()
            .position(|g| g.total_cmp(&k).is_eq())
            .map_or(f64::NAN, |i| group.validation_scores[i])
    };
    let _ = writeln!(
        md,
        "| {city} | {} | {} | {:.5} / {:.5} | {:.0} | {} | {:.5} | {:.5} | {:.5} | {} | {} | {} |",
        group.group.label(),
        kappa(group.kappa),
        at(group.kappa),
        at(f64::INFINITY),
        group.incidents,
        group.outcomes,
        group.city.poisson,
        group.cells.poisson,
        group.street.poisson,
        percent(group.gain()),
        percent(group.cell_gain()),
        percent((group.city.band - group.street.band) / group.city.band)
    );
}
