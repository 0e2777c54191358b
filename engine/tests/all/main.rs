//! The engine's integration tests, one binary: a module per suite.

mod artifact_fuzz;
