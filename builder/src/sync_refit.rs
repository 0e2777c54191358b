//! The sync-and-refit procedure of one fed city: every fed source synced from its
//! service, the city refitted (`refit.rs`) when a sync changed its data, and its
//! freshness record (last sync, staleness limit, failing feeds) published with the
//! manifest. The CLI's half of `update` (its arguments and lines) is
//! `commands/update.rs`.
//!
//! Each source syncs on its own: one that fails is reported, naming it, and the
//! others go on. A rebuild reads the store as the failed sync left it (every row
//! in it is one the service served; a failed pull never deletes), so a failure
//! never replaces a good model with a worse one: at worst the city keeps its
//! current version. What failed, and since when, goes into the manifest, which
//! the Worker's health reads (docs/REFRESH.md).

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use hexrisk_engine::artifact::{
    DivergingFeed, FailingFeed, Freshness, MAX_UNMAPPED_LISTED, UnmappedOffence,
};
use indicatif::ProgressBar;

use crate::feeds::http::HttpClient;
use crate::feeds::sync::{self, SyncError, SyncOptions, Synced};
use crate::inputs::config::{CityConfig, SourceConfig};
use crate::outputs::artifacts;
use crate::refit::{self, Paths, RefreshError, Refreshed};
use crate::store::{IncidentStore, StoreError};

/// What an update did for one city.
#[derive(Debug)]
pub struct CityUpdate {
    /// Each fed source and how its sync went, in source order.
    pub syncs: Vec<(String, Result<Synced, SyncError>)>,
    /// The refresh that followed: `Ok` with what it published (nothing when the
    /// data did not change), or why the rebuild failed.
    pub refreshed: Result<Refreshed, RefreshError>,
    /// Whether the manifest was published again for a changed freshness record.
    pub freshness_published: bool,
}

/// A city that cannot be updated at all.
#[derive(Debug, thiserror::Error)]
pub enum UpdateError {
    /// The city has no fed source.
    #[error("{0} has no source with a feed")]
    NotFed(String),
    /// Its time zone is unknown.
    #[error("{code}: unknown time zone {timezone}")]
    TimeZone {
        /// The city.
        code: String,
        /// The configured zone.
        timezone: String,
    },
    /// Its store cannot be opened.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The freshness record could not be published.
    #[error("publishing the freshness record: {0:#}")]
    Publish(anyhow::Error),
}

/// Syncs, rebuilds when needed, and publishes the freshness of city `city`, at
/// `now` (the wall clock, or a simulated one).
///
/// # Errors
/// [`UpdateError`] when nothing can be done for the city; a failed sync or rebuild
/// is reported in [`CityUpdate`] instead.
pub fn update_city(
    city: &CityConfig,
    paths: Paths<'_>,
    client: &HttpClient,
    now: DateTime<Utc>,
    options: SyncOptions,
) -> Result<CityUpdate, UpdateError> {
    let tz: Tz = city.timezone.parse().map_err(|_| UpdateError::TimeZone {
        code: city.code.clone(),
        timezone: city.timezone.clone(),
    })?;
    let store_dir = paths
        .store_dir
        .ok_or_else(|| UpdateError::NotFed(city.code.clone()))?;
    let fed: Vec<_> = city
        .sources
        .iter()
        .filter_map(|(name, source)| source.feed.as_ref().map(|feed| (name, feed)))
        .collect();
    if fed.is_empty() {
        return Err(UpdateError::NotFed(city.code.clone()));
    }
    let mut store = IncidentStore::open(store_dir, &city.code)?;
    let syncs = fed
        .iter()
        .map(|(name, feed)| {
            let result = sync::sync_source(&mut store, name, feed, tz, client, now, options);
            ((*name).clone(), result)
        })
        .collect();
    let freshness = freshness_of(&store, city)?;
    drop(store);
    let refreshed = refit::refresh(city, paths, &[], &mut |_| Ok(()), &ProgressBar::hidden());
    let freshness_published = artifacts::publish_freshness(paths.out, &city.code, Some(freshness))
        .map_err(UpdateError::Publish)?
        .is_some();
    Ok(CityUpdate {
        syncs,
        refreshed,
        freshness_published,
    })
}

/// The city's freshness record from its store.
///
/// # Errors
/// [`StoreError`] when the store cannot be read.
pub fn freshness_of(store: &IncidentStore, city: &CityConfig) -> Result<Freshness, StoreError> {
    let mut failing = Vec::new();
    let mut diverging = Vec::new();
    let mut unmapped = Vec::new();
    let mut last_sync: Option<Option<String>> = None;
    let mut stale_after_days = u32::MAX;
    for (name, source) in &city.sources {
        let Some(feed) = &source.feed else {
            continue;
        };
        stale_after_days =
            stale_after_days.min(feed.lag_days.saturating_add(feed.stale_after_days));
        let success = store.freshness(name)?.last_success;
        // The oldest success over the feeds; never, if one has never synced.
        last_sync = Some(match (last_sync, success) {
            (None, success) => success,
            (Some(Some(a)), Some(b)) => Some(a.min(b)),
            _ => None,
        });
        if let Some((error, since)) = store.failure(name)? {
            failing.push(FailingFeed {
                error,
                since,
                source: name.clone(),
            });
        }
        let divergence = store.divergence(name)?;
        if divergence.pulls_repairing > 0 {
            diverging.push(DivergingFeed {
                last_sync: divergence.last,
                repaired: divergence.recent,
                source: name.clone(),
                syncs: divergence.pulls,
                syncs_repairing: divergence.pulls_repairing,
            });
        }
        unmapped.extend(unmapped_offences(store, name, source)?);
    }
    Ok(Freshness {
        diverging,
        failing,
        last_sync: last_sync.flatten(),
        stale_after_days,
        unmapped,
    })
}

/// The offence values a fed source's store holds that its mapping (the feed's
/// vocabulary) does not name, most rows first, at most [`MAX_UNMAPPED_LISTED`].
fn unmapped_offences(
    store: &IncidentStore,
    name: &str,
    source: &SourceConfig,
) -> Result<Vec<UnmappedOffence>, StoreError> {
    let read = source.as_read(true);
    let mut rows: BTreeMap<String, u64> = BTreeMap::new();
    for (offence, description, count) in store.offence_counts(name)? {
        if read.map(&offence, description.as_deref()).is_none() {
            *rows.entry(offence).or_default() += count;
        }
    }
    let mut values: Vec<UnmappedOffence> = rows
        .into_iter()
        .map(|(value, rows)| UnmappedOffence {
            rows,
            source: name.to_owned(),
            value,
        })
        .collect();
    // Most rows first; the value breaks ties so the manifest is stable.
    values.sort_by(|a, b| b.rows.cmp(&a.rows).then_with(|| a.value.cmp(&b.value)));
    values.truncate(MAX_UNMAPPED_LISTED);
    Ok(values)
}
