use k8s_openapi::api::core::v1::{ConfigMapKeySelector, SecretKeySelector};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, ObjectMeta};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use rkb_runtime::{Kind, TypeMeta};
use serde::{Deserialize, Serialize};

/// Duration is a valid time duration that can be parsed by Prometheus.
/// Supported units: y, w, d, h, m, s, ms
/// Examples: `30s`, `1m`, `1h20m15s`, `15d`
/// +kubebuilder:validation:Pattern:="^(0|(([0-9]+)y)?(([0-9]+)w)?(([0-9]+)d)?(([0-9]+)h)?(([0-9]+)m)?(([0-9]+)s)?(([0-9]+)ms)?)$"
pub type Duration = String;

/// LabelName is a valid Prometheus label name.
/// +kubebuilder:validation:Pattern:="^[a-zA-Z_][a-zA-Z0-9_]*$"
pub type LabelName = String;

/// SecretOrConfigMap allows to specify data as a Secret or ConfigMap. Fields are mutually exclusive.
/// +kubebuilder:validation:XValidation:rule="!(has(self.secret) && has(self.configMap))",message="secret and configMap are mutually exclusive"
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SecretOrConfigMap {
    /// Secret containing data to use for the targets.
    /// +optional
    pub secret: Option<SecretKeySelector>,
    /// ConfigMap containing data to use for the targets.
    /// +optional
    pub config_map: Option<ConfigMapKeySelector>,
}

/// TLSConfig extends the safe TLS configuration with file parameters.
/// +k8s:openapi-gen=true
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TlsConfig {
    /// Certificate authority used when verifying server certificates.
    /// +optional
    #[serde(default)]
    pub ca: SecretOrConfigMap,
    /// Used to verify the hostname for the targets.
    /// +optional
    pub server_name: Option<String>,
    /// Disable target certificate validation.
    /// +optional
    pub insecure_skip_verify: Option<bool>,
}

/// RelabelConfig allows dynamic rewriting of the label set for targets, alerts,
/// scraped samples and remote write samples.
///
/// More info: https://prometheus.io/docs/prometheus/latest/configuration/configuration/#relabel_config
/// +k8s:openapi-gen=true
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RelabelConfig {
    /// The source labels select values from existing labels. Their content is
    /// concatenated using the configured Separator and matched against the
    /// configured regular expression.
    ///
    /// +optional
    #[serde(default)]
    pub source_labels: Vec<LabelName>,
    /// Separator is the string between concatenated SourceLabels.
    /// +optional
    pub separator: Option<String>,
    /// Regular expression against which the extracted value is matched.
    /// +optional
    pub regex: Option<String>,
    /// Action to perform based on the regex matching.
    ///
    /// Default: "Replace"
    ///
    /// +kubebuilder:validation:Enum=replace;Replace;keep;Keep;drop;Drop;hashmod;HashMod;labelmap;LabelMap
    /// +kubebuilder:default=replace
    /// +optional
    pub action: Option<String>,
}

/// Endpoint defines an endpoint serving Prometheus metrics to be scraped by
/// Prometheus.
///
/// +k8s:openapi-gen=true
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Endpoint {
    /// Name of the Service port which this endpoint refers to.
    ///
    /// It takes precedence over `targetPort`.
    /// +optional
    pub port: Option<String>,
    /// Name or number of the target port of the `Pod` object behind the
    /// Service. The port must be specified with the container's port property.
    ///
    /// +optional
    pub target_port: Option<IntOrString>,
    /// HTTP path from which to scrape for metrics.
    ///
    /// If empty, Prometheus uses the default value (e.g. `/metrics`).
    /// +optional
    pub path: Option<String>,
    /// HTTP scheme to use for scraping.
    ///
    /// +kubebuilder:validation:Enum=http;https
    /// +optional
    pub scheme: Option<String>,
    /// Interval at which Prometheus scrapes the metrics from the target.
    ///
    /// If empty, Prometheus uses the global scrape interval.
    /// +optional
    pub interval: Option<Duration>,
    /// TLS configuration to use when scraping the target.
    ///
    /// +optional
    pub tls_config: Option<TlsConfig>,
    /// `relabelings` configures the relabeling rules to apply the target's
    /// metadata labels.
    ///
    /// +optional
    #[serde(default, rename = "relabelings")]
    pub relabel_configs: Vec<RelabelConfig>,
    /// `bearerTokenSecret` specifies a key of a Secret containing the bearer
    /// token for scraping targets.
    ///
    /// Deprecated: use `authorization` instead.
    /// +optional
    pub bearer_token_secret: Option<SecretKeySelector>,
}

/// NamespaceSelector is a selector for selecting either all namespaces or a
/// list of namespaces.
/// If `any` is true, it takes precedence over `matchNames`.
/// If `matchNames` is empty and `any` is false, it means that the objects are
/// selected from the current namespace.
/// +k8s:openapi-gen=true
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NamespaceSelector {
    /// Boolean describing whether all namespaces are selected in contrast to a
    /// list restricting them.
    #[serde(default)]
    pub any: bool,
    /// List of namespace names to select from.
    #[serde(default)]
    pub match_names: Vec<String>,
}

/// ServiceMonitorSpec defines the specification parameters for a ServiceMonitor.
/// +k8s:openapi-gen=true
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServiceMonitorSpec {
    /// `jobLabel` selects the label from the associated Kubernetes `Service`
    /// object which will be used as the `job` label for all metrics.
    #[serde(default)]
    pub job_label: String,
    /// List of endpoints part of this ServiceMonitor.
    /// Defines how to scrape metrics from Kubernetes [Endpoints](https://kubernetes.io/docs/concepts/services-networking/service/#endpoints) objects.
    /// +optional
    pub endpoints: Vec<Endpoint>,
    /// Label selector to select the Kubernetes `Endpoints` objects to scrape metrics from.
    pub selector: LabelSelector,
    /// `namespaceSelector` defines in which namespace(s) Prometheus should discover the services.
    /// By default, the services are discovered in the same namespace as the `ServiceMonitor` object but it is possible to select pods across different/all namespaces.
    #[serde(default)]
    pub namespace_selector: NamespaceSelector,
    /// `sampleLimit` defines a per-scrape limit on the number of scraped samples
    /// that will be accepted.
    ///
    /// +optional
    pub sample_limit: Option<u64>,
}

/// The `ServiceMonitor` custom resource definition (CRD) defines how `Prometheus` and `PrometheusAgent` can scrape metrics from a group of services.
/// Among other things, it allows to specify:
/// * The services to scrape via label selectors.
/// * The container ports to scrape.
/// * Authentication credentials to use.
/// * Target and metric relabeling.
///
/// +genclient
/// +k8s:openapi-gen=true
/// +kubebuilder:resource:categories="prometheus-operator",shortName="smon"
/// +kubebuilder:object:root=true
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Kind)]
pub struct ServiceMonitor {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    #[serde(default)]
    pub metadata: ObjectMeta,
    /// Specification of desired Service selection for target discovery by
    /// Prometheus.
    pub spec: ServiceMonitorSpec,
}
