//! The generated section of `docs/ROUTING.md`: the held-out benchmark's table and
//! aims, worked out from its report alone, and put between [`START`] and [`END`].

use std::fmt::Write as _;

use super::report::{
    CostingRoutes, IncidentSet, KindFigures, PairResult, Report, STRETCHES_PCT, median,
};

/// The line before the generated section.
pub const START: &str = "<!-- holdout-routes:start -->";

/// The line after it.
pub const END: &str = "<!-- holdout-routes:end -->";

fn pct(value: Option<f64>) -> String {
    value.map_or_else(|| "–".to_owned(), |v| format!("{v:.1} %"))
}

fn number(value: Option<f64>, digits: usize) -> String {
    value.map_or_else(|| "–".to_owned(), |v| format!("{v:.digits$}"))
}

fn costing_name(costing: &str) -> &'static str {
    match costing {
        "old" => "today's (cell rank)",
        "new" => "street-level",
        _ => "?",
    }
}

fn route_name(route: &str) -> String {
    if route == "safest" {
        return "safest (α = 4)".to_owned();
    }
    route.strip_prefix("within_").map_or_else(
        || route.to_owned(),
        |pct| format!("trade-off within +{pct} %"),
    )
}

/// A reduction cell: the median, with the pooled figure in brackets.
fn reduction(kind: &KindFigures, set: IncidentSet) -> String {
    let figures = kind.set(set);
    format!(
        "{} ({})",
        pct(figures.median_reduction_pct),
        pct(figures.pooled_reduction_pct)
    )
}

/// The section's text (without the markers), from the report alone.
#[must_use]
pub fn section(report: &Report) -> String {
    let mut out = String::new();
    conditions(&mut out, report);
    routes(&mut out, report);
    aims(&mut out, report);
    out
}

/// How the run was made.
fn conditions(out: &mut String, report: &Report) {
    let c = &report.conditions;
    let h = &report.held_out;
    let _ = writeln!(
        out,
        "{} fitted on its incidents up to {} (the last full week before the cut, {}; street \
         shares learnt from the same weeks) and costed for the week of {}; held-out incidents \
         {} to {}: {} in all, {} on street premises, at {} distinct positions. {} random pairs \
         {:.0}–{:.0} km apart as the crow flies (seed {}); an incident counts for a route \
         within {:.0} m of its line. Generated {} by `{}` on {} ({:.0} s: fit {:.0}, \
         held-out reading {:.0}, routes {:.0}).",
        c.city_name,
        c.fit_through,
        c.cut,
        c.scoring_week,
        c.held_out_from,
        c.held_out_through,
        h.all,
        h.street,
        h.positions,
        c.pairs,
        c.distance_m[0] / 1000.0,
        c.distance_m[1] / 1000.0,
        c.seed,
        c.buffer_m,
        c.date,
        c.command,
        c.machine,
        c.seconds.total,
        c.seconds.fit,
        c.seconds.held_out,
        c.seconds.routes,
    );
}

/// The table of routes, with what it leaves out.
fn routes(out: &mut String, report: &Report) {
    let c = &report.conditions;
    let s = &report.shortest;
    let _ = writeln!(
        out,
        "\nFewer held-out incidents per km than the shortest route between the same points: \
         median over the pairs whose shortest route passes at least one (pooled over every \
         pair in brackets). The shortest routes: median {} km, {} incidents per km ({} on \
         street premises).\n",
        number(s.median_length_m.map(|m| m / 1000.0), 1),
        number(s.median_per_km_all, 1),
        number(s.median_per_km_street, 2),
    );
    out.push_str(
        "| route | costing | extra length (median) | all incidents | street premises |\n\
         |---|---|---|---|---|\n",
    );
    for kind in &report.kinds {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} |",
            route_name(&kind.route),
            costing_name(&kind.costing),
            pct(kind.median_extra_length_pct),
            reduction(kind, IncidentSet::All),
            reduction(kind, IncidentSet::Street),
        );
    }
    if let Some(first) = report.kinds.first() {
        let _ = writeln!(
            out,
            "\nPairs whose shortest route passes no held-out incident, left out of the medians: \
             {} of {} (all incidents), {} of {} (street premises).",
            first.all.zero_at_shortest, c.pairs, first.street.zero_at_shortest, c.pairs,
        );
    }
    let corners = |pick: fn(&PairResult) -> &CostingRoutes| {
        let counts: Vec<f64> = report
            .pairs
            .iter()
            .map(|p| pick(p).corners as f64)
            .collect();
        let stopped = report.pairs.iter().filter(|p| !pick(p).complete).count();
        (number(median(&counts), 0), stopped)
    };
    let (old_corners, old_stopped) = corners(|p| &p.old);
    let (new_corners, new_stopped) = corners(|p| &p.new);
    let _ = writeln!(
        out,
        "Trade-off sets: median {old_corners} hull corners with today's costing, \
         {new_corners} street-level; sets stopped by the search budget before finding every \
         corner: {old_stopped} and {new_stopped}."
    );
    let _ = writeln!(
        out,
        "\nThe trade-off's route within +x % is the least exposed route of the set (its hull \
         corners, unthinned) at most x % longer than the shortest ({}).\n",
        STRETCHES_PCT.map(|p| format!("+{p} %")).join(", ")
    );
}

/// The table of aims.
fn aims(out: &mut String, report: &Report) {
    out.push_str("| aim | incidents | measured | needed | |\n|---|---|---|---|---|\n");
    for aim in &report.aims {
        let set = if aim.set == IncidentSet::Street.key() {
            IncidentSet::Street.label()
        } else {
            IncidentSet::All.label()
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} | ≥ {} | {} |",
            aim.what,
            set,
            pct(aim.value),
            pct(aim.threshold),
            if aim.met { "met" } else { "not met" },
        );
    }
}

/// `doc` with the text between its [`START`] and [`END`] lines replaced by `body`.
///
/// # Errors
/// When `doc` lacks either marker, or has them in the wrong order.
pub fn splice(doc: &str, body: &str) -> Result<String, String> {
    let start = doc
        .find(START)
        .ok_or_else(|| format!("no {START} marker"))?;
    let after_start = start + START.len();
    let end = doc[after_start..]
        .find(END)
        .map(|i| after_start + i)
        .ok_or_else(|| format!("no {END} marker after {START}"))?;
    let body = body.trim_end_matches('\n');
    Ok(format!("{}\n{body}\n{}", &doc[..after_start], &doc[end..]))
}

/// The text between `doc`'s markers, as [`splice`] writes it (`None` without them).
#[must_use]
pub fn current(doc: &str) -> Option<&str> {
    let start = doc.find(START)? + START.len();
    let end = start + doc[start..].find(END)?;
    Some(doc[start..end].trim_matches('\n'))
}

#[cfg(test)]
mod tests;
