use super::*;

#[test]
fn queries_are_percent_encoded_and_joined() {
    let url = with_query(
        "http://h/resource/x.json",
        &[
            ("$where", ":updated_at >= '2021-01-05T10:00:00.000Z'".into()),
            ("$order", ":updated_at,row_id".into()),
        ],
    );
    assert_eq!(
        url,
        "http://h/resource/x.json?%24where=%3Aupdated_at%20%3E%3D%20%272021-01-05T10%3A00%3A00.000Z%27&%24order=%3Aupdated_at%2Crow_id"
    );
    assert_eq!(
        with_query("http://h/q?resource_id=a", &[("limit", "5".into())]),
        "http://h/q?resource_id=a&limit=5"
    );
}
