//! The CLI's commands, each beside its arguments: a clap `Args` struct whose `run`
//! calls a function of plain arguments (which tests call too), that runs the stages
//! above and says what it did. `src/main.rs` is the table of them.

pub mod build;
pub mod checks;
pub mod holdout_routes;
pub mod manifests;
pub mod operate;
pub mod refresh;
pub mod score_served;
pub mod update;
