// Command microservice-deploy-go is a controller-runtime twin of examples/microservice-deploy, for benchmarks
// only: the same children, fields, server-side applies and status writes as the rkb operator, with the flags the
// steady-state benchmark passes to it.
package main

import (
	"context"
	"errors"
	"flag"
	"net/http"
	"os"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

// fieldOwner is the rkb operator's field manager (its manager name).
const fieldOwner = "microservice-deploy.ops"

var (
	scheme   = runtime.NewScheme()
	setupLog = ctrl.Log.WithName("setup")
)

func init() {
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(addKnownTypes(scheme))
}

func main() {
	var (
		metricsAddr, probeAddr     string
		metricsSecure, leaderElect bool
		namespaced, skipNSDefaults bool
		defaultsNamespace          string
		maxConcurrentReconciles    int
	)
	flag.StringVar(&metricsAddr, "metrics-bind-address", "0", "Where /metrics listens; 0 disables it.")
	flag.BoolVar(&metricsSecure, "metrics-secure", true, "Serve /metrics over HTTPS.")
	flag.StringVar(&probeAddr, "health-probe-bind-address", ":8081", "Where /healthz and /readyz listen.")
	flag.BoolVar(&leaderElect, "leader-elect", false, "Enable leader election.")
	flag.BoolVar(&namespaced, "namespaced", false, "Watch only the namespace named by WATCH_NAMESPACE.")
	flag.BoolVar(&skipNSDefaults, "skip-namespace-defaults", false, "Skip creating the ResourceQuota and LimitRange.")
	flag.StringVar(&defaultsNamespace, "defaults-namespace", "", "Where they go [default: the watched namespace, else default].")
	flag.IntVar(&maxConcurrentReconciles, "max-concurrent-reconciles", 0,
		"How many MicroServiceDeploys reconcile at once (0: controller-runtime's default, 1).")
	opts := zap.Options{}
	opts.BindFlags(flag.CommandLine)
	flag.Parse()
	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&opts)))

	cacheOptions := cache.Options{}
	watchNamespace := ""
	if namespaced {
		watchNamespace = os.Getenv("WATCH_NAMESPACE")
		if watchNamespace == "" {
			setupLog.Error(errors.New("WATCH_NAMESPACE is empty"), "--namespaced needs WATCH_NAMESPACE")
			os.Exit(1)
		}
		cacheOptions.DefaultNamespaces = map[string]cache.Config{watchNamespace: {}}
	}
	mgr, err := ctrl.NewManager(ctrl.GetConfigOrDie(), ctrl.Options{
		Scheme:                 scheme,
		Cache:                  cacheOptions,
		Metrics:                metricsserver.Options{BindAddress: metricsAddr, SecureServing: metricsSecure},
		HealthProbeBindAddress: probeAddr,
		LeaderElection:         leaderElect,
		LeaderElectionID:       "microservice-deploy.ops",
	})
	if err != nil {
		setupLog.Error(err, "unable to start manager")
		os.Exit(1)
	}
	ctx := ctrl.SetupSignalHandler()
	clientset, err := kubernetes.NewForConfig(mgr.GetConfig())
	if err != nil {
		setupLog.Error(err, "unable to create the clientset")
		os.Exit(1)
	}
	reconciler := &MicroServiceDeployReconciler{
		Client:                  mgr.GetClient(),
		Clientset:               clientset,
		FieldOwner:              fieldOwner,
		MaxConcurrentReconciles: maxConcurrentReconciles,
	}
	if err := reconciler.SetupWithManager(ctx, mgr); err != nil {
		setupLog.Error(err, "unable to create controller", "controller", "MicroServiceDeploy")
		os.Exit(1)
	}
	if !skipNSDefaults {
		namespace := defaultsNamespace
		if namespace == "" {
			namespace = watchNamespace
		}
		if namespace == "" {
			namespace = "default"
		}
		if err := mgr.Add(namespaceDefaults{client: mgr.GetClient(), namespace: namespace}); err != nil {
			setupLog.Error(err, "unable to add the namespace defaults")
			os.Exit(1)
		}
	}

	// Ready once every informer (the primary and the five owned kinds) has synced, as rkb's /readyz.
	var synced atomic.Bool
	if err := mgr.Add(manager.RunnableFunc(func(ctx context.Context) error {
		if mgr.GetCache().WaitForCacheSync(ctx) {
			synced.Store(true)
		}
		<-ctx.Done()
		return nil
	})); err != nil {
		setupLog.Error(err, "unable to add the readiness runnable")
		os.Exit(1)
	}
	if err := mgr.AddHealthzCheck("healthz", healthz.Ping); err != nil {
		setupLog.Error(err, "unable to set up health check")
		os.Exit(1)
	}
	if err := mgr.AddReadyzCheck("informers", func(*http.Request) error {
		if !synced.Load() {
			return errors.New("informers not synced")
		}
		return nil
	}); err != nil {
		setupLog.Error(err, "unable to set up ready check")
		os.Exit(1)
	}

	setupLog.Info("starting manager")
	if err := mgr.Start(ctx); err != nil {
		setupLog.Error(err, "problem running manager")
		os.Exit(1)
	}
}

// namespaceDefaults applies the namespace's ResourceQuota and LimitRange once at start, as the rkb operator does
// (the seed's values), retrying until the API server accepts them or the manager stops.
type namespaceDefaults struct {
	client    client.Client
	namespace string
}

// NeedLeaderElection: only the leader writes them.
func (n namespaceDefaults) NeedLeaderElection() bool { return true }

func (n namespaceDefaults) Start(ctx context.Context) error {
	delay := 100 * time.Millisecond
	for {
		err := n.apply(ctx)
		if err == nil {
			setupLog.Info("namespace ResourceQuota and LimitRange applied", "namespace", n.namespace)
			return nil
		}
		setupLog.Error(err, "cannot apply namespace defaults", "namespace", n.namespace, "retryIn", delay)
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(delay):
		}
		delay = min(delay*2, time.Minute)
	}
}

func resources(pairs ...string) corev1.ResourceList {
	list := corev1.ResourceList{}
	for i := 0; i+1 < len(pairs); i += 2 {
		list[corev1.ResourceName(pairs[i])] = resource.MustParse(pairs[i+1])
	}
	return list
}

func (n namespaceDefaults) apply(ctx context.Context) error {
	quota := corev1ac.ResourceQuota("default-resource-quota", n.namespace).
		WithLabels(childLabels("")).
		WithSpec(corev1ac.ResourceQuotaSpec().WithHard(resources(
			"requests.cpu", "88", "limits.cpu", "352", "requests.memory", "112Gi", "limits.memory", "448Gi")))
	if err := n.client.Apply(ctx, quota, client.FieldOwner(fieldOwner), client.ForceOwnership); err != nil {
		return err
	}
	limits := corev1ac.LimitRange("default-limit-range", n.namespace).
		WithLabels(childLabels("")).
		WithSpec(corev1ac.LimitRangeSpec().WithLimits(corev1ac.LimitRangeItem().
			WithType(corev1.LimitTypeContainer).
			WithDefault(resources("cpu", "400m", "memory", "2Gi")).
			WithDefaultRequest(resources("cpu", "100m", "memory", "500Mi")).
			WithMax(resources("cpu", "2", "memory", "8Gi"))))
	return n.client.Apply(ctx, limits, client.FieldOwner(fieldOwner), client.ForceOwnership)
}
