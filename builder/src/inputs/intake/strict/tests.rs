use super::*;
use crate::inputs::config::SourceFormat;

fn mci() -> SourceConfig {
    SourceConfig {
        format: SourceFormat::TorontoMci,
        files: vec![],
        field: "MCI".into(),
        classes: std::collections::BTreeMap::new(),
        overrides: vec![],
        street: None,
        feed: None,
        fold_case: false,
    }
}

fn check_text(text: &str) -> Result<CheckedFile, IntakeError> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("new.csv");
    std::fs::write(&path, text).unwrap();
    check(&path, &mci(), chrono_tz::America::Toronto, None, None)
}

fn refusal(text: &str) -> (u64, String, Refusal) {
    match check_text(text).unwrap_err() {
        IntakeError::Refused {
            line,
            column,
            reason,
            ..
        } => (line, column, reason),
        other => panic!("{other}"),
    }
}

const HEADER: &str = "occurrencedate,MCI,Lat,Long,occurrencehour\n";

#[test]
fn good_rows_pass_with_their_date_range() {
    let file = check_text(&format!(
        "{HEADER}2021/07/02 05:00:00+00,Assault,43.7,-79.5,5\n2021/07/01 05:00:00+00,Robbery,NA,,23\n"
    ))
    .unwrap();
    assert_eq!(file.rows.len(), 2);
    assert_eq!(file.keys.len(), 2);
    assert_eq!(
        file.dates,
        (
            NaiveDate::from_ymd_opt(2021, 7, 1).unwrap(),
            NaiveDate::from_ymd_opt(2021, 7, 2).unwrap()
        )
    );
}

#[test]
fn each_kind_of_bad_row_names_line_and_column() {
    let ok = "2021/07/02 05:00:00+00,Assault,43.7,-79.5,5\n";
    assert_eq!(
        refusal("occurrencedate,MCI,Lat,occurrencehour\n"),
        (1, "Long".into(), Refusal::MissingColumn)
    );
    assert_eq!(
        refusal(&format!(
            "{HEADER}{ok}2021/13/45 05:00,Assault,43.7,-79.5,5\n"
        )),
        (
            3,
            "occurrencedate".into(),
            Refusal::BadDate("2021/13/45 05:00".into())
        )
    );
    assert_eq!(
        refusal(&format!(
            "{HEADER}{ok}{ok}2021/07/02 05:00:00+00,Assault,43.7,west,5\n"
        )),
        (4, "Long".into(), Refusal::BadCoordinate("west".into()))
    );
    assert_eq!(
        refusal(&format!(
            "{HEADER}2021/07/02 05:00:00+00,Assault,93.7,-79.5,5\n"
        )),
        (2, "Lat".into(), Refusal::OutOfRange("93.7".into()))
    );
    assert_eq!(
        refusal(&format!("{HEADER}{ok}2021/07/02 05:00:00+00,Assault\n")),
        (
            3,
            "Lat".into(),
            Refusal::FieldCount {
                found: 2,
                expected: 5
            }
        )
    );
    assert_eq!(refusal(HEADER), (2, "(any)".into(), Refusal::NoRows));
}
