//! What a forecast is made of: the six crime classes, the exact distribution of a
//! cell-week's outcome from expected counts per class, and the risk level of a
//! `NO_CRIME` probability.

mod classes;
mod outcome;
mod risk;

pub use classes::{ClassRecord, CrimeClass, UnknownClassError};
pub use outcome::{
    CRIME_CLASSES, ClassRates, Dispersion, MAX_RATE, OutcomeProbabilities, POISSON,
    outcome_distribution, outcome_distribution_with, total_count_quantile, wins_tie,
};
pub use risk::{InvalidProbability, RiskLevel};
