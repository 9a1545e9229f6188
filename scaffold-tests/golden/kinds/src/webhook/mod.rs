//! Admission webhooks, one module per API version (`rkb create webhook`).

pub mod v1;

/// Every webhook of this project: main.rs serves them, and so do the webhook tests.
pub fn webhooks() -> rkb_runtime::webhook::Webhooks {
    [
        v1::pod_webhook::webhooks(),
        // rkb:scaffold:webhooks (rkb create webhook adds each kind's webhooks above this line)
    ]
    .into_iter()
    .fold(
        rkb_runtime::webhook::Webhooks::new(),
        rkb_runtime::webhook::Webhooks::merge,
    )
}
