//! The watcher needs namespaced roles in two namespaces and a cluster role.
//! +kubebuilder:rbac:groups="",namespace=operators,resources=configmaps,verbs=get;list;watch;update
//! +kubebuilder:rbac:groups=coordination.k8s.io,namespace=operators,resources=leases,verbs=get;create;update
//! +kubebuilder:rbac:groups="",namespace=operators,resources=events,verbs=create;patch
//! +kubebuilder:rbac:groups="",namespace=monitoring,resources=services;endpoints,verbs=get;list
//! +kubebuilder:rbac:groups=apps,namespace=monitoring,resources=deployments,verbs=get
//! +kubebuilder:rbac:groups="",resources=namespaces,verbs=get;list;watch
//! +kubebuilder:rbac:groups="",resources=nodes,verbs=list

/// WatcherReconciler needs namespaced roles.
pub struct WatcherReconciler;
