// SPDX-License-Identifier: GPL-2.0

//! The lies of the emulated GPU's units (`--gfw-fault`, `--vbios-fault`, `--fb-fault`,
//! `--fwsec-fault`), declared once each with [`lies!`]: the enum, every variant's name on the
//! command line and what it makes the unit do (for the log), and the parsing of a name, whose
//! error lists the valid ones.

/// Declares a lie enum: `lies! { /// doc; pub enum Name ("what lies") { /// doc; Variant =
/// "name" => "what it does", ... } }`. Generates `ALL`, `name()`, `describe()`, `FromStr` and
/// the error of an unknown name, `UnknownLie`.
macro_rules! lies {
    (
        $(#[$meta:meta])*
        pub enum $name:ident ($what:literal) {
            $($(#[$vmeta:meta])* $variant:ident = $text:literal => $describe:literal,)*
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum $name {
            $($(#[$vmeta])* $variant,)*
        }

        impl $name {
            /// Every lie, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant),*];

            /// Its name on the command line.
            pub fn name(self) -> &'static str {
                match self {
                    $($name::$variant => $text,)*
                }
            }

            /// What it makes the unit do, for the log.
            pub fn describe(self) -> &'static str {
                match self {
                    $($name::$variant => $describe,)*
                }
            }
        }

        impl std::str::FromStr for $name {
            type Err = $crate::lie::UnknownLie;

            fn from_str(s: &str) -> Result<Self, Self::Err> {
                Self::ALL
                    .iter()
                    .copied()
                    .find(|l| l.name() == s)
                    .ok_or_else(|| $crate::lie::UnknownLie {
                        what: $what,
                        given: s.to_string(),
                        names: Self::ALL.iter().map(|l| l.name()).collect(),
                    })
            }
        }
    };
}

pub(crate) use lies;

/// A lie's name that names none: what lies, the name given, the valid names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownLie {
    pub what: &'static str,
    pub given: String,
    pub names: Vec<&'static str>,
}

impl std::fmt::Display for UnknownLie {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "unknown {} lie '{}' (lies: {})",
            self.what,
            self.given,
            self.names.join(", ")
        )
    }
}

/// clap's value parsers take the lies' `FromStr` as is.
impl std::error::Error for UnknownLie {}

#[cfg(test)]
mod tests {
    lies! {
        /// A test lie.
        pub enum TestLie ("test") {
            /// One.
            One = "one" => "does one",
            Two = "two-words" => "does two",
        }
    }

    #[test]
    fn names_parse_back_and_unknown_ones_list_the_valid() {
        for &l in TestLie::ALL {
            assert_eq!(l.name().parse(), Ok(l));
        }
        assert_eq!(TestLie::Two.describe(), "does two");
        let e = "three".parse::<TestLie>().unwrap_err().to_string();
        assert_eq!(e, "unknown test lie 'three' (lies: one, two-words)");
    }
}
