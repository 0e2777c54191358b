//! A dataset's whole published content at once ([`Dataset::current_rows`]), rendered by
//! its protocol's module as a client fetching everything would store it. It sits above
//! the dataset and both protocols, since it needs the renderings of each.

use serde_json::Value;

use crate::arcgis::esri_feature;
use crate::dataset::Dataset;
use crate::schema::Protocol;
use crate::socrata::{all_columns, render_row};

impl Dataset {
    /// What the server publishes now, one JSON value per row, oldest first, as a client
    /// fetching everything would store it: Socrata rows as `$select=:*, *` renders them;
    /// ArcGIS rows as Esri JSON features (`{"attributes":{..},"geometry":{..}}`).
    #[must_use]
    pub fn current_rows(&self) -> Vec<Value> {
        match self.protocol() {
            Protocol::Socrata => {
                let cols = all_columns(self);
                self.rows().map(|r| render_row(self, r, &cols)).collect()
            }
            Protocol::ArcGis { geometry } => {
                let cols: Vec<usize> = (0..self.fields().len()).collect();
                self.rows()
                    .map(|r| esri_feature(self, r, &cols, geometry))
                    .collect()
            }
        }
    }
}
