//! The transcoder on a stream kube-apiserver 1.35 sent: testdata/microservicedeploys.watch is the body of a
//! streaming-list metadata watch of one MicroServiceDeploy (examples/microservice-deploy's sample, applied with
//! kubectl), as `curl -H 'Accept: application/vnd.kubernetes.protobuf;as=PartialObjectMetadata;g=meta.k8s.io;v=v1'`
//! saved it: an ADDED event and the bookmark that ends the initial state.

use std::convert::Infallible;

use bytes::Bytes;
use http_body::Frame;
use http_body_util::{BodyExt, StreamBody};

use super::{Inner, Transcoder, WatchBody};
use crate::BoxError;

const CAPTURED: &[u8] = include_bytes!("testdata/microservicedeploys.watch");

/// What the transcoder makes of a body that arrives in `chunks`.
async fn transcoded(chunks: Vec<Vec<u8>>) -> Result<String, BoxError> {
    let frames = chunks
        .into_iter()
        .map(|chunk| Ok::<_, Infallible>(Frame::data(Bytes::from(chunk))));
    let body = StreamBody::new(futures::stream::iter(frames));
    let body = WatchBody(Inner::Transcoded(Transcoder::new(body)));
    let bytes = body.collect().await?.to_bytes();
    Ok(String::from_utf8(bytes.to_vec()).expect("JSON is UTF-8"))
}

#[tokio::test]
async fn a_captured_stream_becomes_one_json_line_per_event() {
    let json = transcoded(vec![CAPTURED.to_vec()]).await.unwrap();
    let lines: Vec<serde_json::Value> = json
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(lines.len(), 2, "{json}");
    let (added, metadata) = (&lines[0], &lines[0]["object"]["metadata"]);
    assert_eq!(added["type"], "ADDED");
    assert_eq!(added["object"]["kind"], "PartialObjectMetadata");
    assert_eq!(metadata["name"], "ms-sample-v1s0");
    assert_eq!(
        metadata["labels"]["app.kubernetes.io/name"],
        "microservice-deploy"
    );
    assert_eq!(metadata["creationTimestamp"], "2026-11-27T18:27:28Z");
    let entry = &metadata["managedFields"][0];
    assert_eq!(entry["manager"], "kubectl-client-side-apply");
    assert_eq!(entry["fieldsType"], "FieldsV1");
    // The set of fields the manager owns is left out (mod.rs).
    assert!(entry.get("fieldsV1").is_none(), "{entry}");
    // Empty strings and the zero creationTimestamp are left out, as the JSON the server writes leaves them out.
    assert_eq!(
        json.lines().nth(1).unwrap(),
        r#"{"type":"BOOKMARK","object":{"apiVersion":"meta.k8s.io/v1","kind":"PartialObjectMetadata","metadata":{"resourceVersion":"198","annotations":{"k8s.io/initial-events-end":"true"}}}}"#
    );
}

#[tokio::test]
async fn frames_split_across_chunks_read_as_whole_ones() {
    let whole = transcoded(vec![CAPTURED.to_vec()]).await.unwrap();
    for size in 1..CAPTURED.len() {
        let chunks = CAPTURED.chunks(size).map(<[u8]>::to_vec).collect();
        assert_eq!(
            transcoded(chunks).await.unwrap(),
            whole,
            "chunks of {size} bytes"
        );
    }
}

#[tokio::test]
async fn a_frame_cut_off_by_the_end_of_the_stream_is_dropped() {
    let cut = CAPTURED[..CAPTURED.len() - 1].to_vec();
    let json = transcoded(vec![cut]).await.unwrap();
    assert_eq!(json.lines().count(), 1, "{json}");
}

#[tokio::test]
async fn an_unreadable_event_fails_the_stream_with_its_cause() {
    let oversized = transcoded(vec![vec![0xff, 0xff, 0xff, 0xff]])
        .await
        .unwrap_err();
    assert_eq!(
        oversized.to_string(),
        "kube-apiserver sent a protobuf watch event of 4294967295 bytes, more than the 16777216 bytes read"
    );
    // A WatchEvent whose type (field 1, 5 bytes long) ends after one byte.
    let truncated = transcoded(vec![vec![0, 0, 0, 3, 0x0a, 5, b'A']])
        .await
        .unwrap_err();
    assert_eq!(
        truncated.to_string(),
        "kube-apiserver sent a protobuf watch event rkb cannot read"
    );
    let cause = truncated.source().expect("the cause").to_string();
    assert_eq!(cause, "a protobuf message ends inside a field");
}
