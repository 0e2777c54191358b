//! The seeded script: lateness, weekly publications, revisions, deletions, the wholesale
//! week, and a feed growing over HTTP.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use crate::support::cities::{fixture, many};
use crate::support::{at, enc, get};
use chrono::{Duration, NaiveDate};
use opendata_sim::{City, CityFeed, Script, Server, World};
use serde_json::json;

#[test]
fn lateness_is_seeded_and_bounded() {
    let dir = fixture();
    let script = Script::new(many(dir.path(), 2000), 5);
    let lags: Vec<i64> = script
        .feed()
        .incidents
        .iter()
        .map(|x| (x.published - x.occurred).num_minutes())
        .collect();
    let late = lags.iter().filter(|&&m| m >= 7 * 24 * 60).count();
    assert!((100..300).contains(&late), "about 10% late: {late}");
    assert!(lags.iter().all(|&m| (0..8 * 7 * 24 * 60).contains(&m)));
    let again: Vec<_> = Script::new(many(dir.path(), 2000), 5)
        .feed()
        .incidents
        .iter()
        .map(|x| x.published)
        .collect();
    let mine: Vec<_> = script
        .feed()
        .incidents
        .iter()
        .map(|x| x.published)
        .collect();
    assert_eq!(mine, again, "same seed, same script");
    let other: Vec<_> = Script::new(many(dir.path(), 2000), 6)
        .feed()
        .incidents
        .iter()
        .map(|x| x.published)
        .collect();
    assert_ne!(mine, other);
    let none = Script::without_lateness(many(dir.path(), 50), 5);
    assert!(
        none.feed()
            .incidents
            .iter()
            .all(|x| x.published == x.occurred)
    );
}

fn run(dir: &Path, seed: u64, weeks: u32) -> (World, Vec<opendata_sim::WeekReport>) {
    let script = Script::new(many(dir, 1000), seed).with_wholesale_week(None);
    let mut world = World::start_at(script, NaiveDate::from_ymd_opt(2014, 3, 1).expect("date"));
    let reports = (0..weeks).map(|_| world.advance_week()).collect();
    (world, reports)
}

#[test]
fn weeks_publish_revise_and_delete_deterministically() {
    let dir = fixture();
    let (world, reports) = run(dir.path(), 11, 22);
    let name = "Major_Crime_Indicators_Open_Data";
    let published: usize = reports.iter().map(|r| r.published).sum();
    let deleted: usize = reports.iter().map(|r| r.deleted).sum();
    let revised: usize = reports.iter().map(|r| r.revised).sum();
    let ds = world.dataset(name).expect("dataset");
    assert_eq!(published, 1000, "everything is out after 22 weeks");
    assert!(
        revised > 0 && deleted > 0,
        "{revised} revised, {deleted} deleted"
    );
    assert_eq!(ds.len(), 1000 - deleted);
    assert_eq!(world.clock(), at(2014, 3, 1, 5) + Duration::weeks(22));
    let original = many(dir.path(), 1000);
    let by_key: HashMap<&str, _> = original
        .incidents
        .iter()
        .map(|x| (x.key.as_str(), x))
        .collect();
    let (mut moved, mut moved_50m, mut recategorised) = (0, 0, 0);
    for row in ds.rows() {
        let first = by_key[row.key()];
        let cat = row.value(5).as_str().expect("category");
        assert!(
            ["Assault", "Robbery"].contains(&cat),
            "only the feed's own categories"
        );
        if row.value(5) != &first.values[5] {
            recategorised += 1;
        }
        let (p, q) = (row.point().expect("point"), first.point.expect("point"));
        if p != q {
            moved += 1;
            let metres =
                ((p.y - q.y) * 111_320.0).hypot((p.x - q.x) * 111_320.0 * q.y.to_radians().cos());
            // About 50 m per move (a row moved twice may be up to 100 m away).
            assert!(metres < 110.0, "{metres} m");
            if (45.0..55.0).contains(&metres) {
                moved_50m += 1;
            }
            assert_eq!(row.value(8), &json!(p.y), "LAT_WGS84 follows the point");
        }
    }
    assert!(
        moved_50m > 0 && moved_50m * 2 >= moved,
        "{moved_50m} of {moved} moved 50 m"
    );
    assert!(recategorised > 0);
    let (again, _) = run(dir.path(), 11, 22);
    assert_eq!(
        ds.current_rows(),
        again.dataset(name).expect("dataset").current_rows()
    );
}

#[test]
fn weeks_write_late_visible_batches_restamps_and_skewed_clocks() {
    let dir = fixture();
    let script = Script::new(many(dir.path(), 1000), 11).with_wholesale_week(None);
    let mut world = World::start_at(script, NaiveDate::from_ymd_opt(2014, 3, 1).expect("date"));
    let name = "Major_Crime_Indicators_Open_Data";
    let (mut late, mut restamped, mut below_mark) = (0, 0, 0);
    for _ in 0..10 {
        // The high-water mark a pull at the end of last week saw.
        let mark = world
            .dataset(name)
            .expect("dataset")
            .rows()
            .map(opendata_sim::Row::updated_at)
            .max();
        let before: HashMap<String, (i64, serde_json::Value)> = world
            .dataset(name)
            .expect("dataset")
            .rows()
            .map(|r| {
                (
                    r.key().to_owned(),
                    (r.updated_at(), json!([r.value(5), r.value(8)])),
                )
            })
            .collect();
        let report = world.advance_week();
        late += report.late_revised;
        restamped += report.restamped;
        for row in world.dataset(name).expect("dataset").rows() {
            let Some((stamp, values)) = before.get(row.key()) else {
                continue;
            };
            let changed = *values != json!([row.value(5), row.value(8)]);
            // Revised now, yet stamped below what last week's pull saw.
            if changed && row.updated_at() != *stamp && Some(row.updated_at()) < mark {
                below_mark += 1;
            }
        }
    }
    assert!(
        late >= 10 && restamped >= 10,
        "{late} late, {restamped} re-stamped"
    );
    assert!(
        below_mark > 0,
        "no revision stamped below an earlier high-water mark"
    );
    let skewed = world
        .dataset(name)
        .expect("dataset")
        .rows()
        .filter(|r| r.created_at() != r.updated_at() && r.created_at() > r.updated_at())
        .count();
    assert!(skewed > 0, "no :created_at after its :updated_at");
}

#[test]
fn the_scripted_wholesale_week_replaces_everything() {
    let dir = fixture();
    let script = Script::new(many(dir.path(), 300), 3).with_wholesale_week(Some(2));
    let mut world = World::start_at(script, NaiveDate::from_ymd_opt(2014, 3, 10).expect("date"));
    assert!(!world.advance_week().wholesale);
    let before: HashSet<i64> = world.datasets()[0]
        .rows()
        .map(opendata_sim::Row::objectid)
        .collect();
    assert!(world.advance_week().wholesale);
    let after: HashSet<i64> = world.datasets()[0]
        .rows()
        .map(opendata_sim::Row::objectid)
        .collect();
    assert!(before.is_disjoint(&after));
    // Publication order stays OBJECTID order, which the layer's default paging
    // relies on instead of sorting every page.
    let ids: Vec<i64> = world.datasets()[0]
        .rows()
        .map(opendata_sim::Row::objectid)
        .collect();
    assert!(
        ids.windows(2).all(|w| w[0] < w[1]),
        "rows out of OBJECTID order"
    );
    assert!(
        Script::new(many(dir.path(), 3), 3)
            .wholesale_week()
            .is_some_and(|w| (3..=10).contains(&w))
    );
}

#[test]
fn sf_feed_over_http_grows_week_by_week() {
    let dir = fixture();
    let feed = CityFeed::load(City::SanFrancisco, dir.path()).expect("loads");
    let world = World::start_at(
        Script::without_lateness(feed, 2),
        NaiveDate::from_ymd_opt(2012, 7, 20).expect("date"),
    );
    let server = Server::start(world.into_shared()).expect("server");
    let count = |server: &Server| {
        get(server, "/resource/wg3w-h783.json")
            .json()
            .as_array()
            .map_or(0, Vec::len)
    };
    assert_eq!(count(&server), 0);
    let adv = get(&server, "/_sim/advance?weeks=1").json();
    assert_eq!(adv["weeks"][0]["published"], json!(3));
    let deleted = adv["weeks"][0]["deleted"].as_u64().expect("deleted") as usize;
    assert_eq!(
        count(&server),
        3 - deleted,
        "the week's seeded deletions are gone"
    );
    let current = get(&server, "/_sim/rows?dataset=wg3w-h783").json();
    let expected = current
        .as_array()
        .expect("rows")
        .iter()
        .filter(|r| {
            r[":updated_at"]
                .as_str()
                .is_some_and(|t| t > "2012-07-25T00:00:00.000Z")
        })
        .count();
    let r = get(
        &server,
        &format!(
            "/resource/wg3w-h783.json?$where={}",
            enc(":updated_at > '2012-07-25T00:00:00Z'")
        ),
    );
    assert_eq!(r.json().as_array().map(Vec::len), Some(expected));
}
