//! Inputs: the city configurations, the data directory and its checksums, the
//! readers of each incident file layout, the city grid from its boundary, the
//! intake of files handed to `refresh` (`intake/`, with its ledger), and the cleaning
//! (`cleaning`), which turns all of them into one city's clean, classified incidents.

pub mod boundary;
pub mod classes;
pub mod cleaning;
pub mod config;
pub mod data;
pub mod default_hours;
pub mod feed_config;
pub mod generic_csv;
pub mod intake;
pub mod sources;
pub mod vocabulary;
