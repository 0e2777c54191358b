//! The cities an engine serves, and finding the city of a point or a cell.

use alloc::sync::Arc;
use alloc::vec::Vec;

use h3o::CellIndex;

use crate::grid::{self, CoordinateError};

use super::CityModel;

/// The cities an engine serves. Models are shared, so a server can hand each
/// request an atlas of just the cities it needs, taken from a cache, without copying
/// them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Atlas {
    cities: Vec<Arc<CityModel>>,
}

/// A point no city covers.
#[derive(Debug, Clone, Copy, PartialEq, thiserror::Error)]
pub enum LocateError {
    /// The coordinates are invalid.
    #[error(transparent)]
    Coordinates(#[from] CoordinateError),
    /// Valid, but outside every city grid.
    #[error("location is not covered by any city")]
    NotCovered,
}

impl Atlas {
    /// An atlas of the given cities.
    #[must_use]
    pub fn new(cities: Vec<CityModel>) -> Self {
        Self {
            cities: cities.into_iter().map(Arc::new).collect(),
        }
    }

    /// Adds or replaces a city (by code).
    pub fn insert(&mut self, city: CityModel) {
        self.insert_shared(Arc::new(city));
    }

    /// Adds or replaces a shared city (by code).
    pub fn insert_shared(&mut self, city: Arc<CityModel>) {
        let code = city.artifact().city.code.clone();
        self.cities.retain(|c| c.artifact().city.code != code);
        self.cities.push(city);
    }

    /// The cities.
    #[must_use]
    pub fn cities(&self) -> &[Arc<CityModel>] {
        &self.cities
    }

    /// A city by code.
    #[must_use]
    pub fn city(&self, code: &str) -> Option<&CityModel> {
        self.cities
            .iter()
            .find(|c| c.artifact().city.code == code)
            .map(AsRef::as_ref)
    }

    /// The city and grid position of a cell.
    #[must_use]
    pub fn locate_cell(&self, cell: CellIndex) -> Option<(&CityModel, usize)> {
        self.cities
            .iter()
            .find_map(|city| city.position(cell).map(|position| (&**city, position)))
    }

    /// The city, cell and grid position of a point.
    ///
    /// # Errors
    /// [`LocateError`] for invalid coordinates or a point outside every city.
    pub fn locate(
        &self,
        latitude: f64,
        longitude: f64,
    ) -> Result<(&CityModel, CellIndex, usize), LocateError> {
        let cell = grid::cell_at(latitude, longitude)?;
        let (city, position) = self.locate_cell(cell).ok_or(LocateError::NotCovered)?;
        Ok((city, cell, position))
    }
}
