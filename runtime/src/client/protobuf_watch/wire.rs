//! Protocol Buffers' wire format, read-only: enough to walk the fields of the few messages a metadata watch
//! sends (messages.rs). A message is a sequence of (field number, wire type, value); the reader yields each field
//! in order and leaves its meaning to the caller, which skips the numbers it does not know.

use std::fmt;

/// A field's value, by wire type.
pub(super) enum Value<'a> {
    /// Wire type 0: integers and booleans.
    Varint(u64),
    /// Wire type 2: strings, bytes and embedded messages.
    Bytes(&'a [u8]),
    /// Wire types 1 and 5 (fixed64, fixed32): no field the watch reads has them; they are skipped.
    Fixed,
}

/// Why a message could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum WireError {
    /// The message ends inside a field.
    Truncated,
    /// A varint longer than 10 bytes.
    Overlong,
    /// Wire types 3 and 4 (groups, which Kubernetes' messages never use) and 6, 7 (undefined).
    WireType(u64),
    /// A known field with another wire type than its declared type has.
    Mismatch(u64),
}

impl fmt::Display for WireError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WireError::Truncated => f.write_str("a protobuf message ends inside a field"),
            WireError::Overlong => f.write_str("a protobuf varint is longer than 10 bytes"),
            WireError::WireType(t) => write!(f, "unsupported protobuf wire type {t}"),
            WireError::Mismatch(n) => write!(f, "protobuf field {n} has the wrong wire type"),
        }
    }
}

impl std::error::Error for WireError {}

impl<'a> Value<'a> {
    /// The bytes of field `number`, which is declared a string, bytes or message.
    pub(super) fn bytes(self, number: u64) -> Result<&'a [u8], WireError> {
        match self {
            Value::Bytes(bytes) => Ok(bytes),
            _ => Err(WireError::Mismatch(number)),
        }
    }

    /// The integer of field `number`, which is declared an integer or a bool.
    pub(super) fn varint(self, number: u64) -> Result<u64, WireError> {
        match self {
            Value::Varint(v) => Ok(v),
            _ => Err(WireError::Mismatch(number)),
        }
    }
}

/// The fields of one encoded message, in order.
pub(super) fn fields(message: &[u8]) -> Fields<'_> {
    Fields { rest: message }
}

pub(super) struct Fields<'a> {
    rest: &'a [u8],
}

impl<'a> Iterator for Fields<'a> {
    type Item = Result<(u64, Value<'a>), WireError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.rest.is_empty() {
            return None;
        }
        let field = self.field();
        if field.is_err() {
            // A malformed message has no further fields to read.
            self.rest = &[];
        }
        Some(field)
    }
}

impl<'a> Fields<'a> {
    fn field(&mut self) -> Result<(u64, Value<'a>), WireError> {
        let key = self.varint()?;
        let value = match key & 7 {
            0 => Value::Varint(self.varint()?),
            1 => self.take(8).map(|_| Value::Fixed)?,
            2 => {
                let len = usize::try_from(self.varint()?).map_err(|_| WireError::Truncated)?;
                Value::Bytes(self.take(len)?)
            }
            5 => self.take(4).map(|_| Value::Fixed)?,
            other => return Err(WireError::WireType(other)),
        };
        Ok((key >> 3, value))
    }

    fn varint(&mut self) -> Result<u64, WireError> {
        let mut value = 0u64;
        for (i, byte) in self.rest.iter().enumerate().take(10) {
            value |= u64::from(byte & 0x7f) << (7 * i);
            if byte & 0x80 == 0 {
                self.rest = &self.rest[i + 1..];
                return Ok(value);
            }
        }
        Err(if self.rest.len() >= 10 {
            WireError::Overlong
        } else {
            WireError::Truncated
        })
    }

    fn take(&mut self, len: usize) -> Result<&'a [u8], WireError> {
        if self.rest.len() < len {
            return Err(WireError::Truncated);
        }
        let (taken, rest) = self.rest.split_at(len);
        self.rest = rest;
        Ok(taken)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(message: &[u8]) -> Vec<Result<(u64, String), WireError>> {
        fields(message)
            .map(|field| {
                field.map(|(number, value)| {
                    let value = match value {
                        Value::Varint(v) => format!("varint {v}"),
                        Value::Bytes(b) => format!("bytes {}", String::from_utf8_lossy(b)),
                        Value::Fixed => "fixed".to_string(),
                    };
                    (number, value)
                })
            })
            .collect()
    }

    #[test]
    fn reads_each_wire_type() {
        // 1: varint 300; 2: "web"; 3: fixed32; 4: fixed64; 17 (a two-byte key): "x".
        let message = [
            0x08, 0xac, 0x02, 0x12, 3, b'w', b'e', b'b', 0x1d, 1, 2, 3, 4, 0x21, 0, 0, 0, 0, 0, 0,
            0, 0, 0x8a, 0x01, 1, b'x',
        ];
        assert_eq!(
            read(&message),
            vec![
                Ok((1, "varint 300".into())),
                Ok((2, "bytes web".into())),
                Ok((3, "fixed".into())),
                Ok((4, "fixed".into())),
                Ok((17, "bytes x".into())),
            ]
        );
    }

    #[test]
    fn malformed_messages_end_in_one_error() {
        assert_eq!(read(&[0x12, 5, b'a']), vec![Err(WireError::Truncated)]);
        assert_eq!(read(&[0x08, 0x80]), vec![Err(WireError::Truncated)]);
        assert_eq!(
            read(&[
                0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 1
            ]),
            vec![Err(WireError::Overlong)]
        );
        assert_eq!(read(&[0x0b]), vec![Err(WireError::WireType(3))]);
    }
}
