//! Resource names and non-resource URLs.
//! +kubebuilder:rbac:groups="",resources=secrets,resourceNames=webhook-cert;metrics-cert,verbs=get;update
//! +kubebuilder:rbac:groups="",resources=configmaps,resourceNames=settings,verbs=get
//! +kubebuilder:rbac:groups="",resources=configmaps,verbs=list;watch
//! +kubebuilder:rbac:urls=/metrics,verbs=get
//! +kubebuilder:rbac:urls=/healthz;/readyz,verbs=get
//! +kubebuilder:rbac:urls=/debug/*,verbs=get;post
//! +kubebuilder:rbac:groups=authentication.k8s.io,resources=tokenreviews,verbs=create
//! +kubebuilder:rbac:groups=authorization.k8s.io,resources=subjectaccessreviews,verbs=create
//! +kubebuilder:rbac:groups=*,resources=*,verbs=get

/// MetricsReconciler uses resource names and non-resource URLs.
pub struct MetricsReconciler;
