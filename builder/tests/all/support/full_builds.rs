//! The committed cities built in full from the real data, each once per test run and
//! shared: a build takes seconds, and several tests compare what they make against
//! the same full build of a city.

use std::sync::OnceLock;

use hexrisk_builder::fit::city_build::CityBuild;
use hexrisk_builder::inputs::{config, data};
use hexrisk_builder::pipeline;
use indicatif::ProgressBar;

/// The cities of `config/cities`, each with its build once made. One lock per city, so
/// that two test threads build two cities side by side.
static BUILDS: [(&str, OnceLock<CityBuild>); 3] = [
    ("city_ca_tor", OnceLock::new()),
    ("city_us_hou", OnceLock::new()),
    ("city_us_sfo", OnceLock::new()),
];

/// The full build of the committed city `code`, from its configuration in
/// `config/cities` and the data in `../shared/data`.
pub(crate) fn full_build(code: &str) -> &'static CityBuild {
    let (_, build) = BUILDS
        .iter()
        .find(|(known, _)| *known == code)
        .unwrap_or_else(|| panic!("{code} is not a committed city"));
    build.get_or_init(|| {
        let city = config::load_all(&config::default_config_dir())
            .unwrap()
            .into_iter()
            .find(|c| c.code == code)
            .unwrap();
        pipeline::build_city(&city, &data::workspace_data_dir(), &ProgressBar::hidden()).unwrap()
    })
}
