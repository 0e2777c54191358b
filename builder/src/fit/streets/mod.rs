//! The street-level layer: each cell's forecast spread over the ways of the road
//! network inside it, by shares learnt from where past incidents were, shrunk towards
//! the length-proportional share; and the rolling backtest that scores it against the
//! same forecast spread by length alone.
//!
//! In order: [`network`] (each way's cell and the cells' street lengths),
//! [`attribution`] (incidents to ways), [`shares`] (the shrunk shares and the choice
//! of their shrinkage on validation weeks), [`backtest`] (hit rate and PAI by street
//! length), [`artifact_shares`] (the shares the artifact carries), [`hours`]
//! (street-level hour profiles against the city-wide profile, in the band backtest's
//! terms).

pub mod network;

pub mod attribution;

pub mod shares;

pub mod backtest;

pub mod artifact_shares;

pub mod hours;

#[cfg(test)]
mod fixture;
