//! From forecasts to what a map or a route uses: expected harm under an intent, the
//! 0..100 safety score and its colour band, corridor tiers, per-class breakdowns,
//! and precinct aggregates.

mod city_scores;
mod colour;

pub use city_scores::{
    CityScores, ClassBreakdown, Intent, PrecinctScore, ScoringParams, UnknownIntent, breakdown,
    precinct_scores, tier,
};
pub use colour::{BAND_COUNT, ColourIndex, LegendLabel, PALETTE};
