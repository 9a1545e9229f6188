//! Window's JSON, written by hand: rkb takes its schema from Window's markers alone.

use crate::api::v1::Window;
use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

impl Serialize for Window {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (start, end) = (self.start, self.end);
        s.collect_str(&format_args!(
            "{:02}:{:02}-{:02}:{:02}",
            start / 60,
            start % 60,
            end / 60,
            end % 60
        ))
    }
}

impl<'de> Deserialize<'de> for Window {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        let minutes = |hm: &str| -> Option<u16> {
            let (h, m) = hm.split_once(':')?;
            Some(h.parse::<u16>().ok()? * 60 + m.parse::<u16>().ok()?)
        };
        let (start, end) = text
            .split_once('-')
            .and_then(|(a, b)| Some((minutes(a)?, minutes(b)?)))
            .ok_or_else(|| D::Error::custom(format!("not HH:MM-HH:MM: {text}")))?;
        Ok(Window { start, end })
    }
}
