//! The six crime classes of the prediction API.
//!
//! Codes, display names and severities are fixed by the API specification; the
//! descriptions list the offences each class covers across the source data sets.

use core::fmt;
use core::str::FromStr;

use serde::Serialize;

/// One of the six crime classes a prediction distributes probability over.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[cfg_attr(
    feature = "schema",
    derive(schemars::JsonSchema),
    schemars(rename = "ClassCode", description = "A crime class by its API code.")
)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum CrimeClass {
    /// Theft, burglary, break and enter, larceny.
    TheftBurglary,
    /// Assault and battery.
    BatteryAssault,
    /// Vehicle theft and damage to vehicles or property.
    VehicleDamage,
    /// Homicide, shootings, robbery, sexual assault and other serious violence.
    SeriousViolent,
    /// Every other reported offence.
    Other,
    /// No significant crime in the cell for the week.
    NoCrime,
}

impl CrimeClass {
    /// All classes in the order the API lists them.
    pub const ALL: [Self; 6] = [
        Self::TheftBurglary,
        Self::BatteryAssault,
        Self::VehicleDamage,
        Self::SeriousViolent,
        Self::Other,
        Self::NoCrime,
    ];

    /// The API code, for example `THEFT_BURGLARY`.
    #[must_use]
    pub const fn code(self) -> &'static str {
        match self {
            Self::TheftBurglary => "THEFT_BURGLARY",
            Self::BatteryAssault => "BATTERY_ASSAULT",
            Self::VehicleDamage => "VEHICLE_DAMAGE",
            Self::SeriousViolent => "SERIOUS_VIOLENT",
            Self::Other => "OTHER",
            Self::NoCrime => "NO_CRIME",
        }
    }

    /// The display name, for example `Theft & Burglary`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::TheftBurglary => "Theft & Burglary",
            Self::BatteryAssault => "Assault & Battery",
            Self::VehicleDamage => "Vehicle & Property Damage",
            Self::SeriousViolent => "Serious Violent Crime",
            Self::Other => "Other",
            Self::NoCrime => "No Significant Crime",
        }
    }

    /// Severity weight from 0 (no crime) to 5 (serious violence).
    #[must_use]
    pub const fn severity(self) -> u8 {
        match self {
            Self::TheftBurglary | Self::VehicleDamage => 3,
            Self::BatteryAssault => 4,
            Self::SeriousViolent => 5,
            Self::Other => 2,
            Self::NoCrime => 0,
        }
    }

    /// One sentence listing the offences the class covers.
    #[must_use]
    pub const fn description(self) -> &'static str {
        match self {
            Self::TheftBurglary => {
                "Theft, larceny, shoplifting, break and enter, burglary and theft over a value threshold."
            }
            Self::BatteryAssault => {
                "Assault, battery, assault with a weapon and aggravated assault without a firearm discharge."
            }
            Self::VehicleDamage => {
                "Auto theft, theft from vehicles, vandalism and damage to vehicles or property."
            }
            Self::SeriousViolent => {
                "Homicide, shootings and firearm discharges, robbery, sexual assault and kidnapping."
            }
            Self::Other => {
                "Every other reported offence, such as drug, fraud, weapons, disorder and warrant incidents."
            }
            Self::NoCrime => {
                "No reported offence of any class in the cell during the forecast week."
            }
        }
    }

    /// Position of the class in [`CrimeClass::ALL`], stable for array indexing.
    #[must_use]
    pub const fn index(self) -> usize {
        self as usize
    }
}

impl fmt::Display for CrimeClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

/// The text was not one of the six crime class codes.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown crime class code (expected one of THEFT_BURGLARY, BATTERY_ASSAULT, VEHICLE_DAMAGE, SERIOUS_VIOLENT, OTHER, NO_CRIME)"
)]
pub struct UnknownClassError;

impl FromStr for CrimeClass {
    type Err = UnknownClassError;

    fn from_str(code: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|class| class.code() == code)
            .ok_or(UnknownClassError)
    }
}

/// A class as the API lists it (GET /v1/classes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema), schemars(inline))]
#[serde(deny_unknown_fields)]
pub struct ClassRecord {
    /// API code.
    #[cfg_attr(feature = "schema", schemars(with = "CrimeClass"))]
    pub code: &'static str,
    /// Display name.
    pub name: &'static str,
    /// One-sentence description of the offences covered.
    pub description: &'static str,
    /// Severity weight.
    #[cfg_attr(feature = "schema", schemars(range(max = 5)))]
    pub severity: u8,
}

impl From<CrimeClass> for ClassRecord {
    fn from(class: CrimeClass) -> Self {
        Self {
            code: class.code(),
            name: class.name(),
            description: class.description(),
            severity: class.severity(),
        }
    }
}

#[cfg(test)]
mod tests;
