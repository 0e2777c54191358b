//! The prediction API's resources (`/v1`): point, batch and route predictions,
//! cities, coverage, classes and prediction ranges, built from the engine's models.
//!
//! Handlers take parsed input and the [`Atlas`] and return the JSON body, or an
//! [`ApiError`]; authentication and quotas are applied around them in `routes`.

use chrono::{DateTime, Utc};
use serde_json::{Map, Value, json};

use hexrisk_engine::api::prediction::{self as predictions, probabilities};
use hexrisk_engine::city::{Atlas, CityModel};
use hexrisk_engine::forecast::{CRIME_CLASSES, ClassRecord, CrimeClass, RiskLevel};
use hexrisk_engine::grid::{self, RESOLUTION};

use super::input::{self, When};
use super::{ApiError, ErrorCode};

/// Most locations in one batch request.
pub const MAX_BATCH_LOCATIONS: usize = 500;

/// Most waypoints in one route request.
pub const MAX_WAYPOINTS: usize = 100;

/// Longest route accepted, in kilometres (sum of the segments).
pub const MAX_ROUTE_KM: f64 = 200.0;

// The point prediction and its helpers live in the engine, shared with the npm
// package; these wrappers keep the HTTP layer's types.

fn not_covered(latitude: f64, longitude: f64) -> ApiError {
    predictions::not_covered(latitude, longitude).into()
}

fn locate(
    atlas: &Atlas,
    latitude: f64,
    longitude: f64,
) -> Result<(&CityModel, hexrisk_engine::CellIndex, usize), ApiError> {
    Ok(predictions::locate(atlas, latitude, longitude)?)
}

/// The forecast week of `city` for a request's time, or `DATE_OUT_OF_RANGE`.
fn week(city: &CityModel, when: Option<When>, now: DateTime<Utc>) -> Result<usize, ApiError> {
    Ok(predictions::week(city, when, now.timestamp())?)
}

/// The instant a prediction applies to, for `prediction.datetime` and `timestamp`.
fn applies_at(city: Option<&CityModel>, when: Option<When>, now: DateTime<Utc>) -> String {
    predictions::applies_at(city, when, now.timestamp())
}

/// `POST /v1/predict` ([`predictions::predict`]).
///
/// # Errors
/// `INVALID_REQUEST`, `INVALID_COORDINATES`, `LOCATION_NOT_COVERED`, `DATE_OUT_OF_RANGE`.
pub fn predict(
    atlas: &Atlas,
    body: &Map<String, Value>,
    now: DateTime<Utc>,
) -> Result<Value, ApiError> {
    Ok(predictions::predict(atlas, body, now.timestamp())?)
}

fn batch_item(
    atlas: &Atlas,
    index: usize,
    item: &Value,
    when: Option<When>,
    now: DateTime<Utc>,
) -> Result<Value, ApiError> {
    let prefix = format!("locations[{index}].");
    let map = item.as_object().ok_or_else(|| {
        input::malformed(
            &format!("locations[{index}]"),
            "an object with latitude and longitude",
        )
    })?;
    let (latitude, longitude) = input::coordinates(map, &prefix)?;
    let (city, cell, position) = locate(atlas, latitude, longitude)?;
    let week = week(city, when, now)?;
    let forecast = city.forecast(position, week);
    Ok(json!({
        "index": index,
        "status": "success",
        "city": city.artifact().city.code,
        "location": { "latitude": latitude, "longitude": longitude, "cell_id": cell.to_string() },
        "prediction": {
            "probabilities": probabilities(&forecast),
            "dominant_type": forecast.dominant().code(),
            "risk_level": forecast.risk_level().code(),
        },
    }))
}

/// `POST /v1/predict/batch`: one result per location, failures in place.
///
/// # Errors
/// `INVALID_REQUEST` for a missing, empty or oversize `locations`, or a bad `datetime`.
pub fn predict_batch(
    atlas: &Atlas,
    body: &Map<String, Value>,
    now: DateTime<Utc>,
) -> Result<Value, ApiError> {
    let locations = input::array(body, "locations")?;
    if locations.is_empty() {
        return Err(
            ApiError::new(ErrorCode::InvalidRequest, "locations must not be empty")
                .with("field", "locations"),
        );
    }
    if locations.len() > MAX_BATCH_LOCATIONS {
        return Err(ApiError::new(
            ErrorCode::InvalidRequest,
            format!("at most {MAX_BATCH_LOCATIONS} locations per request"),
        )
        .with("field", "locations")
        .with("limit", MAX_BATCH_LOCATIONS)
        .with("value", locations.len()));
    }
    let when = input::datetime(body)?;
    let results: Vec<Value> = locations
        .iter()
        .enumerate()
        .map(|(index, item)| {
            batch_item(atlas, index, item, when, now).unwrap_or_else(|err| {
                json!({
                    "index": index,
                    "status": "error",
                    "code": err.code.as_str(),
                    "message": err.message,
                    "details": err.details,
                })
            })
        })
        .collect();
    let successful = results.iter().filter(|r| r["status"] == "success").count();
    Ok(json!({
        "status": "success",
        "timestamp": applies_at(None, when, now),
        "results": results,
        "summary": {
            "total": results.len(),
            "successful": successful,
            "failed": results.len() - successful,
        },
    }))
}

/// Risk of one route segment: the length-weighted mean over the cells it crosses.
struct SegmentRisk {
    distance_km: f64,
    /// Length-weighted mean of `P(at least one incident)` = `1 − P(NO_CRIME)`.
    risk_score: f64,
    /// Length-weighted mean outcome probabilities.
    mean_probabilities: [f64; 6],
    worst_cell: hexrisk_engine::CellIndex,
}

fn segment_risk(
    atlas: &Atlas,
    from: (f64, f64),
    to: (f64, f64),
    when: Option<When>,
    now: DateTime<Utc>,
) -> Result<SegmentRisk, ApiError> {
    let a = grid::validate(from.0, from.1)
        .map_err(|e| input::coordinate_error(&e, e.field().name(), from.0))?;
    let b = grid::validate(to.0, to.1)
        .map_err(|e| input::coordinate_error(&e, e.field().name(), to.0))?;
    // Every cell the segment passes, exactly, with the metres inside each.
    let cells = grid::cells_crossed(&[a, b], grid::RESOLUTION);
    let mut weight = 0.0;
    let mut mean = [0.0; 6];
    let mut worst = (f64::NEG_INFINITY, cells[0].0);
    for &(cell, metres) in &cells {
        // Cells outside every city (a route leaving coverage) carry no forecast.
        let Some((city, position)) = atlas.locate_cell(cell) else {
            continue;
        };
        let forecast = city.forecast(position, week(city, when, now)?);
        // Zero-length segments weigh their one cell fully.
        let w = metres.max(1e-9);
        weight += w;
        for (m, p) in mean.iter_mut().zip(forecast.probabilities) {
            *m += w * p;
        }
        let risk = 1.0 - forecast.probabilities[CrimeClass::NoCrime.index()];
        if risk > worst.0 {
            worst = (risk, cell);
        }
    }
    if weight == 0.0 {
        return Err(not_covered(to.0, to.1));
    }
    let mean_probabilities = mean.map(|m| m / weight);
    Ok(SegmentRisk {
        distance_km: grid::distance_m(a, b) / 1000.0,
        risk_score: 1.0 - mean_probabilities[CrimeClass::NoCrime.index()],
        mean_probabilities,
        worst_cell: worst.1,
    })
}

/// One segment's JSON, and a caution line when its level is high or very high.
fn segment_json(
    index: usize,
    risk: &SegmentRisk,
    start: (f64, f64),
    end: (f64, f64),
) -> (Value, Option<String>) {
    let cell = |p: (f64, f64)| {
        grid::cell_at(p.0, p.1)
            .map(|c| c.to_string())
            .unwrap_or_default()
    };
    let level = level_of_risk(risk.risk_score);
    let dominant = dominant_crime(&risk.mean_probabilities);
    let caution = matches!(level, RiskLevel::High | RiskLevel::VeryHigh).then(|| {
        let degree = if level == RiskLevel::High {
            "high"
        } else {
            "very high"
        };
        format!(
            "Segment {index}: {degree} risk, mostly {} (riskiest cell {}).",
            dominant.name(),
            risk.worst_cell
        )
    });
    let json = json!({
        "segment_index": index,
        "start": { "latitude": start.0, "longitude": start.1, "cell_id": cell(start) },
        "end": { "latitude": end.0, "longitude": end.1, "cell_id": cell(end) },
        "distance_km": risk.distance_km,
        "risk_score": risk.risk_score,
        "risk_level": level.code(),
        "dominant_risk": dominant.code(),
    });
    (json, caution)
}

fn level_of_risk(risk_score: f64) -> RiskLevel {
    RiskLevel::from_no_crime_probability((1.0 - risk_score).clamp(0.0, 1.0))
        .unwrap_or(RiskLevel::VeryHigh)
}

fn dominant_crime(probabilities: &[f64; 6]) -> CrimeClass {
    let mut best = CRIME_CLASSES[0];
    for class in CRIME_CLASSES {
        if probabilities[class.index()] > probabilities[best.index()] {
            best = class;
        }
    }
    best
}

fn point(value: &Value, index: usize) -> Result<(f64, f64), ApiError> {
    let map = value.as_object().ok_or_else(|| {
        input::malformed(
            &format!("waypoints[{index}]"),
            "an object with latitude and longitude",
        )
    })?;
    input::coordinates(map, &format!("waypoints[{index}]."))
}

/// `POST /v1/route/risk`.
///
/// Each segment's `risk_score` is the length-weighted mean over the cells it
/// crosses of the probability of at least one incident that week
/// (`1 − P(NO_CRIME)`), and its level is the risk level of `1 − risk_score` as a
/// `NO_CRIME` probability. The route's score and level are the distance-weighted
/// means of its segments'.
///
/// # Errors
/// `INVALID_REQUEST` (fewer than 2 or more than [`MAX_WAYPOINTS`] waypoints, a route
/// longer than [`MAX_ROUTE_KM`]), `INVALID_COORDINATES`, `LOCATION_NOT_COVERED` (a
/// segment entirely outside coverage), `DATE_OUT_OF_RANGE`.
pub fn route_risk(
    atlas: &Atlas,
    body: &Map<String, Value>,
    now: DateTime<Utc>,
) -> Result<Value, ApiError> {
    let waypoints = input::array(body, "waypoints")?;
    if waypoints.len() < 2 {
        return Err(ApiError::new(
            ErrorCode::InvalidRequest,
            "at least 2 waypoints are required",
        )
        .with("field", "waypoints")
        .with("value", waypoints.len()));
    }
    if waypoints.len() > MAX_WAYPOINTS {
        return Err(ApiError::new(
            ErrorCode::InvalidRequest,
            format!("at most {MAX_WAYPOINTS} waypoints per route"),
        )
        .with("field", "waypoints")
        .with("limit", MAX_WAYPOINTS)
        .with("value", waypoints.len()));
    }
    let when = input::datetime(body)?;
    let points = waypoints
        .iter()
        .enumerate()
        .map(|(i, w)| point(w, i))
        .collect::<Result<Vec<_>, _>>()?;
    let total_km: f64 = points
        .windows(2)
        .filter_map(|w| {
            Some(grid::distance_m(
                grid::validate(w[0].0, w[0].1).ok()?,
                grid::validate(w[1].0, w[1].1).ok()?,
            ))
        })
        .sum::<f64>()
        / 1000.0;
    if total_km > MAX_ROUTE_KM {
        return Err(ApiError::new(
            ErrorCode::InvalidRequest,
            format!("routes may be at most {MAX_ROUTE_KM} km long"),
        )
        .with("field", "waypoints")
        .with("limit", MAX_ROUTE_KM)
        .with("value", total_km));
    }
    let risks = points
        .windows(2)
        .map(|w| segment_risk(atlas, w[0], w[1], when, now))
        .collect::<Result<Vec<_>, _>>()?;

    let (segments, cautions): (Vec<Value>, Vec<Option<String>>) = risks
        .iter()
        .enumerate()
        .map(|(i, risk)| segment_json(i, risk, points[i], points[i + 1]))
        .unzip();
    let cautions: Vec<String> = cautions.into_iter().flatten().collect();
    let distance: f64 = risks.iter().map(|r| r.distance_km).sum();
    let overall = if distance > 0.0 {
        risks
            .iter()
            .map(|r| r.risk_score * r.distance_km)
            .sum::<f64>()
            / distance
    } else {
        risks.iter().map(|r| r.risk_score).sum::<f64>() / risks.len() as f64
    };
    let by_score = |pick_max: bool| {
        let mut best = 0;
        for (i, r) in risks.iter().enumerate() {
            let better = if pick_max {
                r.risk_score > risks[best].risk_score
            } else {
                r.risk_score < risks[best].risk_score
            };
            if better {
                best = i;
            }
        }
        best
    };
    Ok(json!({
        "status": "success",
        "route": {
            "total_waypoints": points.len(),
            "total_segments": risks.len(),
            "total_distance_km": distance,
            "overall_risk_score": overall,
            "overall_risk_level": level_of_risk(overall).code(),
        },
        "segments": segments,
        "recommendations": {
            "highest_risk_segment": by_score(true),
            "safest_segment": by_score(false),
            "caution_areas": cautions,
        },
    }))
}

fn city_record(city: &CityModel, now: DateTime<Utc>) -> Value {
    let info = &city.artifact().city;
    let range = city.prediction_range(now.timestamp());
    json!({
        "code": info.code,
        "name": info.name,
        "country": info.country,
        "timezone": info.timezone,
        "status": "active",
        "last_updated": city.artifact().model.last_updated.to_string(),
        "prediction_range": { "start": range.start.to_string(), "end": range.end.to_string() },
        "grid_cells": city.cell_count(),
        "model_mae": city.artifact().model.mae,
    })
}

fn sorted_cities(atlas: &Atlas) -> Vec<&CityModel> {
    let mut cities: Vec<&CityModel> = atlas.cities().iter().collect();
    cities.sort_by(|a, b| a.artifact().city.code.cmp(&b.artifact().city.code));
    cities
}

/// `GET /v1/cities`.
#[must_use]
pub fn cities(atlas: &Atlas, now: DateTime<Utc>) -> Value {
    let records: Vec<Value> = sorted_cities(atlas)
        .into_iter()
        .map(|c| city_record(c, now))
        .collect();
    json!({ "status": "success", "total": records.len(), "cities": records })
}

fn coverage_record(city: &CityModel) -> Value {
    let b = city.artifact().bounds;
    json!({
        "city": city.artifact().city.code,
        "bounds": { "north": b.north, "south": b.south, "east": b.east, "west": b.west },
        "grid_cells": city.cell_count(),
        "cell_size_km2": RESOLUTION.area_km2(),
        "spatial_system": "H3",
        "h3_resolution": u8::from(RESOLUTION),
    })
}

/// `GET /v1/coverage[?city=…]`: one city's record, or every city's in `coverage`.
///
/// # Errors
/// `INVALID_REQUEST` for an unknown city code, listing the known ones.
pub fn coverage(atlas: &Atlas, city: Option<&str>) -> Result<Value, ApiError> {
    let Some(code) = city else {
        let records: Vec<Value> = sorted_cities(atlas)
            .into_iter()
            .map(coverage_record)
            .collect();
        return Ok(json!({ "status": "success", "total": records.len(), "coverage": records }));
    };
    let model = atlas.city(code).ok_or_else(|| {
        let known: Vec<Value> = sorted_cities(atlas)
            .iter()
            .map(|c| json!(c.artifact().city.code))
            .collect();
        ApiError::new(ErrorCode::InvalidRequest, "unknown city code")
            .with("field", "city")
            .with("value", code)
            .with("valid_values", known)
            .with("suggestion", "See GET /v1/cities for the covered cities.")
    })?;
    let mut record = coverage_record(model);
    record["status"] = json!("success");
    Ok(record)
}

/// `GET /v1/classes`.
#[must_use]
pub fn classes() -> Value {
    let records: Vec<ClassRecord> = CrimeClass::ALL.into_iter().map(ClassRecord::from).collect();
    json!({ "status": "success", "classes": records })
}

/// `GET /v1/prediction/range?latitude=…&longitude=…`.
///
/// # Errors
/// The same codes as `POST /v1/predict` for the coordinates.
pub fn prediction_range(
    atlas: &Atlas,
    query: &[(String, String)],
    now: DateTime<Utc>,
) -> Result<Value, ApiError> {
    let (latitude, longitude) = input::query_coordinates(query)?;
    let (city, _, _) = locate(atlas, latitude, longitude)?;
    let range = city.prediction_range(now.timestamp());
    Ok(json!({
        "status": "success",
        "location": { "latitude": latitude, "longitude": longitude, "city": city.artifact().city.code },
        "range": {
            "start": range.start.to_string(),
            "end": range.end.to_string(),
            "weeks_available": range.weeks_available,
        },
        "current_week": range.current_week.map(|d| d.to_string()),
    }))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use chrono::NaiveDate;
    use hexrisk_engine::artifact::{
        self, Bounds, CityArtifact, CityInfo, ForecastCalendar, ModelInfo,
    };

    /// A small Toronto: every cell within 3 rings of the city hall cell, four forecast
    /// weeks from 2021-12-27, busier towards the centre.
    pub(crate) fn atlas() -> Atlas {
        let centre = grid::cell_at(43.6534, -79.3841).unwrap();
        let mut cells: Vec<u64> = grid::disk(centre, 3)
            .unwrap()
            .into_iter()
            .map(u64::from)
            .collect();
        cells.sort_unstable();
        let weeks = 4;
        let mut rates = Vec::new();
        for week in 0..weeks {
            for &raw in &cells {
                let cell = hexrisk_engine::CellIndex::try_from(raw).unwrap();
                let ring = f64::from(centre.grid_distance(cell).unwrap());
                let base = 2.0 / (1.0 + ring) * (1.0 + 0.1 * week as f64);
                for share in [0.3, 0.4, 0.15, 0.1, 0.05] {
                    rates.push(artifact::quantise_rate(base * share));
                }
            }
        }
        let artifact = CityArtifact {
            city: CityInfo {
                code: "city_ca_tor".into(),
                name: "Toronto".into(),
                country: "Canada".into(),
                timezone: "America/Toronto".into(),
            },
            model: ModelInfo {
                version: "test-model".into(),
                mae: 0.5,
                last_updated: NaiveDate::from_ymd_opt(2021, 12, 26).unwrap(),
                note: None,
            },
            calendar: ForecastCalendar {
                first_week: NaiveDate::from_ymd_opt(2021, 12, 27).unwrap(),
                weeks: weeks as u32,
                observed_weeks: 1,
            },
            bounds: Bounds {
                north: 43.68,
                south: 43.63,
                east: -79.35,
                west: -79.42,
            },
            precinct_of: vec![u16::MAX; cells.len()],
            precincts: Vec::new(),
            rates,
            dispersion: vec![[2.0; 5]; weeks],
            // EST throughout.
            utc_offsets: vec![(0, -5 * 3600)],
            road_graph: None,
            cells,
        };
        Atlas::new(vec![CityModel::from_artifact(artifact)])
    }

    pub(crate) fn now() -> DateTime<Utc> {
        "2022-01-05T12:00:00Z".parse().unwrap()
    }

    fn body(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            other => panic!("not an object: {other}"),
        }
    }

    #[test]
    fn point_prediction_has_every_specified_field() {
        let out = predict(
            &atlas(),
            &body(json!({"latitude": 43.6534, "longitude": -79.3841})),
            now(),
        )
        .unwrap();
        assert_eq!(out["status"], "success");
        assert_eq!(
            out["city"],
            json!({"code": "city_ca_tor", "name": "Toronto"})
        );
        assert_eq!(
            out["location"]["cell_id"],
            grid::cell_at(43.6534, -79.3841).unwrap().to_string()
        );
        assert!(out["location"]["grid_center"]["latitude"].is_f64());
        let p = &out["prediction"];
        assert_eq!(p["week_of"], "2022-01-03");
        assert_eq!(p["datetime"], "2022-01-05T12:00:00Z");
        let probs = p["probabilities"].as_object().unwrap();
        assert_eq!(probs.len(), 6);
        let sum: f64 = probs.values().map(|v| v.as_f64().unwrap()).sum();
        assert!((sum - 1.0).abs() < 1e-12);
        let dominant = p["dominant_type"].as_str().unwrap();
        assert_eq!(p["confidence"], probs[dominant]);
        assert!(
            ["LOW", "MODERATE", "HIGH", "VERY_HIGH"].contains(&p["risk_level"].as_str().unwrap())
        );
        assert_eq!(
            out["model_info"],
            json!({"version": "test-model", "mae": 0.5, "last_updated": "2021-12-26"})
        );
    }

    #[test]
    fn weeks_follow_the_datetime_in_local_time() {
        let at = |dt: &str| {
            let out = predict(
                &atlas(),
                &body(json!({"latitude": 43.6534, "longitude": -79.3841, "datetime": dt})),
                now(),
            )
            .unwrap();
            out["prediction"]["week_of"].as_str().unwrap().to_owned()
        };
        // Monday 04:30 UTC is Sunday night in Toronto.
        assert_eq!(at("2022-01-10T04:30:00Z"), "2022-01-03");
        assert_eq!(at("2022-01-10T05:30:00Z"), "2022-01-10");
        assert_eq!(at("2022-01-10"), "2022-01-10");
        let err = predict(
            &atlas(),
            &body(json!({"latitude": 43.6534, "longitude": -79.3841, "datetime": "2023-06-01"})),
            now(),
        )
        .unwrap_err();
        assert_eq!(err.code, ErrorCode::DateOutOfRange);
        assert_eq!(
            err.details["valid_range"],
            json!(["2021-12-27", "2022-01-23"])
        );
    }

    #[test]
    fn point_errors_use_the_specified_codes() {
        let call = |v: Value| predict(&atlas(), &body(v), now()).unwrap_err();
        let err = call(json!({"latitude": 51.5, "longitude": -0.12}));
        assert_eq!(err.code, ErrorCode::LocationNotCovered);
        assert_eq!(
            (
                err.details["latitude"].clone(),
                err.details["longitude"].clone()
            ),
            (json!(51.5), json!(-0.12))
        );
        assert!(
            err.details["suggestion"]
                .as_str()
                .unwrap()
                .contains("/v1/cities")
        );
        assert_eq!(
            call(json!({"latitude": 100, "longitude": 0})).code,
            ErrorCode::InvalidCoordinates
        );
        assert_eq!(
            call(json!({"longitude": 0})).code,
            ErrorCode::InvalidRequest
        );
        assert_eq!(
            call(json!({"latitude": 43.65, "longitude": -79.38, "datetime": "nope"})).code,
            ErrorCode::InvalidRequest
        );
        // Outside the range when no datetime is sent and the clock is past it.
        let late = "2023-01-01T00:00:00Z".parse().unwrap();
        let err = predict(
            &atlas(),
            &body(json!({"latitude": 43.6534, "longitude": -79.3841})),
            late,
        )
        .unwrap_err();
        assert_eq!(err.code, ErrorCode::DateOutOfRange);
    }

    #[test]
    fn batches_keep_order_and_report_failures_in_place() {
        let out = predict_batch(
            &atlas(),
            &body(json!({"locations": [
                {"latitude": 43.6534, "longitude": -79.3841},
                {"latitude": 51.5, "longitude": -0.12},
                {"latitude": 95, "longitude": 0},
                "nonsense",
                {"latitude": 43.655, "longitude": -79.38},
            ]})),
            now(),
        )
        .unwrap();
        let results = out["results"].as_array().unwrap();
        let statuses: Vec<&str> = results
            .iter()
            .map(|r| r["status"].as_str().unwrap())
            .collect();
        assert_eq!(statuses, ["success", "error", "error", "error", "success"]);
        for (i, r) in results.iter().enumerate() {
            assert_eq!(r["index"], i);
        }
        assert_eq!(results[0]["city"], "city_ca_tor");
        assert!(results[0]["location"].get("grid_center").is_none());
        assert!(results[0]["prediction"].get("confidence").is_none());
        assert_eq!(results[1]["code"], "LOCATION_NOT_COVERED");
        assert_eq!(results[2]["code"], "INVALID_COORDINATES");
        assert_eq!(results[2]["details"]["field"], "locations[2].latitude");
        assert_eq!(results[3]["code"], "INVALID_REQUEST");
        assert_eq!(
            out["summary"],
            json!({"total": 5, "successful": 2, "failed": 3})
        );
    }

    #[test]
    fn batch_limits() {
        let err = predict_batch(&atlas(), &body(json!({"locations": []})), now()).unwrap_err();
        assert_eq!(
            (err.code, err.details["field"].as_str()),
            (ErrorCode::InvalidRequest, Some("locations"))
        );
        let many: Vec<Value> = (0..=MAX_BATCH_LOCATIONS)
            .map(|_| json!({"latitude": 43.65, "longitude": -79.38}))
            .collect();
        let err = predict_batch(&atlas(), &body(json!({ "locations": many })), now()).unwrap_err();
        assert_eq!(err.details["limit"], MAX_BATCH_LOCATIONS);
        let err = predict_batch(&atlas(), &body(json!({"locations": {}})), now()).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidRequest);
    }

    #[test]
    fn route_risk_scores_every_segment() {
        let waypoints = json!([
            {"latitude": 43.6534, "longitude": -79.3841},
            {"latitude": 43.6580, "longitude": -79.3800},
            {"latitude": 43.6600, "longitude": -79.3700},
        ]);
        let out = route_risk(&atlas(), &body(json!({ "waypoints": waypoints })), now()).unwrap();
        assert_eq!(out["route"]["total_waypoints"], 3);
        assert_eq!(out["route"]["total_segments"], 2);
        let segments = out["segments"].as_array().unwrap();
        assert_eq!(segments.len(), 2);
        let total: f64 = segments
            .iter()
            .map(|s| s["distance_km"].as_f64().unwrap())
            .sum();
        assert!((total - out["route"]["total_distance_km"].as_f64().unwrap()).abs() < 1e-12);
        for s in segments {
            let score = s["risk_score"].as_f64().unwrap();
            assert!((0.0..=1.0).contains(&score));
            assert!(s["start"]["cell_id"].is_string());
        }
        // The first segment starts in the busiest cell, so it is the riskiest.
        assert_eq!(out["recommendations"]["highest_risk_segment"], 0);
        assert_eq!(out["recommendations"]["safest_segment"], 1);
        assert!(out["recommendations"]["caution_areas"].is_array());
    }

    #[test]
    fn route_risk_limits_and_errors() {
        let one = json!({"waypoints": [{"latitude": 43.65, "longitude": -79.38}]});
        assert_eq!(
            route_risk(&atlas(), &body(one), now()).unwrap_err().details["field"],
            "waypoints"
        );
        let far = json!({"waypoints": [{"latitude": 43.65, "longitude": -79.38}, {"latitude": 45.5, "longitude": -73.6}]});
        assert_eq!(
            route_risk(&atlas(), &body(far), now()).unwrap_err().details["limit"],
            MAX_ROUTE_KM
        );
        let outside = json!({"waypoints": [{"latitude": 51.5, "longitude": -0.12}, {"latitude": 51.51, "longitude": -0.12}]});
        assert_eq!(
            route_risk(&atlas(), &body(outside), now())
                .unwrap_err()
                .code,
            ErrorCode::LocationNotCovered
        );
        let many: Vec<Value> = (0..=MAX_WAYPOINTS)
            .map(|_| json!({"latitude": 43.65, "longitude": -79.38}))
            .collect();
        assert_eq!(
            route_risk(&atlas(), &body(json!({ "waypoints": many })), now())
                .unwrap_err()
                .details["limit"],
            MAX_WAYPOINTS
        );
    }

    #[test]
    fn cities_coverage_classes_and_range() {
        let atlas = atlas();
        let out = cities(&atlas, now());
        assert_eq!(out["total"], 1);
        let city = &out["cities"][0];
        assert_eq!(city["status"], "active");
        assert_eq!(
            city["prediction_range"],
            json!({"start": "2021-12-27", "end": "2022-01-23"})
        );
        assert_eq!(city["grid_cells"], 37);
        let one = coverage(&atlas, Some("city_ca_tor")).unwrap();
        assert_eq!(
            (
                one["status"].clone(),
                one["spatial_system"].clone(),
                one["h3_resolution"].clone()
            ),
            (json!("success"), json!("H3"), json!(8))
        );
        assert!((one["cell_size_km2"].as_f64().unwrap() - 0.737).abs() < 0.001);
        let all = coverage(&atlas, None).unwrap();
        assert_eq!(all["coverage"].as_array().unwrap().len(), 1);
        let err = coverage(&atlas, Some("city_xx_nowhere")).unwrap_err();
        assert_eq!(err.details["valid_values"], json!(["city_ca_tor"]));
        assert_eq!(classes()["classes"].as_array().unwrap().len(), 6);
        let range = prediction_range(
            &atlas,
            &input::query_pairs(Some("latitude=43.6534&longitude=-79.3841")),
            now(),
        )
        .unwrap();
        assert_eq!(
            range["range"],
            json!({"start": "2021-12-27", "end": "2022-01-23", "weeks_available": 4})
        );
        assert_eq!(range["current_week"], "2022-01-03");
        assert_eq!(range["location"]["city"], "city_ca_tor");
        let err = prediction_range(
            &atlas,
            &input::query_pairs(Some("latitude=0&longitude=0")),
            now(),
        )
        .unwrap_err();
        assert_eq!(err.code, ErrorCode::LocationNotCovered);
    }
}
