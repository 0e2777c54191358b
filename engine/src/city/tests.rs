use super::*;
use crate::artifact::fixture::CityFixture;

fn model() -> CityModel {
    CityModel::from_bytes(&artifact::encode(&CityFixture::default().build()).unwrap()).unwrap()
}

#[test]
fn weeks_map_dates_to_monday_weeks() {
    let model = model();
    let first = NaiveDate::from_ymd_opt(2021, 12, 20).unwrap();
    assert_eq!(model.week_index(first), Ok(0));
    assert_eq!(model.week_index(first + chrono::Days::new(6)), Ok(0));
    assert_eq!(model.week_index(first + chrono::Days::new(7)), Ok(1));
    assert_eq!(model.week_index(first + chrono::Days::new(20)), Ok(2));
    let err = model.week_index(first + chrono::Days::new(21)).unwrap_err();
    assert_eq!(err.last, first + chrono::Days::new(20));
    assert!(model.week_index(first - chrono::Days::new(1)).is_err());
    assert_eq!(
        week_start(NaiveDate::from_ymd_opt(2022, 1, 9).unwrap()),
        NaiveDate::from_ymd_opt(2022, 1, 3).unwrap()
    );
}

#[test]
fn local_dates_follow_the_offset_table() {
    let model = model();
    // 2022-01-03 04:30 UTC is still Sunday 2 January in Toronto (UTC-5).
    let monday_0430_utc = 1_641_184_200;
    assert_eq!(model.utc_offset(monday_0430_utc), -5 * 3600);
    assert_eq!(
        model.local_date(monday_0430_utc),
        NaiveDate::from_ymd_opt(2022, 1, 2)
    );
    assert_eq!(
        model.current_week(monday_0430_utc),
        NaiveDate::from_ymd_opt(2021, 12, 27)
    );
    // After the switch to daylight time the offset is -4 h.
    assert_eq!(model.utc_offset(1_647_154_800), -4 * 3600);
    // Before the table starts, its first entry holds.
    assert_eq!(model.utc_offset(0), -5 * 3600);
    let range = model.prediction_range(monday_0430_utc);
    assert_eq!(range.start, model.first_week());
    assert_eq!(Some(range.end), NaiveDate::from_ymd_opt(2022, 1, 9));
    assert_eq!(range.weeks_available, 3);
    assert_eq!(range.current_week, NaiveDate::from_ymd_opt(2021, 12, 27));
}

#[test]
fn forecasts_decode_rates_and_sum_to_one() {
    let model = model();
    for week in 0..model.week_count() {
        for position in 0..model.cell_count() {
            let forecast = model.forecast(position, week);
            assert!((forecast.probabilities.iter().sum::<f64>() - 1.0).abs() < 1e-12);
            assert!(forecast.rates.iter().all(|&r| r > 0.0));
        }
    }
    assert_eq!(model.rates(99, 0), [0.0; 5]);
}

#[test]
fn the_bands_of_a_week_add_up_to_the_week() {
    let model = model();
    let monday = NaiveDate::from_ymd_opt(2021, 12, 27).unwrap();
    let week = model.week_index(monday).unwrap();
    let bands = model.artifact().profiles.bands;
    for position in 0..model.cell_count() {
        let weekly = model.rates(position, week);
        let mut summed = [0.0; RATE_CLASSES];
        let mut seen = alloc::vec::Vec::new();
        // Every band instance of the week's band days, found by walking the hours.
        for hour in 0..(7 * 24) {
            let local = monday.and_hms_opt(0, 0, 0).unwrap()
                - chrono::Duration::hours(i64::from(24 - bands.day_start_hour))
                + chrono::Duration::hours(hour);
            let (band, forecast_of_band) = model.band_forecast(position, week, local);
            if seen.contains(&band.start) {
                continue;
            }
            seen.push(band.start);
            let rates = model
                .artifact()
                .profiles
                .band_rates(position, band.band, &weekly);
            assert_eq!(
                forecast_of_band,
                Forecast::new(rates, &model.dispersion(week))
            );
            for (s, r) in summed.iter_mut().zip(rates) {
                *s += r;
            }
        }
        assert_eq!(seen.len(), 7 * bands.per_day());
        for (s, w) in summed.iter().zip(weekly) {
            assert!((s - w).abs() <= 1e-4 * w.max(1e-9), "{s} against {w}");
        }
    }
}

#[test]
fn a_busier_band_has_a_lower_no_crime_probability() {
    // The fixture's profile grows band by band through the band day.
    let model = model();
    let friday = NaiveDate::from_ymd_opt(2021, 12, 31).unwrap();
    let week = model.week_index(friday).unwrap();
    let morning = model.band_forecast(0, week, friday.and_hms_opt(3, 0, 0).unwrap());
    let evening = model.band_forecast(0, week, friday.and_hms_opt(20, 0, 0).unwrap());
    assert!(
        evening.1.probabilities[CrimeClass::NoCrime.index()]
            < morning.1.probabilities[CrimeClass::NoCrime.index()]
    );
    assert_eq!(morning.0.start, friday.and_hms_opt(2, 0, 0).unwrap());
}

#[test]
fn atlas_locates_points_and_refuses_others() {
    let atlas = Atlas::new(alloc::vec![model()]);
    let (city, cell, position) = atlas.locate(43.65, -79.38).unwrap();
    assert_eq!(city.artifact().city.code, "city_ca_tor");
    assert_eq!(city.cell(position), Some(cell));
    assert_eq!(atlas.locate(0.5, 0.5).unwrap_err(), LocateError::NotCovered);
    assert!(matches!(
        atlas.locate(95.0, 0.0),
        Err(LocateError::Coordinates(_))
    ));
}

#[test]
fn dominant_and_risk_level_follow_the_probabilities() {
    let quiet = Forecast::from_rates([0.01, 0.0, 0.0, 0.0, 0.0]);
    assert_eq!(quiet.dominant(), CrimeClass::NoCrime);
    assert_eq!(quiet.risk_level(), RiskLevel::Low);
    let busy = Forecast::from_rates([0.1, 3.0, 0.2, 0.1, 0.0]);
    assert_eq!(busy.dominant(), CrimeClass::BatteryAssault);
    assert_eq!(busy.risk_level(), RiskLevel::VeryHigh);
}
