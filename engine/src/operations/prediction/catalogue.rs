//! What the prediction API covers (`GET /v1/cities`, `/v1/coverage`, `/v1/classes`,
//! `/v1/prediction/range`): the served cities, their bounds and grids, the crime
//! classes and each city's forecast weeks.

use alloc::borrow::ToOwned;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use serde_json::{Map, Value, json};

use super::{
    Bounds, Cities, City, Classes, Coverage, CoverageAnswer, CoverageList, CoverageRecord,
    PredictionRange, RangeLocation, WeekRange, WeekSpan, coordinates, locate,
};
use crate::city::{Atlas, CityModel};
use crate::forecast::{ClassRecord, CrimeClass};
use crate::grid::RESOLUTION;
use crate::operations::{QueryError, Success, optional_text};

fn city_record(city: &CityModel, now: i64) -> City {
    let info = &city.artifact().city;
    let range = city.prediction_range(now);
    City {
        code: info.code.clone(),
        name: info.name.clone(),
        country: info.country.clone(),
        timezone: info.timezone.clone(),
        status: "active",
        last_updated: city.artifact().model.last_updated.to_string(),
        prediction_range: WeekSpan {
            start: range.start.to_string(),
            end: range.end.to_string(),
        },
        grid_cells: city.cell_count(),
        model_mae: city.artifact().model.mae,
        model_version: city.artifact().model.version.clone(),
    }
}

fn sorted_cities(atlas: &Atlas) -> Vec<&CityModel> {
    let mut cities: Vec<&CityModel> = atlas.cities().iter().map(AsRef::as_ref).collect();
    crate::sorting::sort_by(&mut cities, |a, b| {
        a.artifact().city.code.cmp(&b.artifact().city.code)
    });
    cities
}

/// `GET /v1/cities`: every served city, by code, with its forecast weeks at `now`.
#[must_use]
pub fn cities(atlas: &Atlas, now: i64) -> Cities {
    let records: Vec<City> = sorted_cities(atlas)
        .into_iter()
        .map(|c| city_record(c, now))
        .collect();
    Cities {
        status: Success,
        total: records.len(),
        cities: records,
    }
}

fn coverage_record(city: &CityModel) -> CoverageRecord {
    let b = city.artifact().bounds;
    CoverageRecord {
        city: city.artifact().city.code.clone(),
        bounds: Bounds {
            north: b.north,
            south: b.south,
            east: b.east,
            west: b.west,
        },
        grid_cells: city.cell_count(),
        cell_size_km2: RESOLUTION.area_km2(),
        spatial_system: "H3",
        h3_resolution: u8::from(RESOLUTION),
    }
}

/// `GET /v1/coverage[?city=…]`: with `city`, that city's record; without it, every
/// city's in `coverage`.
///
/// # Errors
/// `INVALID_REQUEST` for an unknown city code, listing the known ones, or a `city`
/// that is not text.
pub fn coverage(atlas: &Atlas, params: &Map<String, Value>) -> Result<CoverageAnswer, QueryError> {
    let Some(code) = optional_text(params, "city")? else {
        let records: Vec<CoverageRecord> = sorted_cities(atlas)
            .into_iter()
            .map(coverage_record)
            .collect();
        return Ok(CoverageAnswer::Every(CoverageList {
            status: Success,
            total: records.len(),
            coverage: records,
        }));
    };
    let model = atlas.city(code).ok_or_else(|| {
        let known: Vec<Value> = sorted_cities(atlas)
            .iter()
            .map(|c| json!(c.artifact().city.code))
            .collect();
        QueryError::invalid("city", "unknown city code")
            .with("value", code)
            .with("valid_values", known)
            .with("suggestion", "See GET /v1/cities for the covered cities.")
    })?;
    // `status` first, as the specification's coverage record shows it.
    Ok(CoverageAnswer::City(Coverage {
        status: Success,
        record: coverage_record(model),
    }))
}

/// `GET /v1/classes`: the crime classes, in the order of every answer's probabilities.
#[must_use]
pub fn classes() -> Classes {
    Classes {
        status: Success,
        classes: CrimeClass::ALL.into_iter().map(ClassRecord::from).collect(),
    }
}

/// `GET /v1/prediction/range?latitude=…&longitude=…`: the forecast weeks of the city
/// holding a point, and the week `now` falls in. The coordinates may be numbers or
/// query-string text.
///
/// # Errors
/// The same codes as `POST /v1/predict` for the coordinates.
pub fn prediction_range(
    atlas: &Atlas,
    params: &Map<String, Value>,
    now: i64,
) -> Result<PredictionRange, QueryError> {
    let (latitude, longitude) = coordinates(&numeric_coordinates(params), "")?;
    let (city, _, _) = locate(atlas, latitude, longitude)?;
    let range = city.prediction_range(now);
    Ok(PredictionRange {
        status: Success,
        location: RangeLocation {
            latitude,
            longitude,
            city: city.artifact().city.code.clone(),
        },
        range: WeekRange {
            start: range.start.to_string(),
            end: range.end.to_string(),
            weeks_available: range.weeks_available,
        },
        current_week: range.current_week.map(|d| d.to_string()),
    })
}

/// `latitude` and `longitude` of a parameter object, query-string text read as
/// numbers where it is one (text that is not stays text, for the coordinate error).
fn numeric_coordinates(params: &Map<String, Value>) -> Map<String, Value> {
    let mut map = Map::new();
    for name in ["latitude", "longitude"] {
        let Some(value) = params.get(name) else {
            continue;
        };
        let value = match value {
            Value::String(text) => text
                .trim()
                .parse::<f64>()
                .ok()
                .and_then(serde_json::Number::from_f64)
                .map_or_else(|| value.clone(), Value::Number),
            other => other.clone(),
        };
        map.insert(name.to_owned(), value);
    }
    map
}
