//! `hexrisk-build`: the offline build CLI.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use hexrisk_builder::data;

/// Build hexrisk artifacts from real police data.
#[derive(Debug, Parser)]
#[command(version, about)]
struct Cli {
    /// Directory of the input data (the layout of `../shared/data`).
    #[arg(long, global = true, env = data::DATA_DIR_ENV, default_value = data::DEFAULT_DATA_DIR)]
    data_dir: PathBuf,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Check that every input file is present with the bytes SHA256SUMS names.
    VerifyData,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::VerifyData => match data::verify(&cli.data_dir) {
            Ok(checks) => {
                let bad: Vec<_> = checks.iter().filter(|c| !c.is_ok()).collect();
                for check in &bad {
                    let state = if check.actual.is_some() {
                        "changed"
                    } else {
                        "missing"
                    };
                    eprintln!("{state}: {}", check.path);
                }
                println!(
                    "{} of {} data files verified in {}",
                    checks.len() - bad.len(),
                    checks.len(),
                    cli.data_dir.display()
                );
                if bad.is_empty() {
                    ExitCode::SUCCESS
                } else {
                    ExitCode::FAILURE
                }
            }
            Err(err) => {
                eprintln!("error: {err}");
                ExitCode::FAILURE
            }
        },
    }
}
