package main

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

func median(values []float64) float64 {
	sorted := append([]float64(nil), values...)
	sort.Float64s(sorted)
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// loadSummary is one server's medians over its rounds.
type loadSummary struct {
	p50, p99, throughput, peak, cpu float64
	rounds                          []string
	ops, errors, denied             int
}

func summarize(results []roundResult, server string) loadSummary {
	var s loadSummary
	var p50, p99, tput, peak, cpu []float64
	for _, r := range results {
		if r.server != server {
			continue
		}
		p50 = append(p50, ms(percentile(r.latencies, 0.5)))
		p99 = append(p99, ms(percentile(r.latencies, 0.99)))
		tput = append(tput, float64(r.ops)/r.wall.Seconds())
		peak = append(peak, float64(max(r.peakRSS, r.sampledRSS))/1024)
		cpu = append(cpu, r.cpu)
		s.ops += r.ops
		s.errors += r.errors
		s.denied += r.denied
		s.rounds = append(s.rounds, fmt.Sprintf("%.2f/%.2f ms %.0f/s", p50[len(p50)-1], p99[len(p99)-1], tput[len(tput)-1]))
	}
	s.p50, s.p99, s.throughput, s.peak, s.cpu = median(p50), median(p99), median(tput), median(peak), median(cpu)
	return s
}

// printLoad prints the load table (medians over rounds, rkb / go ratios) and returns the number of lost requests.
func printLoad(c config, results []roundResult, idle map[string]int64) int {
	rkb, twin := summarize(results, "rkb"), summarize(results, "go")
	fmt.Printf("\nSustained creates and updates: %d rounds per server of %d create+update pairs, %d in flight (medians of the rounds)\n\n",
		c.rounds, c.pairs, c.concurrency)
	fmt.Println("| server | p50 | p99 | throughput | peak RSS (VmHWM) | idle RSS | CPU per round | requests | lost | refused as expected |")
	fmt.Println("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, row := range []struct {
		name string
		s    loadSummary
	}{{"rkb", rkb}, {"go", twin}} {
		fmt.Printf("| %s | %.2f ms | %.2f ms | %.0f /s | %.1f MiB | %s | %.2f s | %d | %d | %d |\n",
			row.name, row.s.p50, row.s.p99, row.s.throughput, row.s.peak, kib(idle[row.name]), row.s.cpu, row.s.ops, row.s.errors, row.s.denied)
	}
	fmt.Printf("| rkb / go | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | | | |\n\n",
		rkb.p50/twin.p50, rkb.p99/twin.p99, rkb.throughput/twin.throughput, rkb.peak/twin.peak,
		float64(idle["rkb"])/float64(idle["go"]), rkb.cpu/twin.cpu)
	fmt.Printf("Rounds (p50/p99, throughput): rkb %s; go %s\n", strings.Join(rkb.rounds, ", "), strings.Join(twin.rounds, ", "))
	return rkb.errors + twin.errors
}

func printAbuse(results []abuseResult) {
	fmt.Println("\nAbuse, straight at each webhook port (each case on a freshly started process; peak = VmHWM or the largest 10 ms VmRSS sample)")
	fmt.Println()
	fmt.Println("| case | server | outcome | meanwhile | RSS at start (fresh process) | peak RSS | RSS after | still answers |")
	fmt.Println("|---|---|---|---|---:|---:|---:|---|")
	// Each case's rows together, in the order the cases ran.
	order := map[string]int{}
	for i, r := range results {
		if _, seen := order[r.name]; !seen {
			order[r.name] = i
		}
	}
	sort.SliceStable(results, func(a, b int) bool { return order[results[a].name] < order[results[b].name] })
	for _, r := range results {
		fmt.Printf("| %s | %s | %s | %s | %s | %s | %s | %v |\n", r.name, r.server, r.outcome, r.during,
			kib(r.rssBefore), kib(r.peak), kib(r.rssAfter), r.up)
	}
}
