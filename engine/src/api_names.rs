//! Enums whose values travel as API text (intents, route methods, travel modes).

/// Gives a fieldless enum its API names: `ALL` (declaration order), `name()`,
/// `Display`, and `FromStr` with a unit error type whose message lists every name.
///
/// ```text
/// api_names! {
///     /// The text is not an intent name.
///     Intent, UnknownIntent, "intent" {
///         Overall => "overall",
///         Night => "night",
///     }
/// }
/// ```
macro_rules! api_names {
    (
        $(#[$error_meta:meta])*
        $name:ident, $error:ident, $what:literal {
            $($variant:ident => $text:literal),+ $(,)?
        }
    ) => {
        impl $name {
            /// Every value, in declaration order.
            pub const ALL: [Self; [$($text),+].len()] = [$(Self::$variant),+];

            /// The API name.
            #[must_use]
            pub const fn name(self) -> &'static str {
                match self {
                    $(Self::$variant => $text,)+
                }
            }
        }

        impl core::fmt::Display for $name {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.write_str(self.name())
            }
        }

        $(#[$error_meta])*
        #[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
        #[error("{}", concat!("unknown ", $what, " (expected one of ", api_names!(@list $($text),+), ")"))]
        pub struct $error;

        impl core::str::FromStr for $name {
            type Err = $error;

            fn from_str(text: &str) -> Result<Self, Self::Err> {
                Self::ALL
                    .into_iter()
                    .find(|value| value.name() == text)
                    .ok_or($error)
            }
        }
    };
    (@list $first:literal $(, $rest:literal)*) => {
        concat!($first $(, ", ", $rest)*)
    };
}

#[cfg(test)]
mod tests {
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
}
