use alloc::string::ToString;
use core::str::FromStr;

use crate::corridor::TravelMode;
use crate::routing::RouteMethod;
use crate::scoring::Intent;

fn round_trips<T>(all: &[T])
where
    T: Copy + PartialEq + core::fmt::Debug + core::fmt::Display + FromStr,
    T::Err: core::fmt::Debug,
{
    for &value in all {
        assert_eq!(T::from_str(&value.to_string()).unwrap(), value);
    }
}

#[test]
fn every_name_parses_back() {
    round_trips(&Intent::ALL);
    round_trips(&RouteMethod::ALL);
    round_trips(&TravelMode::ALL);
    assert_eq!(Intent::ALL.len(), 4);
    assert_eq!(RouteMethod::Balanced.name(), "balanced");
}

#[test]
fn errors_list_every_name() {
    assert_eq!(
        "Night".parse::<Intent>().unwrap_err().to_string(),
        "unknown intent (expected one of overall, walking, driving, night)"
    );
    assert_eq!(
        "fastest".parse::<RouteMethod>().unwrap_err().to_string(),
        "unknown method (expected one of safest, balanced, shortest)"
    );
    assert_eq!(
        "".parse::<TravelMode>().unwrap_err().to_string(),
        "unknown mode (expected one of walking, cycling, driving)"
    );
}
