//! Places by name on a city's network. Today: reverse lookup ([`reverse`]), the
//! named street and the intersection nearest a point.

pub mod reverse;

pub use reverse::{Intersection, NamedStreet, Reverse, reverse};
