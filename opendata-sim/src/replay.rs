//! The three cities' incident feeds, built from the real shared data files and named as
//! the real services name their fields.
//!
//! * Toronto (ArcGIS FeatureServer, fields of the TPS Major Crime Indicators layer):
//!   `toronto/mci_train.csv.gz` then `mci_test.csv.gz`. `EVENT_UNIQUE_ID` is synthesized
//!   (`GO-<occurrence year><row number>`, unique here though not in the real layer);
//!   `OCC_DATE` is epoch ms of midnight Toronto time of the occurrence date (as the real
//!   layer), `OCC_HOUR` the hour as text, `MCI_CATEGORY` the `MCI` value,
//!   `PREMISES_TYPE`, `NEIGHBOURHOOD_140`, `LAT_WGS84`, `LONG_WGS84`, a point geometry.
//! * San Francisco (Socrata, columns of `wg3w-h783`): `san_francisco/incidents_2012_sample.csv`.
//!   `row_id` is the real `IncidntNum` followed by a synthesized 5-digit ordinal (the real
//!   one appends the incident code, which the 2012 file lacks); `incident_datetime` is the
//!   floating local timestamp of `Date` + `Time`; `incident_category` is the 2012 SFPD
//!   `Category` (upper case, e.g. `ASSAULT`: the real wg3w-h783 uses another vocabulary
//!   since 2018, e.g. `Burglary`), `incident_description`, `police_district` (also upper
//!   case here), `latitude`, `longitude`.
//! * Houston (ArcGIS MapServer, fields of HPD NIBRS Recent Crime Reports):
//!   `houston/crime_2010.csv.gz`. `USER_RMSOccurrenceDate` is epoch ms at 00:00 UTC of the
//!   local (Chicago) date, as the real sample shows; `USER_RMSOccurrenceHour` "00".."23";
//!   `USER_NIBRSClass` the 2010 `offense` word (the real layer sends NIBRS codes such as
//!   `13A`), `USER_Premise` (the 2010 premise code), `USER_Beat`; a point geometry.
//!
//! Report times are not in the data: the script sets each incident's publication instant
//! and from it the simulated `REPORT_DATE` (Toronto, midnight local of the publication
//! date) or `report_datetime` (San Francisco, local minute); Houston publishes none.
//! Rows that cannot be read are skipped and counted, never repaired. Reading the files
//! is this module's child `sources`.

use std::io;
use std::path::Path;

use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use serde_json::{Value, json};

use crate::dataset::Dataset;
use crate::schema::{Field, FieldType, NewRow, Point};

mod sources;

pub(crate) use self::sources::local_to_utc;
use self::sources::midnight;

/// One of the cities the server can replay.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum City {
    /// Toronto Police Major Crime Indicators (ArcGIS FeatureServer).
    Toronto,
    /// San Francisco Police incident reports (Socrata `wg3w-h783`).
    SanFrancisco,
    /// Houston Police NIBRS recent crime reports (ArcGIS MapServer).
    Houston,
}

impl City {
    /// `toronto`, `san_francisco` or `houston`.
    #[must_use]
    pub fn parse(name: &str) -> Option<City> {
        match name {
            "toronto" => Some(City::Toronto),
            "san_francisco" => Some(City::SanFrancisco),
            "houston" => Some(City::Houston),
            _ => None,
        }
    }
    /// The city's local time zone.
    #[must_use]
    pub fn tz(self) -> Tz {
        match self {
            City::Toronto => chrono_tz::America::Toronto,
            City::SanFrancisco => chrono_tz::America::Los_Angeles,
            City::Houston => chrono_tz::America::Chicago,
        }
    }
    /// The dataset name (faults and the control surface use it).
    #[must_use]
    pub fn dataset_name(self) -> &'static str {
        match self {
            City::Toronto => "Major_Crime_Indicators_Open_Data",
            City::SanFrancisco => "wg3w-h783",
            City::Houston => "NIBRS_Recent_Crime_Reports",
        }
    }
    /// The URL path of the city's feed.
    #[must_use]
    pub fn path(self) -> &'static str {
        match self {
            City::Toronto => {
                "/toronto/arcgis/rest/services/Major_Crime_Indicators_Open_Data/FeatureServer/0"
            }
            City::SanFrancisco => "/resource/wg3w-h783.json",
            City::Houston => {
                "/houston/arcgis/rest/services/HPD/NIBRS_Recent_Crime_Reports/MapServer/0"
            }
        }
    }
    fn fields(self) -> Vec<Field> {
        use FieldType::{Date, Double, Text};
        let list: &[(&str, FieldType)] = match self {
            City::Toronto => &[
                ("EVENT_UNIQUE_ID", Text),
                ("REPORT_DATE", Date),
                ("OCC_DATE", Date),
                ("OCC_HOUR", Text),
                ("PREMISES_TYPE", Text),
                ("MCI_CATEGORY", Text),
                ("NEIGHBOURHOOD_140", Text),
                ("LONG_WGS84", Double),
                ("LAT_WGS84", Double),
            ],
            City::SanFrancisco => &[
                ("incident_datetime", Date),
                ("report_datetime", Date),
                ("row_id", Text),
                ("incident_category", Text),
                ("incident_description", Text),
                ("police_district", Text),
                ("latitude", Double),
                ("longitude", Double),
            ],
            City::Houston => &[
                ("USER_RMSOccurrenceDate", Date),
                ("USER_RMSOccurrenceHour", Text),
                ("USER_NIBRSClass", Text),
                ("USER_Beat", Text),
                ("USER_Premise", Text),
            ],
        };
        list.iter().map(|&(n, k)| Field::new(n, k)).collect()
    }
}

/// One real incident, as the feed will publish it.
#[derive(Clone, Debug, PartialEq)]
pub struct Incident {
    /// The row key (Toronto `EVENT_UNIQUE_ID`, SF `row_id`, Houston `hou-<row>`).
    pub key: String,
    /// When it happened.
    pub occurred: DateTime<Utc>,
    /// When the simulated feed publishes it (the occurrence until a script sets it).
    pub published: DateTime<Utc>,
    /// Field values in the feed's schema order.
    pub values: Vec<Value>,
    /// Its location.
    pub point: Option<Point>,
}

/// A city's incidents and schema.
#[derive(Clone, Debug)]
pub struct CityFeed {
    /// The city.
    pub city: City,
    /// Incidents in file order.
    pub incidents: Vec<Incident>,
    /// Rows skipped because a needed value could not be read.
    pub skipped: usize,
    pub(crate) fields: Vec<Field>,
}

impl CityFeed {
    /// Reads the city's incident files from `data_dir` (the shared data folder).
    ///
    /// # Errors
    /// When a file is missing or is not readable CSV.
    pub fn load(city: City, data_dir: &Path) -> io::Result<CityFeed> {
        let mut feed = CityFeed {
            city,
            incidents: Vec::new(),
            skipped: 0,
            fields: city.fields(),
        };
        match city {
            City::Toronto => {
                for name in ["mci_train.csv.gz", "mci_test.csv.gz"] {
                    feed.load_toronto(&data_dir.join("toronto").join(name))?;
                }
            }
            City::SanFrancisco => {
                feed.load_sf(&data_dir.join("san_francisco/incidents_2012_sample.csv"))?;
            }
            City::Houston => feed.load_houston(&data_dir.join("houston/crime_2010.csv.gz"))?,
        }
        Ok(feed)
    }

    /// The feed's schema.
    #[must_use]
    pub fn fields(&self) -> &[Field] {
        &self.fields
    }

    /// An empty dataset with the feed's name, path, protocol and schema.
    #[must_use]
    pub fn empty_dataset(&self) -> Dataset {
        let c = self.city;
        match c {
            City::Toronto => Dataset::arcgis(
                c.dataset_name(),
                "Major Crime Indicators",
                c.path(),
                self.fields.clone(),
                true,
            ),
            City::SanFrancisco => Dataset::socrata(
                c.dataset_name(),
                "Police Department Incident Reports",
                self.fields.clone(),
            ),
            City::Houston => Dataset::arcgis(
                c.dataset_name(),
                "NIBRS Recent Crime Reports",
                c.path(),
                self.fields.clone(),
                true,
            )
            .with_display_field("USER_NIBRSClass"),
        }
    }

    /// The schema position of the category field the script revises.
    #[must_use]
    pub fn category_field(&self) -> usize {
        let name = match self.city {
            City::Toronto => "MCI_CATEGORY",
            City::SanFrancisco => "incident_category",
            City::Houston => "USER_NIBRSClass",
        };
        self.fields.iter().position(|f| f.name == name).unwrap_or(0)
    }

    /// The schema positions of longitude and latitude attributes, if the feed has them.
    #[must_use]
    pub fn coordinate_fields(&self) -> Option<(usize, usize)> {
        let (x, y) = match self.city {
            City::Toronto => ("LONG_WGS84", "LAT_WGS84"),
            City::SanFrancisco => ("longitude", "latitude"),
            City::Houston => return None,
        };
        let pos = |n: &str| self.fields.iter().position(|f| f.name == n);
        pos(x).zip(pos(y))
    }

    /// Sets an incident's publication instant and the simulated report field from it.
    pub fn set_published(&mut self, index: usize, at: DateTime<Utc>) {
        let tz = self.city.tz();
        let report = match self.city {
            City::Toronto => Some((
                "REPORT_DATE",
                json!(
                    local_to_utc(tz, midnight(at.with_timezone(&tz).date_naive()))
                        .timestamp_millis()
                ),
            )),
            City::SanFrancisco => Some((
                "report_datetime",
                json!(
                    at.with_timezone(&tz)
                        .format("%Y-%m-%dT%H:%M:00.000")
                        .to_string()
                ),
            )),
            City::Houston => None,
        };
        let pos = report
            .as_ref()
            .and_then(|(n, _)| self.fields.iter().position(|f| f.name == *n));
        if let Some(incident) = self.incidents.get_mut(index) {
            incident.published = at;
            if let (Some(i), Some((_, v))) = (pos, report) {
                incident.values[i] = v;
            }
        }
    }

    /// The incident as a row to publish.
    #[must_use]
    pub fn new_row(&self, incident: &Incident) -> NewRow {
        let fields = self
            .fields
            .iter()
            .zip(&incident.values)
            .map(|(f, v)| (f.name.clone(), v.clone()))
            .collect();
        NewRow {
            key: incident.key.clone(),
            fields,
            point: incident.point,
        }
    }
}
