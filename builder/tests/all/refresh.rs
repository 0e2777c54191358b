//! `hexrisk-build refresh` on real data: the shared files are cut at a date into a
//! temporary folder (never into the repository), the part up to the cut is built,
//! and the rest is handed to refresh.

// Fixtures are written straight into temporary folders.
#![allow(clippy::disallowed_methods)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use chrono::{Days, NaiveDate};
use hexrisk_builder::fit::city_build::CityBuild;
use hexrisk_builder::inputs::config::{self, CityConfig, Span};
use hexrisk_builder::inputs::data;
use hexrisk_builder::inputs::intake::take_in::{Offered, Status};
use hexrisk_builder::inputs::intake::{CityIntake, IntakeError};
use hexrisk_builder::outputs::history::{Built, History};
use hexrisk_builder::outputs::{artifacts, model_card, prune};
use hexrisk_builder::pipeline;
use hexrisk_builder::refit::{self, Paths, RefreshError, Refreshed, Stage};
use hexrisk_engine::artifact::{self, CityArtifact};
use indicatif::ProgressBar;

use crate::support::full_builds::full_build;

fn data_dir() -> PathBuf {
    data::workspace_data_dir()
}

fn city(code: &str) -> CityConfig {
    config::load_all(&config::default_config_dir())
        .unwrap()
        .into_iter()
        .find(|c| c.code == code)
        .unwrap()
}

fn date(y: i32, m: u32, d: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(y, m, d).unwrap()
}

/// How a file spells its dates.
type DateOf = fn(&str) -> Option<NaiveDate>;

fn slashed(text: &str) -> Option<NaiveDate> {
    NaiveDate::parse_from_str(text.get(..10)?, "%Y/%m/%d").ok()
}

fn iso(text: &str) -> Option<NaiveDate> {
    NaiveDate::parse_from_str(text.trim(), "%Y-%m-%d").ok()
}

fn toronto_epoch_ms(text: &str) -> Option<NaiveDate> {
    let millis = text.trim().parse::<i64>().ok()?;
    Some(
        chrono::DateTime::from_timestamp_millis(millis)?
            .with_timezone(&chrono_tz::America::Toronto)
            .date_naive(),
    )
}

/// Writes the rows of `inputs` (one header, the first file's) whose date in
/// `column` lies in `from..=to` to `out`; rows without a readable date go to the
/// part that starts at `NaiveDate::MIN`.
fn cut(
    inputs: &[PathBuf],
    column: &str,
    date_of: DateOf,
    (from, to): (NaiveDate, NaiveDate),
    out: &Path,
) -> usize {
    let mut writer = csv::Writer::from_path(out).unwrap();
    let mut written = 0;
    let mut header_written = false;
    for input in inputs {
        let reader: Box<dyn std::io::Read> = if input.extension().is_some_and(|e| e == "gz") {
            Box::new(flate2::read::GzDecoder::new(
                std::fs::File::open(input).unwrap(),
            ))
        } else {
            Box::new(std::fs::File::open(input).unwrap())
        };
        let mut reader = csv::ReaderBuilder::new().flexible(true).from_reader(reader);
        let headers = reader.headers().unwrap().clone();
        if !header_written {
            writer.write_record(&headers).unwrap();
            header_written = true;
        }
        let at = headers.iter().position(|h| h == column).unwrap();
        for record in reader.records() {
            let record = record.unwrap();
            let keep = match date_of(record.get(at).unwrap_or("")) {
                Some(d) => (from..=to).contains(&d),
                None => from == NaiveDate::MIN,
            };
            if keep {
                writer.write_record(&record).unwrap();
                written += 1;
            }
        }
    }
    writer.flush().unwrap();
    written
}

/// One source's files cut into `dir`: `<name>.base.csv` up to `cut_date`, and
/// `<name>.<i>.csv` for each later range.
struct Cut {
    base: PathBuf,
    later: Vec<PathBuf>,
}

fn cut_source(
    dir: &Path,
    name: &str,
    inputs: &[PathBuf],
    (column, date_of): (&str, DateOf),
    cut_date: NaiveDate,
    later: &[(NaiveDate, NaiveDate)],
) -> Cut {
    let base = dir.join(format!("{name}.base.csv"));
    cut(inputs, column, date_of, (NaiveDate::MIN, cut_date), &base);
    let later = later
        .iter()
        .enumerate()
        .map(|(i, &range)| {
            let path = dir.join(format!("{name}.{i}.csv"));
            cut(inputs, column, date_of, range, &path);
            path
        })
        .collect();
    Cut { base, later }
}

/// The city with its sources' files replaced by the cut bases (absolute paths, which
/// `data_dir.join` keeps) and its span ending at the cut.
fn based(mut city: CityConfig, cuts: &BTreeMap<String, Cut>, cut_date: NaiveDate) -> CityConfig {
    for (name, source) in &mut city.sources {
        source.files = vec![cuts[name].base.clone()];
    }
    city.span.end = cut_date;
    city
}

/// `hexrisk-build build` of one city into `out`, as the CLI does it.
fn build_into(city: &CityConfig, out: &Path) -> CityBuild {
    let build = pipeline::build_city(city, &data_dir(), &ProgressBar::hidden()).unwrap();
    let manifest = artifacts::write_artifacts(out, std::slice::from_ref(&build)).unwrap();
    History::record(
        out,
        &manifest,
        &[Built {
            build: &build,
            late_arrivals: 0,
            files_taken_in: 0,
        }],
    )
    .unwrap();
    build
}

fn run(
    city: &CityConfig,
    state: &Path,
    offered: &[Offered],
    hook: &mut dyn FnMut(Stage) -> Result<(), RefreshError>,
) -> Result<Refreshed, RefreshError> {
    refit::refresh(
        city,
        Paths {
            data_dir: &data_dir(),
            intake_dir: &state.join("intake"),
            out: &state.join("artifacts"),
            store_dir: None,
        },
        offered,
        hook,
        &ProgressBar::hidden(),
    )
}

fn no_hook() -> impl FnMut(Stage) -> Result<(), RefreshError> {
    |_| Ok(())
}

fn file(path: &Path) -> Offered {
    Offered {
        source: None,
        path: path.to_owned(),
    }
}

/// The current artifact of a city in an artifacts folder, decoded, with its bytes.
fn current_artifact(out: &Path, code: &str) -> (Vec<u8>, CityArtifact) {
    let manifest = artifacts::current_manifest(out).unwrap();
    let bytes = std::fs::read(out.join(&manifest.city(code).unwrap().file)).unwrap();
    let decoded = artifact::decode(&bytes).unwrap();
    (bytes, decoded)
}

/// Every file under the folders, with its bytes.
fn snapshot(dirs: &[&Path]) -> BTreeMap<PathBuf, Vec<u8>> {
    fn walk(dir: &Path, out: &mut BTreeMap<PathBuf, Vec<u8>>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.file_name() != Some(hexrisk_builder::outputs::lock::LOCK_FILE.as_ref()) {
                // The lock file (empty, created by the first writer to lock the
                // folder) holds no output.
                out.insert(path.clone(), std::fs::read(&path).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    for dir in dirs {
        walk(dir, &mut out);
    }
    out
}

/// Backtest figures compared through their bits, so NaN equals NaN.
fn figures(build: &CityBuild) -> String {
    format!("{:?}", build.backtest)
}

/// A build's accounting of its sources, without the ledgers (whose row positions
/// refer to the files read, which differ between a refresh and a whole build).
type Accounts = Vec<(
    String,
    u64,
    BTreeMap<hexrisk_engine::CrimeClass, u64>,
    BTreeMap<hexrisk_builder::inputs::cleaning::Rejection, u64>,
    [u64; 24],
    Vec<(NaiveDate, u8)>,
)>;

fn accounts(build: &CityBuild) -> Accounts {
    build
        .sources
        .iter()
        .map(|(name, r)| {
            (
                name.clone(),
                r.rows,
                r.accepted.clone(),
                r.rejected.clone(),
                r.hours,
                r.dated_hours.clone(),
            )
        })
        .collect()
}

/// Toronto routed over the hex lattice instead of the street network (the roads do not
/// depend on the incidents, and reading them three times would triple the time), over
/// its last three years with a year of backtest. Three builds over the configured
/// eight years took 105 s, the longest Rust test by far; the equivalence holds or fails
/// on any span (`make artifacts` builds the whole one).
fn toronto_recent_on_the_lattice() -> CityConfig {
    let configured = city("city_ca_tor");
    CityConfig {
        roads: None,
        places: None,
        span: Span {
            start: date(2019, 1, 1),
            ..configured.span
        },
        backtest_weeks: 52,
        ..configured
    }
}

#[test]
fn toronto_refreshed_from_a_cut_equals_a_build_over_the_whole_span() {
    let started = std::time::Instant::now();
    let tmp = tempfile::tempdir().unwrap();
    let data = data_dir();
    let toronto = toronto_recent_on_the_lattice();
    let cut_date = date(2021, 6, 30);
    let after = (cut_date + Days::new(1), NaiveDate::MAX);
    let mut cuts = BTreeMap::new();
    cuts.insert(
        "mci".to_owned(),
        cut_source(
            tmp.path(),
            "mci",
            &[
                data.join("toronto/mci_train.csv.gz"),
                data.join("toronto/mci_test.csv.gz"),
            ],
            ("occurrencedate", slashed),
            cut_date,
            &[after],
        ),
    );
    cuts.insert(
        "homicides".to_owned(),
        cut_source(
            tmp.path(),
            "homicides",
            &[data.join("toronto/homicides.csv")],
            ("OCC_DATE", toronto_epoch_ms),
            cut_date,
            &[after],
        ),
    );
    cuts.insert(
        "shootings".to_owned(),
        cut_source(
            tmp.path(),
            "shootings",
            &[data.join("toronto/shootings.csv")],
            ("OCC_DATE", iso),
            cut_date,
            &[after],
        ),
    );
    let base = based(toronto.clone(), &cuts, cut_date);
    let state = tmp.path().join("state");
    let out = state.join("artifacts");
    let first = build_into(&base, &out);
    assert_eq!(first.artifact.model.last_updated, date(2021, 6, 27));

    // The sources are found from the columns: no SOURCE= given.
    let offered: Vec<Offered> = cuts.values().map(|c| file(&c.later[0])).collect();
    let refreshed = run(&base, &state, &offered, &mut no_hook()).unwrap();
    let taken: BTreeMap<&str, u64> = refreshed
        .take_in
        .new_entries()
        .map(|(_, e)| (e.source.as_str(), e.new))
        .collect();
    assert_eq!(
        taken.keys().copied().collect::<Vec<_>>(),
        ["homicides", "mci", "shootings"]
    );
    assert!(taken["mci"] > 15_000, "{taken:?}");
    // Nothing is dated before the cut: no late arrivals.
    assert_eq!(refreshed.late_arrivals, 0);
    let current = refreshed.current.clone().unwrap();
    // The homicide and shooting files run to 2023 and 2024: the MCI holds the date.
    assert_eq!(current.data_through, date(2021, 12, 26));
    assert_eq!(refreshed.held_by.as_deref(), Some("mci"));

    let full = pipeline::build_city(&toronto, &data, &ProgressBar::hidden()).unwrap();
    let (bytes, decoded) = current_artifact(&out, "city_ca_tor");
    assert_eq!(decoded, full.artifact);
    assert_eq!(bytes, artifact::encode(&full.artifact).unwrap());
    let rebuilt = refreshed.build.as_ref().unwrap();
    assert_eq!(figures(rebuilt), figures(&full));
    assert_eq!(accounts(rebuilt), accounts(&full));

    // A later from-scratch build with the intake sees the same data.
    let intake = CityIntake::load(&state.join("intake"), "city_ca_tor").unwrap();
    assert_eq!(
        intake.ledger.version.as_deref(),
        Some(current.version.as_str())
    );
    let history = History::load(&out).unwrap();
    let versions: Vec<(&str, u64)> = history
        .versions
        .iter()
        .map(|v| (v.version.as_str(), v.late_arrivals))
        .collect();
    assert_eq!(versions.len(), 2, "{versions:?}");
    assert_eq!(versions[1].0, current.version);
    let card = model_card::markdown(std::slice::from_ref(rebuilt), &[toronto], &history);
    assert!(card.contains("## Version history"));
    assert!(card.contains(&format!("| `{}` | 2021-12-26 |", current.version)));
    eprintln!(
        "toronto equivalence: {:.1} s",
        started.elapsed().as_secs_f64()
    );
}

/// San Francisco cut at the end of September into a base and later parts.
struct SanFrancisco {
    tmp: tempfile::TempDir,
    city: CityConfig,
    later: Vec<PathBuf>,
}

impl SanFrancisco {
    /// The base and the parts `ranges` (after the cut), with the base built.
    fn built(ranges: &[(NaiveDate, NaiveDate)]) -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let cut_date = date(2012, 9, 30);
        let c = cut_source(
            tmp.path(),
            "incidents",
            &[data_dir().join("san_francisco/incidents_2012_sample.csv")],
            ("Date", iso),
            cut_date,
            ranges,
        );
        let later = c.later.clone();
        let cuts = BTreeMap::from([("incidents".to_owned(), c)]);
        let city = based(city("city_us_sfo"), &cuts, cut_date);
        build_into(&city, &tmp.path().join("state/artifacts"));
        Self { tmp, city, later }
    }

    fn state(&self) -> PathBuf {
        self.tmp.path().join("state")
    }

    fn out(&self) -> PathBuf {
        self.state().join("artifacts")
    }

    fn refresh(&self, files: &[&Path]) -> Result<Refreshed, RefreshError> {
        let offered: Vec<Offered> = files.iter().map(|p| file(p)).collect();
        run(&self.city, &self.state(), &offered, &mut no_hook())
    }

    /// Writes `text` as a file to offer.
    fn write(&self, name: &str, text: &str) -> PathBuf {
        let path = self.tmp.path().join(name);
        std::fs::write(&path, text).unwrap();
        path
    }
}

const OCT_TO_DEC: (NaiveDate, NaiveDate) = (
    NaiveDate::from_ymd_opt(2012, 10, 1).unwrap(),
    NaiveDate::from_ymd_opt(2012, 12, 31).unwrap(),
);

#[test]
fn late_arrivals_are_counted_and_land_in_their_own_week() {
    let tmp = tempfile::tempdir().unwrap();
    let source = [data_dir().join("san_francisco/incidents_2012_sample.csv")];
    let held_back = date(2012, 9, 15);
    let cut_date = date(2012, 9, 30);
    // The base lacks the rows of 15 September, which come late with the new weeks.
    let base = tmp.path().join("base.csv");
    let before = cut(
        &source,
        "Date",
        iso,
        (NaiveDate::MIN, held_back - Days::new(1)),
        &base,
    );
    let rest = tmp.path().join("rest.csv");
    cut(
        &source,
        "Date",
        iso,
        (held_back + Days::new(1), cut_date),
        &rest,
    );
    let late = tmp.path().join("late.csv");
    let late_rows = cut(&source, "Date", iso, (held_back, held_back), &late);
    let new = tmp.path().join("new.csv");
    cut(
        &source,
        "Date",
        iso,
        (cut_date + Days::new(1), NaiveDate::MAX),
        &new,
    );
    // One base file, one new file: concatenations of the cuts.
    let join = |parts: &[&Path], out: &Path| {
        let text: Vec<String> = parts
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let t = std::fs::read_to_string(p).unwrap();
                if i == 0 {
                    t
                } else {
                    t.split_once('\n').unwrap().1.to_owned()
                }
            })
            .collect();
        std::fs::write(out, text.concat()).unwrap();
    };
    join(&[&base, &rest], &tmp.path().join("base_all.csv"));
    join(&[&late, &new], &tmp.path().join("new_all.csv"));
    assert!(before > 0 && late_rows > 0);
    let cuts = BTreeMap::from([(
        "incidents".to_owned(),
        Cut {
            base: tmp.path().join("base_all.csv"),
            later: vec![],
        },
    )]);
    let sf = based(city("city_us_sfo"), &cuts, cut_date);
    let state = tmp.path().join("state");
    build_into(&sf, &state.join("artifacts"));
    let refreshed = run(
        &sf,
        &state,
        &[file(&tmp.path().join("new_all.csv"))],
        &mut no_hook(),
    )
    .unwrap();
    assert_eq!(refreshed.late_arrivals, late_rows as u64);
    let full = full_build("city_us_sfo");
    assert_eq!(refreshed.build.unwrap().artifact, full.artifact);
    let history = History::load(&state.join("artifacts")).unwrap();
    assert_eq!(
        history.versions.last().unwrap().late_arrivals,
        late_rows as u64
    );
}

#[test]
fn the_same_file_twice_changes_nothing_and_overlapping_files_count_once() {
    let started = std::time::Instant::now();
    // Parts: all of October to December; October-November; November-December.
    let sf = SanFrancisco::built(&[
        OCT_TO_DEC,
        (date(2012, 10, 1), date(2012, 11, 30)),
        (date(2012, 11, 1), date(2012, 12, 31)),
    ]);
    let whole = sf.refresh(&[&sf.later[0]]).unwrap();
    assert!(whole.build.is_some());
    let version = whole.current.clone().unwrap().version;
    assert_eq!(
        whole.current.as_ref().unwrap().data_through,
        date(2012, 12, 30)
    );

    let before = snapshot(&[&sf.state()]);
    let again = sf.refresh(&[&sf.later[0]]).unwrap();
    assert!(again.build.is_none());
    assert!(matches!(
        again.take_in.files[0].status,
        Status::AlreadyTakenIn(_)
    ));
    assert_eq!(
        snapshot(&[&sf.state()]),
        before,
        "a second refresh wrote something"
    );

    // The same span in two overlapping files, in a fresh state: the same version,
    // with November's rows counted once.
    let parts = SanFrancisco::built(&[
        (date(2012, 10, 1), date(2012, 11, 30)),
        (date(2012, 11, 1), date(2012, 12, 31)),
    ]);
    let first = parts.refresh(&[&parts.later[0]]).unwrap();
    let second = parts.refresh(&[&parts.later[1]]).unwrap();
    let Status::New(entry) = &second.take_in.files[0].status else {
        panic!("the second part was not taken in");
    };
    let november = cut(
        &[data_dir().join("san_francisco/incidents_2012_sample.csv")],
        "Date",
        iso,
        (date(2012, 11, 1), date(2012, 11, 30)),
        &parts.tmp.path().join("november.csv"),
    ) as u64;
    assert!(november > 0);
    assert_eq!(entry.duplicates, november);
    assert_eq!(entry.new, entry.rows - november);
    assert!(first.current.unwrap().version != version);
    assert_eq!(second.current.unwrap().version, version);
    let (one, _) = current_artifact(&sf.out(), "city_us_sfo");
    let (two, _) = current_artifact(&parts.out(), "city_us_sfo");
    assert_eq!(one, two);
    // The build accounts for them as duplicates.
    let report = &second.build.unwrap().sources["incidents"];
    assert_eq!(
        report
            .rejected
            .get(&hexrisk_builder::inputs::cleaning::Rejection::Duplicate),
        Some(&november)
    );
    eprintln!(
        "idempotence and overlap: {:.1} s",
        started.elapsed().as_secs_f64()
    );
}

#[test]
fn overlapping_houston_files_keep_identical_rows_once_each() {
    let started = std::time::Instant::now();
    let tmp = tempfile::tempdir().unwrap();
    let cut_date = date(2010, 6, 30);
    let source = [data_dir().join("houston/crime_2010.csv.gz")];
    let local = |text: &str| {
        let instant: chrono::DateTime<chrono::Utc> = text.trim().parse().ok()?;
        Some(
            instant
                .with_timezone(&chrono_tz::America::Chicago)
                .date_naive(),
        )
    };
    let c = cut_source(
        tmp.path(),
        "crime",
        &source,
        ("time", local),
        cut_date,
        &[
            (date(2010, 5, 1), date(2010, 7, 31)),
            (date(2010, 7, 1), NaiveDate::MAX),
        ],
    );
    let later = c.later.clone();
    let houston = based(
        city("city_us_hou"),
        &BTreeMap::from([("crime".to_owned(), c)]),
        cut_date,
    );
    let state = tmp.path().join("state");
    build_into(&houston, &state.join("artifacts"));
    // May and June are in the base already; July is in both files.
    let offered: Vec<Offered> = later.iter().map(|p| file(p)).collect();
    let refreshed = run(&houston, &state, &offered, &mut no_hook()).unwrap();
    let full = full_build("city_us_hou");
    let rebuilt = refreshed.build.unwrap();
    assert_eq!(rebuilt.artifact, full.artifact);
    assert_eq!(figures(&rebuilt), figures(full));
    let kept = |b: &CityBuild| b.sources["crime"].accepted_total();
    assert_eq!(kept(&rebuilt), kept(full));
    eprintln!("houston overlap: {:.1} s", started.elapsed().as_secs_f64());
}

fn refusal(result: Result<Refreshed, RefreshError>) -> String {
    match result {
        Err(RefreshError::Intake(err @ IntakeError::Refused { .. })) => err.to_string(),
        Err(other) => panic!("refused for another reason: {other}"),
        Ok(_) => panic!("a bad file was taken in"),
    }
}

#[test]
fn bad_files_are_refused_naming_file_line_and_column_and_nothing_is_written() {
    let started = std::time::Instant::now();
    let sf = SanFrancisco::built(&[OCT_TO_DEC]);
    let good = std::fs::read_to_string(&sf.later[0]).unwrap();
    let lines: Vec<&str> = good.lines().collect();
    let before = snapshot(&[&sf.state()]);
    let with_line = |n: usize, edit: &dyn Fn(&str) -> String| {
        let mut out: Vec<String> = lines.iter().map(|&l| l.to_owned()).collect();
        out[n - 1] = edit(lines[n - 1]);
        out.join("\n") + "\n"
    };

    let renamed = sf.write(
        "renamed.csv",
        &with_line(1, &|h| h.replace(",lat,", ",latitude,")),
    );
    let message = refusal(sf.refresh(&[&sf.later[0], &renamed]));
    assert!(
        message.contains("renamed.csv") && message.contains("line 1, column lat:"),
        "{message}"
    );

    // A mistyped source name is an unknown source, not a missing file.
    let typo = Offered::parse(&format!("incidnts={}", sf.later[0].display()), &sf.city);
    match run(&sf.city, &sf.state(), &[typo], &mut no_hook()) {
        Err(RefreshError::Intake(err @ IntakeError::UnknownSource { .. })) => {
            assert!(err.to_string().contains("has no source incidnts"), "{err}");
        }
        Err(other) => panic!("refused for another reason: {other}"),
        Ok(_) => panic!("a mistyped source was taken in"),
    }

    // Without the id columns its rows would be keyed by content, not as the rest.
    let no_id = sf.write(
        "no_id.csv",
        &with_line(1, &|h| h.replace("IncidntNum", "IncidentNumber")),
    );
    let message = refusal(sf.refresh(&[&no_id]));
    assert!(
        message.contains("no_id.csv") && message.contains("line 1, column IncidntNum: missing"),
        "{message}"
    );

    // The date of line 7 (the header is line 1).
    let bad_date = sf.write(
        "bad_date.csv",
        &with_line(7, &|l| l.replacen(",2012-1", ",2012-1x", 1)),
    );
    let message = refusal(sf.refresh(&[&bad_date]));
    assert!(
        message.contains("bad_date.csv") && message.contains("line 7, column Date:"),
        "{message}"
    );

    // A mistyped year: a date after today would move data-through years ahead.
    let future = sf.write(
        "future.csv",
        &with_line(9, &|l| l.replacen(",2012-1", ",2102-1", 1)),
    );
    let message = refusal(sf.refresh(&[&future]));
    assert!(
        message.contains("future.csv") && message.contains("line 9, column Date: date \"2102-1"),
        "{message}"
    );

    let bad_lat = sf.write("bad_lat.csv", &{
        let row: Vec<&str> = lines[20].split(',').collect();
        let lat = row[row.len() - 6];
        with_line(21, &|l| l.replace(lat, "37.7x"))
    });
    let message = refusal(sf.refresh(&[&bad_lat]));
    assert!(
        message.contains("bad_lat.csv") && message.contains("line 21, column lat:"),
        "{message}"
    );

    let far = sf.write("far.csv", &{
        let row: Vec<&str> = lines[2].split(',').collect();
        let lng = row[row.len() - 7];
        with_line(3, &|l| l.replace(lng, "-222.4"))
    });
    let message = refusal(sf.refresh(&[&far]));
    assert!(
        message.contains("far.csv")
            && message.contains("line 3, column lon: coordinate out of range"),
        "{message}"
    );

    // A file cut short mid-row.
    let truncated = sf.write("truncated.csv", &good[..good.len() - 40]);
    let message = refusal(sf.refresh(&[&truncated]));
    assert!(
        message.contains("truncated.csv") && message.contains(&format!("line {}", lines.len())),
        "{message}"
    );

    assert_eq!(
        snapshot(&[&sf.state()]),
        before,
        "a refused refresh wrote something"
    );
    eprintln!("refusals: {:.1} s", started.elapsed().as_secs_f64());
}

#[test]
fn a_refresh_stopped_midway_leaves_the_previous_version_whole() {
    let started = std::time::Instant::now();
    let sf = SanFrancisco::built(&[OCT_TO_DEC]);
    let before = snapshot(&[&sf.state()]);
    let manifest_path = sf.out().join(artifact::Manifest::FILE_NAME);
    let old_manifest = std::fs::read(&manifest_path).unwrap();
    let offered = [file(&sf.later[0])];

    // Stopped after the new artifact file is written, before ledger and manifest.
    let stop_at = |stage: Stage| {
        move |now: Stage| {
            if now == stage {
                Err(RefreshError::Stopped(now))
            } else {
                Ok(())
            }
        }
    };
    let stopped = run(
        &sf.city,
        &sf.state(),
        &offered,
        &mut stop_at(Stage::ArtifactsStaged),
    );
    assert!(matches!(
        stopped,
        Err(RefreshError::Stopped(Stage::ArtifactsStaged))
    ));
    let after = snapshot(&[&sf.state()]);
    for (path, bytes) in &before {
        assert_eq!(after.get(path), Some(bytes), "{} changed", path.display());
    }
    assert!(after.len() > before.len(), "the stop came before any write");
    assert_eq!(std::fs::read(&manifest_path).unwrap(), old_manifest);
    let intake = CityIntake::load(&sf.state().join("intake"), "city_us_sfo").unwrap();
    assert!(intake.ledger.files.is_empty());

    // The retry takes the file in and publishes.
    let done = run(&sf.city, &sf.state(), &offered, &mut no_hook()).unwrap();
    let version = done.current.unwrap().version;
    assert_ne!(std::fs::read(&manifest_path).unwrap(), old_manifest);

    // Stopped between ledger and manifest, in a fresh state: the ledger is ahead, and
    // a refresh offered the same file again (nothing new) publishes.
    let sf2 = SanFrancisco::built(&[OCT_TO_DEC]);
    let offered = [file(&sf2.later[0])];
    let manifest_path = sf2.out().join(artifact::Manifest::FILE_NAME);
    let old_manifest = std::fs::read(&manifest_path).unwrap();
    let stopped = run(
        &sf2.city,
        &sf2.state(),
        &offered,
        &mut stop_at(Stage::LedgerWritten),
    );
    assert!(matches!(
        stopped,
        Err(RefreshError::Stopped(Stage::LedgerWritten))
    ));
    assert_eq!(std::fs::read(&manifest_path).unwrap(), old_manifest);
    let healed = run(&sf2.city, &sf2.state(), &offered, &mut no_hook()).unwrap();
    assert!(matches!(
        healed.take_in.files[0].status,
        Status::AlreadyTakenIn(_)
    ));
    assert_eq!(healed.current.unwrap().version, version);

    // Stopped after the manifest, before the history: the version is current but not
    // in the history (nor the card); offering nothing new records it.
    let sf3 = SanFrancisco::built(&[OCT_TO_DEC]);
    let offered = [file(&sf3.later[0])];
    let stopped = run(
        &sf3.city,
        &sf3.state(),
        &offered,
        &mut stop_at(Stage::Published),
    );
    assert!(matches!(
        stopped,
        Err(RefreshError::Stopped(Stage::Published))
    ));
    let listed = |out: &Path| {
        History::load(out)
            .unwrap()
            .versions
            .iter()
            .any(|v| v.version == version)
    };
    assert!(!listed(&sf3.out()));
    let healed = run(&sf3.city, &sf3.state(), &offered, &mut no_hook()).unwrap();
    assert_eq!(healed.current.unwrap().version, version);
    assert!(listed(&sf3.out()), "the history lists the healed version");
    eprintln!("stops: {:.1} s", started.elapsed().as_secs_f64());
}

#[test]
fn prune_keeps_the_last_manifests_and_the_current_version() {
    let sf = SanFrancisco::built(&[
        (date(2012, 10, 1), date(2012, 11, 30)),
        (date(2012, 11, 1), date(2012, 12, 31)),
    ]);
    let first = artifacts::current_manifest(&sf.out()).unwrap();
    // While another writer holds the folder, refresh and prune wait their turn.
    let held = hexrisk_builder::outputs::lock::exclusive(&sf.out()).unwrap();
    assert!(matches!(
        sf.refresh(&[&sf.later[0]]),
        Err(RefreshError::Locked(_))
    ));
    assert!(matches!(
        prune::prune(&sf.out(), 1),
        Err(prune::PruneError::Locked(_))
    ));
    assert_eq!(artifacts::current_manifest(&sf.out()).unwrap(), first);
    drop(held);
    sf.refresh(&[&sf.later[0]]).unwrap();
    let second = artifacts::current_manifest(&sf.out()).unwrap();
    sf.refresh(&[&sf.later[1]]).unwrap();
    let third = artifacts::current_manifest(&sf.out()).unwrap();
    // The artifact and its grid file (the version without its road network).
    let files_of = |m: &artifact::Manifest| -> Vec<PathBuf> {
        let entry = m.city("city_us_sfo").unwrap();
        assert!(entry.grid.is_some(), "a city with roads has a grid file");
        entry.files().map(|f| sf.out().join(f)).collect()
    };
    let all_exist = |m: &artifact::Manifest| files_of(m).iter().all(|f| f.exists());
    let none_exist = |m: &artifact::Manifest| files_of(m).iter().all(|f| !f.exists());
    assert!(matches!(
        prune::prune(&sf.out(), 0),
        Err(prune::PruneError::KeepNone)
    ));

    let pruned = prune::prune(&sf.out(), 2).unwrap();
    assert_eq!(
        pruned.kept_manifests,
        [second.version.clone(), third.version.clone()]
    );
    assert!(none_exist(&first));
    assert!(all_exist(&second) && all_exist(&third));

    prune::prune(&sf.out(), 1).unwrap();
    assert!(none_exist(&second));
    assert!(all_exist(&third));
    assert_eq!(artifacts::current_manifest(&sf.out()).unwrap(), third);
    let listed: Vec<_> = std::fs::read_dir(sf.out().join(artifact::Manifest::HISTORY_DIR))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(
        listed,
        [std::ffi::OsString::from(format!("{}.json", third.version))]
    );
}

#[test]
fn an_unusable_manifest_is_replaced_only_when_every_city_it_names_is_rebuilt() {
    let out = tempfile::tempdir().unwrap();
    let build = full_build("city_us_sfo");
    let manifest_path = out.path().join(artifact::Manifest::FILE_NAME);
    let write = |manifest: &serde_json::Value| {
        std::fs::write(&manifest_path, serde_json::to_vec(manifest).unwrap()).unwrap();
    };
    let published = artifacts::write_artifacts(out.path(), std::slice::from_ref(build)).unwrap();
    let mut old: serde_json::Value = serde_json::to_value(&published).unwrap();
    old["format_version"] = serde_json::json!(1);

    // Another format naming a city that is not rebuilt: refused, nothing changes.
    let mut toronto = old["cities"][0].clone();
    toronto["code"] = serde_json::json!("city_ca_tor");
    old["cities"].as_array_mut().unwrap().push(toronto);
    write(&old);
    let refused = artifacts::write_artifacts(out.path(), std::slice::from_ref(build)).unwrap_err();
    assert!(
        refused
            .to_string()
            .contains("names cities not being rebuilt"),
        "{refused}"
    );
    assert_eq!(
        std::fs::read(&manifest_path).unwrap(),
        serde_json::to_vec(&old).unwrap(),
        "a refused build changed the manifest"
    );

    // A file that is no manifest at all: refused.
    std::fs::write(&manifest_path, b"{ not json").unwrap();
    let refused = artifacts::write_artifacts(out.path(), std::slice::from_ref(build)).unwrap_err();
    assert!(
        refused.to_string().contains("is not a manifest"),
        "{refused}"
    );

    // Another format naming only rebuilt cities: replaced.
    old["cities"].as_array_mut().unwrap().pop();
    write(&old);
    let replaced = artifacts::write_artifacts(out.path(), std::slice::from_ref(build)).unwrap();
    assert_eq!(replaced, published);
}
