//! Colour bands: the 17-colour palette and the mapping from a safety score to a band.
//!
//! A safety score runs from 0 (least safe in its city) to 100 (safest). The range is
//! cut into 17 bands of equal width (100 / 17, about 5.88 points each):
//!
//! `index = min(16, floor(score * 17 / 100))`
//!
//! so band 0 holds scores below 5.88 and band 16 holds scores from 94.12 to 100.
//! A cell without data has index -1, which clients show as N/A.
//!
//! [`PALETTE`] runs from dark red (band 0, least safe) through pale yellow (band 8)
//! to dark green (band 16, safest): ColorBrewer's RdYlGn ramp interpolated to 17 steps.

use core::fmt;

use serde::Serialize;

/// Number of colour bands.
pub const BAND_COUNT: usize = 17;

/// The palette, indexed by colour index 0 to 16.
pub const PALETTE: [&str; BAND_COUNT] = [
    "#a50026", "#c41e27", "#de3f2e", "#f06540", "#f88e52", "#fdb466", "#fed480", "#feec9e",
    "#ffffbf", "#e7f59e", "#ccea83", "#acdc6e", "#86cb66", "#5cb861", "#2da155", "#108647",
    "#006837",
];

/// Colour band of a cell: 0 to 16, or -1 for no data.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct ColourIndex(i8);

impl ColourIndex {
    /// The index of a cell without data.
    pub const NO_DATA: Self = Self(-1);

    /// The band of a safety score in `0..=100`; scores outside are clamped and NaN
    /// means no data.
    ///
    /// ```
    /// use hexrisk_engine::ColourIndex;
    /// assert_eq!(ColourIndex::from_safety_score(0.0).get(), 0);
    /// assert_eq!(ColourIndex::from_safety_score(50.0).get(), 8);
    /// assert_eq!(ColourIndex::from_safety_score(100.0).get(), 16);
    /// assert_eq!(ColourIndex::from_safety_score(f64::NAN), ColourIndex::NO_DATA);
    /// ```
    #[must_use]
    pub fn from_safety_score(score: f64) -> Self {
        if score.is_nan() {
            return Self::NO_DATA;
        }
        let clamped = score.clamp(0.0, 100.0);
        // Floor by truncation: the value is non-negative and at most 17.
        let band = (clamped * BAND_COUNT as f64 / 100.0) as usize;
        Self(band.min(BAND_COUNT - 1) as i8)
    }

    /// The raw index, -1 for no data.
    #[must_use]
    pub const fn get(self) -> i8 {
        self.0
    }

    /// Whether the cell has data.
    #[must_use]
    pub const fn has_data(self) -> bool {
        self.0 >= 0
    }

    /// The palette colour, `None` for no data.
    #[must_use]
    pub fn colour(self) -> Option<&'static str> {
        usize::try_from(self.0).ok().map(|band| PALETTE[band])
    }

    /// The legend label of the convention used by hexrisk clients: bands 0..16 are
    /// shown as "1".."17" and no data as "N/A".
    #[must_use]
    pub fn legend_label(self) -> LegendLabel {
        LegendLabel(self)
    }
}

/// Display adapter for [`ColourIndex::legend_label`].
#[derive(Debug, Clone, Copy)]
pub struct LegendLabel(ColourIndex);

impl fmt::Display for LegendLabel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.get() {
            -1 => f.write_str("N/A"),
            band => write!(f, "{}", band + 1),
        }
    }
}

#[cfg(test)]
mod tests;
