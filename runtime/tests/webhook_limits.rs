//! The webhook server's intake with real TLS connections and the heap measured (webhook/intake.rs, the decoding
//! of webhook/admission.rs): an 8 MiB review is decoded within 3 times its size, many sent at once stay within the
//! in-flight budget (the others get 429 before sending their body), and a body over the size limit gets 413
//! before it is sent. No API server: the reviews are what one sends.

mod common;
mod limits;

use common::quiet_options;
use limits::{
    HEAP, MIB, admission_review, big_gadget, many_annotations_gadget, post, serve, status, tls,
};
use rkb_runtime::ManagerOptions;

const VALIDATE: &str = "/validate-test-rkb-dev-v1-gadget";
const MUTATE: &str = "/mutate-test-rkb-dev-v1-gadget";

/// A review just under the default --webhook-max-request-bytes (8 MiB) once its envelope is added.
const REVIEW_SIZE: usize = 8 * MIB - 1024;

/// Posts `body` to `path` on a fresh connection (handshake done before measuring): the response, and the heap's
/// peak over what it held before the request, as a multiple of the body's size.
async fn peak_of(served: &limits::Served, path: &str, body: &[u8]) -> (String, f64) {
    let mut conn = tls(served.webhook, &served.cert).await;
    HEAP.reset_peak_usage();
    let before = HEAP.current_usage();
    let response = post(&mut conn, path, body).await;
    let peak = HEAP.peak_usage().saturating_sub(before);
    (response, peak as f64 / body.len() as f64)
}

#[test]
fn an_8_mib_review_is_decoded_within_three_times_its_size() {
    limits::run(async {
        let served = serve(quiet_options()).await;
        let half = big_gadget(REVIEW_SIZE / 2);
        let cases = [
            (
                "validating a create",
                VALIDATE,
                admission_review("CREATE", &big_gadget(REVIEW_SIZE), None),
                3.0,
            ),
            // The kind's own map of 80,000 short strings weighs about twice their JSON (a String and a map
            // entry each): that is the decode, not a copy (4.9x before the decode-once change).
            (
                "validating a create, the bulk in 100-byte annotations",
                VALIDATE,
                admission_review("CREATE", &many_annotations_gadget(REVIEW_SIZE), None),
                3.5,
            ),
            (
                "validating an update (object and oldObject)",
                VALIDATE,
                admission_review("UPDATE", &half, Some(&half)),
                3.0,
            ),
            // The defaulter also holds the kind's JSON before and after it, and the object as sent (module docs).
            (
                "defaulting a create",
                MUTATE,
                admission_review("CREATE", &big_gadget(REVIEW_SIZE), None),
                4.5,
            ),
        ];
        for (what, path, body, bound) in cases {
            assert!(body.len() <= 8 * MIB);
            let (response, ratio) = peak_of(&served, path, &body).await;
            println!(
                "{what}: a {:.2} MiB review, the heap's peak {ratio:.2}x its size",
                body.len() as f64 / MIB as f64
            );
            assert_eq!(status(&response), 200, "{what}: {response}");
            assert!(response.contains(r#""allowed":true"#), "{what}: {response}");
            assert!(
                ratio < bound,
                "{what}: the heap's peak is {ratio:.2}x the body"
            );
        }
        served.running.stop().await.unwrap();
    });
}

#[test]
fn many_reviews_at_once_stay_within_the_in_flight_budget() {
    limits::run(async {
        const CLIENTS: usize = 12;
        let served = serve(quiet_options()).await;
        let budget = ManagerOptions::default().webhook_max_in_flight_bytes;
        let body = std::sync::Arc::new(admission_review("CREATE", &big_gadget(REVIEW_SIZE), None));
        let mut conns = Vec::new();
        for _ in 0..CLIENTS {
            conns.push(tls(served.webhook, &served.cert).await);
        }
        HEAP.reset_peak_usage();
        let before = HEAP.current_usage();
        // Each client on a task of its own, as separate clients are; the body is shared, not copied.
        let clients = conns.into_iter().map(|mut conn| {
            let body = body.clone();
            tokio::spawn(async move { status(&post(&mut conn, VALIDATE, &body).await) })
        });
        let statuses: Vec<u16> = futures::future::join_all(clients)
            .await
            .into_iter()
            .map(|joined| joined.expect("a client"))
            .collect();
        let peak = HEAP.peak_usage().saturating_sub(before);
        let answered = |code| statuses.iter().filter(|&&s| s == code).count();
        println!(
            "{CLIENTS} reviews of {:.2} MiB at once: {} answered, {} told 429; the heap's peak {:.1} MiB (budget {} MiB)",
            body.len() as f64 / MIB as f64,
            answered(200),
            answered(429),
            peak as f64 / MIB as f64,
            budget / MIB
        );
        assert_eq!(answered(200) + answered(429), CLIENTS, "{statuses:?}");
        assert!(answered(200) >= 1 && answered(429) >= 1, "{statuses:?}");
        // Each review decoded holds about twice its size (the test above): the budget, decoded, within 3x.
        assert!(
            peak < 3 * budget,
            "the heap's peak is {peak} bytes for a budget of {budget}"
        );
        served.running.stop().await.unwrap();
    });
}

#[test]
fn a_body_over_the_size_limit_is_refused_before_it_is_sent() {
    limits::run(async {
        let served = serve(ManagerOptions {
            webhook_max_request_bytes: MIB,
            ..quiet_options()
        })
        .await;
        let body = admission_review("CREATE", &big_gadget(2 * MIB), None);
        let mut conn = tls(served.webhook, &served.cert).await;
        let response = post(&mut conn, VALIDATE, &body).await;
        assert_eq!(status(&response), 413, "{response}");
        assert!(
            response.ends_with(&format!(
                "the body has {} bytes over the 1048576 bytes a webhook reads (--webhook-max-request-bytes)\n",
                body.len()
            )),
            "{response}"
        );
        served.running.stop().await.unwrap();
    });
}
