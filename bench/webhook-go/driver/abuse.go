package main

import (
	"bufio"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// The abuse cases are sent straight to a server's webhook port over TLS, as anyone who can reach the port could.

const mib = 1 << 20

var insecure = &tls.Config{InsecureSkipVerify: true}

// review is an AdmissionReview of a CronJob create whose one annotation pads the body to about `size` bytes.
func review(size int) []byte {
	object := cronJob("abuse", "*/5 * * * *").Object
	envelope := map[string]any{
		"apiVersion": "admission.k8s.io/v1",
		"kind":       "AdmissionReview",
		"request": map[string]any{
			"uid":       "00000000-0000-0000-0000-000000000001",
			"kind":      map[string]any{"group": cronJobs.Group, "version": "v1", "kind": "CronJob"},
			"resource":  map[string]any{"group": cronJobs.Group, "version": "v1", "resource": "cronjobs"},
			"name":      "abuse",
			"namespace": namespace,
			"operation": "CREATE",
			"userInfo":  map[string]any{"username": "bench"},
			"object":    object,
		},
	}
	small, err := json.Marshal(envelope)
	check(err, "review")
	if pad := size - len(small) - len(`"annotations":{"bench/fill":""},`); pad > 0 {
		meta := object["metadata"].(map[string]any)
		meta["annotations"] = map[string]any{"bench/fill": strings.Repeat("x", pad)}
	}
	body, err := json.Marshal(envelope)
	check(err, "review")
	return body
}

// post sends one request on a new TLS connection and returns the status code and the body's first line.
func post(s *server, path string, body []byte, timeout time.Duration) (int, string, error) {
	dialer := &net.Dialer{Timeout: timeout}
	conn, err := tls.DialWithDialer(dialer, "tcp", s.addr(), insecure)
	if err != nil {
		return 0, "", err
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(timeout))
	head := fmt.Sprintf("POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", path, s.addr(), len(body))
	if _, err := conn.Write(append([]byte(head), body...)); err != nil {
		// A server may answer (413) and close before the body is sent: read what it said.
		if code, line, rerr := readResponse(conn); rerr == nil {
			return code, line, nil
		}
		return 0, "", err
	}
	return readResponse(conn)
}

func readResponse(conn net.Conn) (int, string, error) {
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	line, _ := bufio.NewReader(resp.Body).ReadString('\n')
	if len(line) > 160 {
		line = line[:160]
	}
	return resp.StatusCode, strings.TrimSpace(line), nil
}

// answers says whether s still admits a small valid CronJob (a 200 with "allowed":true), how long it took, and
// what it said otherwise.
func answers(s *server) (bool, time.Duration, string) {
	started := time.Now()
	code, line, err := post(s, validatePath, review(0), 10*time.Second)
	took := time.Since(started)
	switch {
	case err != nil:
		return false, took, err.Error()
	case code == 200 && strings.Contains(line, `"allowed":true`):
		return true, took, ""
	default:
		return false, took, fmt.Sprintf("%d %s", code, line)
	}
}

// abuseResult is one case against one server.
type abuseResult struct {
	server    string
	name      string
	outcome   string
	rssBefore int64 // KiB
	peak      int64 // KiB: VmHWM after a reset at the case's start
	rssAfter  int64 // KiB, once the case's connections are closed
	up        bool  // answers a normal review after the case
	during    string
}

// measure runs `attack` against a fresh start of s (a Go heap keeps what an earlier case grew it to, so cases
// on one process would not be comparable), then checks that s still answers. Returns the process it used.
func measure(s *server, name string, attack func(s *server) (outcome, during string)) (abuseResult, *server) {
	s.stop()
	s = s.relaunch()
	ok, _, why := answers(s) // the first request's one-time costs (TLS, handler setup) are not the case's
	if !ok {
		fail("%s does not answer after a restart: %s", s.name, why)
	}
	r := abuseResult{server: s.name, name: name, rssBefore: s.rssKiB()}
	s.resetPeak()
	sampler := samplePeak(s)
	r.outcome, r.during = attack(s)
	sampled := sampler.stop()
	r.peak = max(s.hwmKiB(), sampled)
	time.Sleep(500 * time.Millisecond)
	r.rssAfter = s.rssKiB()
	r.up, _, _ = answers(s)
	r.up = r.up && s.alive()
	return r, s
}

// bodies sends `n` reviews of `size` bytes at once to the defaulting path (the costlier one); the status codes.
func bodies(s *server, n, size int) string {
	body := review(size)
	codes := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			code, line, err := post(s, mutatePath, body, 60*time.Second)
			switch {
			case err != nil:
				codes[i] = "error: " + err.Error()
			case code == 200 && strings.Contains(line, `"allowed":true`):
				codes[i] = "200 allowed"
			default:
				codes[i] = fmt.Sprint(code)
			}
		}()
	}
	wg.Wait()
	sort.Strings(codes)
	return tally(codes)
}

// tally counts equal strings: "2x 200 allowed, 2x 429".
func tally(items []string) string {
	var out []string
	for i := 0; i < len(items); {
		j := i
		for j < len(items) && items[j] == items[i] {
			j++
		}
		out = append(out, fmt.Sprintf("%dx %s", j-i, items[i]))
		i = j
	}
	return strings.Join(out, ", ")
}

// dialMany opens n TLS connections (64 handshakes at a time); the ones that completed their handshake.
func dialMany(s *server, n int) []*tls.Conn {
	var mu sync.Mutex
	var conns []*tls.Conn
	var next atomic.Int64
	var wg sync.WaitGroup
	for range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next.Add(1) <= int64(n) {
				dialer := &net.Dialer{Timeout: 10 * time.Second}
				conn, err := tls.DialWithDialer(dialer, "tcp", s.addr(), insecure)
				if err != nil {
					continue
				}
				// A server that closed at accept fails the handshake; one that closes later shows up below.
				mu.Lock()
				conns = append(conns, conn)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return conns
}

// stillOpen counts the connections the server has not closed (a read that times out rather than ends).
func stillOpen(conns []*tls.Conn) int {
	open := 0
	for _, c := range conns {
		_ = c.SetReadDeadline(time.Now().Add(time.Millisecond))
		var one [1]byte
		_, err := c.Read(one[:])
		var netErr net.Error
		if errors.As(err, &netErr) && netErr.Timeout() {
			open++
		}
	}
	return open
}

func closeAll(conns []*tls.Conn) {
	for _, c := range conns {
		c.Close()
	}
}

// flood holds n idle TLS connections: how many completed the handshake, are still open after a second, and
// whether a new client is answered meanwhile.
func flood(s *server, n int) (string, string) {
	conns := dialMany(s, n)
	defer closeAll(conns)
	time.Sleep(time.Second)
	meanwhile := answered(answers(s))
	return fmt.Sprintf("%d/%d handshaken, %d open after 1 s", len(conns), n, stillOpen(conns)), meanwhile
}

// slowClients holds n of each: a head sent a byte every 100 ms, an idle TLS connection, a body of a declared
// 1 MiB sent 100 bytes every 100 ms; meanwhile 50 normal reviews, one after another.
func slowClients(s *server, n int, hold time.Duration) (string, string) {
	stop := make(chan struct{})
	var wg sync.WaitGroup
	trickle := func(conn *tls.Conn, first []byte, chunk []byte) {
		defer wg.Done()
		defer conn.Close()
		if _, err := conn.Write(first); err != nil {
			return
		}
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				if _, err := conn.Write(chunk); err != nil {
					return
				}
			}
		}
	}
	heads, idle, slowBodies := dialMany(s, n), dialMany(s, n), dialMany(s, n)
	defer closeAll(idle)
	for _, c := range heads {
		wg.Add(1)
		go trickle(c, []byte("POST "+mutatePath+" HTTP/1.1\r\n"), []byte("X"))
	}
	bodyHead := fmt.Sprintf("POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", mutatePath, mib)
	for _, c := range slowBodies {
		wg.Add(1)
		go trickle(c, []byte(bodyHead), []byte(strings.Repeat(" ", 100)))
	}
	var took []time.Duration
	var refusals []string
	okCount := 0
	deadline := time.Now().Add(hold)
	for i := 0; i < 50 || time.Now().Before(deadline); i++ {
		ok, t, why := answers(s)
		if ok {
			okCount++
		} else if len(refusals) < 1 {
			refusals = append(refusals, why)
		}
		took = append(took, t)
		if i >= 50 {
			time.Sleep(50 * time.Millisecond)
		}
	}
	open := stillOpen(idle)
	close(stop)
	wg.Wait()
	sort.Slice(took, func(a, b int) bool { return took[a] < took[b] })
	return fmt.Sprintf("%d+%d+%d slow connections (head, idle, body) held %s; idle still open: %d", len(heads), len(idle), len(slowBodies), hold, open),
		fmt.Sprintf("normal reviews meanwhile: %d/%d answered, p50 %s, max %s %s", okCount, len(took),
			percentile(took, 0.5).Round(time.Millisecond), took[len(took)-1].Round(time.Millisecond), strings.Join(refusals, ""))
}

// headerBomb opens n connections that each send `size` bytes of request head (8 KiB header lines) and never
// finish it; held for a second once written.
func headerBomb(s *server, n, size int) (string, string) {
	conns := dialMany(s, n)
	defer closeAll(conns)
	line := "X-Fill: " + strings.Repeat("h", 8<<10-10) + "\r\n"
	head := "POST " + mutatePath + " HTTP/1.1\r\nHost: x\r\n" + strings.Repeat(line, size/len(line))
	var written atomic.Int64
	var wg sync.WaitGroup
	sem := make(chan struct{}, 32)
	for _, c := range conns {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			_ = c.SetWriteDeadline(time.Now().Add(10 * time.Second))
			if _, err := c.Write([]byte(head)); err == nil {
				written.Add(1)
			}
		}()
	}
	wg.Wait()
	time.Sleep(time.Second)
	meanwhile := answered(answers(s))
	open, refused := openOrRefused(conns, "HTTP/1.1 431 ")
	return fmt.Sprintf("%d connections, %d wrote %s of head each, %d open after, %d answered 431", len(conns), written.Load(), kib(int64(len(head))/1024), open, refused), meanwhile
}

// openOrRefused counts the connections the server has not closed, and those it answered with `answer` (a
// status line's start) before closing.
func openOrRefused(conns []*tls.Conn, answer string) (open, refused int) {
	for _, c := range conns {
		_ = c.SetReadDeadline(time.Now().Add(10 * time.Millisecond))
		got := make([]byte, len(answer))
		n, err := io.ReadFull(c, got)
		var netErr net.Error
		switch {
		case n == 0 && errors.As(err, &netErr) && netErr.Timeout():
			open++
		case string(got[:n]) == answer:
			refused++
		}
	}
	return open, refused
}

// answered describes one normal review sent during an attack.
func answered(ok bool, took time.Duration, why string) string {
	if ok {
		return fmt.Sprintf("a new client is answered (%s)", took.Round(time.Millisecond))
	}
	return fmt.Sprintf("a new client is NOT answered: %s", why)
}

func kib(k int64) string { return fmt.Sprintf("%.1f MiB", float64(k)/1024) }

// abuseCases runs the cases of `only` (keys: bodies, flood, slow, heads; all when empty) against s, each on a
// fresh process; returns the results and the last process.
func abuseCases(s *server, only map[string]bool, floodSize, slowSize, bombSize int) ([]abuseResult, *server) {
	type attack struct {
		key, name string
		run       func(s *server) (string, string)
	}
	var attacks []attack
	for _, size := range []int{3 * mib, 6*mib + mib/2, 8 * mib} {
		attacks = append(attacks, attack{"bodies", fmt.Sprintf("one %.1f MiB review (defaulting)", float64(size)/mib),
			func(s *server) (string, string) { return bodies(s, 1, size), "" }})
	}
	for _, size := range []int{6*mib + mib/2, 8 * mib} {
		attacks = append(attacks, attack{"bodies", fmt.Sprintf("4 x %.1f MiB reviews at once", float64(size)/mib),
			func(s *server) (string, string) { return bodies(s, 4, size), "" }})
	}
	attacks = append(attacks,
		attack{"flood", fmt.Sprintf("%d idle TLS connections", floodSize), func(s *server) (string, string) { return flood(s, floodSize) }},
		attack{"slow", fmt.Sprintf("%d x 3 slow clients", slowSize), func(s *server) (string, string) { return slowClients(s, slowSize, 5*time.Second) }},
		attack{"heads", fmt.Sprintf("%d heads of 1 MiB, unfinished", bombSize), func(s *server) (string, string) { return headerBomb(s, bombSize, mib-16<<10) }},
	)
	var out []abuseResult
	for _, a := range attacks {
		if len(only) > 0 && !only[a.key] {
			continue
		}
		var r abuseResult
		r, s = measure(s, a.name, a.run)
		fmt.Fprintf(os.Stderr, "  %s / %s: %s; %s; idle %s, peak %s, up %v\n", r.server, r.name, r.outcome, r.during, kib(r.rssBefore), kib(r.peak), r.up)
		out = append(out, r)
	}
	return out, s
}
