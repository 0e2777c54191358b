//! What several of the builder's integration tests share.

pub(crate) mod city_models;
pub(crate) mod full_builds;
pub(crate) mod graph_size;
pub(crate) mod open_data;
