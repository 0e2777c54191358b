//! The scoring options every request may carry, and their resolution against a
//! city (the week defaults to the current one, or the nearest with forecasts).
//!
//! Scoring options (every request):
//! - `intent`: `overall` (default), `walking`, `driving` or `night`.
//! - `activeCodes`: crime class codes to count (default all five; at least one).
//! - `toggles`: `{CODE: boolean}`; `false` switches a class off.
//! - `modifiers.week`: any date (YYYY-MM-DD) in the forecast week; default the
//!   current week, or the nearest week with forecasts when today is outside them.
//! - `modifiers.classWeights`: `{CODE: number}`, multipliers 0..=10 on the intent's
//!   class weights.
//! - `modifiers.time`: an instant or local time (ISO 8601, as `datetime`), or an
//!   hour of the week (`0..=167`, Monday 00:00 local = 0): the scores weigh the
//!   expected counts of the time band holding it (of the week it falls in, or, for
//!   an hour of the week, the week chosen as above) instead of the whole week's.
//! - `intent: night` weighs every class at its severity over the week's nights (the
//!   night bands of the city's profiles), unless `modifiers.time` names a band.
//!
//! Unknown fields are ignored; unknown intents, methods, modes and class codes
//! are errors.

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use chrono::{Datelike, Timelike};
use serde::Deserialize;

use super::prediction::When;
use super::{ErrorCode, QueryError};
use crate::city::CityModel;
use crate::forecast::{CRIME_CLASSES, TimeWindow};
use crate::plan::departure::Departure;
use crate::scoring::{Intent, ScoringParams};

/// Largest class weight multiplier.
pub const MAX_CLASS_WEIGHT: f64 = 10.0;

/// Score modifiers: the week, the class weights and the time band.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(inline))]
#[serde(rename_all = "camelCase")]
pub struct Modifiers {
    /// A date (YYYY-MM-DD) in the forecast week; default the current week, or the
    /// nearest week with forecasts.
    #[cfg_attr(feature = "schema", schemars(with = "Option<super::wire::Date>"))]
    pub week: Option<String>,
    /// Multipliers 0 to 10 on the intent's class weights, by class code.
    #[cfg_attr(
        feature = "schema",
        schemars(with = "Option<BTreeMap<String, super::wire::ClassWeight>>")
    )]
    pub class_weights: Option<BTreeMap<String, f64>>,
    /// Score the time band holding this time instead of the whole week: an ISO 8601 instant or local time (it names its week too; not with week), or an hour of the week 0-167 (Monday 00:00 local = 0; the week as chosen by week). See docs/API.md, "Time of day".
    pub time: Option<TimeModifier>,
}

/// A time: an hour of the week or an ISO 8601 time.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(inline))]
#[serde(untagged)]
pub enum TimeModifier {
    /// Hours from Monday 00:00 local time, 0 to 167.
    HourOfWeek(#[cfg_attr(feature = "schema", schemars(with = "super::wire::HourOfWeek"))] i64),
    /// An instant or a local time (ISO 8601).
    At(String),
}

/// Why an ISO time and `modifiers.week` together are refused.
const TIME_NAMES_ITS_WEEK: &str =
    "a time names its own week: give modifiers.week only with an hour of the week";

/// The largest hour of the week.
pub const MAX_HOUR_OF_WEEK: i64 = 167;

/// What `modifiers.time` stands for once checked.
#[derive(Debug, Clone, Copy, PartialEq)]
enum CheckedTime {
    HourOfWeek(u32),
    At(When),
}

fn checked_time(modifier: &TimeModifier, field: &str) -> Result<CheckedTime, QueryError> {
    match modifier {
        TimeModifier::HourOfWeek(hour) => u32::try_from(*hour)
            .ok()
            .filter(|&h| i64::from(h) <= MAX_HOUR_OF_WEEK)
            .map(CheckedTime::HourOfWeek)
            .ok_or_else(|| {
                QueryError::invalid(
                    field,
                    format!("an hour of the week must be 0 to {MAX_HOUR_OF_WEEK} (Monday 00:00 is 0), got {hour}"),
                )
            }),
        TimeModifier::At(text) => When::parse(text).map(CheckedTime::At).ok_or_else(|| {
            QueryError::invalid(
                field,
                "time must be an ISO 8601 time such as 2022-01-07T23:00:00 or an hour of the week 0-167",
            )
        }),
    }
}

/// Scoring options every request may carry.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(rename = "ScoringOptions"))]
#[serde(rename_all = "camelCase")]
pub struct ScoringQuery {
    /// The intent: overall (default), walking, driving or night.
    #[cfg_attr(feature = "schema", schemars(with = "Option<crate::scoring::Intent>"))]
    pub intent: Option<String>,
    /// The crime classes to count (default all five; at least one).
    #[cfg_attr(
        feature = "schema",
        schemars(with = "Option<Vec<super::wire::ClassCode>>")
    )]
    pub active_codes: Option<Vec<String>>,
    /// Classes switched on or off by code: false switches a class off.
    pub toggles: Option<BTreeMap<String, bool>>,
    /// The week, class weights and time band.
    pub modifiers: Option<Modifiers>,
}

/// Resolved scoring options.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Scoring {
    /// Weights and active classes.
    pub params: ScoringParams,
    /// Forecast week index.
    pub week: usize,
}

fn class_position(code: &str) -> Option<usize> {
    CRIME_CLASSES.iter().position(|c| c.code() == code)
}

fn unknown_class(field: &str, code: &str) -> QueryError {
    let known: Vec<&str> = CRIME_CLASSES.iter().map(|c| c.code()).collect();
    QueryError::invalid(
        field,
        format!(
            "unknown crime class code {code:?} (expected one of {})",
            known.join(", ")
        ),
    )
}

impl ScoringQuery {
    /// Checks everything but the week, which needs a city: intent, classes,
    /// toggles and weights.
    ///
    /// # Errors
    /// [`QueryError`] naming the field at fault.
    pub fn params(&self) -> Result<ScoringParams, QueryError> {
        let intent = match &self.intent {
            None => Intent::Overall,
            Some(text) => text.parse().map_err(|e: crate::scoring::UnknownIntent| {
                QueryError::invalid("intent", e.to_string())
            })?,
        };
        let mut active = [true; 5];
        if let Some(codes) = &self.active_codes {
            active = [false; 5];
            for (i, code) in codes.iter().enumerate() {
                let position = class_position(code).ok_or_else(|| QueryError {
                    index: Some(i),
                    ..unknown_class("activeCodes", code)
                })?;
                active[position] = true;
            }
        }
        for (code, &on) in self.toggles.iter().flatten() {
            let position = class_position(code).ok_or_else(|| unknown_class("toggles", code))?;
            active[position] &= on;
        }
        if !active.contains(&true) {
            return Err(QueryError::invalid(
                "activeCodes",
                "at least one crime class must be active",
            ));
        }
        let mut overrides = [1.0; 5];
        let weights = self
            .modifiers
            .as_ref()
            .and_then(|m| m.class_weights.as_ref());
        for (code, &weight) in weights.into_iter().flatten() {
            let position = class_position(code)
                .ok_or_else(|| unknown_class("modifiers.classWeights", code))?;
            if !(0.0..=MAX_CLASS_WEIGHT).contains(&weight) {
                return Err(QueryError::invalid(
                    "modifiers.classWeights",
                    format!(
                        "class weights must be between 0 and {MAX_CLASS_WEIGHT}, got {weight} for {code}"
                    ),
                ));
            }
            overrides[position] = weight;
        }
        if let Some(text) = self.modifiers.as_ref().and_then(|m| m.week.as_ref()) {
            super::dates::parse_date(text).ok_or_else(|| {
                QueryError::invalid("modifiers.week", "week must be a date, YYYY-MM-DD")
            })?;
        }
        if let Some(time) = self.modifiers.as_ref().and_then(|m| m.time.as_ref()) {
            let week_too = self.modifiers.as_ref().is_some_and(|m| m.week.is_some());
            if matches!(checked_time(time, "modifiers.time")?, CheckedTime::At(_)) && week_too {
                return Err(QueryError::invalid("modifiers.time", TIME_NAMES_ITS_WEEK));
            }
        }
        Ok(ScoringParams {
            intent,
            active,
            overrides,
            window: if intent == Intent::Night {
                TimeWindow::Nights
            } else {
                TimeWindow::Week
            },
        })
    }

    /// Resolves a route's `departAt` for a city: the forecast week and the local hour
    /// of the week it names. An hour of the week takes `resolved_week`, the week
    /// [`Self::resolve`] found for the request.
    ///
    /// # Errors
    /// [`QueryError`] naming `departAt`: malformed, out of the city's range, or given
    /// with `modifiers.time` (one scores every cell in one band, the other each cell
    /// when it is reached) or, as an ISO time, with `modifiers.week`.
    pub fn departure(
        &self,
        model: &CityModel,
        depart_at: &TimeModifier,
        resolved_week: usize,
    ) -> Result<Departure, QueryError> {
        let modifiers = self.modifiers.as_ref();
        if modifiers.is_some_and(|m| m.time.is_some()) {
            return Err(QueryError::invalid(
                "departAt",
                "give departAt or modifiers.time, not both: departAt scores each cell when it is reached",
            ));
        }
        match checked_time(depart_at, "departAt")? {
            CheckedTime::HourOfWeek(hour) => Ok(Departure {
                week: resolved_week,
                hour_of_week: f64::from(hour),
            }),
            CheckedTime::At(_) if modifiers.is_some_and(|m| m.week.is_some()) => {
                Err(QueryError::invalid("departAt", TIME_NAMES_ITS_WEEK))
            }
            CheckedTime::At(when) => {
                let out_of_range = |message: String| {
                    QueryError::new(ErrorCode::DateOutOfRange, "departAt", message)
                };
                let local = when
                    .local_in(model)
                    .ok_or_else(|| out_of_range("departAt out of range".into()))?;
                let week = model
                    .week_index(local.date())
                    .map_err(|e| out_of_range(e.to_string()))?;
                let days = f64::from(local.weekday().num_days_from_monday());
                let time = local.time();
                Ok(Departure {
                    week,
                    hour_of_week: days * 24.0
                        + f64::from(time.hour())
                        + f64::from(time.minute()) / 60.0
                        + f64::from(time.second()) / 3600.0,
                })
            }
        }
    }

    /// Resolves the options for a city at an instant (seconds since the epoch,
    /// which sets the default week).
    ///
    /// # Errors
    /// [`QueryError`] naming the field at fault.
    pub fn resolve(&self, model: &CityModel, now_utc_seconds: i64) -> Result<Scoring, QueryError> {
        let mut params = self.params()?;
        let time = self
            .modifiers
            .as_ref()
            .and_then(|m| m.time.as_ref())
            .map(|t| checked_time(t, "modifiers.time"))
            .transpose()?;
        let bands = model.artifact().profiles.bands;
        if let Some(CheckedTime::At(when)) = time {
            // The time names both the week and the band.
            let local = when.local_in(model).ok_or_else(|| {
                QueryError::new(
                    ErrorCode::DateOutOfRange,
                    "modifiers.time",
                    "time out of range",
                )
            })?;
            let week = model.week_index(local.date()).map_err(|e| {
                QueryError::new(ErrorCode::DateOutOfRange, "modifiers.time", e.to_string())
            })?;
            params.window = TimeWindow::Band(bands.instance(local).band);
            return Ok(Scoring { params, week });
        }
        if let Some(CheckedTime::HourOfWeek(hour)) = time {
            params.window = TimeWindow::Band(bands.at_hour_of_week(hour));
        }
        let week = match self.modifiers.as_ref().and_then(|m| m.week.as_ref()) {
            Some(text) => {
                let date = super::dates::parse_date(text).ok_or_else(|| {
                    QueryError::invalid("modifiers.week", "week must be a date, YYYY-MM-DD")
                })?;
                model.week_index(date).map_err(|e| {
                    QueryError::new(ErrorCode::DateOutOfRange, "modifiers.week", e.to_string())
                })?
            }
            None => default_week(model, now_utc_seconds),
        };
        Ok(Scoring { params, week })
    }
}

/// How answers name the hours scored: `week`, `nights`, or a band such as
/// `weekend 22:00-00:00` (local time).
#[must_use]
pub fn window_label(model: &CityModel, window: TimeWindow) -> String {
    let bands = model.artifact().profiles.bands;
    match window {
        TimeWindow::Week => "week".into(),
        TimeWindow::Nights => "nights".into(),
        TimeWindow::Band(band) => {
            let start = bands.start_hour(band.position);
            let end = (u32::from(start) + u32::from(bands.band_hours)) % 24;
            format!("{} {start:02}:00-{end:02}:00", band.kind.code())
        }
    }
}

/// The current week, or the nearest week with forecasts.
#[must_use]
pub fn default_week(model: &CityModel, now_utc_seconds: i64) -> usize {
    let last = model.week_count().saturating_sub(1);
    match model.current_week(now_utc_seconds) {
        Some(date) if date < model.first_week() => 0,
        Some(date) => model.week_index(date).unwrap_or(last),
        None => last,
    }
}
