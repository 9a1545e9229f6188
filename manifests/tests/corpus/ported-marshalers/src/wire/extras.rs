//! Extras' JSON: the known field and the others side by side in one object.

use serde::de::Error as _;
use serde_json::{Map, Value};

impl serde::Serialize for crate::api::v1::Extras {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut all = self.rest.clone();
        all.insert("plugin".into(), Value::String(self.plugin.clone()));
        serde::Serialize::serialize(&all, s)
    }
}

impl<'de> serde::Deserialize<'de> for crate::api::v1::Extras {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut rest: Map<String, Value> = serde::Deserialize::deserialize(d)?;
        let plugin = match rest.remove("plugin") {
            Some(Value::String(plugin)) => plugin,
            Some(other) => {
                return Err(D::Error::custom(format!("plugin is not a string: {other}")));
            }
            None => String::new(),
        };
        Ok(crate::api::v1::Extras { plugin, rest })
    }
}
