//! The six crime classes a source's offence values map to, as a city's TOML names
//! them (`"Assault" = "BATTERY_ASSAULT"`).

use hexrisk_engine::CrimeClass;
use serde::Deserialize;

/// What a source offence value maps to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Mapped {
    /// Theft and burglary.
    TheftBurglary,
    /// Assault and battery.
    BatteryAssault,
    /// Vehicle and property damage.
    VehicleDamage,
    /// Serious violent crime.
    SeriousViolent,
    /// Any other offence.
    Other,
    /// Not an offence (missing person, non-criminal...): the row is rejected.
    NotAnOffence,
}

impl Mapped {
    /// The crime class, `None` for rows that are not offences.
    #[must_use]
    pub const fn class(self) -> Option<CrimeClass> {
        match self {
            Self::TheftBurglary => Some(CrimeClass::TheftBurglary),
            Self::BatteryAssault => Some(CrimeClass::BatteryAssault),
            Self::VehicleDamage => Some(CrimeClass::VehicleDamage),
            Self::SeriousViolent => Some(CrimeClass::SeriousViolent),
            Self::Other => Some(CrimeClass::Other),
            Self::NotAnOffence => None,
        }
    }
}
