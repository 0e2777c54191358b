//! Places by name on a city's network: the stored index ([`index`]) and how names
//! and queries are compared ([`normal`]); with `std`, search by name ([`search`]) over
//! a city's [`gazetteer`]; and reverse lookup ([`reverse`]), the named street and the
//! intersection nearest a point.

#[cfg(feature = "std")]
pub mod gazetteer;
pub mod index;
#[cfg(feature = "std")]
pub mod matching;
pub mod normal;
pub mod reverse;
#[cfg(feature = "std")]
pub mod search;

#[cfg(feature = "std")]
pub use gazetteer::Gazetteer;
pub use index::{NamedPlace, PlaceIndex, StoredKind};
#[cfg(feature = "std")]
pub use matching::Match;
pub use reverse::{Intersection, NamedStreet, Reverse, reverse};
#[cfg(feature = "std")]
pub use search::{Place, PlaceKind, search};
