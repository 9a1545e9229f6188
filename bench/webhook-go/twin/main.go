// The controller-runtime twin of examples/cronjob's v1 webhooks (src/webhook/v1/cronjob_webhook.rs), for
// hack/bench-webhook.sh only: the same defaults for the optional fields, the same refusals (a name over 52
// characters, a schedule that does not parse), served at kubebuilder's paths by a manager that runs nothing else.
// Flags are the ones the benchmark passes; the kubeconfig comes from KUBECONFIG.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/robfig/cron/v3"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// A Job is named "<cronjob>-<unix seconds>" (11 characters more) and must fit a DNS label (63).
const maxNameLength = 63 - 11

type defaulter struct{}

func (defaulter) Default(_ context.Context, cronJob *CronJob) error {
	spec := &cronJob.Spec
	if spec.ConcurrencyPolicy == nil {
		policy := AllowConcurrent
		spec.ConcurrencyPolicy = &policy
	}
	if spec.Suspend == nil {
		suspend := false
		spec.Suspend = &suspend
	}
	if spec.SuccessfulJobsHistoryLimit == nil {
		limit := int32(3)
		spec.SuccessfulJobsHistoryLimit = &limit
	}
	if spec.FailedJobsHistoryLimit == nil {
		limit := int32(1)
		spec.FailedJobsHistoryLimit = &limit
	}
	return nil
}

type validator struct{}

func (validator) ValidateCreate(_ context.Context, cronJob *CronJob) (admission.Warnings, error) {
	return nil, validate(cronJob)
}

func (validator) ValidateUpdate(_ context.Context, _, cronJob *CronJob) (admission.Warnings, error) {
	return nil, validate(cronJob)
}

func (validator) ValidateDelete(context.Context, *CronJob) (admission.Warnings, error) {
	return nil, nil
}

// validate reports every problem at once as the API server's field errors.
func validate(cronJob *CronJob) error {
	var problems field.ErrorList
	if len(cronJob.Name) > maxNameLength {
		problems = append(problems, field.Invalid(field.NewPath("metadata", "name"), cronJob.Name,
			fmt.Sprintf("must be no more than %d characters", maxNameLength)))
	}
	if _, err := cron.ParseStandard(cronJob.Spec.Schedule); err != nil {
		problems = append(problems, field.Invalid(field.NewPath("spec", "schedule"), cronJob.Spec.Schedule, err.Error()))
	}
	if len(problems) == 0 {
		return nil
	}
	return apierrors.NewInvalid(groupVersion.WithKind("CronJob").GroupKind(), cronJob.Name, problems)
}

func main() {
	port := flag.Int("webhook-port", 9443, "port of the webhook server")
	certDir := flag.String("webhook-cert-path", "", "directory holding tls.crt and tls.key")
	metricsAddr := flag.String("metrics-bind-address", "0", "address of /metrics (plain HTTP), 0 for none")
	flag.Parse()
	ctrl.SetLogger(zap.New())

	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		panic(err)
	}
	if err := addToScheme(scheme); err != nil {
		panic(err)
	}
	mgr, err := ctrl.NewManager(ctrl.GetConfigOrDie(), ctrl.Options{
		Scheme:                 scheme,
		Metrics:                metricsserver.Options{BindAddress: *metricsAddr},
		HealthProbeBindAddress: "0",
		WebhookServer:          webhook.NewServer(webhook.Options{Port: *port, CertDir: *certDir}),
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "manager:", err)
		os.Exit(1)
	}
	err = ctrl.NewWebhookManagedBy(mgr, &CronJob{}).
		WithDefaulter(defaulter{}).
		WithValidator(validator{}).
		Complete()
	if err != nil {
		fmt.Fprintln(os.Stderr, "webhooks:", err)
		os.Exit(1)
	}
	if err := mgr.Start(ctrl.SetupSignalHandler()); err != nil {
		fmt.Fprintln(os.Stderr, "manager:", err)
		os.Exit(1)
	}
}
