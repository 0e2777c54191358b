use super::*;

const BANDS: TimeBands = TimeBands {
    band_hours: 4,
    day_start_hour: 22,
};

fn at(y: i32, m: u32, d: u32, h: u32, min: u32) -> NaiveDateTime {
    NaiveDate::from_ymd_opt(y, m, d)
        .unwrap()
        .and_hms_opt(h, min, 0)
        .unwrap()
}

#[test]
fn friday_night_is_the_first_band_of_the_weekend() {
    // 2021-12-03 is a Friday.
    let late = BANDS.instance(at(2021, 12, 3, 23, 30));
    assert_eq!(
        late.band,
        Band {
            kind: DayKind::Weekend,
            position: 0
        }
    );
    assert_eq!(late.day, NaiveDate::from_ymd_opt(2021, 12, 4).unwrap());
    assert_eq!(late.start, at(2021, 12, 3, 22, 0));
    assert_eq!(late.end, at(2021, 12, 4, 2, 0));
    let early = BANDS.instance(at(2021, 12, 4, 1, 59));
    assert_eq!((early.band, early.start), (late.band, late.start));
    // Friday 21:59 is still the last weekday band.
    let before = BANDS.instance(at(2021, 12, 3, 21, 59));
    assert_eq!(
        before.band,
        Band {
            kind: DayKind::Weekday,
            position: 5
        }
    );
    assert_eq!(before.end, at(2021, 12, 3, 22, 0));
    // Sunday 22:00 starts Monday's weekday band day.
    let sunday = BANDS.instance(at(2021, 12, 5, 22, 0));
    assert_eq!(
        sunday.band,
        Band {
            kind: DayKind::Weekday,
            position: 0
        }
    );
}

#[test]
fn flat_shares_fill_the_week_and_indexes_round_trip() {
    let total: f64 = (0..BANDS.count())
        .map(|i| BANDS.flat_share(BANDS.band(i)))
        .sum();
    assert!((total - 1.0).abs() < 1e-12);
    for i in 0..BANDS.count() {
        assert_eq!(BANDS.index(BANDS.band(i)), i);
    }
    let midnight = TimeBands {
        band_hours: 6,
        day_start_hour: 0,
    };
    let (band, day) = midnight.at(NaiveDate::from_ymd_opt(2021, 12, 3).unwrap(), 23);
    assert_eq!((band.position, day.day()), (3, 3));
}

#[test]
fn hours_of_the_week_find_the_same_bands_as_dates() {
    // 2021-12-06 is a Monday.
    let monday = NaiveDate::from_ymd_opt(2021, 12, 6).unwrap();
    for hour in 0..WEEK_HOURS {
        let date = monday + chrono::Days::new(u64::from(hour / 24));
        let (band, _) = BANDS.at(date, u8::try_from(hour % 24).unwrap());
        assert_eq!(BANDS.at_hour_of_week(hour), band, "hour {hour}");
    }
    // Nights: 22:00-02:00 and 02:00-06:00 start in 22:00..04:00.
    let nights: Vec<u8> = (0..6).filter(|&p| BANDS.is_night(p)).collect();
    assert_eq!(nights, [0, 1]);
    let two_hours = TimeBands {
        band_hours: 2,
        day_start_hour: 22,
    };
    let nights: Vec<u8> = (0..12).filter(|&p| two_hours.is_night(p)).collect();
    assert_eq!(nights, [0, 1, 2]);
}

#[test]
fn uneven_layouts_are_refused() {
    assert!(
        TimeBands {
            band_hours: 5,
            day_start_hour: 22
        }
        .check()
        .is_err()
    );
    assert!(
        TimeBands {
            band_hours: 4,
            day_start_hour: 24
        }
        .check()
        .is_err()
    );
    assert!(BANDS.check().is_ok());
}
