//! `hexrisk-build operate`: its arguments, and the weekly update as a long-running
//! loop, for a host that keeps a process up rather than scheduling one (with cron,
//! run `update` and then `make publish` instead). Each round runs `update` over every
//! fed city and then the publish command; a failed round is reported and the loop
//! goes on. Rounds start `every` apart, however long each takes.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use super::update::{FedArgs, UpdateOptions, UpdatePaths, update};

/// `operate`'s arguments.
#[derive(Debug, clap::Args)]
pub struct OperateArgs {
    /// Time between the starts of two rounds: `7d`, `12h`, `30m`, `45s`.
    #[arg(long, default_value = "7d", value_parser = parse_every)]
    pub every: Duration,
    /// Stop after this many rounds (default: run on).
    #[arg(long)]
    pub rounds: Option<u32>,
    /// Shell command run after each round, for example
    /// `make publish PUBLISH_ARGS=--remote`.
    #[arg(long)]
    pub publish: Option<String>,
    /// The cities and where they are read and written.
    #[command(flatten)]
    pub fed: FedArgs,
}

impl OperateArgs {
    /// Runs `operate`.
    ///
    /// # Errors
    /// As [`operate`].
    pub fn run(&self, data_dir: &Path) -> anyhow::Result<bool> {
        operate(
            data_dir,
            &self.fed.paths(),
            &self.fed.cities,
            &Schedule {
                every: self.every,
                rounds: self.rounds,
                publish: self.publish.clone(),
                attempts: self.fed.attempts,
            },
        )
    }
}

/// How the loop runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Schedule {
    /// The time from the start of one round to the start of the next.
    pub every: Duration,
    /// Stop after this many rounds (tests, one-off runs); `None` runs on.
    pub rounds: Option<u32>,
    /// A shell command run after each round's update (`make publish
    /// PUBLISH_ARGS=--remote`); none publishes nothing.
    pub publish: Option<String>,
    /// Tries of each request to a service.
    pub attempts: u32,
}

/// A duration as `<n>d`, `<n>h`, `<n>m` or `<n>s`, for `--every`.
///
/// # Errors
/// The text, when it is not a positive whole number with one of those units.
pub fn parse_every(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let split = text.len().saturating_sub(1);
    let (number, unit) = text.split_at(split);
    let seconds_per = match unit {
        "d" => 86_400,
        "h" => 3_600,
        "m" => 60,
        "s" => 1,
        _ => return Err(format!("{text:?}: give a number and d, h, m or s (\"7d\")")),
    };
    match number.parse::<u64>() {
        Ok(n) if n > 0 => n
            .checked_mul(seconds_per)
            .map(Duration::from_secs)
            .ok_or_else(|| format!("{text:?} is too long")),
        _ => Err(format!(
            "{text:?}: give a positive whole number and d, h, m or s (\"7d\")"
        )),
    }
}

/// Runs the loop. Returns whether the last round succeeded.
///
/// # Errors
/// None of a round's own failures (they are reported and the loop goes on); only
/// an unusable configuration on the first round, which no later round would fix.
pub fn operate(
    data_dir: &Path,
    paths: &UpdatePaths<'_>,
    only: &[String],
    schedule: &Schedule,
) -> anyhow::Result<bool> {
    let mut round = 0u32;
    loop {
        let started = Instant::now();
        round += 1;
        println!("operate: round {round}");
        let options = UpdateOptions {
            now: None,
            attempts: schedule.attempts,
            // Only an operator at the keyboard accepts a mass deletion.
            accept_deletions: false,
        };
        let updated = match update(data_dir, paths, only, options) {
            Ok(all_good) => all_good,
            Err(err) if round == 1 => return Err(err),
            Err(err) => {
                eprintln!("operate: round {round} failed: {err:#}");
                false
            }
        };
        let published = schedule.publish.as_deref().is_none_or(|command| {
            match Command::new("sh").arg("-c").arg(command).status() {
                Ok(status) if status.success() => true,
                Ok(status) => {
                    eprintln!("operate: publishing ({command}) ended with {status}");
                    false
                }
                Err(err) => {
                    eprintln!("operate: cannot run {command}: {err}");
                    false
                }
            }
        });
        let good = updated && published;
        if schedule.rounds.is_some_and(|n| round >= n) {
            return Ok(good);
        }
        std::thread::sleep(schedule.every.saturating_sub(started.elapsed()));
    }
}

#[cfg(test)]
mod tests;
