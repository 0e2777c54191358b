//! The model versions an isolate serves: the manifest reread from the bucket at
//! most every [`StoreSettings::manifest_ttl_seconds`], each city decoded only when a
//! request needs it and kept in a bounded cache, and every new version checked
//! whole (length, SHA-256, full decode and validation) before any request sees it.
//!
//! A request takes a [`Snapshot`]: shared handles to the models it needs, each one
//! version, which later swaps cannot change. When a city's new version is missing
//! or corrupt the store keeps serving the last version of that city that worked
//! (or, in an isolate that has not loaded it yet, the version the previous manifest
//! named), and reports the failure in [`ModelStatus`] until a manifest replaces it.
//! A manifest that cannot be read or is invalid leaves the previous one in force.
//!
//! A request that needs what another request of the isolate is already reading (a
//! cold isolate's first manifest, a version being loaded) waits for it by checking
//! again every [`WAIT_STEP_MS`] on its own timer ([`ModelEnvironment::pause`]), never
//! on a promise another request settles: workerd cancels a request whose only
//! pending work belongs to another request, as hung (a 500 under load on a cold
//! isolate).
//!
//! The store reads through a [`ModelEnvironment`], which the API's
//! [`Backend`](super::backend::Backend) extends.
//!
//! module-cycles: ordered. Each module uses only those declared above it.

// Which cities a request needs, from its body or query.
pub mod needs;
// The decoded cities an isolate keeps, bounded.
pub mod cache;
// What the store reads through: the bucket, the clock, a pause.
mod environment;

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use chrono::{DateTime, Utc};
use hexrisk_engine::artifact::{self, Manifest, ManifestCity};
use hexrisk_engine::city::{Atlas, CityModel};

use self::cache::{CachedCity, CityCache};
use self::needs::CityNeeds;
use super::backend_error::BackendError;

pub use self::environment::ModelEnvironment;

/// Largest manifest read, in bytes (a manifest of a hundred cities is about 50 KB).
pub const MAX_MANIFEST_BYTES: u64 = 1 << 20;

/// Default seconds between rereads of the manifest.
pub const DEFAULT_MANIFEST_TTL_SECONDS: i64 = 30;

/// Default number of decoded cities an isolate keeps.
pub const DEFAULT_MAX_CITIES: usize = 8;

/// Milliseconds between two looks of a request waiting for another request's read.
pub const WAIT_STEP_MS: u32 = 5;

/// Longest wait for another request's read, in steps (5 s): past it, the request
/// reads for itself.
const MAX_WAIT_STEPS: u32 = 1_000;

/// The store's settings (Worker variables `HEXRISK_MANIFEST_TTL_SECONDS` and
/// `HEXRISK_MAX_CITIES`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StoreSettings {
    /// A manifest read this many seconds ago is read again on the next request.
    pub manifest_ttl_seconds: i64,
    /// At most this many decoded cities stay cached between requests.
    pub max_cities: usize,
}

impl Default for StoreSettings {
    fn default() -> Self {
        Self {
            manifest_ttl_seconds: DEFAULT_MANIFEST_TTL_SECONDS,
            max_cities: DEFAULT_MAX_CITIES,
        }
    }
}

impl StoreSettings {
    /// Settings from the Worker's variables; a missing or unreadable value takes
    /// its default.
    #[must_use]
    pub fn from_vars(ttl: Option<&str>, max_cities: Option<&str>) -> Self {
        let defaults = Self::default();
        Self {
            manifest_ttl_seconds: ttl
                .and_then(|v| v.trim().parse::<i64>().ok())
                .filter(|v| *v >= 0)
                .unwrap_or(defaults.manifest_ttl_seconds),
            max_cities: max_cities
                .and_then(|v| v.trim().parse::<usize>().ok())
                .filter(|v| *v > 0)
                .unwrap_or(defaults.max_cities),
        }
    }
}

/// The models one request reads, each at one version.
#[derive(Debug, Clone)]
pub struct Snapshot {
    /// The needed cities.
    pub atlas: Atlas,
    /// The label of the manifest in force.
    pub manifest_version: String,
    /// `(code, version)` of each city in the atlas, by code.
    pub versions: Vec<(String, String)>,
    /// `(code, publisher)` of each city in the atlas whose manifest entry names who
    /// publishes its incident data.
    pub publishers: Vec<(String, String)>,
}

/// A version that could not be used, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The city, or `None` for the manifest itself.
    pub city: Option<String>,
    /// The refused version label, when known.
    pub version: Option<String>,
    /// What was wrong.
    pub reason: String,
}

/// One city as health reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CityStatus {
    /// City code.
    pub code: String,
    /// The version the manifest names.
    pub version: String,
    /// The version answers come from: the manifest's, or an older one while the
    /// manifest's cannot be used; `None` before the city is first needed, and for a
    /// refused version with nothing to fall back on.
    pub serving: Option<String>,
    /// The last date of the data behind the manifest's version.
    pub data_through: chrono::NaiveDate,
    /// Grid cells.
    pub cells: u64,
    /// Precincts.
    pub precincts: u64,
    /// How the city's feeds stand, for a fed city (from the manifest).
    pub freshness: Option<hexrisk_engine::artifact::Freshness>,
}

/// What the store knows for the health endpoints.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelStatus {
    /// The label of the manifest in force.
    pub manifest_version: String,
    /// Each city of that manifest.
    pub cities: Vec<CityStatus>,
    /// Versions refused and still named by the manifest in force, or a manifest
    /// refused; non-empty means degraded.
    pub problems: Vec<Problem>,
}

#[derive(Debug, Clone)]
struct Failure {
    version: String,
    reason: String,
    at: DateTime<Utc>,
}

#[derive(Debug)]
struct State {
    manifest: Option<Arc<Manifest>>,
    previous: Option<Arc<Manifest>>,
    checked_at: Option<DateTime<Utc>>,
    manifest_problem: Option<String>,
    cache: CityCache,
    /// The last version of each city that decoded in this isolate.
    good: BTreeMap<String, ManifestCity>,
    /// The version of each city that last failed, while it is the manifest's.
    failures: BTreeMap<String, Failure>,
    /// `(code, version)` whose file has passed the length and digest checks.
    verified: BTreeSet<(String, String)>,
    /// Versions being loaded by a request of this isolate.
    loading: BTreeSet<(String, String)>,
    /// Whether a request is reading the manifest while none is in force.
    first_manifest_reading: bool,
}

/// The first manifest read of an isolate: when it ends (or its request is dropped
/// midway), the requests waiting for it look again.
struct ManifestReadGuard<'a> {
    state: &'a RefCell<State>,
}

impl Drop for ManifestReadGuard<'_> {
    fn drop(&mut self) {
        if let Ok(mut state) = self.state.try_borrow_mut() {
            if state.manifest.is_none() {
                // Nothing in force: the next request reads again.
                state.checked_at = None;
            }
            state.first_manifest_reading = false;
        }
    }
}

/// A loaded version, or why it cannot be used.
type Loaded = Result<Arc<CityModel>, String>;

/// A version this request is loading: when the load ends (or the request is
/// dropped midway, its client gone), the requests waiting for it look again, and
/// load it themselves if it is not in the cache.
struct LoadingGuard<'a> {
    state: &'a RefCell<State>,
    key: (String, String),
}

impl Drop for LoadingGuard<'_> {
    fn drop(&mut self) {
        if let Ok(mut state) = self.state.try_borrow_mut() {
            state.loading.remove(&self.key);
        }
    }
}

/// The isolate's model versions (see the module documentation).
#[derive(Debug)]
pub struct ModelStore {
    settings: StoreSettings,
    state: RefCell<State>,
}

fn models_error(reason: impl Into<String>) -> BackendError {
    BackendError::new("models", reason)
}

impl ModelStore {
    /// An empty store.
    #[must_use]
    pub fn new(settings: StoreSettings) -> Self {
        Self {
            settings,
            state: RefCell::new(State {
                manifest: None,
                previous: None,
                checked_at: None,
                manifest_problem: None,
                cache: CityCache::new(settings.max_cities),
                good: BTreeMap::new(),
                failures: BTreeMap::new(),
                verified: BTreeSet::new(),
                loading: BTreeSet::new(),
                first_manifest_reading: false,
            }),
        }
    }

    /// The settings.
    #[must_use]
    pub const fn settings(&self) -> StoreSettings {
        self.settings
    }

    /// The cached cities and versions, least recently used first.
    #[must_use]
    pub fn cached(&self) -> Vec<(String, String)> {
        self.state.borrow().cache.contents()
    }

    /// The manifest in force, reread first when it is older than the TTL.
    ///
    /// # Errors
    /// `models` when no valid manifest has ever been read.
    pub async fn manifest<E: ModelEnvironment>(
        &self,
        env: &E,
        now: DateTime<Utc>,
    ) -> Result<Arc<Manifest>, BackendError> {
        let mut steps = 0;
        let due = loop {
            {
                let mut state = self.state.borrow_mut();
                let due = state.checked_at.is_none_or(|at| {
                    (now - at).num_seconds() >= self.settings.manifest_ttl_seconds || now < at
                });
                // A cold isolate's first read is in flight: wait for it rather than
                // fail for want of a manifest (or read too, after the longest wait).
                let waiting = state.manifest.is_none() && state.first_manifest_reading;
                if due || (waiting && steps >= MAX_WAIT_STEPS) {
                    // Set before reading, so requests arriving meanwhile do not reread too.
                    state.checked_at = Some(now);
                    if state.manifest.is_none() {
                        state.first_manifest_reading = true;
                    }
                    break true;
                }
                if !waiting {
                    break false;
                }
            }
            env.pause(WAIT_STEP_MS).await;
            steps += 1;
        };
        if due {
            let _guard = ManifestReadGuard { state: &self.state };
            let read = read_manifest(env).await;
            let mut state = self.state.borrow_mut();
            match read {
                Ok(manifest) => {
                    state.manifest_problem = None;
                    let changed = state
                        .manifest
                        .as_ref()
                        .is_none_or(|m| m.version != manifest.version);
                    if changed {
                        let manifest = Arc::new(manifest);
                        state.failures.retain(|code, failure| {
                            manifest
                                .city(code)
                                .is_some_and(|c| c.version == failure.version)
                        });
                        state.previous = state.manifest.replace(manifest);
                    }
                }
                Err(reason) => {
                    if state.manifest.is_some() {
                        env.log_failure(&models_error(format!(
                            "manifest refused, the previous one stays: {reason}"
                        )));
                    } else {
                        // Nothing to serve: the caller fails and logs the error, and
                        // the next request reads again instead of waiting the interval.
                        state.checked_at = None;
                    }
                    state.manifest_problem = Some(reason);
                }
            }
        }
        let state = self.state.borrow();
        state.manifest.clone().ok_or_else(|| {
            models_error(
                state
                    .manifest_problem
                    .clone()
                    .unwrap_or_else(|| "no manifest".into()),
            )
        })
    }

    /// The models a request needs, each at one version.
    ///
    /// # Errors
    /// `models` when there is no manifest, or a needed city has no usable version.
    pub async fn snapshot<E: ModelEnvironment>(
        &self,
        env: &E,
        needs: impl FnOnce(&Manifest) -> CityNeeds,
        now: DateTime<Utc>,
    ) -> Result<Snapshot, BackendError> {
        let manifest = self.manifest(env, now).await?;
        let codes: Vec<String> = match needs(&manifest) {
            CityNeeds::All => manifest.cities.iter().map(|c| c.code.clone()).collect(),
            CityNeeds::Some(codes) => codes.into_iter().collect(),
        };
        let mut atlas = Atlas::default();
        let mut versions = Vec::with_capacity(codes.len());
        let mut publishers = Vec::new();
        for code in codes {
            let Some(entry) = manifest.city(&code) else {
                continue;
            };
            let (model, version) = self.city(env, entry, now).await?;
            atlas.insert_shared(model);
            if let Some(publisher) = &entry.attribution {
                publishers.push((code.clone(), publisher.clone()));
            }
            versions.push((code, version));
        }
        Ok(Snapshot {
            atlas,
            manifest_version: manifest.version.clone(),
            versions,
            publishers,
        })
    }

    /// What health reports. Versions not yet checked in this isolate have their
    /// files' length and digest checked first (once per version), so a corrupt
    /// publication shows before any request needs the city.
    ///
    /// # Errors
    /// `models` when there is no manifest.
    pub async fn status<E: ModelEnvironment>(
        &self,
        env: &E,
        now: DateTime<Utc>,
    ) -> Result<ModelStatus, BackendError> {
        let manifest = self.manifest(env, now).await?;
        for entry in &manifest.cities {
            let known = {
                let state = self.state.borrow();
                state
                    .verified
                    .contains(&(entry.code.clone(), entry.version.clone()))
                    || state
                        .failures
                        .get(&entry.code)
                        .is_some_and(|f| f.version == entry.version && !self.may_retry(f, now))
            };
            if !known && let Err(reason) = fetch_checked(env, entry).await {
                env.log_failure(&refused(entry, &reason));
                self.record_failure(entry, reason, now);
            } else if !known {
                self.state
                    .borrow_mut()
                    .verified
                    .insert((entry.code.clone(), entry.version.clone()));
            }
        }
        let state = self.state.borrow();
        let mut problems: Vec<Problem> = state
            .manifest_problem
            .iter()
            .map(|reason| Problem {
                city: None,
                version: None,
                reason: reason.clone(),
            })
            .collect();
        problems.extend(state.failures.iter().map(|(code, f)| Problem {
            city: Some(code.clone()),
            version: Some(f.version.clone()),
            reason: f.reason.clone(),
        }));
        let cities = manifest
            .cities
            .iter()
            .map(|entry| CityStatus {
                code: entry.code.clone(),
                version: entry.version.clone(),
                serving: if state.failures.contains_key(&entry.code) {
                    // The version a request would fall back to (see `city`).
                    state
                        .good
                        .get(&entry.code)
                        .or_else(|| state.previous.as_ref().and_then(|p| p.city(&entry.code)))
                        .filter(|f| f.version != entry.version)
                        .map(|g| g.version.clone())
                } else if state.good.contains_key(&entry.code) {
                    Some(entry.version.clone())
                } else {
                    None
                },
                data_through: entry.data_through,
                cells: entry.cells,
                precincts: entry.precincts,
                freshness: entry.freshness.clone(),
            })
            .collect();
        Ok(ModelStatus {
            manifest_version: manifest.version.clone(),
            cities,
            problems,
        })
    }

    fn may_retry(&self, failure: &Failure, now: DateTime<Utc>) -> bool {
        (now - failure.at).num_seconds() >= self.settings.manifest_ttl_seconds
    }

    fn record_failure(&self, entry: &ManifestCity, reason: String, now: DateTime<Utc>) {
        self.state.borrow_mut().failures.insert(
            entry.code.clone(),
            Failure {
                version: entry.version.clone(),
                reason,
                at: now,
            },
        );
    }

    /// The model of a manifest entry, or the fallback version when the entry's
    /// cannot be used; with the version label served.
    async fn city<E: ModelEnvironment>(
        &self,
        env: &E,
        entry: &ManifestCity,
        now: DateTime<Utc>,
    ) -> Result<(Arc<CityModel>, String), BackendError> {
        let cached = self
            .state
            .borrow_mut()
            .cache
            .get(&entry.code, &entry.version);
        if let Some(model) = cached {
            return Ok((model, entry.version.clone()));
        }
        let known_bad = self
            .state
            .borrow()
            .failures
            .get(&entry.code)
            .is_some_and(|f| f.version == entry.version && !self.may_retry(f, now));
        let reason = if known_bad {
            None
        } else {
            match self.load(env, entry).await {
                Ok(model) => {
                    let mut state = self.state.borrow_mut();
                    state.failures.remove(&entry.code);
                    state.good.insert(entry.code.clone(), entry.clone());
                    return Ok((model, entry.version.clone()));
                }
                Err(reason) => Some(reason),
            }
        };
        let refusal = reason.map(|reason| {
            let error = refused(entry, &reason);
            self.record_failure(entry, reason, now);
            error
        });
        let fallback = {
            let state = self.state.borrow();
            state
                .good
                .get(&entry.code)
                .or_else(|| state.previous.as_ref().and_then(|p| p.city(&entry.code)))
                .filter(|f| f.version != entry.version)
                .cloned()
        };
        let Some(fallback) = fallback else {
            // The caller fails the request and logs this, once.
            return Err(models_error(format!(
                "{}: version {} cannot be used and no earlier version is known{}",
                entry.code,
                entry.version,
                refusal.map_or_else(String::new, |e| format!(" ({})", e.reason))
            )));
        };
        let cached = self
            .state
            .borrow_mut()
            .cache
            .get(&fallback.code, &fallback.version);
        let model = match cached {
            Some(model) => model,
            None => self.load(env, &fallback).await.map_err(|reason| {
                models_error(format!(
                    "{}: fallback version {} cannot be used either: {reason}",
                    fallback.code, fallback.version
                ))
            })?,
        };
        if let Some(refusal) = refusal {
            env.log_failure(&refusal);
        }
        self.state
            .borrow_mut()
            .good
            .insert(fallback.code.clone(), fallback.clone());
        Ok((model, fallback.version))
    }

    /// Fetches, checks and decodes one version, and caches it; a request that needs a
    /// version another request of this isolate is loading waits for that load instead
    /// of reading and decoding the file again (memory and time right after a swap),
    /// and loads it itself when that load ended without caching it (a failure, or
    /// the loading request gone) or after the longest wait.
    async fn load<E: ModelEnvironment>(&self, env: &E, entry: &ManifestCity) -> Loaded {
        let key = (entry.code.clone(), entry.version.clone());
        let mut steps = 0;
        loop {
            {
                let mut state = self.state.borrow_mut();
                if let Some(model) = state.cache.get(&entry.code, &entry.version) {
                    return Ok(model);
                }
                if !state.loading.contains(&key) || steps >= MAX_WAIT_STEPS {
                    state.loading.insert(key.clone());
                    break;
                }
            }
            env.pause(WAIT_STEP_MS).await;
            steps += 1;
        }
        let _guard = LoadingGuard {
            state: &self.state,
            key,
        };
        self.load_once(env, entry).await
    }

    /// Fetches, checks and decodes one version, and caches it.
    async fn load_once<E: ModelEnvironment>(&self, env: &E, entry: &ManifestCity) -> Loaded {
        let bytes = fetch_checked(env, entry).await?;
        let body = artifact::checked_body(&bytes).map_err(|e| e.to_string())?;
        let plain = env
            .inflate_zlib(body, artifact::MAX_BODY_DECOMPRESSED)
            .await
            .map_err(|e| e.reason)?;
        drop(bytes);
        let model =
            CityModel::from_artifact(artifact::decode_inflated(&plain).map_err(|e| e.to_string())?);
        if model.artifact().city.code != entry.code {
            return Err(format!("the file holds {}", model.artifact().city.code));
        }
        let model = Arc::new(model.with_version_label(&entry.version));
        let mut state = self.state.borrow_mut();
        state
            .verified
            .insert((entry.code.clone(), entry.version.clone()));
        state.cache.insert(CachedCity {
            code: entry.code.clone(),
            version: entry.version.clone(),
            model: Arc::clone(&model),
        });
        Ok(model)
    }
}

fn refused(entry: &ManifestCity, reason: &str) -> BackendError {
    models_error(format!(
        "{} version {} refused: {reason}",
        entry.code, entry.version
    ))
}

async fn read_manifest<E: ModelEnvironment>(env: &E) -> Result<Manifest, String> {
    let bytes = env
        .read_model_file(Manifest::FILE_NAME, MAX_MANIFEST_BYTES)
        .await
        .map_err(|e| e.reason)?
        .ok_or_else(|| format!("{} is missing", Manifest::FILE_NAME))?;
    let manifest: Manifest = serde_json::from_slice(&bytes)
        .map_err(|e| format!("{} is not a manifest: {e}", Manifest::FILE_NAME))?;
    manifest.validate().map_err(|e| e.to_string())?;
    Ok(manifest)
}

/// The bytes of a version's file, checked against the manifest's length and digest.
async fn fetch_checked<E: ModelEnvironment>(
    env: &E,
    entry: &ManifestCity,
) -> Result<Vec<u8>, String> {
    let bytes = env
        .read_model_file(&entry.file, entry.bytes)
        .await
        .map_err(|e| e.reason)?
        .ok_or_else(|| format!("{} is missing", entry.file))?;
    if !entry.has_length(&bytes) {
        return Err(format!(
            "{} has {} bytes, the manifest says {}",
            entry.file,
            bytes.len(),
            entry.bytes
        ));
    }
    if env.sha256_hex(&bytes).await.map_err(|e| e.reason)? != entry.sha256 {
        return Err(format!("{} does not match its SHA-256", entry.file));
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests;
