//! Each request type of the portal describes what its hand-written parser accepts:
//! the properties its schema lists are the ones the parser reads, the required ones
//! are the ones it refuses without, every value an enum lists is taken, and each
//! bound the schema states (lengths, counts, ranges) is the parser's own, checked on
//! both sides of it.

use chrono::TimeDelta;
use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::{Map, Value, json};

use crate::api::access::ip_ranges::IpRange;
use crate::api::access::keys::{KeyApi, KeyKind, Tier};
use crate::api::partners::store::{PartnerStatus, Role};
use crate::api::plumbing::error::ApiError;
use crate::api::portal::applications::Application;
use crate::api::portal::handler_io::CeremonyCredential;
use crate::api::portal::operator::{
    AuditQuery, Decision, DecisionRequest, PartnersQuery, TierRequest,
};
use crate::api::portal::partner_keys::{KeySettings, Roll};
use crate::api::portal::passkeys::Enrolment;
use crate::api::portal::usage::UsageQuery;
use crate::api::test_support::now;

/// `T`'s schema as a request's: what a client may send.
fn schema_of<T: JsonSchema>() -> Value {
    let root = SchemaSettings::draft2020_12()
        .for_deserialize()
        .into_generator()
        .into_root_schema_for::<T>();
    serde_json::to_value(root).unwrap()
}

/// The property names of a schema, in order.
fn properties(schema: &Value) -> Vec<&str> {
    schema["properties"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect()
}

/// The required property names of a schema.
fn required(schema: &Value) -> Vec<&str> {
    schema["required"]
        .as_array()
        .map(|names| names.iter().map(|n| n.as_str().unwrap()).collect())
        .unwrap_or_default()
}

/// A number a schema states (`maxLength`, `maximum`...) of a property.
fn bound(schema: &Value, property: &str, keyword: &str) -> usize {
    let value = &schema["properties"][property][keyword];
    usize::try_from(
        value
            .as_u64()
            .unwrap_or_else(|| panic!("{property}: no {keyword}")),
    )
    .unwrap()
}

/// The strings a property's `enum` lists (of its items for an array).
fn listed(schema: &Value, property: &str) -> Vec<String> {
    let property = &schema["properties"][property];
    let values = property["enum"]
        .as_array()
        .or_else(|| property["items"]["enum"].as_array())
        .unwrap();
    values
        .iter()
        .map(|v| v.as_str().unwrap().to_owned())
        .collect()
}

fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        other => panic!("not an object: {other}"),
    }
}

/// `body` with `name` set to `value`, or taken out for `None`.
fn with(body: &Value, name: &str, value: Option<Value>) -> Map<String, Value> {
    let mut body = object(body.clone());
    match value {
        Some(value) => body.insert(name.to_owned(), value),
        None => body.remove(name),
    };
    body
}

/// The field an `INVALID_REQUEST` names.
fn field(err: &ApiError) -> &str {
    err.details
        .get("field")
        .and_then(Value::as_str)
        .unwrap_or_default()
}

#[test]
fn an_application_is_what_its_schema_says() {
    let schema = schema_of::<Application>();
    assert_eq!(
        properties(&schema),
        ["organisation", "email", "intended_use"]
    );
    assert_eq!(required(&schema), properties(&schema));
    let body = json!({
        "organisation": "Transit Co",
        "email": "ops@transit.example",
        "intended_use": "night routes",
    });
    assert_eq!(
        Application::parse(&object(body.clone())).unwrap(),
        Application {
            organisation: "Transit Co".to_owned(),
            email: "ops@transit.example".to_owned(),
            intended_use: "night routes".to_owned(),
        }
    );
    for name in properties(&schema) {
        let refused = Application::parse(&with(&body, name, None)).unwrap_err();
        assert_eq!(field(&refused), name, "{name} missing");
        let refused = Application::parse(&with(&body, name, Some(json!("")))).unwrap_err();
        assert_eq!(field(&refused), name, "{name} empty");
        assert_eq!(bound(&schema, name, "minLength"), 1);
        // The longest text the schema allows is taken, one more character is not (an
        // email stays an address).
        let max = bound(&schema, name, "maxLength");
        let text = |n: usize| match name {
            "email" => format!("a@{}.example", "b".repeat(n - 10)),
            _ => "c".repeat(n),
        };
        assert_eq!(text(max).chars().count(), max);
        Application::parse(&with(&body, name, Some(json!(text(max))))).unwrap();
        let refused =
            Application::parse(&with(&body, name, Some(json!(text(max + 1))))).unwrap_err();
        assert_eq!(field(&refused), name, "{name} too long");
    }
}

#[test]
fn a_ceremonys_credential_is_what_its_schema_says() {
    let schema = schema_of::<CeremonyCredential>();
    assert_eq!(properties(&schema), ["ceremony", "credential"]);
    assert_eq!(required(&schema), properties(&schema));
    assert_eq!(schema["properties"]["credential"]["type"], "object");
    let body = json!({ "ceremony": "c1", "credential": { "id": "x" } });
    let parsed = object(body.clone());
    let parsed = CeremonyCredential::parse(&parsed).unwrap();
    assert_eq!(parsed.ceremony, "c1");
    assert_eq!(parsed.credential, &json!({ "id": "x" }));
    for name in properties(&schema) {
        let missing = with(&body, name, None);
        assert_eq!(
            field(&CeremonyCredential::parse(&missing).unwrap_err()),
            name
        );
    }
    let not_an_object = with(&body, "credential", Some(json!("x")));
    assert_eq!(
        field(&CeremonyCredential::parse(&not_an_object).unwrap_err()),
        "credential"
    );
}

/// `n` origins the parser takes, each another, each `len` characters long.
fn origins(n: usize, len: usize) -> Vec<String> {
    (0..n)
        .map(|i| {
            let host = format!("{i:03}{}", "a".repeat(len - "https://".len() - 3));
            format!("https://{host}")
        })
        .collect()
}

/// `n` distinct address ranges.
fn ranges(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("203.0.113.{i}/32")).collect()
}

#[test]
fn key_settings_are_what_their_schema_says() {
    let schema = schema_of::<KeySettings>();
    assert_eq!(
        properties(&schema),
        [
            "label",
            "kind",
            "apis",
            "origins",
            "expires_at",
            "ip_ranges"
        ]
    );
    assert_eq!(required(&schema), ["kind", "apis"]);
    let at = now();
    let expires = (at + TimeDelta::days(10)).to_rfc3339();
    let body = json!({
        "label": "ci",
        "kind": "live",
        "apis": ["router"],
        "origins": ["https://app.example"],
        "expires_at": expires,
        "ip_ranges": ["203.0.113.0/24"],
    });
    let parse = |body: &Map<String, Value>| KeySettings::parse(body, at);
    let settings = parse(&object(body.clone())).unwrap();
    assert_eq!(settings.label, "ci");
    assert_eq!(settings.kind, KeyKind::Live);
    assert_eq!(settings.apis, [KeyApi::Router]);
    assert_eq!(settings.origins, ["https://app.example"]);
    assert_eq!(settings.expires_at, Some(at + TimeDelta::days(10)));
    assert_eq!(
        settings.ip_ranges,
        ["203.0.113.0/24".parse::<IpRange>().unwrap()]
    );
    // What is not required may be left out, or null.
    for name in properties(&schema) {
        let optional = !required(&schema).contains(&name);
        assert_eq!(
            schema["properties"][name]["type"]
                .as_array()
                .is_some_and(|types| types.contains(&json!("null"))),
            optional,
            "{name}"
        );
        for value in [None, Some(Value::Null)] {
            let result = parse(&with(&body, name, value.clone()));
            match (optional, result) {
                (true, result) => {
                    result.unwrap();
                }
                (false, Err(refused)) => assert_eq!(field(&refused), name),
                (false, Ok(_)) => panic!("{name} {value:?} taken"),
            }
        }
    }
    for kind in listed(&schema, "kind") {
        parse(&with(&body, "kind", Some(json!(kind)))).unwrap();
    }
    let apis = listed(&schema, "apis");
    let all = parse(&with(&body, "apis", Some(json!(apis)))).unwrap();
    assert_eq!(all.apis, KeyApi::ALL);
    assert_eq!(bound(&schema, "apis", "minItems"), 1);
    let none = parse(&with(&body, "apis", Some(json!([])))).unwrap_err();
    assert_eq!(field(&none), "apis");
    // Lengths and counts.
    let max = bound(&schema, "label", "maxLength");
    parse(&with(&body, "label", Some(json!("l".repeat(max))))).unwrap();
    let long = parse(&with(&body, "label", Some(json!("l".repeat(max + 1))))).unwrap_err();
    assert_eq!(field(&long), "label");
    let max = bound(&schema, "origins", "maxItems");
    let longest = usize::try_from(
        schema["properties"]["origins"]["items"]["maxLength"]
            .as_u64()
            .unwrap(),
    )
    .unwrap();
    let many = parse(&with(&body, "origins", Some(json!(origins(max, longest))))).unwrap();
    assert_eq!(many.origins.len(), max);
    let refused = parse(&with(&body, "origins", Some(json!(origins(max + 1, 40))))).unwrap_err();
    assert_eq!(field(&refused), "origins");
    let refused = parse(&with(
        &body,
        "origins",
        Some(json!(origins(1, longest + 1))),
    ))
    .unwrap_err();
    assert_eq!(field(&refused), "origins");
    let max = bound(&schema, "ip_ranges", "maxItems");
    let many = parse(&with(&body, "ip_ranges", Some(json!(ranges(max))))).unwrap();
    assert_eq!(many.ip_ranges.len(), max);
    let refused = parse(&with(&body, "ip_ranges", Some(json!(ranges(max + 1))))).unwrap_err();
    assert_eq!(field(&refused), "ip_ranges");
    assert_eq!(schema["properties"]["expires_at"]["format"], "date-time");
}

#[test]
fn a_roll_is_what_its_schema_says() {
    let schema = schema_of::<Roll>();
    assert_eq!(properties(&schema), ["grace_hours"]);
    assert_eq!(required(&schema), ["grace_hours"]);
    let (min, max) = (
        bound(&schema, "grace_hours", "minimum"),
        bound(&schema, "grace_hours", "maximum"),
    );
    for hours in [min, max] {
        let roll = Roll::parse(&object(json!({ "grace_hours": hours }))).unwrap();
        assert_eq!(usize::try_from(roll.grace_hours).unwrap(), hours);
    }
    for body in [
        json!({ "grace_hours": max + 1 }),
        json!({}),
        json!({ "grace_hours": 1.5 }),
    ] {
        assert_eq!(
            field(&Roll::parse(&object(body)).unwrap_err()),
            "grace_hours"
        );
    }
}

#[test]
fn a_decision_is_what_its_schema_says() {
    let schema = schema_of::<DecisionRequest>();
    assert_eq!(properties(&schema), ["decision"]);
    assert_eq!(required(&schema), ["decision"]);
    let named = listed(&schema, "decision");
    assert_eq!(named, Decision::ALL.map(Decision::code));
    for name in named {
        let parsed = DecisionRequest::parse(&object(json!({ "decision": name }))).unwrap();
        assert_eq!(parsed.decision.code(), name);
    }
    for body in [json!({}), json!({ "decision": "delete" })] {
        let refused = DecisionRequest::parse(&object(body)).unwrap_err();
        assert_eq!(field(&refused), "decision");
    }
}

#[test]
fn a_tier_is_what_its_schema_says() {
    let schema = schema_of::<TierRequest>();
    assert_eq!(properties(&schema), ["tier", "daily_limit"]);
    assert_eq!(required(&schema), ["tier"]);
    for name in listed(&schema, "tier") {
        let tier = Tier::parse(&name).unwrap();
        let body = if tier == Tier::Enterprise {
            json!({ "tier": name, "daily_limit": 5 })
        } else {
            json!({ "tier": name, "daily_limit": null })
        };
        assert_eq!(TierRequest::parse(&object(body)).unwrap().tier, tier);
    }
    let (min, max) = (
        bound(&schema, "daily_limit", "minimum"),
        bound(&schema, "daily_limit", "maximum"),
    );
    for limit in [min, max] {
        let body = json!({ "tier": "enterprise", "daily_limit": limit });
        let parsed = TierRequest::parse(&object(body)).unwrap();
        assert_eq!(
            parsed.daily_limit.map(|n| usize::try_from(n).unwrap()),
            Some(limit)
        );
    }
    for body in [
        json!({ "tier": "enterprise", "daily_limit": min - 1 }),
        json!({ "tier": "enterprise", "daily_limit": max + 1 }),
        json!({ "tier": "enterprise" }),
        json!({ "tier": "partner", "daily_limit": min }),
    ] {
        let refused = TierRequest::parse(&object(body)).unwrap_err();
        assert_eq!(field(&refused), "daily_limit");
    }
    let refused = TierRequest::parse(&object(json!({ "tier": "gold" }))).unwrap_err();
    assert_eq!(field(&refused), "tier");
}

#[test]
fn an_enrolment_is_what_its_schema_says() {
    let schema = schema_of::<Enrolment>();
    assert_eq!(properties(&schema), ["token"]);
    assert_eq!(required(&schema), ["token"]);
    let body = object(json!({ "token": "secret" }));
    assert_eq!(Enrolment::parse(&body).token, "secret");
    // None is the empty token, which no link has.
    assert_eq!(Enrolment::parse(&Map::new()).token, "");
}

/// A query's count parameter: its default when absent, both ends of its range
/// taken, one past each refused naming it.
fn check_count(schema: &Value, name: &str, parse: impl Fn(Option<&str>) -> Result<u32, ApiError>) {
    let default = bound(schema, name, "default");
    assert_eq!(usize::try_from(parse(None).unwrap()).unwrap(), default);
    let (min, max) = (
        bound(schema, name, "minimum"),
        bound(schema, name, "maximum"),
    );
    for n in [min, max] {
        let query = format!("{name}={n}");
        assert_eq!(usize::try_from(parse(Some(&query)).unwrap()).unwrap(), n);
    }
    for n in [min - 1, max + 1] {
        let query = format!("{name}={n}");
        assert_eq!(field(&parse(Some(&query)).unwrap_err()), name);
    }
}

#[test]
fn the_queries_are_what_their_schemas_say() {
    let schema = schema_of::<UsageQuery>();
    assert_eq!(properties(&schema), ["days"]);
    assert!(required(&schema).is_empty());
    check_count(&schema, "days", |q| UsageQuery::parse(q).map(|u| u.days));

    let schema = schema_of::<AuditQuery>();
    assert_eq!(properties(&schema), ["limit"]);
    assert!(required(&schema).is_empty());
    check_count(&schema, "limit", |q| AuditQuery::parse(q).map(|a| a.limit));

    let schema = schema_of::<PartnersQuery>();
    assert_eq!(properties(&schema), ["limit", "after"]);
    assert!(required(&schema).is_empty());
    check_count(&schema, "limit", |q| {
        PartnersQuery::parse(q).map(|p| p.limit)
    });
    assert_eq!(schema["properties"]["after"]["type"], "string");
    let cursor = "1641384000000_4d841a9fc861297e49f16be519426d81";
    let page = PartnersQuery::parse(Some(&format!("after={cursor}"))).unwrap();
    assert_eq!(page.after.as_deref(), Some(cursor));
    for refused in ["x", "1641384000000_", "_4d84", "1641384000000_xyz"] {
        let err = PartnersQuery::parse(Some(&format!("after={refused}"))).unwrap_err();
        assert_eq!(field(&err), "after", "{refused}");
    }
}

#[test]
fn the_answers_enums_are_written_as_their_schemas_list_them() {
    fn codes<T: serde::Serialize + JsonSchema>(all: &[T]) {
        let schema = schema_of::<T>();
        let written: Vec<Value> = all
            .iter()
            .map(|v| serde_json::to_value(v).unwrap())
            .collect();
        assert_eq!(json!(written), schema["enum"], "{}", T::schema_name());
    }
    codes(&PartnerStatus::ALL);
    codes(&Role::ALL);
    codes(&Tier::ALL);
    codes(&KeyKind::ALL);
    codes(&KeyApi::ALL);
}
