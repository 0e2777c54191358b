use super::*;
use serde_json::json;

#[test]
fn sandbox_mode_ends_object_bodies_only() {
    let object = SuccessBody::from(json!({"status": "success", "data": [1, 2]}));
    assert_eq!(
        &object.to_json(true)[..],
        br#"{"status":"success","data":[1,2],"sandbox_mode":true}"#
    );
    assert_eq!(
        &object.to_json(false)[..],
        br#"{"status":"success","data":[1,2]}"#
    );
    let array = SuccessBody::from(json!([1, 2]));
    assert_eq!(&array.to_json(true)[..], b"[1,2]");
}
