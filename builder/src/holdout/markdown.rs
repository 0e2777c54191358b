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
mod tests {
    use super::*;
    use crate::holdout::report::{
        self, Conditions, CostingRoutes, HeldOut, Measured, PairResult, Rejected, Seconds,
    };

    fn report() -> Report {
        let m = |length_m: f64, all: u32, street: u32| Measured {
            length_m,
            all,
            street,
        };
        let routes = |safest: Measured, within: [Measured; 3]| CostingRoutes {
            safest,
            within: within.to_vec(),
            corners: 4,
            complete: true,
        };
        let pairs = vec![
            PairResult {
                from: [43.65, -79.40],
                to: [43.70, -79.38],
                crow_m: 5_800.0,
                shortest: m(7_000.0, 70, 14),
                old: routes(
                    m(7_700.0, 63, 12),
                    [m(7_000.0, 70, 14), m(7_400.0, 66, 13), m(7_700.0, 63, 12)],
                ),
                new: routes(
                    m(9_800.0, 20, 2),
                    [m(7_300.0, 50, 9), m(7_650.0, 35, 7), m(8_200.0, 30, 5)],
                ),
            },
            PairResult {
                from: [43.75, -79.30],
                to: [43.72, -79.28],
                crow_m: 3_900.0,
                shortest: m(4_500.0, 0, 0),
                old: routes(m(4_600.0, 0, 0), [m(4_500.0, 0, 0); 3]),
                new: routes(
                    m(5_600.0, 1, 0),
                    [m(4_500.0, 0, 0), m(4_900.0, 1, 0), m(4_900.0, 1, 0)],
                ),
            },
        ];
        let kinds = report::kinds(&pairs);
        Report {
            conditions: Conditions {
                date: "2026-01-02".into(),
                machine: "2 × Test CPU".into(),
                command: "hexrisk-build holdout-routes --pairs 2".into(),
                city: "city_ca_tor".into(),
                city_name: "Toronto".into(),
                cut: "2019-12-31".into(),
                fit_from: "2014-01-06".into(),
                fit_through: "2019-12-29".into(),
                scoring_week: "2019-12-30".into(),
                held_out_from: "2020-01-01".into(),
                held_out_through: "2021-12-31".into(),
                pairs: pairs.len(),
                seed: 7,
                distance_m: [2_000.0, 10_000.0],
                buffer_m: 30.0,
                rejected: Rejected::default(),
                seconds: Seconds {
                    fit: 100.0,
                    held_out: 10.0,
                    routes: 20.0,
                    total: 130.0,
                },
            },
            held_out: HeldOut {
                all: 60_000,
                street: 15_000,
                positions: 12_000,
            },
            shortest: report::shortest(&pairs),
            aims: report::aims(&kinds),
            kinds,
            pairs,
        }
    }

    #[test]
    fn the_table_reads_its_figures_from_the_report() {
        let text = section(&report());
        // Today's trade-off within +10 %: 66 over 7.4 km against 10 per km; pooled,
        // 66 over 11.9 km against 70 over 11.5; 5.7 % and 0 % longer.
        assert!(
            text.contains(
                "| trade-off within +10 % | today's (cell rank) | 2.9 % | 10.8 % (8.9 %) | 12.2 % (10.3 %) |"
            ),
            "{text}"
        );
        // Street-level: 35 over 7.65 km, 54.2 % fewer; pooled 36 over 12.55 km;
        // 9.3 % and 8.9 % longer.
        assert!(
            text.contains(
                "| trade-off within +10 % | street-level | 9.1 % | 54.2 % (52.9 %) | 54.2 % (54.2 %) |"
            ),
            "{text}"
        );
        assert!(
            text.contains("| safest (α = 4) | street-level | 32.2 % |"),
            "{text}"
        );
        assert!(
            text.contains("1 of 2 (all incidents), 1 of 2 (street premises)"),
            "{text}"
        );
        assert!(text.contains("median 4 hull corners with today's costing, 4 street-level; sets stopped by the search budget before finding every corner: 0 and 0."), "{text}");
        // 54.2 % is at least 25 % and 3 × 10.81 % = 32.4 %.
        assert!(
            text.contains("at least 25 % fewer incidents per km than the shortest (median) | all incidents | 54.2 % | ≥ 25.0 % | met |"),
            "{text}"
        );
        assert!(
            text.contains("today's costing's (its trade-off within +10 %) | all incidents | 54.2 % | ≥ 32.4 % | met |"),
            "{text}"
        );
        assert!(
            text.contains("60000 in all, 15000 on street premises"),
            "{text}"
        );
        assert!(text.contains("2 random pairs 2–10 km apart"), "{text}");
    }

    #[test]
    fn splicing_replaces_only_the_marked_section_and_reads_back() {
        let doc = format!("# Title\n\nbefore\n\n{START}\nold table\n{END}\n\nafter\n");
        let new = splice(&doc, "new table\n").unwrap();
        assert_eq!(
            new,
            format!("# Title\n\nbefore\n\n{START}\nnew table\n{END}\n\nafter\n")
        );
        assert_eq!(current(&new), Some("new table"));
        assert_eq!(splice(&new, "new table").unwrap(), new);
        assert!(splice("no markers", "x").is_err());
        assert!(splice(&format!("{END}\n{START}\n"), "x").is_err());
    }

    #[test]
    fn a_report_read_back_from_json_gives_the_same_section() {
        let report = report();
        let json = serde_json::to_string(&report).unwrap();
        let back: Report = serde_json::from_str(&json).unwrap();
        assert_eq!(section(&back), section(&report));
    }
}
