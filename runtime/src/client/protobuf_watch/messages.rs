//! One event of a protobuf metadata watch, read from its wire form and written as the JSON line kube-apiserver
//! would have sent for the same event (mod.rs says when).
//!
//! The messages are apimachinery's (k8s.io/apimachinery/pkg/apis/meta/v1/generated.proto and
//! pkg/runtime/generated.proto); each struct below holds the fields kube's JSON types read, borrowed from the
//! frame, and serializes them as Go's encoding/json does for the same object: empty strings, zero integers, empty
//! lists and maps and zero times are left out (their `omitempty`), and times are RFC 3339 in whole seconds
//! (metav1.Time's JSON form). A managed fields entry's `fieldsV1` is left out (mod.rs says why). A field number
//! this file does not know is skipped, as kube's JSON types skip a JSON field they do not know.

use std::borrow::Cow;
use std::fmt;

use serde::{Serialize, Serializer};

use super::wire::{self, WireError};

/// What precedes every object kube-apiserver encodes as protobuf: "k8s" and a zero byte, then a runtime.Unknown.
const ENVELOPE: &[u8] = b"k8s\0";

/// Why a watch event could not be read.
#[derive(Debug)]
pub(super) enum EventError {
    Wire(WireError),
    /// The event's object does not start with [`ENVELOPE`].
    NoEnvelope,
    /// An object of a kind a metadata watch does not send.
    Kind(String),
}

impl fmt::Display for EventError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EventError::Wire(e) => e.fmt(f),
            EventError::NoEnvelope => {
                f.write_str("the event's object has no `k8s\\0` protobuf envelope")
            }
            EventError::Kind(kind) => write!(
                f,
                "the event's object is a {kind:?}, not a PartialObjectMetadata or a Status"
            ),
        }
    }
}

impl std::error::Error for EventError {}

impl From<WireError> for EventError {
    fn from(e: WireError) -> Self {
        EventError::Wire(e)
    }
}

/// Appends to `out` the JSON of the watch event `event` (a metav1.WatchEvent, as one frame of the stream carries
/// it), without a newline.
pub(super) fn transcode(event: &[u8], out: &mut Vec<u8>) -> Result<(), EventError> {
    let event = Event::decode(event)?;
    serde_json::to_writer(out, &event).expect("serializing to a Vec cannot fail");
    Ok(())
}

/// A string field: Go strings are UTF-8 by convention only, and encoding/json replaces invalid bytes the same way.
type Text<'a> = Cow<'a, str>;

fn text(bytes: &[u8]) -> Text<'_> {
    String::from_utf8_lossy(bytes)
}

/// A string field that JSON leaves out when empty.
fn non_empty(bytes: &[u8]) -> Option<Text<'_>> {
    (!bytes.is_empty()).then(|| text(bytes))
}

#[derive(Serialize)]
struct Event<'a> {
    #[serde(rename = "type")]
    event_type: Text<'a>,
    object: Object<'a>,
}

impl<'a> Event<'a> {
    /// metav1.WatchEvent: type = 1, object = 2 (a runtime.RawExtension, raw = 1, holding the enveloped object).
    fn decode(message: &'a [u8]) -> Result<Self, EventError> {
        let mut event_type = Text::Borrowed("");
        let mut raw: &[u8] = &[];
        for field in wire::fields(message) {
            match field? {
                (1, value) => event_type = text(value.bytes(1)?),
                (2, value) => {
                    for field in wire::fields(value.bytes(2)?) {
                        if let (1, value) = field? {
                            raw = value.bytes(1)?;
                        }
                    }
                }
                _ => {}
            }
        }
        let object = Object::decode(raw.strip_prefix(ENVELOPE).ok_or(EventError::NoEnvelope)?)?;
        Ok(Event { event_type, object })
    }
}

#[derive(Serialize)]
#[serde(untagged)]
enum Object<'a> {
    Metadata(PartialObjectMetadata<'a>),
    Status(Status<'a>),
}

impl<'a> Object<'a> {
    /// runtime.Unknown: typeMeta = 1 (apiVersion = 1, kind = 2), raw = 2 (the object's own message).
    fn decode(unknown: &'a [u8]) -> Result<Self, EventError> {
        let (mut api_version, mut kind, mut raw): (&[u8], &[u8], &[u8]) = (&[], &[], &[]);
        for field in wire::fields(unknown) {
            match field? {
                (1, value) => {
                    for field in wire::fields(value.bytes(1)?) {
                        match field? {
                            (1, value) => api_version = value.bytes(1)?,
                            (2, value) => kind = value.bytes(2)?,
                            _ => {}
                        }
                    }
                }
                (2, value) => raw = value.bytes(2)?,
                _ => {}
            }
        }
        let (api_version, kind) = (text(api_version), text(kind));
        match &*kind {
            // A bookmark's object is a PartialObjectMetadata too, holding the resourceVersion (and, ending a
            // streaming list's initial state, its annotation).
            "PartialObjectMetadata" => Ok(Object::Metadata(PartialObjectMetadata {
                metadata: metadata_of(raw)?,
                api_version,
                kind,
            })),
            // An ERROR event (410 Gone and others).
            "Status" => Ok(Object::Status(Status::decode(api_version, kind, raw)?)),
            _ => Err(EventError::Kind(kind.into_owned())),
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PartialObjectMetadata<'a> {
    api_version: Text<'a>,
    kind: Text<'a>,
    metadata: ObjectMeta<'a>,
}

/// metav1.PartialObjectMetadata: metadata = 1.
fn metadata_of(message: &[u8]) -> Result<ObjectMeta<'_>, EventError> {
    let mut metadata = ObjectMeta::default();
    for field in wire::fields(message) {
        if let (1, value) = field? {
            metadata = ObjectMeta::decode(value.bytes(1)?)?;
        }
    }
    Ok(metadata)
}

#[derive(Default, Serialize)]
#[serde(rename_all = "camelCase")]
struct ObjectMeta<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<Text<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    generate_name: Option<Text<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    namespace: Option<Text<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    self_link: Option<Text<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    uid: Option<Text<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    resource_version: Option<Text<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    generation: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    creation_timestamp: Option<Time>,
    #[serde(skip_serializing_if = "Option::is_none")]
    deletion_timestamp: Option<Time>,
    #[serde(skip_serializing_if = "Option::is_none")]
    deletion_grace_period_seconds: Option<i64>,
    #[serde(skip_serializing_if = "Pairs::is_empty")]
    labels: Pairs<'a>,
    #[serde(skip_serializing_if = "Pairs::is_empty")]
    annotations: Pairs<'a>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    owner_references: Vec<OwnerReference<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    finalizers: Vec<Text<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    managed_fields: Vec<ManagedFieldsEntry<'a>>,
}

impl<'a> ObjectMeta<'a> {
    /// metav1.ObjectMeta's fields by number (clusterName, 15, is gone from Kubernetes).
    fn decode(message: &'a [u8]) -> Result<Self, EventError> {
        let mut meta = ObjectMeta::default();
        for field in wire::fields(message) {
            let (number, value) = field?;
            match number {
                1 => meta.name = non_empty(value.bytes(number)?),
                2 => meta.generate_name = non_empty(value.bytes(number)?),
                3 => meta.namespace = non_empty(value.bytes(number)?),
                4 => meta.self_link = non_empty(value.bytes(number)?),
                5 => meta.uid = non_empty(value.bytes(number)?),
                6 => meta.resource_version = non_empty(value.bytes(number)?),
                7 => meta.generation = Some(value.varint(number)? as i64).filter(|g| *g != 0),
                8 => meta.creation_timestamp = Time::decode(value.bytes(number)?)?,
                9 => meta.deletion_timestamp = Time::decode(value.bytes(number)?)?,
                // A pointer in Go: present when set, even to 0.
                10 => meta.deletion_grace_period_seconds = Some(value.varint(number)? as i64),
                11 => meta.labels.0.push(pair(value.bytes(number)?)?),
                12 => meta.annotations.0.push(pair(value.bytes(number)?)?),
                13 => meta
                    .owner_references
                    .push(OwnerReference::decode(value.bytes(number)?)?),
                14 => meta.finalizers.push(text(value.bytes(number)?)),
                17 => meta
                    .managed_fields
                    .push(ManagedFieldsEntry::decode(value.bytes(number)?)?),
                _ => {}
            }
        }
        Ok(meta)
    }
}

/// A map<string, string> (labels, annotations): on the wire, one entry message (key = 1, value = 2) per pair.
#[derive(Default)]
struct Pairs<'a>(Vec<(Text<'a>, Text<'a>)>);

impl Pairs<'_> {
    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl Serialize for Pairs<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.0.iter().map(|(k, v)| (k, v)))
    }
}

fn pair(entry: &[u8]) -> Result<(Text<'_>, Text<'_>), EventError> {
    let (mut key, mut value) = (Text::Borrowed(""), Text::Borrowed(""));
    for field in wire::fields(entry) {
        match field? {
            (1, v) => key = text(v.bytes(1)?),
            (2, v) => value = text(v.bytes(2)?),
            _ => {}
        }
    }
    Ok((key, value))
}

/// metav1.Time: seconds = 1, nanos = 2. Its JSON form has whole seconds, and Go writes a zero time as null,
/// which kube reads as absent.
struct Time {
    seconds: i64,
}

impl Time {
    fn decode(message: &[u8]) -> Result<Option<Self>, EventError> {
        let mut seconds = 0;
        for field in wire::fields(message) {
            if let (1, value) = field? {
                seconds = value.varint(1)? as i64;
            }
        }
        Ok((seconds != 0).then_some(Time { seconds }))
    }
}

impl Serialize for Time {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let time = jiff::Timestamp::from_second(self.seconds).map_err(serde::ser::Error::custom)?;
        serializer.collect_str(&time)
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct OwnerReference<'a> {
    api_version: Text<'a>,
    kind: Text<'a>,
    name: Text<'a>,
    uid: Text<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    controller: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    block_owner_deletion: Option<bool>,
}

impl<'a> OwnerReference<'a> {
    /// metav1.OwnerReference: kind = 1, name = 3, uid = 4, apiVersion = 5, controller = 6,
    /// blockOwnerDeletion = 7.
    fn decode(message: &'a [u8]) -> Result<Self, EventError> {
        let mut owner = OwnerReference {
            api_version: Text::Borrowed(""),
            kind: Text::Borrowed(""),
            name: Text::Borrowed(""),
            uid: Text::Borrowed(""),
            controller: None,
            block_owner_deletion: None,
        };
        for field in wire::fields(message) {
            let (number, value) = field?;
            match number {
                1 => owner.kind = text(value.bytes(number)?),
                3 => owner.name = text(value.bytes(number)?),
                4 => owner.uid = text(value.bytes(number)?),
                5 => owner.api_version = text(value.bytes(number)?),
                6 => owner.controller = Some(value.varint(number)? != 0),
                7 => owner.block_owner_deletion = Some(value.varint(number)? != 0),
                _ => {}
            }
        }
        Ok(owner)
    }
}

#[derive(Default, Serialize)]
#[serde(rename_all = "camelCase")]
struct ManagedFieldsEntry<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    manager: Option<Text<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    operation: Option<Text<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    api_version: Option<Text<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    time: Option<Time>,
    #[serde(skip_serializing_if = "Option::is_none")]
    fields_type: Option<Text<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    subresource: Option<Text<'a>>,
}

impl<'a> ManagedFieldsEntry<'a> {
    /// metav1.ManagedFieldsEntry: manager = 1, operation = 2, apiVersion = 3, time = 4, fieldsType = 6,
    /// subresource = 8; not fieldsV1 = 7.
    fn decode(message: &'a [u8]) -> Result<Self, EventError> {
        let mut entry = ManagedFieldsEntry::default();
        for field in wire::fields(message) {
            let (number, value) = field?;
            match number {
                1 => entry.manager = non_empty(value.bytes(number)?),
                2 => entry.operation = non_empty(value.bytes(number)?),
                3 => entry.api_version = non_empty(value.bytes(number)?),
                4 => entry.time = Time::decode(value.bytes(number)?)?,
                6 => entry.fields_type = non_empty(value.bytes(number)?),
                8 => entry.subresource = non_empty(value.bytes(number)?),
                _ => {}
            }
        }
        Ok(entry)
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Status<'a> {
    api_version: Text<'a>,
    kind: Text<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    status: Option<Text<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<Text<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<Text<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    details: Option<StatusDetails<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    code: Option<i32>,
}

impl<'a> Status<'a> {
    /// metav1.Status: status = 2, message = 3, reason = 4, details = 5, code = 6 (metadata, 1, is empty in
    /// an error).
    fn decode(
        api_version: Text<'a>,
        kind: Text<'a>,
        message: &'a [u8],
    ) -> Result<Self, EventError> {
        let mut status = Status {
            api_version,
            kind,
            status: None,
            message: None,
            reason: None,
            details: None,
            code: None,
        };
        for field in wire::fields(message) {
            let (number, value) = field?;
            match number {
                2 => status.status = non_empty(value.bytes(number)?),
                3 => status.message = non_empty(value.bytes(number)?),
                4 => status.reason = non_empty(value.bytes(number)?),
                5 => status.details = Some(StatusDetails::decode(value.bytes(number)?)?),
                6 => status.code = Some(value.varint(number)? as i32).filter(|c| *c != 0),
                _ => {}
            }
        }
        Ok(status)
    }
}

#[derive(Default, Serialize)]
#[serde(rename_all = "camelCase")]
struct StatusDetails<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<Text<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    group: Option<Text<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    kind: Option<Text<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    uid: Option<Text<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    causes: Vec<StatusCause<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    retry_after_seconds: Option<i32>,
}

impl<'a> StatusDetails<'a> {
    /// metav1.StatusDetails: name = 1, group = 2, kind = 3, causes = 4, retryAfterSeconds = 5, uid = 6.
    fn decode(message: &'a [u8]) -> Result<Self, EventError> {
        let mut details = StatusDetails::default();
        for field in wire::fields(message) {
            let (number, value) = field?;
            match number {
                1 => details.name = non_empty(value.bytes(number)?),
                2 => details.group = non_empty(value.bytes(number)?),
                3 => details.kind = non_empty(value.bytes(number)?),
                4 => details
                    .causes
                    .push(StatusCause::decode(value.bytes(number)?)?),
                5 => {
                    details.retry_after_seconds =
                        Some(value.varint(number)? as i32).filter(|s| *s != 0)
                }
                6 => details.uid = non_empty(value.bytes(number)?),
                _ => {}
            }
        }
        Ok(details)
    }
}

#[derive(Default, Serialize)]
struct StatusCause<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<Text<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<Text<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    field: Option<Text<'a>>,
}

impl<'a> StatusCause<'a> {
    /// metav1.StatusCause: type = 1 (`reason` in JSON), message = 2, field = 3.
    fn decode(message: &'a [u8]) -> Result<Self, EventError> {
        let mut cause = StatusCause::default();
        for field in wire::fields(message) {
            let (number, value) = field?;
            match number {
                1 => cause.reason = non_empty(value.bytes(number)?),
                2 => cause.message = non_empty(value.bytes(number)?),
                3 => cause.field = non_empty(value.bytes(number)?),
                _ => {}
            }
        }
        Ok(cause)
    }
}
