//! Admission webhooks, one module per API version (`rkb create webhook`).

pub mod v1;

/// Every webhook of this project: main.rs serves them, and so do the webhook tests.
pub fn webhooks() -> rkb_runtime::webhook::Webhooks {
    [
        v1::demomicroservice_webhook::webhooks(),
        // rkb:scaffold:webhooks (rkb create webhook adds each kind's webhooks above this line)
    ]
    .into_iter()
    .fold(
        rkb_runtime::webhook::Webhooks::new(),
        rkb_runtime::webhook::Webhooks::merge,
    )
}

/// The kinds served in several versions: their stored objects move to the storage version when it changes
/// (rkb_runtime::storage_migration), so that an old version can be dropped from the CRD. main.rs runs it.
///
/// +kubebuilder:rbac:groups=apiextensions.k8s.io,resources=customresourcedefinitions,verbs=get
/// +kubebuilder:rbac:groups=apiextensions.k8s.io,resources=customresourcedefinitions/status,verbs=patch
pub fn storage_migration(
    ctx: &rkb_runtime::Context,
) -> rkb_runtime::storage_migration::StorageMigration {
    rkb_runtime::storage_migration::StorageMigration::new(ctx)
        .kind::<crate::api::v1::DemoMicroService>()
    // rkb:scaffold:storage-migration (rkb create webhook --conversion adds each multi-version kind above this line)
}
