//! `opendata-sim`: serve one city's replayed incident feed until killed.
//!
//! `opendata-sim --data-dir DIR --city toronto|san_francisco|houston --start YYYY-MM-DD
//! --seed N --port P` prints `listening on http://127.0.0.1:P` on one line, then serves.
//! Optional: `--no-lateness` (publication = occurrence), `--wholesale-week N|none`.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use chrono::NaiveDate;
use opendata_sim::{City, CityFeed, Script, Server, World};

const USAGE: &str = "usage: opendata-sim --data-dir DIR --city toronto|san_francisco|houston \
                     --start YYYY-MM-DD [--seed N] [--port P] [--no-lateness] [--wholesale-week N|none]";

struct Args {
    data_dir: PathBuf,
    city: City,
    start: NaiveDate,
    seed: u64,
    port: u16,
    lateness: bool,
    wholesale_week: Wholesale,
}

/// `--wholesale-week`: the script's seeded week, a given week, or never.
enum Wholesale {
    Seeded,
    Week(Option<u32>),
}

fn parse_args(mut args: impl Iterator<Item = String>) -> Result<Args, String> {
    let (mut data_dir, mut city, mut start) = (None, None, None);
    let (mut seed, mut port, mut lateness, mut wholesale_week) = (0, 0, true, Wholesale::Seeded);
    while let Some(flag) = args.next() {
        if flag == "--no-lateness" {
            lateness = false;
            continue;
        }
        if flag == "--help" || flag == "-h" {
            return Err(USAGE.to_owned());
        }
        let value = args
            .next()
            .ok_or_else(|| format!("{flag} needs a value\n{USAGE}"))?;
        match flag.as_str() {
            "--data-dir" => data_dir = Some(PathBuf::from(value)),
            "--city" => {
                city = Some(
                    City::parse(&value)
                        .ok_or_else(|| format!("unknown city {value:?}\n{USAGE}"))?,
                );
            }
            "--start" => {
                start = Some(
                    NaiveDate::parse_from_str(&value, "%Y-%m-%d")
                        .map_err(|e| format!("--start {value:?} is not YYYY-MM-DD: {e}"))?,
                );
            }
            "--seed" => {
                seed = value
                    .parse()
                    .map_err(|_| format!("--seed {value:?} is not a number"))?;
            }
            "--port" => {
                port = value
                    .parse()
                    .map_err(|_| format!("--port {value:?} is not a port number"))?;
            }
            "--wholesale-week" => {
                wholesale_week = Wholesale::Week(if value == "none" {
                    None
                } else {
                    Some(value.parse().map_err(|_| {
                        format!("--wholesale-week {value:?} is not a number or none")
                    })?)
                });
            }
            other => return Err(format!("unknown argument {other:?}\n{USAGE}")),
        }
    }
    Ok(Args {
        data_dir: data_dir.ok_or_else(|| format!("--data-dir is required\n{USAGE}"))?,
        city: city.ok_or_else(|| format!("--city is required\n{USAGE}"))?,
        start: start.ok_or_else(|| format!("--start is required\n{USAGE}"))?,
        seed,
        port,
        lateness,
        wholesale_week,
    })
}

fn main() -> ExitCode {
    let args = match parse_args(std::env::args().skip(1)) {
        Ok(a) => a,
        Err(msg) => {
            eprintln!("{msg}");
            return ExitCode::from(2);
        }
    };
    let feed = match CityFeed::load(args.city, &args.data_dir) {
        Ok(f) => f,
        Err(e) => {
            eprintln!(
                "cannot read the {:?} data under {}: {e}",
                args.city,
                args.data_dir.display()
            );
            return ExitCode::FAILURE;
        }
    };
    let mut script = if args.lateness {
        Script::new(feed, args.seed)
    } else {
        Script::without_lateness(feed, args.seed)
    };
    if let Wholesale::Week(week) = args.wholesale_week {
        script = script.with_wholesale_week(week);
    }
    let world = World::start_at(script, args.start).into_shared();
    let server = match Server::start_on(world, args.port) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("cannot listen on 127.0.0.1:{}: {e}", args.port);
            return ExitCode::FAILURE;
        }
    };
    println!("listening on {}", server.base_url());
    let _ = std::io::stdout().flush();
    loop {
        std::thread::park();
    }
}
