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
mod tests;
