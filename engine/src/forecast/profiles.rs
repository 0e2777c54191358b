//! Time-of-day profiles as the artifact stores them: for each cell and class, the
//! share of the weekly expected count that falls in each band of the week.

use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

use super::bands::{Band, TimeBands, TimeWindow};
use super::outcome::ClassRates;

/// Classes with a profile (those with rates).
const CLASSES: usize = 5;

/// What a class's profiles were learnt from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ProfileBasis {
    /// Each cell's own incidents, shrunk towards its neighbourhood and the city.
    Cells,
    /// Too few incidents of the class with an hour: the city's profile over all
    /// classes, the same in every cell.
    City,
    /// Too few incidents with an hour in the city: the weekly rate spread evenly
    /// over the hours of the week.
    Flat,
}

impl ProfileBasis {
    /// `cells`, `city` or `flat`.
    #[must_use]
    pub const fn code(self) -> &'static str {
        match self {
            Self::Cells => "cells",
            Self::City => "city",
            Self::Flat => "flat",
        }
    }
}

/// The largest quantised share: `share = q / SHARE_SCALE`.
pub const SHARE_SCALE: f64 = 65_535.0;

/// A city's time-of-day profiles.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TimeProfiles {
    /// How the week is cut into bands.
    pub bands: TimeBands,
    /// What each class's profiles come from, crime class order.
    pub basis: [ProfileBasis; CLASSES],
    /// Quantised shares `[cell][class][band]` ([`quantise_share`]).
    pub shares: Vec<u16>,
}

/// Quantises a share in `0..=1` to 16 bits.
#[must_use]
pub fn quantise_share(share: f64) -> u16 {
    libm::round(share.clamp(0.0, 1.0) * SHARE_SCALE) as u16
}

impl TimeProfiles {
    /// The expected counts of one band instance: the week's `weekly` rates of a cell
    /// times the band's share, over the number of such band days in a week.
    #[must_use]
    pub fn band_rates(&self, cell: usize, band: Band, weekly: &ClassRates) -> ClassRates {
        let n = self.bands.count();
        let index = self.bands.index(band);
        let days = f64::from(band.kind.days_per_week());
        core::array::from_fn(|class| {
            let share = self
                .shares
                .get((cell * CLASSES + class) * n + index)
                .map_or(0.0, |&q| f64::from(q) / SHARE_SCALE);
            weekly[class] * share / days
        })
    }

    /// The expected counts of a cell in a window of the week: the week's, one band
    /// instance's ([`TimeProfiles::band_rates`]), or the total over every night band
    /// of the week (each band's share of the week, weekdays and weekends alike).
    #[must_use]
    pub fn window_rates(&self, cell: usize, window: TimeWindow, weekly: &ClassRates) -> ClassRates {
        match window {
            TimeWindow::Week => *weekly,
            TimeWindow::Band(band) => self.band_rates(cell, band, weekly),
            TimeWindow::Nights => {
                let n = self.bands.count();
                core::array::from_fn(|class| {
                    let share: f64 = (0..n)
                        .filter(|&i| self.bands.is_night(self.bands.band(i).position))
                        .filter_map(|i| self.shares.get((cell * CLASSES + class) * n + i))
                        .map(|&q| f64::from(q) / SHARE_SCALE)
                        .sum();
                    weekly[class] * share
                })
            }
        }
    }

    /// Whether the table fits `cells` cells and every cell-class sums to about 1.
    #[must_use]
    pub fn fits(&self, cells: usize) -> bool {
        // Bands first: a count of bands from unchecked bands could divide by zero.
        if self.bands.check().is_err() {
            return false;
        }
        let n = self.bands.count();
        cells.checked_mul(CLASSES * n) == Some(self.shares.len())
            && self.shares.chunks(n.max(1)).all(|shares| {
                let total: f64 = shares.iter().map(|&q| f64::from(q) / SHARE_SCALE).sum();
                (total - 1.0).abs() < 1e-3 * n as f64
            })
    }
}
