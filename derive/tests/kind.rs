//! `#[derive(Kind)]` on the fixture's kinds: the `kube::Resource` facts, `new`, deep copy, and a
//! `crd()` that is exactly what `rkb manifests` wrote (derive/tests/fixture-operator/config/crd/bases,
//! regenerate with `cargo run -p rkb -- manifests --dir derive/tests/fixture-operator`).

use std::path::Path;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use rkb_fixture_operator::api::clusterprovisioner::v1alpha1::{Cluster, ClusterSpec};
use rkb_fixture_operator::api::plain::v1::Plain;
use rkb_fixture_operator::api::testing::v1::{Gadget, Sensor, Widget, WidgetSpec, WidgetStatus};
use rkb_runtime::DeepCopy;
use rkb_runtime::client::is_namespaced;
use rkb_runtime::kube::Resource;

fn generated(file: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixture-operator/config/crd/bases")
        .join(file);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn check_crd<K: Resource<DynamicType = ()>>(
    crd: CustomResourceDefinition,
    crd_yaml: &str,
    file: &str,
) {
    let on_disk = generated(file);
    assert_eq!(
        crd_yaml, on_disk,
        "{file}: crd_yaml() differs from rkb manifests' file"
    );
    let parsed: CustomResourceDefinition = serde_saphyr::from_str(&on_disk).unwrap();
    assert_eq!(crd, parsed, "{file}: crd() differs from the parsed file");
    // The Resource impl and the CRD come from one reading of the sources.
    assert_eq!(crd.spec.group, K::group(&()));
    assert_eq!(crd.spec.names.kind, K::kind(&()));
    assert_eq!(crd.spec.names.plural, K::plural(&()));
    assert_eq!(crd.spec.versions[0].name, K::version(&()));
    assert_eq!(file, format!("{}_{}.yaml", K::group(&()), K::plural(&())));
}

#[test]
fn crd_is_what_rkb_manifests_writes() {
    check_crd::<Widget>(
        Widget::crd(),
        Widget::crd_yaml(),
        "testing.rkb.example_widgets.yaml",
    );
    check_crd::<Gadget>(
        Gadget::crd(),
        Gadget::crd_yaml(),
        "testing.rkb.example_gadgets.yaml",
    );
    check_crd::<Sensor>(
        Sensor::crd(),
        Sensor::crd_yaml(),
        "testing.rkb.example_sensors.yaml",
    );
    check_crd::<Plain>(
        Plain::crd(),
        Plain::crd_yaml(),
        "plain.rkb.example_plains.yaml",
    );
    check_crd::<Cluster>(
        Cluster::crd(),
        Cluster::crd_yaml(),
        "clusterprovisioner.rke.io_clusters.yaml",
    );
}

#[test]
fn resource_identity_and_scope() {
    assert_eq!(Widget::api_version(&()), "testing.rkb.example/v1");
    assert_eq!(Widget::plural(&()), "widgets");
    assert!(is_namespaced::<Widget>());
    assert_eq!(Widget::crd().spec.scope, "Namespaced");
    assert_eq!(
        Cluster::api_version(&()),
        "clusterprovisioner.rke.io/v1alpha1"
    );
    assert_eq!(Cluster::plural(&()), "clusters");
    assert!(!is_namespaced::<Cluster>());
    assert_eq!(Cluster::crd().spec.scope, "Cluster");
    assert!(!is_namespaced::<Sensor>());
    let subresources = Widget::crd().spec.versions[0].subresources.clone().unwrap();
    assert!(subresources.status.is_some() && subresources.scale.is_some());
    assert!(Cluster::crd().spec.versions[0].subresources.is_none());
}

#[test]
fn new_fills_type_meta_and_name() {
    let w = Widget::new(
        "w",
        WidgetSpec {
            replicas: 2,
            ..Default::default()
        },
    );
    assert_eq!(w.type_meta.api_version, "testing.rkb.example/v1");
    assert_eq!(w.type_meta.kind, "Widget");
    assert_eq!(w.metadata.name.as_deref(), Some("w"));
    assert_eq!(w.spec.replicas, 2);
    assert!(w.status.is_none());
    let json = serde_json::to_value(&w).unwrap();
    assert_eq!(json["apiVersion"], "testing.rkb.example/v1");
    assert_eq!(json["kind"], "Widget");

    let c = Cluster::new(
        "prod",
        ClusterSpec {
            config_path: "/p".into(),
        },
    );
    assert_eq!(c.type_meta.kind, "Cluster");
    let mut copy = c.deep_copy();
    assert_eq!(copy, c);
    copy.spec.config_path.push('x');
    assert_eq!(c.spec.config_path, "/p");
}

#[test]
fn kind_deep_copy_into_reuses_nested_buffers() {
    let src = Widget::new(
        "w",
        WidgetSpec {
            replicas: 3,
            color: Some("red".into()),
            tags: vec!["a".into(), "b".into()],
        },
    );
    let mut out = Widget::new(
        "old",
        WidgetSpec {
            color: Some(String::with_capacity(32)),
            tags: vec![String::with_capacity(32)],
            ..Default::default()
        },
    );
    out.spec.tags.reserve(8);
    let (color, tags, tag0) = (
        out.spec.color.as_ref().unwrap().as_ptr(),
        out.spec.tags.as_ptr(),
        out.spec.tags[0].as_ptr(),
    );
    let tags_cap = out.spec.tags.capacity();
    src.deep_copy_into(&mut out);
    assert_eq!(out, src);
    // WidgetSpec's derived Clone::clone_from would reallocate all of these: the Kind's
    // deep_copy_into recursed into WidgetSpec's own.
    assert_eq!(out.spec.color.as_ref().unwrap().as_ptr(), color);
    assert_eq!(out.spec.tags.as_ptr(), tags);
    assert_eq!(out.spec.tags.capacity(), tags_cap);
    assert_eq!(out.spec.tags[0].as_ptr(), tag0);

    // Status present in the target, then in the source: the Option<WidgetStatus> recurses too.
    let mut with_status = src.deep_copy();
    with_status.status = Some(WidgetStatus {
        phase: Some("Ready".into()),
        ..Default::default()
    });
    let mut target = src.deep_copy();
    target.status = Some(WidgetStatus {
        phase: Some(String::with_capacity(32)),
        ..Default::default()
    });
    let phase_buffer = |w: &Widget| w.status.as_ref().unwrap().phase.as_ref().unwrap().as_ptr();
    let phase = phase_buffer(&target);
    with_status.deep_copy_into(&mut target);
    assert_eq!(target, with_status);
    assert_eq!(phase_buffer(&target), phase);
}
