package main

// Reconciles MicroServiceDeploy objects: server-side applies the Service, ServiceAccount, ConfigMap, Deployment
// and (while autoscaled) HPA of each, all controlled by it, as
// examples/microservice-deploy/src/controller/microservicedeploy_controller.rs does.

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	"k8s.io/client-go/kubernetes"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
)

const (
	// conditionReady says whether every child object has been applied for the observed generation.
	conditionReady = "Ready"
	// sharedRecheck: how often an instance whose Service or ServiceAccount belongs to another object checks whether
	// it can adopt them.
	sharedRecheck = 60 * time.Second
)

// MicroServiceDeployReconciler reconciles a MicroServiceDeploy object.
type MicroServiceDeployReconciler struct {
	client.Client
	// Clientset applies the children (see child).
	Clientset               kubernetes.Interface
	FieldOwner              string
	MaxConcurrentReconciles int
	index                   *ChildIndex
}

// child is a child to apply: its typed apply configuration, its metadata, and the typed client-go call that
// applies it. The typed clientset returns the object as stored, so the index learns the resourceVersion the apply
// made (controller-runtime's Client.Apply does not decode the response into a typed apply configuration).
type child struct {
	kind  string
	obj   runtime.ApplyConfiguration
	meta  *metav1ac.ObjectMetaApplyConfiguration
	apply func(context.Context, metav1.ApplyOptions) (metav1.Object, error)
}

// +kubebuilder:rbac:groups=custom.ops,resources=microservicedeploys,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=custom.ops,resources=microservicedeploys/status,verbs=get;update;patch
// +kubebuilder:rbac:groups="",resources=services;serviceaccounts;configmaps,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=autoscaling,resources=horizontalpodautoscalers,verbs=get;list;watch;create;update;patch;delete

// childWrites counts the child writes sent and spared, as the rkb runtime's
// rkb_child_writes_total{controller="microservicedeploy",kind,outcome} does for the rkb operator; the name differs
// (the rkb metric is the runtime's, labelled by controller), the kind and outcome labels mean the same.
var childWrites = prometheus.NewCounterVec(prometheus.CounterOpts{
	Name: "microservicedeploy_child_writes_total",
	Help: "Child object writes by kind and outcome (applied, skipped, deleted).",
}, []string{"kind", "outcome"})

func init() {
	metrics.Registry.MustRegister(childWrites)
}

// Reconcile moves the cluster towards what a MicroServiceDeploy asks for. Every write is a server-side apply of
// the whole desired object; the child index spares the writes that would change nothing.
func (r *MicroServiceDeployReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var msd MicroServiceDeploy
	if err := r.Get(ctx, req.NamespacedName, &msd); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	// Children carry controller references: the garbage collector removes them, no finalizer needed.
	if !msd.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil
	}
	sharedElsewhere, err := r.applyChildren(ctx, &msd)
	if err != nil {
		// Best effort: the reconcile error (retried with backoff) matters more than recording it.
		failed := metav1.Condition{Type: conditionReady, Status: metav1.ConditionFalse, Reason: "ApplyFailed", Message: err.Error()}
		if statusErr := r.updateStatus(ctx, &msd, failed); statusErr != nil {
			logf.FromContext(ctx).Error(statusErr, "cannot record the failure in status")
		}
		return ctrl.Result{}, err
	}
	if len(sharedElsewhere) == 0 {
		ready := metav1.Condition{
			Type: conditionReady, Status: metav1.ConditionTrue, Reason: "Reconciled",
			Message: "Service, ServiceAccount, ConfigMap and Deployment applied" + hpaNote(&msd),
		}
		return ctrl.Result{}, r.updateStatus(ctx, &msd, ready)
	}
	sharing := metav1.Condition{
		Type: conditionReady, Status: metav1.ConditionTrue, Reason: "SharingService",
		Message: fmt.Sprintf("ConfigMap and Deployment applied%s; %s (msName %s) controlled by another object, used as they are",
			hpaNote(&msd), strings.Join(sharedElsewhere, " and "), msd.Spec.MsName),
	}
	if err := r.updateStatus(ctx, &msd, sharing); err != nil {
		return ctrl.Result{}, err
	}
	return ctrl.Result{RequeueAfter: sharedRecheck}, nil
}

func hpaNote(msd *MicroServiceDeploy) string {
	switch {
	case msd.Spec.Idle:
		return ", idle (0 replicas, no HPA)"
	case msd.Spec.Autoscaling:
		return ", HPA applied"
	default:
		return ""
	}
}

// applyChildren applies every child of msd concurrently; returns the shared children another object controls.
func (r *MicroServiceDeployReconciler) applyChildren(ctx context.Context, msd *MicroServiceDeploy) ([]string, error) {
	var (
		wg                           sync.WaitGroup
		serviceShared, accountShared string
		errs                         [5]error
	)
	run := func(i int, f func() error) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = f()
		}()
	}
	// The Service and ServiceAccount are per microservice (msName), so instances of several versions share them;
	// the first instance controls them, the others use them.
	run(0, func() (err error) {
		serviceShared, err = r.applyShared(ctx, msd, r.service(msd))
		return err
	})
	run(1, func() (err error) {
		accountShared, err = r.applyShared(ctx, msd, r.serviceAccount(msd))
		return err
	})
	run(2, func() error { return r.apply(ctx, r.configMap(msd)) })
	run(3, func() error { return r.apply(ctx, r.deployment(msd)) })
	run(4, func() error { return r.reconcileHPA(ctx, msd) })
	wg.Wait()
	if err := errors.Join(errs[:]...); err != nil {
		return nil, err
	}
	var shared []string
	for _, s := range []string{serviceShared, accountShared} {
		if s != "" {
			shared = append(shared, s)
		}
	}
	return shared, nil
}

// apply server-side applies a child unless it is exactly what was last applied and unchanged since.
func (r *MicroServiceDeployReconciler) apply(ctx context.Context, c child) error {
	key := childKey{kind: c.kind, namespace: *c.meta.Namespace, name: *c.meta.Name}
	content := fingerprint(c.obj)
	if !r.index.WaitListed(ctx) {
		return ctx.Err()
	}
	if r.index.IsCurrent(key, content) {
		childWrites.WithLabelValues(c.kind, "skipped").Inc()
		return nil
	}
	childWrites.WithLabelValues(c.kind, "applied").Inc()
	c.meta.WithAnnotations(map[string]string{contentAnnotation: fmt.Sprintf("%016x", content)})
	applied, err := c.apply(ctx, metav1.ApplyOptions{FieldManager: r.FieldOwner, Force: true})
	if err != nil {
		return fmt.Errorf("apply %s %s: %w", c.kind, key.name, err)
	}
	r.index.RecordApplied(key, content, applied.GetResourceVersion())
	return nil
}

func (r *MicroServiceDeployReconciler) service(msd *MicroServiceDeploy) child {
	ac := serviceFor(msd)
	return child{"Service", ac, ac.ObjectMetaApplyConfiguration, func(ctx context.Context, o metav1.ApplyOptions) (metav1.Object, error) {
		return r.Clientset.CoreV1().Services(msd.Namespace).Apply(ctx, ac, o)
	}}
}

func (r *MicroServiceDeployReconciler) serviceAccount(msd *MicroServiceDeploy) child {
	ac := serviceAccountFor(msd)
	return child{"ServiceAccount", ac, ac.ObjectMetaApplyConfiguration, func(ctx context.Context, o metav1.ApplyOptions) (metav1.Object, error) {
		return r.Clientset.CoreV1().ServiceAccounts(msd.Namespace).Apply(ctx, ac, o)
	}}
}

func (r *MicroServiceDeployReconciler) configMap(msd *MicroServiceDeploy) child {
	ac := configMapFor(msd)
	return child{"ConfigMap", ac, ac.ObjectMetaApplyConfiguration, func(ctx context.Context, o metav1.ApplyOptions) (metav1.Object, error) {
		return r.Clientset.CoreV1().ConfigMaps(msd.Namespace).Apply(ctx, ac, o)
	}}
}

func (r *MicroServiceDeployReconciler) deployment(msd *MicroServiceDeploy) child {
	ac := deploymentFor(msd)
	return child{"Deployment", ac, ac.ObjectMetaApplyConfiguration, func(ctx context.Context, o metav1.ApplyOptions) (metav1.Object, error) {
		return r.Clientset.AppsV1().Deployments(msd.Namespace).Apply(ctx, ac, o)
	}}
}

func (r *MicroServiceDeployReconciler) hpa(msd *MicroServiceDeploy) child {
	ac := hpaFor(msd)
	return child{"HorizontalPodAutoscaler", ac, ac.ObjectMetaApplyConfiguration, func(ctx context.Context, o metav1.ApplyOptions) (metav1.Object, error) {
		return r.Clientset.AutoscalingV1().HorizontalPodAutoscalers(msd.Namespace).Apply(ctx, ac, o)
	}}
}

// applyShared applies a child unless another object controls it; then it returns "<Kind> <name>". Applying it
// anyway (same field manager) would silently replace the other owner's reference with ours.
func (r *MicroServiceDeployReconciler) applyShared(ctx context.Context, msd *MicroServiceDeploy, c child) (string, error) {
	key := childKey{kind: c.kind, namespace: msd.Namespace, name: *c.meta.Name}
	if uid, known := r.index.ControllerUID(key); known && uid != "" && uid != msd.UID {
		return c.kind + " " + key.name, nil
	}
	return "", r.apply(ctx, c)
}

// reconcileHPA applies the HPA while autoscaling (and not idle), deletes it otherwise.
func (r *MicroServiceDeployReconciler) reconcileHPA(ctx context.Context, msd *MicroServiceDeploy) error {
	if msd.Spec.Autoscaling && !msd.Spec.Idle {
		return r.apply(ctx, r.hpa(msd))
	}
	key := childKey{kind: "HorizontalPodAutoscaler", namespace: msd.Namespace, name: msd.Spec.FullName}
	if !r.index.Exists(key) {
		// Not there (an HPA created but not yet seen reconciles this object again when it is seen).
		return nil
	}
	hpa := &autoscalingv1.HorizontalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Namespace: key.namespace, Name: key.name}}
	if err := r.Delete(ctx, hpa, client.PropagationPolicy(metav1.DeletePropagationBackground)); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("delete HorizontalPodAutoscaler %s: %w", key.name, err)
	}
	childWrites.WithLabelValues("HorizontalPodAutoscaler", "deleted").Inc()
	r.index.Forget(key)
	return nil
}

// updateStatus records ready and the observed generation, writing only when they changed (a status write is
// itself a change of the object, which would reconcile it again).
func (r *MicroServiceDeployReconciler) updateStatus(ctx context.Context, msd *MicroServiceDeploy, ready metav1.Condition) error {
	key := childKey{kind: "MicroServiceDeploy", namespace: msd.Namespace, name: msd.Name}
	written := fingerprint([]any{msd.UID, msd.Generation, ready.Status, ready.Reason, ready.Message})
	ready.ObservedGeneration = msd.Generation
	status := msd.Status.DeepCopy()
	changed := meta.SetStatusCondition(&status.Conditions, ready)
	if status.ObservedGeneration == nil || *status.ObservedGeneration != msd.Generation {
		generation := msd.Generation
		status.ObservedGeneration = &generation
		changed = true
	}
	if !changed || r.index.StatusWritten(key, written) {
		childWrites.WithLabelValues("MicroServiceDeploy/status", "skipped").Inc()
		return nil
	}
	childWrites.WithLabelValues("MicroServiceDeploy/status", "applied").Inc()
	body, err := runtime.DefaultUnstructuredConverter.ToUnstructured(status)
	if err != nil {
		return err
	}
	patch := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": GroupVersion.String(),
		"kind":       "MicroServiceDeploy",
		"metadata":   map[string]any{"name": msd.Name, "namespace": msd.Namespace},
		"status":     body,
	}}
	if err := r.Status().Apply(ctx, client.ApplyConfigurationFromUnstructured(patch),
		client.FieldOwner(r.FieldOwner), client.ForceOwnership); err != nil {
		return fmt.Errorf("apply status: %w", err)
	}
	r.index.RecordStatus(key, written)
	return nil
}

// DeepCopy returns a copy of the status.
func (in *MicroServiceDeployStatus) DeepCopy() *MicroServiceDeployStatus {
	out := new(MicroServiceDeployStatus)
	in.DeepCopyInto(out)
	return out
}

// SetupWithManager sets up the controller with the Manager: it owns the five child kinds, and feeds the child
// index from the same informers.
func (r *MicroServiceDeployReconciler) SetupWithManager(ctx context.Context, mgr ctrl.Manager) error {
	r.index = NewChildIndex()
	children := []struct {
		kind string
		obj  client.Object
	}{
		{"Service", &corev1.Service{}},
		{"ServiceAccount", &corev1.ServiceAccount{}},
		{"ConfigMap", &corev1.ConfigMap{}},
		{"Deployment", &appsv1.Deployment{}},
		{"HorizontalPodAutoscaler", &autoscalingv1.HorizontalPodAutoscaler{}},
	}
	b := ctrl.NewControllerManagedBy(mgr).
		For(&MicroServiceDeploy{}).
		Named("microservicedeploy").
		WithOptions(controller.Options{MaxConcurrentReconciles: r.MaxConcurrentReconciles})
	for _, owned := range children {
		if err := r.index.Watch(ctx, mgr.GetCache(), owned.kind, owned.obj); err != nil {
			return err
		}
		b = b.Owns(owned.obj)
	}
	// Registered now so that the readiness check below waits for the primary informer too.
	if _, err := mgr.GetCache().GetInformer(ctx, &MicroServiceDeploy{}); err != nil {
		return err
	}
	return b.Complete(r)
}
