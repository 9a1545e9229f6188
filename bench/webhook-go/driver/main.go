// The driver of hack/bench-webhook.sh: one envtest control plane, examples/cronjob's webhook server (rkb) and its
// controller-runtime twin (../twin) side by side, first under sustained creates and updates through the API server,
// then under abuse sent straight to each webhook port. Prints markdown tables for docs/benchmarks.md on stdout,
// progress on stderr. Exits 1 when a request was lost (an error that is not an expected refusal) or a server died.
//
// Written in Go rather than as a Rust example: the abuse cases need raw TLS sockets, and Go's standard library has
// them without adding dependencies to the example crate; controller-runtime's envtest package starts the control
// plane from $KUBEBUILDER_ASSETS; and one client serves both servers, so the driver's costs are the same for both.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// The rkb operator's controllers watch this namespace only (--namespaced): it stays empty, so the process does
// webhook work alone, as the twin does.
const idleNamespace = "webhook-bench-idle"

type config struct {
	rkb, twin, crdDir, work string
	rounds, pairs, warmup   int
	concurrency             int
	flood, slow, bomb       int
	cases                   map[string]bool
	skipAbuse, skipLoad     bool
}

func main() {
	var c config
	flag.StringVar(&c.rkb, "rkb", "", "examples/cronjob's binary (release build)")
	flag.StringVar(&c.twin, "twin", "", "the twin's binary")
	flag.StringVar(&c.crdDir, "crd-dir", "examples/cronjob/config/crd/bases", "CronJob's CRD")
	flag.StringVar(&c.work, "work", "", "directory for certificates, kubeconfig and server logs (default: a temp dir)")
	flag.IntVar(&c.rounds, "rounds", 3, "measured rounds per server, alternating which goes first")
	flag.IntVar(&c.pairs, "pairs", 1500, "create+update pairs per round")
	flag.IntVar(&c.warmup, "warmup", 100, "pairs per server before the first round, not measured")
	flag.IntVar(&c.concurrency, "concurrency", 16, "requests in flight")
	flag.IntVar(&c.flood, "flood", 3000, "idle TLS connections of the flood case")
	flag.IntVar(&c.slow, "slow", 300, "clients of each slow kind")
	flag.IntVar(&c.bomb, "bomb", 256, "connections sending an unfinished 1 MiB head")
	flag.BoolVar(&c.skipAbuse, "skip-abuse", false, "load rounds only")
	flag.BoolVar(&c.skipLoad, "skip-load", false, "abuse cases only")
	cases := flag.String("cases", "", "abuse cases to run, comma-separated: bodies, flood, slow, heads (default: all)")
	flag.Parse()
	c.cases = map[string]bool{}
	for _, key := range strings.Split(*cases, ",") {
		switch key {
		case "":
		case "bodies", "flood", "slow", "heads":
			c.cases[key] = true
		default:
			fail("--cases: unknown case %q (bodies, flood, slow, heads)", key)
		}
	}
	if c.rkb == "" || c.twin == "" {
		fail("--rkb and --twin are required")
	}
	if c.work == "" {
		dir, err := os.MkdirTemp("", "webhook-bench-")
		check(err, "work dir")
		c.work = dir
	}
	check(os.MkdirAll(c.work, 0o700), "work dir")
	os.Exit(run(c))
}

func run(c config) int {
	ctx := context.Background()
	env := &envtest.Environment{
		CRDDirectoryPaths:     []string{c.crdDir},
		ErrorIfCRDPathMissing: true,
		BinaryAssetsDirectory: os.Getenv("KUBEBUILDER_ASSETS"),
	}
	cfg, err := env.Start()
	check(err, "envtest (is KUBEBUILDER_ASSETS set?)")
	defer func() { _ = env.Stop() }()
	admin, err := env.AddUser(envtest.User{Name: "bench-admin", Groups: []string{"system:masters"}}, nil)
	check(err, "admin user")
	kubeconfig, err := admin.KubeConfig()
	check(err, "kubeconfig")
	kubeconfigPath := filepath.Join(c.work, "kubeconfig")
	check(os.WriteFile(kubeconfigPath, kubeconfig, 0o600), "kubeconfig")
	cfg.QPS, cfg.Burst = 1e5, 1e5
	kube := kubernetes.NewForConfigOrDie(cfg)
	dyn := dynamic.NewForConfigOrDie(cfg)
	_, err = kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: idleNamespace}}, metav1.CreateOptions{})
	check(err, "namespace")

	certDir := filepath.Join(c.work, "certs")
	check(os.MkdirAll(certDir, 0o700), "cert dir")
	caBundle := writeServingCert(certDir)
	servers := startServers(c, certDir, kubeconfigPath)
	defer func() {
		for _, s := range servers {
			s.stop()
		}
	}()
	idle := map[string]int64{}
	for _, s := range servers {
		idle[s.name] = s.rssKiB()
	}
	fmt.Fprintf(os.Stderr, "control plane at %s; servers up; work dir %s\n", cfg.Host, c.work)

	lost := 0
	if !c.skipLoad {
		lost = loadRounds(ctx, c, kube, dyn, servers, caBundle, idle)
	}
	if !c.skipAbuse {
		var results []abuseResult
		for i, s := range servers {
			fmt.Fprintf(os.Stderr, "abuse: %s\n", s.name)
			var cases []abuseResult
			cases, servers[i] = abuseCases(s, c.cases, c.flood, c.slow, c.bomb)
			results = append(results, cases...)
		}
		printAbuse(results)
	}
	for _, s := range servers {
		if !s.alive() {
			fmt.Fprintf(os.Stderr, "!!! %s is gone\n", s.name)
			lost++
		}
	}
	if lost > 0 {
		return 1
	}
	return 0
}

func startServers(c config, certDir, kubeconfig string) []*server {
	rkbPort, rkbMetrics := freePort(), freePort()
	rkb := start("rkb", c.rkb, []string{
		fmt.Sprintf("--webhook-port=%d", rkbPort),
		"--webhook-cert-path=" + certDir,
		fmt.Sprintf("--metrics-bind-address=127.0.0.1:%d", rkbMetrics),
		"--metrics-secure=false",
		"--health-probe-bind-address=0",
		"--namespaced",
	}, []string{"KUBECONFIG=" + kubeconfig, "WATCH_NAMESPACE=" + idleNamespace}, rkbPort, rkbMetrics, c.work)
	twinPort, twinMetrics := freePort(), freePort()
	twin := start("go", c.twin, []string{
		fmt.Sprintf("--webhook-port=%d", twinPort),
		"--webhook-cert-path=" + certDir,
		fmt.Sprintf("--metrics-bind-address=127.0.0.1:%d", twinMetrics),
	}, []string{"KUBECONFIG=" + kubeconfig}, twinPort, twinMetrics, c.work)
	return []*server{rkb, twin}
}

// loadRounds warms each server up, then runs the measured rounds, alternating which server goes first; prints the
// tables and returns how many requests were lost.
func loadRounds(ctx context.Context, c config, kube kubernetes.Interface, dyn dynamic.Interface, servers []*server, caBundle []byte, idle map[string]int64) int {
	for _, s := range servers {
		switchTo(ctx, kube, dyn, s, servers, caBundle)
		warm := round(ctx, dyn, s, "warm-"+s.name, c.warmup, c.concurrency)
		clear(ctx, dyn)
		fmt.Fprintf(os.Stderr, "warm-up %s: %d ops, %d errors\n", s.name, warm.ops, warm.errors)
	}
	var results []roundResult
	for r := 0; r < c.rounds; r++ {
		order := servers
		if r%2 == 1 {
			order = []*server{servers[1], servers[0]}
		}
		for _, s := range order {
			switchTo(ctx, kube, dyn, s, servers, caBundle)
			res := round(ctx, dyn, s, fmt.Sprintf("r%d-%s", r, s.name), c.pairs, c.concurrency)
			clear(ctx, dyn)
			fmt.Fprintf(os.Stderr, "round %d %s: %d ops in %s, p50 %s p99 %s, %d errors, %d denied, peak RSS %s, CPU %.2f s\n",
				r, s.name, res.ops, res.wall.Round(time.Millisecond), percentile(res.latencies, 0.5), percentile(res.latencies, 0.99),
				res.errors, res.denied, kib(res.peakRSS), res.cpu)
			for _, e := range res.firstErrors {
				fmt.Fprintf(os.Stderr, "  error: %s\n", e)
			}
			results = append(results, res)
		}
	}
	return printLoad(c, results, idle)
}
