//! Reading the shared data files into a [`CityFeed`]: gzip or plain CSV, columns by
//! header name, each city's columns mapped to its service's fields (see the parent,
//! [`crate::replay`]); and the local-time helpers the replay uses.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

use chrono::{DateTime, Datelike, NaiveDate, NaiveDateTime, NaiveTime, TimeZone, Utc};
use chrono_tz::Tz;
use flate2::read::GzDecoder;
use serde_json::{Map, Value, json};

use super::{City, CityFeed, Incident};
use crate::schema::Point;

/// Local wall-clock time to UTC; a time in a DST gap moves forward an hour.
pub(crate) fn local_to_utc(tz: Tz, t: NaiveDateTime) -> DateTime<Utc> {
    tz.from_local_datetime(&t)
        .earliest()
        .or_else(|| {
            tz.from_local_datetime(&(t + chrono::Duration::hours(1)))
                .earliest()
        })
        .map_or_else(|| t.and_utc(), |d| d.with_timezone(&Utc))
}

/// Midnight at the start of a date.
pub(crate) fn midnight(d: NaiveDate) -> NaiveDateTime {
    d.and_time(NaiveTime::MIN)
}

fn open_csv(path: &Path) -> io::Result<csv::Reader<Box<dyn Read>>> {
    let file = File::open(path)
        .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
    let reader: Box<dyn Read> = if path.extension().is_some_and(|e| e == "gz") {
        Box::new(GzDecoder::new(file))
    } else {
        Box::new(file)
    };
    Ok(csv::ReaderBuilder::new().flexible(true).from_reader(reader))
}

/// Reads rows of a CSV as maps from column name to text.
fn for_each_row(path: &Path, mut f: impl FnMut(&dyn Fn(&str) -> Option<String>)) -> io::Result<()> {
    let mut reader = open_csv(path)?;
    let headers = reader.headers().map_err(io::Error::other)?.clone();
    for record in reader.records() {
        let record = record.map_err(|e| io::Error::other(format!("{}: {e}", path.display())))?;
        let get = |name: &str| {
            let i = headers.iter().position(|h| h == name)?;
            record.get(i).map(|s| s.trim().to_owned())
        };
        f(&get);
    }
    Ok(())
}

fn text_or_null(v: Option<String>) -> Value {
    match v {
        Some(s) if !s.is_empty() && s != "NA" => Value::String(s),
        _ => Value::Null,
    }
}

fn number(v: Option<&String>) -> Option<f64> {
    v.and_then(|s| s.parse::<f64>().ok())
        .filter(|x| x.is_finite())
}

impl CityFeed {
    fn push(
        &mut self,
        key: String,
        occurred: DateTime<Utc>,
        fields: &Map<String, Value>,
        point: Option<Point>,
    ) {
        let values = self
            .fields
            .iter()
            .map(|f| fields.get(&f.name).cloned().unwrap_or(Value::Null))
            .collect();
        self.incidents.push(Incident {
            key,
            occurred,
            published: occurred,
            values,
            point,
        });
    }

    pub(crate) fn load_toronto(&mut self, path: &Path) -> io::Result<()> {
        let tz = City::Toronto.tz();
        let mut rows = Vec::new();
        for_each_row(path, |get| {
            let date = get("occurrencedate")
                .and_then(|s| NaiveDate::parse_from_str(s.get(..10)?, "%Y/%m/%d").ok());
            let hour = get("occurrencehour")
                .and_then(|s| s.parse::<u32>().ok())
                .filter(|h| *h < 24);
            let (lat, lon) = (get("Lat"), get("Long"));
            rows.push((
                date,
                hour,
                number(lat.as_ref()),
                number(lon.as_ref()),
                get("MCI"),
                get("premises_type"),
                get("Neighbourhood"),
            ));
        })?;
        for (date, hour, lat, lon, mci, premises, hood) in rows {
            let (Some(date), Some(hour)) = (date, hour) else {
                self.skipped += 1;
                continue;
            };
            let occ_midnight = local_to_utc(tz, midnight(date)).timestamp_millis();
            let occurred = local_to_utc(
                tz,
                date.and_time(NaiveTime::from_hms_opt(hour, 0, 0).unwrap_or(NaiveTime::MIN)),
            );
            let key = format!("GO-{}{:07}", date.year(), self.incidents.len() + 1);
            let fields = json!({
                "EVENT_UNIQUE_ID": key,
                "OCC_DATE": occ_midnight,
                "OCC_HOUR": hour.to_string(),
                "PREMISES_TYPE": text_or_null(premises),
                "MCI_CATEGORY": text_or_null(mci),
                "NEIGHBOURHOOD_140": text_or_null(hood),
                "LONG_WGS84": lon,
                "LAT_WGS84": lat,
            });
            let point = lon.zip(lat).map(|(x, y)| Point { x, y });
            self.push(
                key,
                occurred,
                fields.as_object().unwrap_or(&Map::new()),
                point,
            );
        }
        Ok(())
    }

    pub(crate) fn load_sf(&mut self, path: &Path) -> io::Result<()> {
        let tz = City::SanFrancisco.tz();
        let mut rows = Vec::new();
        for_each_row(path, |get| {
            let when = get("Date").zip(get("Time")).and_then(|(d, t)| {
                NaiveDateTime::parse_from_str(&format!("{d} {t}"), "%Y-%m-%d %H:%M").ok()
            });
            rows.push((
                when,
                get("IncidntNum"),
                get("Category"),
                get("Descript"),
                get("PdDistrict"),
                get("lat"),
                get("lon"),
            ));
        })?;
        let mut ordinals = std::collections::HashMap::<String, u32>::new();
        for (when, num, category, descript, district, lat, lon) in rows {
            let (Some(when), Some(num)) = (when, num.filter(|n| !n.is_empty())) else {
                self.skipped += 1;
                continue;
            };
            let ordinal = ordinals.entry(num.clone()).or_insert(0);
            *ordinal += 1;
            let key = format!("{num}{ordinal:05}");
            let fields = json!({
                "incident_datetime": when.format("%Y-%m-%dT%H:%M:%S%.3f").to_string(),
                "row_id": key,
                "incident_category": text_or_null(category),
                "incident_description": text_or_null(descript),
                "police_district": text_or_null(district),
                "latitude": number(lat.as_ref()),
                "longitude": number(lon.as_ref()),
            });
            self.push(
                key,
                local_to_utc(tz, when),
                fields.as_object().unwrap_or(&Map::new()),
                None,
            );
        }
        Ok(())
    }

    pub(crate) fn load_houston(&mut self, path: &Path) -> io::Result<()> {
        let tz = City::Houston.tz();
        let mut rows = Vec::new();
        for_each_row(path, |get| {
            let time = get("time")
                .and_then(|s| DateTime::parse_from_rfc3339(&s).ok())
                .map(|t| t.with_timezone(&Utc));
            let hour = get("hour")
                .and_then(|s| s.parse::<u32>().ok())
                .filter(|h| *h < 24);
            let (lon, lat) = (get("lon"), get("lat"));
            rows.push((
                time,
                hour,
                get("offense"),
                get("premise"),
                get("beat"),
                number(lon.as_ref()),
                number(lat.as_ref()),
            ));
        })?;
        for (n, (time, hour, offense, premise, beat, lon, lat)) in rows.into_iter().enumerate() {
            let (Some(time), Some(hour)) = (time, hour) else {
                self.skipped += 1;
                continue;
            };
            let local_date = time.with_timezone(&tz).date_naive();
            // Empty values are "" in the real layer, not null.
            let text = |v: Option<String>| Value::String(v.unwrap_or_default());
            let fields = json!({
                "USER_RMSOccurrenceDate": midnight(local_date).and_utc().timestamp_millis(),
                "USER_RMSOccurrenceHour": format!("{hour:02}"),
                "USER_NIBRSClass": text(offense),
                "USER_Beat": text(beat),
                "USER_Premise": text(premise),
            });
            let point = lon.zip(lat).map(|(x, y)| Point { x, y });
            self.push(
                format!("hou-{}", n + 1),
                time,
                fields.as_object().unwrap_or(&Map::new()),
                point,
            );
        }
        Ok(())
    }
}
