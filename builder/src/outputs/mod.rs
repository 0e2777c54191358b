//! Outputs of a build: the artifact files and the manifest that makes them current,
//! the backtest exports (the street-level one included), the model card, the version history, and the pruning of
//! old versions, all written under one lock per artifacts folder.

pub mod artifacts;
pub mod backtest_export;
pub mod history;
pub mod lock;
pub mod model_card;
pub mod prune;
pub mod street_export;
