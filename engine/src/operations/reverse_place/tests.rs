use serde_json::json;

use super::*;
use crate::artifact::fixture::CityFixture;
use crate::city::CityModel;

#[test]
fn the_reverse_query_is_what_reverse_place_reads_and_names_the_street() {
    let atlas = Atlas::new(alloc::vec![CityModel::from_artifact(
        CityFixture::default().build(),
    )]);
    let example = json!({"lat": 43.6505, "lng": -79.378});
    crate::operations::described::check::<ReverseQuery, _>(&example, true, |params| {
        reverse_place(&atlas, params)
    });
    let Value::Object(params) = example else {
        unreachable!("an object")
    };
    let answer = reverse_place(&atlas, &params).unwrap();
    assert_eq!(answer.label.as_deref(), Some("on Queen St W"));
}
