package controller

// GuestbookReconciler reconciles a Guestbook object.
type GuestbookReconciler struct{}

// +kubebuilder:rbac:groups=rbac-basic.corpus.rkb.io,resources=guestbooks,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=rbac-basic.corpus.rkb.io,resources=guestbooks/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=rbac-basic.corpus.rkb.io,resources=guestbooks/finalizers,verbs=update
// +kubebuilder:rbac:groups=core,resources=pods,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=events,verbs=create;patch
// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get;list;watch;create;update;patch;delete

// Reconcile moves the cluster towards the desired state.
func (r *GuestbookReconciler) Reconcile() error {
	return nil
}
