//! Risk levels derived from the NO_CRIME probability of a prediction.
//!
//! | level       | P(`NO_CRIME`)          |
//! |-------------|----------------------|
//! | `LOW`       | p > 0.50             |
//! | `MODERATE`  | 0.25 <= p <= 0.50    |
//! | `HIGH`      | 0.10 <= p < 0.25     |
//! | `VERY_HIGH` | p < 0.10             |
//!
//! The specification leaves the boundary values open. These follow its wording:
//! "above 0.50" for `LOW` is strict, so 0.50 is `MODERATE`; `MODERATE` is
//! "0.25 to 0.50" inclusive at both ends, so 0.25 is `MODERATE`; `HIGH` starts at
//! 0.10 inclusive, so only values strictly below 0.10 are `VERY_HIGH`.

use core::fmt;

use serde::Serialize;

/// Discrete risk level of a prediction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum RiskLevel {
    /// P(`NO_CRIME`) above 0.50.
    Low,
    /// P(`NO_CRIME`) from 0.25 to 0.50 inclusive.
    Moderate,
    /// P(`NO_CRIME`) from 0.10 inclusive to 0.25 exclusive.
    High,
    /// P(`NO_CRIME`) below 0.10.
    VeryHigh,
}

/// The value given as a probability was not a number in `0..=1`.
#[derive(Debug, Clone, Copy, PartialEq, thiserror::Error)]
#[error("probability must be a number from 0 to 1, got {0}")]
pub struct InvalidProbability(pub f64);

impl RiskLevel {
    /// All levels from least to most severe.
    pub const ALL: [Self; 4] = [Self::Low, Self::Moderate, Self::High, Self::VeryHigh];

    /// The level for a NO_CRIME probability, using the boundaries in the module docs.
    ///
    /// # Errors
    /// [`InvalidProbability`] when `p` is NaN or outside `0..=1`.
    ///
    /// ```
    /// use hexrisk_engine::RiskLevel;
    /// assert_eq!(RiskLevel::from_no_crime_probability(0.50), Ok(RiskLevel::Moderate));
    /// assert_eq!(RiskLevel::from_no_crime_probability(0.25), Ok(RiskLevel::Moderate));
    /// assert_eq!(RiskLevel::from_no_crime_probability(0.10), Ok(RiskLevel::High));
    /// assert!(RiskLevel::from_no_crime_probability(f64::NAN).is_err());
    /// ```
    pub fn from_no_crime_probability(p: f64) -> Result<Self, InvalidProbability> {
        if !(0.0..=1.0).contains(&p) {
            return Err(InvalidProbability(p));
        }
        Ok(if p > 0.50 {
            Self::Low
        } else if p >= 0.25 {
            Self::Moderate
        } else if p >= 0.10 {
            Self::High
        } else {
            Self::VeryHigh
        })
    }

    /// The API value, for example `VERY_HIGH`.
    #[must_use]
    pub const fn code(self) -> &'static str {
        match self {
            Self::Low => "LOW",
            Self::Moderate => "MODERATE",
            Self::High => "HIGH",
            Self::VeryHigh => "VERY_HIGH",
        }
    }
}

impl fmt::Display for RiskLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

#[cfg(test)]
mod tests;
