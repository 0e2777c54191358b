//! Rows synced from a source's feed into the city's incident store: once a feed
//! has a finished pull, its live records are the source's rows, in place of the
//! configured files and the files taken in (the feed publishes the whole history
//! the files held a cut of; reading both would count each incident twice).

use std::collections::BTreeMap;

use chrono::{DateTime, NaiveDate};
use chrono_tz::Tz;

use crate::inputs::config::CityConfig;
use crate::inputs::sources::RawRow;
use crate::store::record::FeedRecord;
use crate::store::{IncidentStore, StoreError};

/// One fed source's rows, as of its last finished pull.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FedRows {
    /// The records the source serves now, by id.
    pub records: Vec<FeedRecord>,
    /// The latest occurrence date among them, capped at the last pull's date.
    pub data_through: Option<NaiveDate>,
    /// The last pull that changed anything: the state a build was made from.
    pub state: i64,
}

impl FedRows {
    /// The rows for the build, in id order, with report times as local dates in
    /// `tz`.
    #[must_use]
    pub fn raw_rows(&self, tz: Tz) -> Vec<RawRow> {
        self.records
            .iter()
            .map(|r| RawRow {
                event_id: r.event.clone(),
                date: r.occurred_date,
                hour: r.occurred_hour,
                lat: r.lat,
                lng: r.lng,
                offence: r.offence.clone(),
                description: r.description.clone(),
                premises: r.premises.clone(),
                reported: r
                    .reported
                    .as_deref()
                    .and_then(|at| DateTime::parse_from_rfc3339(at).ok())
                    .map(|at| at.with_timezone(&tz).date_naive()),
            })
            .collect()
    }
}

/// The fed sources of `city` that have a finished pull in `store`.
///
/// # Errors
/// [`StoreError`] when the store cannot be read.
pub fn load(
    store: &IncidentStore,
    city: &CityConfig,
) -> Result<BTreeMap<String, FedRows>, StoreError> {
    let mut fed = BTreeMap::new();
    for (name, source) in &city.sources {
        if source.feed.is_none() {
            continue;
        }
        let Some(state) = store.last_changing_pull(name)? else {
            continue;
        };
        let freshness = store.freshness(name)?;
        fed.insert(
            name.clone(),
            FedRows {
                records: store.live_records(name)?,
                data_through: freshness.data_through,
                state,
            },
        );
    }
    Ok(fed)
}
