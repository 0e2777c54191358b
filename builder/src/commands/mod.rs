//! The CLI's commands as functions of plain arguments (`src/main.rs` parses the
//! command line and calls one): each runs the stages above and says what it did.

pub mod build;
pub mod checks;
pub mod holdout;
pub mod operate;
pub mod refresh;
pub mod score_served;
pub mod update;
