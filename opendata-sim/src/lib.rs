//! A local open-data server for tests of hexrisk's incident connectors.
//!
//! It speaks the documented Socrata SODA 2.x (`GET /resource/<id>.json`) and ArcGIS REST
//! (FeatureServer/MapServer layer info and `query`) protocols over plain HTTP/1.1 on
//! 127.0.0.1, and replays real incidents from the shared data folder (given as a
//! parameter, never copied) on a simulated weekly clock, with injectable faults.
//!
//! # URL paths
//!
//! | feed | protocol | path |
//! |---|---|---|
//! | Toronto Major Crime Indicators | ArcGIS FeatureServer | `/toronto/arcgis/rest/services/Major_Crime_Indicators_Open_Data/FeatureServer/0` (and `.../0/query`) |
//! | San Francisco incident reports | Socrata | `/resource/wg3w-h783.json` |
//! | Houston NIBRS recent crime reports | ArcGIS MapServer | `/houston/arcgis/rest/services/HPD/NIBRS_Recent_Crime_Reports/MapServer/0` (and `.../0/query`) |
//! | control surface | JSON over GET | `/_sim/clock`, `/_sim/advance?weeks=n`, `/_sim/fault?...`, `/_sim/rows?dataset=..`, ... (see [`control`]) |
//!
//! Dataset names (for faults and the control surface): `Major_Crime_Indicators_Open_Data`,
//! `wg3w-h783`, `NIBRS_Recent_Crime_Reports`.
//!
//! # Where this server follows the real services
//!
//! Field names and types, Socrata row rendering (nulls omitted, numbers as strings,
//! floating timestamps without zone, `X-SODA2-Fields`/`X-SODA2-Types`, system fields with
//! `$select=:*, *`, `$limit` default 1000 and maximum 50,000, unstable order without
//! `$order`), ArcGIS paging (`resultOffset`/`resultRecordCount`, `maxRecordCount` 2000,
//! `exceededTransferLimit` at the top level of Esri JSON and under `properties` in
//! GeoJSON), Esri dates as UTC epoch milliseconds, ArcGIS errors with HTTP 200, the `1`
//! space `f=pjson` layout: all as the samples in `shared/api-samples` show them.
//!
//! # Where it goes beyond them (simulated, synthesized, or unconfirmed)
//!
//! * **Ids are synthesized**: Toronto `EVENT_UNIQUE_ID` (`GO-<year><row>`, unique here,
//!   not in the real layer), San Francisco `row_id` (real `IncidntNum` + a synthesized
//!   ordinal), Socrata `:id`/`:version`, ArcGIS `OBJECTID`.
//! * **Report and publication times are simulated** by a seeded script: Toronto
//!   `REPORT_DATE` and San Francisco `report_datetime` are the simulated publication
//!   date/time; the data files have no report times. Socrata `:created_at`/`:updated_at`
//!   come from the simulated clock.
//! * **Revisions, deletions and the wholesale replacement are simulated**: a seeded few
//!   rows a week get another category from the feed's own values or a point moved about
//!   50 m; a seeded few are deleted; one seeded week replaces the dataset wholesale.
//! * **The orders of change marks are simulated** (the samples show single rows, not
//!   how a publisher's batches land): each week a late-visible batch of revisions
//!   stamped one to 21 days back, rows re-stamped with no change, and one new row in 16
//!   with `:created_at` up to three hours either side of `:updated_at` ([`script`]).
//! * **Vocabularies are the data's, not today's services'**: San Francisco categories are
//!   the 2012 SFPD ones (`ASSAULT`), not wg3w-h783's (`Assault`, `Burglary`); Houston
//!   `USER_NIBRSClass` holds the 2010 offense words (`theft`), not NIBRS codes (`13A`).
//!   Only the fields the model needs are published, not the real layers' full lists.
//! * **Unconfirmed layer metadata**: no verbatim layer JSON of either ArcGIS layer was
//!   found; `currentVersion`, `maxRecordCount` 2000, `advancedQueryCapabilities` and the
//!   Esri field types follow ArcGIS defaults and the SOURCE notes' inferences.
//! * **Query subset**: Socrata `$where` supports only conjunctions of comparisons on
//!   `:updated_at`/`:created_at` and `=`/`IN (...)` on other columns ([`soql`]); ArcGIS
//!   `where` only `1=1`/`0=0`; `outSR` is ignored (always
//!   WGS84). Socrata error codes for unsupported queries and the 429 bodies are this
//!   server's choice; the `$limit` message follows a real answer.
//! * **Faults** ([`Fault`]) are this server's: 503 with an HTML body, 429 with
//!   `Retry-After`, truncated bodies, overlapping or skipping pages, private layers.
//!
//! # Modules
//!
//! In layers, each using only those below it: seeded hashing (`rng`), the [`schema`]
//! vocabulary, [`faults`] and HTTP messages (`message`) at the bottom; then the
//! [`dataset`] table, the real cities' feeds ([`replay`]) and the simulated timeline and
//! [`World`] ([`script`]); then the protocols (Esri encodings in `esri`, [`socrata`],
//! [`arcgis`]) and a dataset's whole content in either (`snapshot`); then the
//! [`control`] surface and the `router` choosing a handler; and the [`http`] server on
//! top.

// module-cycles: ordered. The modules in layers, lowest first: each uses only those
// declared above it (`scripts/module-cycles.py` checks). The blank lines keep
// rustfmt from sorting them.
mod rng;

pub mod schema;

pub mod faults;

mod message;

pub mod soql;

pub mod dataset;

pub mod replay;

pub mod script;

mod esri;

pub mod socrata;

pub mod arcgis;

mod snapshot;

pub mod control;

mod router;

pub mod http;

pub use dataset::Dataset;
pub use faults::{Fault, Faults, LogEntry};
pub use http::{Request, Response, Server};
pub use replay::{City, CityFeed, Incident};
pub use schema::{Field, FieldType, NewRow, Point, Protocol, Row, fixed_timestamp};
pub use script::{Script, WeekReport, World};
