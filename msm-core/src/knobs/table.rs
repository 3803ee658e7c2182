//! The macro that declares `MsmConfig` and `KNOBS` from the knob table,
//! and the value types a knob may have.

/// One knob of `MsmConfig`, as data.
#[derive(Clone, Copy, Debug)]
pub struct Knob {
    /// The field name (snake_case).
    pub name: &'static str,
    /// The JS (camelCase) name.
    pub camel: &'static str,
    /// A short alias (command-line flags and page URLs of earlier versions).
    pub alias: &'static str,
    /// The TypeScript type of its value.
    pub ts: &'static str,
    /// What values it takes, in words.
    pub values: &'static str,
    /// The field's doc comment.
    pub doc: &'static str,
    /// The inclusive range of a numeric knob (checked before planning;
    /// limits of the adapter are checked by the plan).
    pub range: Option<(u64, u64)>,
    /// Whether the knob selects a compiled shader variant (the rest only
    /// change the plan).
    pub shader: bool,
}

/// Declares [`MsmConfig`] and [`KNOBS`] from one table (used once, in
/// `config.rs`).
macro_rules! knob_table {
    ($(
        $(#[doc = $doc:literal])+
        $name:ident: $ty:ty = $default:expr;
        camel $camel:literal, alias $alias:literal, ts $ts:literal, values $values:literal,
        shader $shader:literal $(, range $lo:literal ..= $hi:expr)?;
    )+) => {
        /// The pipeline's knobs. `Default` gives the documented defaults;
        /// each knob is declared once, with its names, values and range
        /// (see [`crate::knobs`]).
        #[derive(Clone, Debug, PartialEq, Eq, Hash)]
        pub struct MsmConfig {
            $($(#[doc = $doc])+ pub $name: $ty,)+
        }

        impl Default for MsmConfig {
            fn default() -> Self {
                MsmConfig { $($name: $default,)+ }
            }
        }

        /// Every knob, in `MsmConfig`'s field order.
        pub const KNOBS: &[$crate::knobs::table::Knob] = &[$($crate::knobs::table::Knob {
            name: stringify!($name),
            camel: $camel,
            alias: $alias,
            ts: $ts,
            values: $values,
            doc: concat!($($doc, "\n"),+),
            range: $crate::knobs::table::knob_range!($($lo, $hi)?),
            shader: $shader,
        },)+];

        impl MsmConfig {
            /// Sets a knob known by its field name from text.
            pub(crate) fn set_known(&mut self, name: &str, text: &str) -> Result<(), String> {
                $(if name == stringify!($name) {
                    self.$name = $crate::knobs::table::KnobValue::parse_knob(text)?;
                    return Ok(());
                })+
                Err(format!("no knob {name}"))
            }

            /// A knob known by its field name, as text.
            pub(crate) fn get_known(&self, name: &str) -> String {
                $(if name == stringify!($name) {
                    return $crate::knobs::table::KnobValue::show_knob(&self.$name);
                })+
                String::new()
            }

            /// A numeric knob's value (`None` for automatic or non-numeric).
            pub(crate) fn count_of(&self, name: &str) -> Option<u64> {
                $(if name == stringify!($name) {
                    return $crate::knobs::table::KnobValue::count(&self.$name);
                })+
                None
            }

            /// Copies one knob from `from`.
            pub(crate) fn copy_knob(&mut self, from: &MsmConfig, name: &str) {
                $(if name == stringify!($name) {
                    self.$name = from.$name.clone();
                })+
            }
        }
    };
}
pub(crate) use knob_table;

macro_rules! knob_range {
    () => {
        None
    };
    ($lo:literal, $hi:expr) => {
        Some(($lo as u64, $hi as u64))
    };
}
pub(crate) use knob_range;

/// A knob's value type: text both ways, and its number where it has one.
pub(crate) trait KnobValue: Sized {
    fn parse_knob(text: &str) -> Result<Self, String>;
    fn show_knob(&self) -> String;
    fn count(&self) -> Option<u64> {
        None
    }
}

impl KnobValue for u32 {
    fn parse_knob(text: &str) -> Result<Self, String> {
        text.parse().map_err(|e| format!("{text:?}: {e}"))
    }
    fn show_knob(&self) -> String {
        self.to_string()
    }
    fn count(&self) -> Option<u64> {
        Some(*self as u64)
    }
}

impl KnobValue for bool {
    fn parse_knob(text: &str) -> Result<Self, String> {
        text.parse().map_err(|e| format!("{text:?}: {e}"))
    }
    fn show_knob(&self) -> String {
        self.to_string()
    }
}

/// `None` is the automatic choice, written `auto`.
impl KnobValue for Option<u32> {
    fn parse_knob(text: &str) -> Result<Self, String> {
        match text {
            "auto" => Ok(None),
            t => u32::parse_knob(t).map(Some),
        }
    }
    fn show_knob(&self) -> String {
        self.map_or_else(|| "auto".into(), |v| v.to_string())
    }
    fn count(&self) -> Option<u64> {
        self.map(|v| v as u64)
    }
}
