//! Small hand-made files in the real formats of the shared data, written to a temporary
//! folder, for the replay and script tests.
#![allow(clippy::disallowed_methods)] // test fixtures written into a temporary folder

use std::io::Write;
use std::path::Path;

use chrono::Duration;
use flate2::Compression;
use flate2::write::GzEncoder;
use opendata_sim::{City, CityFeed};
use serde_json::json;

const TORONTO: &str = "occurrencedate,occurrencehour,premises_type,occurrencemonth,occurrencedayofweek,MCI,Neighbourhood,occurrenceday,occurrencedayofyear,Pub_Id,Park_Id,PS_Id,Lat,Long
2014/03/02 05:00:00+00,8,House,March,Sunday    ,Assault,West Humber-Clairville,2,61,0,0,0,43.73401277,-79.59033164
2014/07/01 04:00:00+00,22,Commercial,July,Tuesday   ,Robbery,Annex,1,182,0,0,0,43.67,-79.40
2014/07/03 04:00:00+00,0,Outside,July,Thursday  ,Auto Theft,Annex,3,184,0,0,0,43.671,-79.401
";
const TORONTO_TEST: &str = "occurrencedate,occurrencehour,premises_type,occurrencemonth,occurrencedayofweek,MCI,Neighbourhood,occurrenceday,occurrencedayofyear,Pub_Id,Park_Id,PS_Id,Lat,Long
2014/07/04 04:00:00+00,13,Apartment,July,Friday    ,Break and Enter,Annex,4,185,0,0,0,43.672,-79.402
";
const SF: &str = "IncidntNum,Category,Descript,DayOfWeek,Date,Time,PdDistrict,Resolution,Location,lon,lat,violent,HrOfDay,TimeOfDay,HourOfWeek,censusBlock
120621114,ASSAULT,STALKING,Saturday,2012-07-21,00:01,PARK,NONE,MCALLISTER ST / BRODERICK ST,-122.440030415903,37.7775861616294,TRUE,00,0.016666666666666666,24.016666666666666,06075015802
120621114,ASSAULT,BATTERY,Saturday,2012-07-21,00:01,PARK,NONE,MCALLISTER ST / BRODERICK ST,-122.440030415903,37.7775861616294,TRUE,00,0.016666666666666666,24.016666666666666,06075015802
120328627,OTHER OFFENSES,FAILURE TO HEED RED LIGHT AND SIREN,Wednesday,2012-07-25,17:29,MISSION,NONE,16TH ST / BRYANT ST,-122.410488829308,37.7656058638705,FALSE,17,17.48,137.48,06075017700
";
const HOUSTON: &str = "time,date,hour,premise,offense,beat,block,street,type,suffix,number,month,day,location,address,lon,lat
2010-01-01T06:00:00Z,1/1/2010,0,18A,murder,15E30,9600-9699,marlive,ln,-,1,january,friday,apartment parking lot,9650 marlive ln,-95.4373883,29.6779015
2010-01-02T03:00:00Z,1/1/2010,21,080,theft,12D70,300-399,baybrook mall,,-,1,january,friday,department / discount store, 350 baybrook mall,-95.1460965,29.5395297
2010-02-24T23:00:00Z,2/24/2010,17,20R,robbery,16E20,3600-3699,gardenia bend,dr,-,1,february,wednesday,residence / house,3650 gardenia bend dr,,
";

pub fn gz(path: &Path, text: &str) {
    let mut enc = GzEncoder::new(
        std::fs::File::create(path).expect("create"),
        Compression::fast(),
    );
    enc.write_all(text.as_bytes()).expect("write");
    enc.finish().expect("finish");
}

pub fn fixture() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    for sub in ["toronto", "san_francisco", "houston"] {
        std::fs::create_dir_all(dir.path().join(sub)).expect("mkdir");
    }
    gz(&dir.path().join("toronto/mci_train.csv.gz"), TORONTO);
    gz(&dir.path().join("toronto/mci_test.csv.gz"), TORONTO_TEST);
    std::fs::write(
        dir.path().join("san_francisco/incidents_2012_sample.csv"),
        SF,
    )
    .expect("write");
    gz(&dir.path().join("houston/crime_2010.csv.gz"), HOUSTON);
    dir
}

/// A feed of `n` copies of one real-format incident, two hours apart.
pub fn many(dir: &Path, n: usize) -> CityFeed {
    let mut feed = CityFeed::load(City::Toronto, dir).expect("loads");
    let base = feed.incidents[0].clone();
    feed.incidents = (0..n)
        .map(|i| {
            let mut x = base.clone();
            x.key = format!("syn{i}");
            x.values[0] = json!(x.key);
            x.occurred = base.occurred + Duration::hours(2 * i64::try_from(i).expect("small"));
            x.published = x.occurred;
            if i % 2 == 1 {
                x.values[5] = json!("Robbery");
            }
            x
        })
        .collect();
    feed
}
