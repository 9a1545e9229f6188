package main

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
)

var cronJobs = schema.GroupVersionResource{Group: "batch.tutorial.kubebuilder.io", Version: "v1", Resource: "cronjobs"}

const (
	namespace    = "default"
	mutatePath   = "/mutate-batch-tutorial-kubebuilder-io-v1-cronjob"
	validatePath = "/validate-batch-tutorial-kubebuilder-io-v1-cronjob"
	configName   = "cronjob-webhook-bench"
)

// cronJob is the sample of examples/cronjob (config/samples/batch_v1_cronjob.yaml) without the fields the
// defaulting webhook sets, so every create gets a patch.
func cronJob(name, schedule string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "batch.tutorial.kubebuilder.io/v1",
		"kind":       "CronJob",
		"metadata": map[string]any{
			"name":   name,
			"labels": map[string]any{"app.kubernetes.io/name": "cronjob", "app.kubernetes.io/managed-by": "bench"},
		},
		"spec": map[string]any{
			"schedule":                schedule,
			"startingDeadlineSeconds": int64(60),
			"jobTemplate": map[string]any{"spec": map[string]any{"template": map[string]any{"spec": map[string]any{
				"restartPolicy": "OnFailure",
				"containers": []any{map[string]any{
					"name":  "hello",
					"image": "busybox",
					"args":  []any{"/bin/sh", "-c", "date; echo Hello from the Kubernetes cluster"},
				}},
			}}}},
		},
	}}
}

// point registers (or re-points) the mutating and validating configurations at s: kubebuilder's rules for
// CronJob v1 (create and update), failurePolicy Fail, 10 s timeout.
func point(ctx context.Context, kube kubernetes.Interface, s *server, caBundle []byte) {
	fail := admissionv1.Fail
	none := admissionv1.SideEffectClassNone
	timeout := int32(10)
	rules := []admissionv1.RuleWithOperations{{
		Operations: []admissionv1.OperationType{admissionv1.Create, admissionv1.Update},
		Rule: admissionv1.Rule{
			APIGroups: []string{cronJobs.Group}, APIVersions: []string{"v1"}, Resources: []string{"cronjobs"},
		},
	}}
	client := func(path string) admissionv1.WebhookClientConfig {
		url := fmt.Sprintf("https://%s%s", s.addr(), path)
		return admissionv1.WebhookClientConfig{URL: &url, CABundle: caBundle}
	}
	mutating := &admissionv1.MutatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: configName},
		Webhooks: []admissionv1.MutatingWebhook{{
			Name: "mcronjob-v1.kb.io", ClientConfig: client(mutatePath), Rules: rules, FailurePolicy: &fail,
			SideEffects: &none, AdmissionReviewVersions: []string{"v1"}, TimeoutSeconds: &timeout,
		}},
	}
	validating := &admissionv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: configName},
		Webhooks: []admissionv1.ValidatingWebhook{{
			Name: "vcronjob-v1.kb.io", ClientConfig: client(validatePath), Rules: rules, FailurePolicy: &fail,
			SideEffects: &none, AdmissionReviewVersions: []string{"v1"}, TimeoutSeconds: &timeout,
		}},
	}
	reg := kube.AdmissionregistrationV1()
	_ = reg.MutatingWebhookConfigurations().Delete(ctx, configName, metav1.DeleteOptions{})
	_ = reg.ValidatingWebhookConfigurations().Delete(ctx, configName, metav1.DeleteOptions{})
	_, err := reg.MutatingWebhookConfigurations().Create(ctx, mutating, metav1.CreateOptions{})
	check(err, "mutating configuration")
	_, err = reg.ValidatingWebhookConfigurations().Create(ctx, validating, metav1.CreateOptions{})
	check(err, "validating configuration")
}

// switchTo points the configurations at s and waits until the API server calls s, and only s: three dry-run
// creates in a row each counted twice (mutate, validate) by s's metrics and not at all by the others'.
func switchTo(ctx context.Context, kube kubernetes.Interface, dyn dynamic.Interface, s *server, all []*server, caBundle []byte) {
	point(ctx, kube, s, caBundle)
	api := dyn.Resource(cronJobs).Namespace(namespace)
	deadline := time.Now().Add(60 * time.Second)
	for inARow := 0; inARow < 3; {
		if time.Now().After(deadline) {
			fail("the API server did not switch to %s's webhooks within 60 s", s.name)
		}
		before := counts(all)
		_, err := api.Create(ctx, cronJob("switch-probe", "*/5 * * * *"), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		after := counts(all)
		inARow++
		for i, other := range all {
			want := 0.0
			if other == s {
				want = 2
			}
			if err != nil || after[i]-before[i] != want {
				inARow = 0
			}
		}
		if inARow == 0 {
			time.Sleep(100 * time.Millisecond)
		}
	}
}

func counts(all []*server) []float64 {
	out := make([]float64, len(all))
	for i, s := range all {
		out[i] = s.webhookRequests()
	}
	return out
}

// roundResult is one server's round of sustained creates and updates.
type roundResult struct {
	server      string
	ops         int
	errors      int
	firstErrors []string
	denied      int
	latencies   []time.Duration // sorted
	wall        time.Duration
	peakRSS     int64 // KiB, VmHWM after a reset at the round's start
	sampledRSS  int64 // KiB, largest VmRSS sample
	cpu         float64
}

// round sends `pairs` create+update pairs, `concurrency` at a time, through the API server to whichever webhook
// server the configurations point at (s). Every tenth create has a schedule both webhooks refuse; that refusal
// is expected, anything else that is not a 2xx (or takes over 15 s) is an error.
func round(ctx context.Context, dyn dynamic.Interface, s *server, prefix string, pairs, concurrency int) roundResult {
	api := dyn.Resource(cronJobs).Namespace(namespace)
	var next atomic.Int64
	var mu sync.Mutex
	result := roundResult{server: s.name}
	record := func(took time.Duration, err error, expectDenial bool) {
		mu.Lock()
		defer mu.Unlock()
		result.ops++
		result.latencies = append(result.latencies, took)
		switch {
		case expectDenial && err != nil && strings.Contains(err.Error(), "denied the request"):
			result.denied++
		case err == nil && !expectDenial:
		default:
			result.errors++
			if len(result.firstErrors) < 5 {
				result.firstErrors = append(result.firstErrors, fmt.Sprintf("%v (expected denial: %v)", err, expectDenial))
			}
		}
	}
	timed := func(call func(context.Context) (*unstructured.Unstructured, error)) (*unstructured.Unstructured, time.Duration, error) {
		callCtx, cancel := context.WithTimeout(ctx, 15*time.Second)
		defer cancel()
		started := time.Now()
		obj, err := call(callCtx)
		return obj, time.Since(started), err
	}
	s.resetPeak()
	sampler := samplePeak(s)
	cpuBefore := s.cpuSeconds()
	started := time.Now()
	var wg sync.WaitGroup
	for w := 0; w < concurrency; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := next.Add(1) - 1; i < int64(pairs); i = next.Add(1) - 1 {
				refused := i%10 == 9
				schedule := "*/5 * * * *"
				if refused {
					schedule = "61 * * * *"
				}
				want := cronJob(fmt.Sprintf("%s-%d", prefix, i), schedule)
				created, took, err := timed(func(c context.Context) (*unstructured.Unstructured, error) {
					return api.Create(c, want, metav1.CreateOptions{})
				})
				record(took, err, refused)
				if err != nil || refused {
					continue
				}
				_ = unstructured.SetNestedField(created.Object, "*/7 * * * *", "spec", "schedule")
				created.SetLabels(map[string]string{"app.kubernetes.io/name": "cronjob", "bench/updated": "yes"})
				_, took, err = timed(func(c context.Context) (*unstructured.Unstructured, error) {
					return api.Update(c, created, metav1.UpdateOptions{})
				})
				record(took, err, false)
			}
		}()
	}
	wg.Wait()
	result.wall = time.Since(started)
	result.cpu = s.cpuSeconds() - cpuBefore
	result.sampledRSS = sampler.stop()
	result.peakRSS = s.hwmKiB()
	sort.Slice(result.latencies, func(a, b int) bool { return result.latencies[a] < result.latencies[b] })
	return result
}

// clear deletes the round's CronJobs (no webhook is called for deletes) and waits until none is left, so every
// round starts with the same etcd contents.
func clear(ctx context.Context, dyn dynamic.Interface) {
	api := dyn.Resource(cronJobs).Namespace(namespace)
	check(api.DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{}), "delete the round's CronJobs")
	for {
		list, err := api.List(ctx, metav1.ListOptions{Limit: 1})
		check(err, "list CronJobs")
		if len(list.Items) == 0 {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(float64(len(sorted))*p+0.999999) - 1
	if i < 0 {
		i = 0
	}
	if i >= len(sorted) {
		i = len(sorted) - 1
	}
	return sorted[i]
}
