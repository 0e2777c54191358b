//! `hexrisk-build holdout-routes` on the command line: its arguments, the held-out
//! route benchmark they ask of `holdout/`, its JSON and its section of
//! docs/ROUTING.md.

use std::path::{Path, PathBuf};

use chrono::NaiveDate;

use crate::holdout;
use crate::inputs::config;

/// `holdout-routes`' arguments.
#[derive(Debug, clap::Args)]
pub struct HoldoutRoutesArgs {
    /// The city: its code or its name (any case).
    #[arg(long, default_value = "toronto")]
    pub city: String,
    /// The last date the fit may use.
    #[arg(long, default_value = "2019-12-31")]
    pub cut: NaiveDate,
    /// The last held-out date (default: the end of the city's configured span).
    #[arg(long)]
    pub until: Option<NaiveDate>,
    /// Origin–destination pairs.
    #[arg(long, default_value_t = 300)]
    pub pairs: usize,
    /// Random seed of the pairs.
    #[arg(long, default_value_t = 2020)]
    pub seed: u64,
    /// City configuration directory.
    #[arg(long, default_value_os_t = config::default_config_dir())]
    pub config_dir: PathBuf,
    /// Output file.
    #[arg(long, default_value = "build/bench/holdout-routes.json")]
    pub out: PathBuf,
    /// The document whose generated section gets the table (skipped when empty).
    #[arg(
        long,
        default_value = "docs/ROUTING.md",
        value_parser = clap::builder::TypedValueParser::map(clap::builder::OsStringValueParser::new(), PathBuf::from)
    )]
    pub doc: PathBuf,
}

impl HoldoutRoutesArgs {
    /// Runs `holdout-routes`, with this process's command line for the report.
    ///
    /// # Errors
    /// As [`holdout_routes`].
    pub fn run(&self, data_dir: &Path) -> anyhow::Result<bool> {
        holdout_routes(
            data_dir,
            &HoldoutRequest {
                city: &self.city,
                cut: self.cut,
                until: self.until,
                pairs: self.pairs,
                seed: self.seed,
                config_dir: &self.config_dir,
                out: &self.out,
                doc: &self.doc,
                command: std::iter::once("hexrisk-build".to_owned())
                    .chain(std::env::args().skip(1))
                    .collect::<Vec<_>>()
                    .join(" "),
            },
        )
        .map(|()| true)
    }
}

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
