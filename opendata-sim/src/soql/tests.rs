use super::*;

#[test]
fn reads_both_bounds_and_in_lists() {
    let terms = parse(
        ":updated_at >= '2021-01-01T00:00:00.000' and :updated_at < '2021-02-01' AND row_id IN ('a', 'it''s')",
    )
    .unwrap();
    assert_eq!(
        terms,
        vec![
            Term::Compare {
                column: ":updated_at".into(),
                op: Op::Ge,
                literal: "2021-01-01T00:00:00.000".into()
            },
            Term::Compare {
                column: ":updated_at".into(),
                op: Op::Lt,
                literal: "2021-02-01".into()
            },
            Term::In {
                column: "row_id".into(),
                values: vec!["a".into(), "it's".into()]
            },
        ]
    );
}

#[test]
fn refuses_what_it_does_not_read() {
    for clause in [
        ":updated_at > 5",
        "a = 'x' OR b = 'y'",
        "a IN ('x'",
        "a = 'x' b = 'y'",
        "",
        "a ~ 'x'",
        "a = 'x",
    ] {
        assert!(parse(clause).is_err(), "{clause}");
    }
    assert!(Op::Le.holds(std::cmp::Ordering::Equal));
    assert!(!Op::Lt.holds(std::cmp::Ordering::Equal));
}
