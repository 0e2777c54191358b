use serde_json::json;

use super::*;

fn toronto_fields() -> FeedFields {
    FeedFields {
        id: "OBJECTID".into(),
        event: Some("EVENT_UNIQUE_ID".into()),
        occurred: "OCC_DATE".into(),
        occurred_as: OccurredAs::Instant,
        hour: Some("OCC_HOUR".into()),
        reported: Some("REPORT_DATE".into()),
        offence: vec!["CSI_CATEGORY".into(), "MCI_CATEGORY".into()],
        description: None,
        premises: Some("PREMISES_TYPE".into()),
        latitude: "LAT_WGS84".into(),
        longitude: "LONG_WGS84".into(),
    }
}

#[test]
fn toronto_layer_rows_map_in_both_spellings() {
    // 1388552400000 is 2014-01-01 05:00 UTC: midnight in Toronto, as the
    // City's CSV export renders it ("1/1/2014 5:00:00 AM").
    let row = json!({"OBJECTID": 7, "EVENT_UNIQUE_ID": "GO-1", "OCC_DATE": 1_388_552_400_000_i64,
        "OCC_HOUR": "23", "REPORT_DATE": 1_388_638_800_000_i64, "MCI_CATEGORY": "Assault",
        "PREMISES_TYPE": "Outside", "LAT_WGS84": 43.65, "LONG_WGS84": -79.38});
    let tz: Tz = "America/Toronto".parse().unwrap();
    let record = map_row(row.as_object().unwrap(), None, &toronto_fields(), tz).unwrap();
    assert_eq!(record.id, "7");
    assert_eq!(record.occurred_date, NaiveDate::from_ymd_opt(2014, 1, 1));
    assert_eq!(record.occurred_hour, Some(23));
    assert_eq!(record.reported.as_deref(), Some("2014-01-02T05:00:00Z"));
    assert_eq!(record.offence, "Assault");
    let mut renamed = row.as_object().unwrap().clone();
    let value = renamed.remove("MCI_CATEGORY").unwrap();
    renamed.insert("CSI_CATEGORY".into(), value);
    assert_eq!(
        map_row(&renamed, None, &toronto_fields(), tz).unwrap(),
        record
    );
    // A null offence (left out of the row) is kept as an empty value; a
    // missing key is an error.
    renamed.remove("CSI_CATEGORY");
    assert_eq!(
        map_row(&renamed, None, &toronto_fields(), tz)
            .unwrap()
            .offence,
        ""
    );
    renamed.remove("OBJECTID");
    assert_eq!(
        map_row(&renamed, None, &toronto_fields(), tz),
        Err(RowError::Missing {
            field: "OBJECTID".into()
        })
    );
}

#[test]
fn socrata_floating_timestamps_are_local_and_strings_are_numbers() {
    let fields = FeedFields {
        id: "row_id".into(),
        event: Some("incident_id".into()),
        occurred: "incident_datetime".into(),
        occurred_as: OccurredAs::Instant,
        hour: None,
        reported: Some("report_datetime".into()),
        offence: vec!["incident_category".into()],
        description: Some("incident_description".into()),
        premises: None,
        latitude: "latitude".into(),
        longitude: "longitude".into(),
    };
    // The verbatim wg3w-h783 row of shared/api-samples/2-sf-wg3w-h783, cut.
    let row = json!({"incident_datetime":"2024-02-15T00:00:00.000","report_datetime":"2024-02-15T07:09:00.000",
        "row_id":"136484905151","incident_id":"1364849","incident_category":"Burglary",
        "incident_description":"Burglary, Non-residential, Forcible Entry",
        "latitude":"37.796897888183594","longitude":"-122.42195892333984"});
    let tz: Tz = "America/Los_Angeles".parse().unwrap();
    let record = map_row(row.as_object().unwrap(), None, &fields, tz).unwrap();
    assert_eq!(record.occurred_date, NaiveDate::from_ymd_opt(2024, 2, 15));
    assert_eq!(record.occurred_hour, Some(0));
    assert_eq!(record.reported.as_deref(), Some("2024-02-15T15:09:00Z"));
    assert_eq!(record.lat, Some(37.796_897_888_183_594));
    assert_eq!(record.event.as_deref(), Some("1364849"));
}

#[test]
fn houston_dates_are_utc_midnight_and_points_come_from_geometry() {
    let fields = FeedFields {
        id: "OBJECTID".into(),
        event: Some("USER_Incident".into()),
        occurred: "USER_RMSOccurrenceDate".into(),
        occurred_as: OccurredAs::UtcMidnightDate,
        hour: Some("USER_RMSOccurrenceHour".into()),
        reported: None,
        offence: vec!["USER_NIBRSClass".into()],
        description: None,
        premises: Some("USER_Premise".into()),
        latitude: GEOMETRY.into(),
        longitude: GEOMETRY.into(),
    };
    // 1686873600000 is 2023-06-16T00:00Z, the sample's date of 2023-06-16.
    let row = json!({"OBJECTID": 1, "USER_RMSOccurrenceDate": 1_686_873_600_000_i64,
        "USER_RMSOccurrenceHour": "00", "USER_NIBRSClass": "Simple assault", "USER_Premise": ""});
    let tz: Tz = "America/Chicago".parse().unwrap();
    let point = Point { x: -95.3, y: 29.7 };
    let record = map_row(row.as_object().unwrap(), Some(point), &fields, tz).unwrap();
    assert_eq!(record.occurred_date, NaiveDate::from_ymd_opt(2023, 6, 16));
    assert_eq!(record.occurred_hour, Some(0));
    assert_eq!((record.lat, record.lng), (Some(29.7), Some(-95.3)));
    assert_eq!(record.premises, None);
}

#[test]
fn toronto_homicides_have_a_date_without_an_hour_and_shootings_one_offence() {
    let mut fields = FeedFields {
        id: "OBJECTID".into(),
        event: Some("EVENT_UNIQUE_ID".into()),
        occurred: "OCC_DATE".into(),
        occurred_as: OccurredAs::LocalDate,
        hour: None,
        reported: None,
        offence: vec!["HOMICIDE_TYPE".into()],
        description: None,
        premises: None,
        latitude: "LAT_WGS84".into(),
        longitude: "LONG_WGS84".into(),
    };
    // 1073106000000 is 2004-01-03T05:00Z, midnight in Toronto (the first row
    // of the shared homicides file).
    let row = json!({"OBJECTID": 7, "EVENT_UNIQUE_ID": "GO-2004111878",
        "OCC_DATE": 1_073_106_000_000_i64, "HOMICIDE_TYPE": "Other",
        "LAT_WGS84": 43.685, "LONG_WGS84": -79.393});
    let tz: Tz = "America/Toronto".parse().unwrap();
    let record = map_row(row.as_object().unwrap(), None, &fields, tz).unwrap();
    assert_eq!(record.occurred_date, NaiveDate::from_ymd_opt(2004, 1, 3));
    assert_eq!(record.occurred_hour, None, "midnight is no hour");
    assert_eq!(record.offence, "Other");
    fields.offence = vec![EVERY_ROW.into()];
    let record = map_row(row.as_object().unwrap(), None, &fields, tz).unwrap();
    assert_eq!(record.offence, "*");
}
