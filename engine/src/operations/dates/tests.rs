use super::*;

/// The inputs chrono's format strings take, and their answers, agree with these.
#[test]
fn these_accept_and_refuse_what_chrono_s_format_strings_do() {
    for text in [
        "2022-01-03",
        "2022-1-3",
        "2022-01-3x",
        "22-01-03",
        "+2022-01-03",
        "2022-02-30",
        "2022-01-03T10:00",
        "2022-01-03T10:00:00",
        "2022-01-03T10:00:00.250",
        "2022-01-03T7:5",
        "2022-01-03T10:00:60",
        "2022-01-03 10:00",
        "",
        "x",
    ] {
        assert_eq!(
            parse_date(text),
            NaiveDate::parse_from_str(text, "%Y-%m-%d").ok(),
            "{text:?}"
        );
        let by_chrono = ["%Y-%m-%dT%H:%M:%S%.f", "%Y-%m-%dT%H:%M"]
            .into_iter()
            .find_map(|f| NaiveDateTime::parse_from_str(text, f).ok());
        assert_eq!(parse_local(text), by_chrono, "{text:?}");
    }
    let at =
        NaiveDateTime::parse_from_str("0987-01-03T04:05:06.7", "%Y-%m-%dT%H:%M:%S%.f").unwrap();
    assert_eq!(local_text(at), at.format("%Y-%m-%dT%H:%M:%S").to_string());
    assert_eq!(hours_minutes(at.time()), at.format("%H:%M").to_string());
}
