//! Small pieces the router API's answers and requests share: constant texts as types,
//! cell ids written without an intermediate string, numbers per crime class and per
//! intent, and, for the JSON Schemas of the OpenAPI document (feature `schema`), the
//! names the engine holds as constants (class codes, intents, modes, methods,
//! networks), so that a schema lists exactly the names the code accepts and answers.

use serde::ser::{Serialize, SerializeMap, Serializer};

use crate::CellIndex;
use crate::forecast::CRIME_CLASSES;
use crate::scoring::Intent;

/// A unit type that serialises as one constant text; its schema is that constant.
macro_rules! const_text {
    ($(#[$meta:meta])* $name:ident = $text:literal) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
        pub struct $name;

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str($text)
            }
        }

        #[cfg(feature = "schema")]
        impl schemars::JsonSchema for $name {
            fn inline_schema() -> bool {
                true
            }

            fn schema_name() -> alloc::borrow::Cow<'static, str> {
                stringify!($name).into()
            }

            fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
                schemars::json_schema!({ "const": $text })
            }
        }
    };
}

const_text!(
    /// `"type": "FeatureCollection"` of a GeoJSON answer.
    FeatureCollectionType = "FeatureCollection"
);
const_text!(
    /// `"type": "Feature"` of a GeoJSON feature.
    FeatureType = "Feature"
);
const_text!(
    /// `"type": "Polygon"` of a GeoJSON geometry.
    PolygonType = "Polygon"
);
const_text!(
    /// `"type": "MultiPolygon"` of a GeoJSON geometry.
    MultiPolygonType = "MultiPolygon"
);
const_text!(
    /// `"type": "LineString"` of a GeoJSON geometry.
    LineStringType = "LineString"
);

/// A cell as its id text (15 hexadecimal digits), written without an intermediate
/// string.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CellText(pub CellIndex);

impl Serialize for CellText {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(&self.0)
    }
}

/// One number per crime class the router API counts, an object keyed by the class
/// codes in the API's order (`THEFT_BURGLARY` … `OTHER`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PerClass(pub [f64; 5]);

impl Serialize for PerClass {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(CRIME_CLASSES.len()))?;
        for (class, value) in CRIME_CLASSES.iter().zip(self.0) {
            map.serialize_entry(class.code(), &value)?;
        }
        map.end()
    }
}

/// One number per intent, an object keyed by the intents' names in the API's order
/// (`overall`, `walking`, `driving`, `night`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PerIntent(pub [f64; 4]);

impl Serialize for PerIntent {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(Intent::ALL.len()))?;
        for (intent, value) in Intent::ALL.iter().zip(self.0) {
            map.serialize_entry(intent.name(), &value)?;
        }
        map.end()
    }
}

#[cfg(feature = "schema")]
pub use schema::{
    CellId, ClassCode, ClassWeight, ClosedRing, ColourBand, Date, HourOfWeek, NetworkName,
    Position, RouteMethodName, no_default, number_per_name,
};

/// The schemas of the names and numbers above, and markers for fields whose Rust type
/// says less than the API does (`#[schemars(with = "...")]`).
#[cfg(feature = "schema")]
mod schema {
    use alloc::borrow::Cow;
    use alloc::string::String;
    use alloc::vec::Vec;

    use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
    use serde_json::{Map, Value};

    use super::{CRIME_CLASSES, CellText, Intent, PerClass, PerIntent};
    use crate::operations::options::{MAX_CLASS_WEIGHT, MAX_HOUR_OF_WEEK};
    use crate::plan::RouteObjective;
    use crate::roads::NetworkKind;
    use crate::routing::RouteMethod;

    /// An inline schema type named `$name` whose schema is `$schema`.
    macro_rules! marker {
        ($(#[$meta:meta])* $name:ident => $schema:expr) => {
            $(#[$meta])*
            pub struct $name;

            impl JsonSchema for $name {
                fn inline_schema() -> bool {
                    true
                }

                fn schema_name() -> Cow<'static, str> {
                    stringify!($name).into()
                }

                fn json_schema(_: &mut SchemaGenerator) -> Schema {
                    $schema
                }
            }
        };
    }

    /// An object with one required number per name, and nothing else.
    #[must_use]
    pub fn number_per_name<'a>(names: impl IntoIterator<Item = &'a str>) -> Schema {
        let names: Vec<&str> = names.into_iter().collect();
        let properties: Map<String, Value> = names
            .iter()
            .map(|&name| (name.into(), serde_json::json!({"type": "number"})))
            .collect();
        json_schema!({
            "type": "object",
            "properties": properties,
            "required": names,
            "additionalProperties": false,
        })
    }

    /// Leaves out the `default` of an optional field that a `#[serde(default)]` gave
    /// (`null`: the field is absent, and the text says what that means).
    pub fn no_default(schema: &mut Schema) {
        schema.remove("default");
    }

    marker!(
        /// An H3 cell id of resolution 8: 15 lowercase hexadecimal digits.
        CellId => json_schema!({"type": "string", "pattern": "^[0-9a-f]{15}$"})
    );
    marker!(
        /// A date, `YYYY-MM-DD`.
        Date => json_schema!({"type": "string", "format": "date"})
    );
    marker!(
        /// A GeoJSON position: `[lng, lat]`.
        Position => json_schema!({
            "type": "array",
            "items": {"type": "number"},
            "minItems": 2,
            "maxItems": 2,
        })
    );
    marker!(
        /// A closed GeoJSON ring: at least four positions, the last the first.
        ClosedRing => json_schema!({
            "type": "array",
            "items": {
                "type": "array",
                "items": {"type": "number"},
                "minItems": 2,
                "maxItems": 2,
            },
            "minItems": 4,
        })
    );
    marker!(
        /// A crime class code of the router API.
        ClassCode => json_schema!({
            "enum": CRIME_CLASSES.iter().map(|c| c.code()).collect::<Vec<_>>()
        })
    );
    marker!(
        /// A class weight multiplier.
        ClassWeight => json_schema!({"type": "number", "minimum": 0, "maximum": MAX_CLASS_WEIGHT})
    );
    marker!(
        /// A colour band of the palette of `GET /hexes/config`, -1 for no data.
        ColourBand => json_schema!({"type": "integer", "minimum": -1, "maximum": 16})
    );
    marker!(
        /// An hour of the week, Monday 00:00 local = 0.
        HourOfWeek => json_schema!({"type": "integer", "minimum": 0, "maximum": MAX_HOUR_OF_WEEK})
    );
    marker!(
        /// The network a city routes over.
        NetworkName => json_schema!({
            "enum": [NetworkKind::Roads.name(), NetworkKind::HexLattice.name()]
        })
    );
    marker!(
        /// A route method, or `tradeoff`.
        RouteMethodName => json_schema!({
            "enum": RouteMethod::ALL
                .iter()
                .map(|m| m.name())
                .chain([RouteObjective::Tradeoff.name()])
                .collect::<Vec<_>>()
        })
    );

    impl JsonSchema for CellText {
        fn inline_schema() -> bool {
            true
        }

        fn schema_name() -> Cow<'static, str> {
            "CellId".into()
        }

        fn json_schema(generator: &mut SchemaGenerator) -> Schema {
            CellId::json_schema(generator)
        }
    }

    impl JsonSchema for PerClass {
        fn inline_schema() -> bool {
            true
        }

        fn schema_name() -> Cow<'static, str> {
            "PerClass".into()
        }

        fn json_schema(_: &mut SchemaGenerator) -> Schema {
            number_per_name(CRIME_CLASSES.iter().map(|c| c.code()))
        }
    }

    impl JsonSchema for PerIntent {
        fn inline_schema() -> bool {
            true
        }

        fn schema_name() -> Cow<'static, str> {
            "PerIntent".into()
        }

        fn json_schema(_: &mut SchemaGenerator) -> Schema {
            number_per_name(Intent::ALL.iter().map(|i| i.name()))
        }
    }

    impl JsonSchema for Intent {
        fn inline_schema() -> bool {
            true
        }

        fn schema_name() -> Cow<'static, str> {
            "Intent".into()
        }

        fn json_schema(_: &mut SchemaGenerator) -> Schema {
            json_schema!({"enum": Intent::ALL.iter().map(|i| i.name()).collect::<Vec<_>>()})
        }
    }
}

#[cfg(test)]
mod tests;
