//! What a forecast is made of: the six crime classes, the exact distribution of a
//! cell-week's outcome from expected counts per class, the risk level of a
//! `NO_CRIME` probability, and the time bands and profiles that spread a week's
//! expected counts over the hours.

mod bands;
mod classes;
mod outcome;
mod profiles;
mod risk;

pub use bands::{
    Band, BandInstance, DayKind, InvalidBands, NIGHT_FROM_HOUR, NIGHT_UNTIL_HOUR, TimeBands,
    TimeWindow, WEEK_HOURS,
};
pub use profiles::{ProfileBasis, SHARE_SCALE, TimeProfiles, quantise_share};

pub use classes::{ClassRecord, CrimeClass, UnknownClassError};
pub use outcome::{
    CRIME_CLASSES, ClassRates, Dispersion, MAX_RATE, OutcomeProbabilities, POISSON,
    outcome_distribution, outcome_distribution_with, total_count_quantile, wins_tie,
};
pub use risk::{InvalidProbability, RiskLevel};
