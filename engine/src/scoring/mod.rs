//! From forecasts to what a map or a route uses: expected harm under an intent, the
//! 0..100 safety score and its colour band, corridor tiers, per-class breakdowns,
//! precinct aggregates, and each street's risk in real units.

mod city_scores;
mod colour;
mod street_risk;

pub use city_scores::{
    CityScores, ClassBreakdown, Intent, PrecinctScore, ScoringParams, UnknownIntent, breakdown,
    precinct_scores, tier,
};
pub use colour::{BAND_COUNT, ColourIndex, LegendLabel, PALETTE};
pub use street_risk::StreetRisk;
