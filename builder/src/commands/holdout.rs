//! `hexrisk-build holdout-routes`: street-level routing judged on incidents after a
//! cut (`holdout`), its JSON and its section of docs/ROUTING.md.

use std::path::Path;

use chrono::NaiveDate;

use crate::holdout;
use crate::inputs::config;

/// What `holdout-routes` measures, and where it writes.
#[derive(Debug)]
pub struct HoldoutRequest<'a> {
    /// The city: its code or its name (any case).
    pub city: &'a str,
    /// The last date the fit may use.
    pub cut: NaiveDate,
    /// The last held-out date (default: the end of the city's configured span).
    pub until: Option<NaiveDate>,
    /// Origin–destination pairs.
    pub pairs: usize,
    /// Random seed of the pairs.
    pub seed: u64,
    /// City configuration directory.
    pub config_dir: &'a Path,
    /// Output file.
    pub out: &'a Path,
    /// The document whose generated section gets the table (skipped when empty).
    pub doc: &'a Path,
    /// The command line that ran it, for the report.
    pub command: String,
}

/// `hexrisk-build holdout-routes`: the held-out route benchmark, written to
/// `request.out` and spliced into `request.doc` (unless empty).
///
/// # Errors
/// An unknown city, a failed fit, or an output that cannot be written.
pub fn holdout_routes(data_dir: &Path, args: &HoldoutRequest<'_>) -> anyhow::Result<()> {
    let configs = config::load_all(args.config_dir)?;
    let city = configs
        .iter()
        .find(|c| c.code == args.city || c.name.eq_ignore_ascii_case(args.city))
        .ok_or_else(|| anyhow::anyhow!("no configured city {}", args.city))?;
    let report = holdout::run(
        &holdout::Options {
            city,
            data_dir,
            cut: args.cut,
            until: args.until.unwrap_or(city.span.end),
            pairs: args.pairs,
            seed: args.seed,
            command: args.command.clone(),
        },
        &|line| println!("{line}"),
    )?;
    crate::atomic::write(args.out, &serde_json::to_vec_pretty(&report)?)?;
    println!("wrote {}", args.out.display());
    let section = holdout::markdown::section(&report);
    println!("{section}");
    if !args.doc.as_os_str().is_empty() {
        let doc = std::fs::read_to_string(args.doc)?;
        let doc = holdout::markdown::splice(&doc, &section)
            .map_err(|e| anyhow::anyhow!("{}: {e}", args.doc.display()))?;
        crate::atomic::write(args.doc, doc.as_bytes())?;
        println!("wrote the held-out section of {}", args.doc.display());
    }
    Ok(())
}
