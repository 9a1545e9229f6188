//! Reading a marker's arguments into its typed [`Effect`](crate::Effect), with each argument's name and type written
//! once: in the function that reads it (a registry line, or the `read` of an effect's struct).
//!
//! That function runs in two modes. When the registry is built, [`ArgReader::declaring`] records what it asks for
//! (no argument: a flag; one unnamed value; or named arguments, in the order asked) and hands back placeholders: the
//! recording is the marker's [`Args`], which the parser checks the text against. When a marker is parsed,
//! [`ArgReader::reading`] hands it the values the parser read for those same requests, so a value is always there
//! and of the type asked for: the parser refused the marker otherwise.

use crate::parse::Arg;
use crate::registry::{ArgDef, Args};
use crate::value::{ArgType, Value};

/// What a marker's read function asks for, or answers it with.
pub struct ArgReader {
    mode: Mode,
}

enum Mode {
    /// Recording the requests (registry build).
    Declaring {
        unnamed: Option<(ArgType, bool)>,
        named: Vec<ArgDef>,
    },
    /// Answering them from a parsed marker.
    Reading {
        unnamed: Option<Value>,
        named: Vec<Arg>,
    },
}

impl ArgReader {
    pub(crate) fn declaring() -> ArgReader {
        ArgReader {
            mode: Mode::Declaring {
                unnamed: None,
                named: Vec::new(),
            },
        }
    }

    pub(crate) fn reading(unnamed: Option<Value>, named: Vec<Arg>) -> ArgReader {
        ArgReader {
            mode: Mode::Reading { unnamed, named },
        }
    }

    /// The arguments recorded while declaring. A marker asks for one unnamed value or for named arguments, never
    /// both, and for each name once: a registry line breaking that fails when the registry is built (every test).
    pub(crate) fn declared(self, marker: &str) -> Args {
        let Mode::Declaring { unnamed, named } = self.mode else {
            unreachable!("only a declaring reader has declarations")
        };
        match (unnamed, named.is_empty()) {
            (None, true) => Args::Flag,
            (Some((ty, optional)), true) => Args::Anonymous { ty, optional },
            (None, false) => {
                for (i, a) in named.iter().enumerate() {
                    assert!(
                        !named[..i].iter().any(|b| b.name == a.name),
                        "marker `{marker}` reads argument `{}` twice",
                        a.name
                    );
                }
                Args::Named(Box::leak(named.into_boxed_slice()))
            }
            (Some(_), false) => {
                panic!("marker `{marker}` reads an unnamed value and named arguments")
            }
        }
    }

    /// The unnamed value (`+name=value`), or the placeholder while declaring.
    fn unnamed(&mut self, ty: ArgType, optional: bool) -> Option<Value> {
        match &mut self.mode {
            Mode::Declaring { unnamed, .. } => {
                assert!(unnamed.is_none(), "a marker has one unnamed value");
                *unnamed = Some((ty, optional));
                None
            }
            Mode::Reading { unnamed, .. } => unnamed.take(),
        }
    }

    /// The named argument `name`, or the placeholder while declaring.
    fn named(&mut self, name: &'static str, ty: ArgType, optional: bool) -> Option<Value> {
        match &mut self.mode {
            Mode::Declaring { named, .. } => {
                named.push(ArgDef { name, ty, optional });
                None
            }
            Mode::Reading { named, .. } => {
                let i = named.iter().position(|a| a.name == name)?;
                Some(named.swap_remove(i).value)
            }
        }
    }

    fn declaring_now(&self) -> bool {
        matches!(self.mode, Mode::Declaring { .. })
    }

    /// A value the parser must have given (a required one): a placeholder while declaring.
    fn given<T: Default>(&self, v: Option<T>, what: &str) -> T {
        match v {
            Some(v) => v,
            None if self.declaring_now() => T::default(),
            None => unreachable!("the parser refuses a marker without its {what}"),
        }
    }

    // Unnamed values.

    pub fn value_number(&mut self) -> f64 {
        let v = self.unnamed(ArgType::Number, false).map(number);
        self.given(v, "value")
    }

    pub fn value_int(&mut self) -> i64 {
        let v = self.unnamed(ArgType::Int, false).map(int);
        self.given(v, "value")
    }

    /// A bool value; a bare marker means `true` (the parser fills that in).
    pub fn value_bool(&mut self) -> bool {
        let v = self.unnamed(ArgType::Bool, false).map(boolean);
        self.given(v, "value")
    }

    /// The same, for markers whose value is optional in controller-gen's definition.
    pub fn opt_value_bool(&mut self) -> bool {
        let v = self.unnamed(ArgType::Bool, true).map(boolean);
        self.given(v, "value")
    }

    pub fn value_string(&mut self) -> String {
        let v = self.unnamed(ArgType::String, false).map(string);
        self.given(v, "value")
    }

    pub fn opt_value_string(&mut self) -> Option<String> {
        self.unnamed(ArgType::String, true).map(string)
    }

    /// `a;b` or `{a,b}` (an unnamed list also takes `a,b`).
    pub fn value_strings(&mut self) -> Vec<String> {
        let v = self.unnamed(ArgType::StringList, false).map(strings);
        self.given(v, "value")
    }

    /// A list of values of any type.
    pub fn value_any_list(&mut self) -> Vec<Value> {
        let v = self.unnamed(ArgType::AnyList, false).map(list);
        self.given(v, "value")
    }

    /// A value whose type is guessed from its text.
    pub fn value_any(&mut self) -> Value {
        match self.unnamed(ArgType::Any, false) {
            Some(v) => v,
            None if self.declaring_now() => Value::List(Vec::new()),
            None => unreachable!("the parser refuses a marker without its value"),
        }
    }

    /// A JSON literal (`null` for `ref(...)`).
    pub fn value_json(&mut self) -> serde_json::Value {
        let v = self.unnamed(ArgType::Json, false).map(json);
        self.given(v, "value")
    }

    /// The text after `=`, uninterpreted.
    pub fn value_raw(&mut self) -> String {
        let v = self.unnamed(ArgType::Raw, false).map(string);
        self.given(v, "value")
    }

    pub fn opt_value_raw(&mut self) -> Option<String> {
        self.unnamed(ArgType::Raw, true).map(string)
    }

    // Named arguments.

    pub fn string(&mut self, name: &'static str) -> String {
        let v = self.named(name, ArgType::String, false).map(string);
        self.given(v, name)
    }

    pub fn opt_string(&mut self, name: &'static str) -> Option<String> {
        self.named(name, ArgType::String, true).map(string)
    }

    pub fn strings(&mut self, name: &'static str) -> Vec<String> {
        let v = self.named(name, ArgType::StringList, false).map(strings);
        self.given(v, name)
    }

    /// An optional list: empty when not given.
    pub fn opt_strings(&mut self, name: &'static str) -> Vec<String> {
        self.named(name, ArgType::StringList, true)
            .map(strings)
            .unwrap_or_default()
    }

    pub fn opt_int(&mut self, name: &'static str) -> Option<i64> {
        self.named(name, ArgType::Int, true).map(int)
    }

    pub fn bool(&mut self, name: &'static str) -> bool {
        let v = self.named(name, ArgType::Bool, false).map(boolean);
        self.given(v, name)
    }

    pub fn opt_bool(&mut self, name: &'static str) -> Option<bool> {
        self.named(name, ArgType::Bool, true).map(boolean)
    }
}

// What the parser gives for each type it was asked for (value.rs's `parse_value`): nothing else can arrive.

fn number(v: Value) -> f64 {
    match v {
        Value::Number(n) => n,
        other => unreachable!("a number argument parsed as {other:?}"),
    }
}

fn int(v: Value) -> i64 {
    match v {
        Value::Int(i) => i,
        other => unreachable!("an integer argument parsed as {other:?}"),
    }
}

fn boolean(v: Value) -> bool {
    match v {
        Value::Bool(b) => b,
        other => unreachable!("a bool argument parsed as {other:?}"),
    }
}

fn string(v: Value) -> String {
    match v {
        Value::String(s) => s,
        other => unreachable!("a string argument parsed as {other:?}"),
    }
}

fn list(v: Value) -> Vec<Value> {
    match v {
        Value::List(items) => items,
        other => unreachable!("a list argument parsed as {other:?}"),
    }
}

fn strings(v: Value) -> Vec<String> {
    list(v).into_iter().map(string).collect()
}

fn json(v: Value) -> serde_json::Value {
    match v {
        Value::Json(j) => j,
        other => unreachable!("a JSON argument parsed as {other:?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declaring_records_what_the_read_function_asks_for() {
        assert_eq!(ArgReader::declaring().declared("flag"), Args::Flag);
        let mut a = ArgReader::declaring();
        a.opt_value_bool();
        assert_eq!(
            a.declared("root"),
            Args::Anonymous {
                ty: ArgType::Bool,
                optional: true
            }
        );
        let mut a = ArgReader::declaring();
        a.string("url");
        a.opt_strings("labels");
        let Args::Named(named) = a.declared("named") else {
            panic!("named arguments")
        };
        let named: Vec<_> = named.iter().map(|d| (d.name, d.ty, d.optional)).collect();
        assert_eq!(
            named,
            [
                ("url", ArgType::String, false),
                ("labels", ArgType::StringList, true)
            ]
        );
    }

    #[test]
    #[should_panic(expected = "marker `twice` reads argument `url` twice")]
    fn a_name_is_read_once() {
        let mut a = ArgReader::declaring();
        a.string("url");
        a.opt_string("url");
        a.declared("twice");
    }

    #[test]
    fn reading_hands_out_the_parsed_values() {
        let named = vec![Arg {
            name: "verbs",
            value: Value::List(vec![Value::String("get".into())]),
        }];
        let mut a = ArgReader::reading(None, named);
        assert_eq!(a.strings("verbs"), ["get"]);
        assert!(a.opt_strings("groups").is_empty());
        assert_eq!(a.opt_string("namespace"), None);
    }
}
