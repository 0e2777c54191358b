//! The decoded cities an isolate keeps between requests, least recently used first
//! out, so that a Worker serving many cities stays inside its memory limit.

use std::sync::Arc;

use hexrisk_engine::city::CityModel;

/// One decoded artifact version.
#[derive(Debug, Clone)]
pub struct CachedCity {
    /// City code.
    pub code: String,
    /// The artifact's version label.
    pub version: String,
    /// The model.
    pub model: Arc<CityModel>,
}

/// Decoded cities, most recently used last, at most `capacity` of them.
#[derive(Debug)]
pub struct CityCache {
    capacity: usize,
    entries: Vec<CachedCity>,
}

impl CityCache {
    /// An empty cache holding at most `capacity` cities (at least one).
    #[must_use]
    pub fn new(capacity: usize) -> Self {
        Self {
            capacity: capacity.max(1),
            entries: Vec::new(),
        }
    }

    /// The decoded version `version` of `code`, marked as just used.
    pub fn get(&mut self, code: &str, version: &str) -> Option<Arc<CityModel>> {
        let index = self
            .entries
            .iter()
            .position(|e| e.code == code && e.version == version)?;
        let entry = self.entries.remove(index);
        let model = Arc::clone(&entry.model);
        self.entries.push(entry);
        Some(model)
    }

    /// Keeps a decoded city, replacing any other version of it and evicting the
    /// least recently used cities beyond the capacity. Requests that hold an evicted
    /// model keep it until they finish.
    pub fn insert(&mut self, city: CachedCity) {
        self.entries.retain(|e| e.code != city.code);
        self.entries.push(city);
        let excess = self.entries.len().saturating_sub(self.capacity);
        self.entries.drain(..excess);
    }

    /// The cached cities and versions, least recently used first.
    #[must_use]
    pub fn contents(&self) -> Vec<(String, String)> {
        self.entries
            .iter()
            .map(|e| (e.code.clone(), e.version.clone()))
            .collect()
    }

    /// The most cities kept.
    #[must_use]
    pub const fn capacity(&self) -> usize {
        self.capacity
    }
}

#[cfg(test)]
mod tests;
