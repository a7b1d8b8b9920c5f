// SPDX-License-Identifier: GPL-2.0

//! The `names!` macro: an enum of the values a field of the module's files takes, each
//! declared once with the name the files write for it, for the module and the CLI alike.

/// Declares an enum of the values a field of the files takes, each with the name the files
/// write for it, once: makes the enum, `ALL` and `NAMES` (in declaration order), `name`,
/// `from_name` and `doc` (the variant's doc comment). Used for `logic::grammar::KindName`,
/// `logic::cause::Cause` and `logic::grammar::EndedBy`; `tools/tio-logic` gives the CLI
/// their JSON (serde) and command-line (clap) forms from these items, so the CLI names
/// them exactly as the files do. They order as declared.
macro_rules! names {
    (
        $(#[$meta:meta])*
        pub enum $name:ident {
            $( $(#[doc = $doc:literal])* $variant:ident = $text:literal, )+
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, PartialEq, Eq, Debug, Hash, PartialOrd, Ord)]
        pub enum $name {
            $( $(#[doc = $doc])* $variant, )+
        }

        impl $name {
            /// Every value, in declaration order.
            pub const ALL: [$name; [$($text),+].len()] = [$($name::$variant),+];
            /// Their names in the files, in the same order.
            pub const NAMES: [&'static str; [$($text),+].len()] = [$($text),+];

            /// The name in the files.
            pub const fn name(self) -> &'static str {
                match self {
                    $( $name::$variant => $text, )+
                }
            }

            /// The value `s` names in the files, if any.
            pub fn from_name(s: &str) -> Option<Self> {
                Self::ALL.into_iter().find(|v| v.name() == s)
            }

            /// What the value means: its doc comment's lines, joined.
            pub const fn doc(self) -> &'static str {
                match self {
                    $( $name::$variant => concat!($($doc),*), )+
                }
            }
        }
    };
}
pub(crate) use names;
