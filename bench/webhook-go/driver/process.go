package main

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// server is one webhook process under test: where it listens and how to read its memory and counters.
type server struct {
	name        string
	cmd         *exec.Cmd
	port        int
	metricsPort int
	relaunch    func() *server // the same process again, fresh
}

// freePort asks the kernel for a port that is free now.
func freePort() int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	check(err, "free port")
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// start runs `binary args...` with `env` added, logging to <dir>/<name>.log, and waits until its webhook port
// accepts a TLS handshake.
func start(name, binary string, args, env []string, port, metricsPort int, dir string) *server {
	log, err := os.OpenFile(filepath.Join(dir, name+".log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	check(err, "log file")
	cmd := exec.Command(binary, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = log, log
	check(cmd.Start(), "start "+name)
	s := &server{name: name, cmd: cmd, port: port, metricsPort: metricsPort}
	s.relaunch = func() *server { return start(name, binary, args, env, port, metricsPort, dir) }
	deadline := time.Now().Add(60 * time.Second)
	for {
		conn, err := tls.Dial("tcp", s.addr(), &tls.Config{InsecureSkipVerify: true})
		if err == nil {
			conn.Close()
			return s
		}
		if time.Now().After(deadline) {
			fail("%s did not serve on %s within 60 s (see %s): %v", name, s.addr(), log.Name(), err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (s *server) addr() string { return fmt.Sprintf("127.0.0.1:%d", s.port) }
func (s *server) pid() int     { return s.cmd.Process.Pid }

func (s *server) alive() bool {
	_, err := os.Stat(fmt.Sprintf("/proc/%d/status", s.pid()))
	return err == nil && s.cmd.ProcessState == nil
}

func (s *server) stop() {
	_ = s.cmd.Process.Kill()
	_ = s.cmd.Wait()
}

// statusKiB reads a "VmRSS:"-style line of /proc/<pid>/status, in KiB (0 once the process is gone).
func (s *server) statusKiB(field string) int64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", s.pid()))
	if err != nil {
		return 0
	}
	defer f.Close()
	scan := bufio.NewScanner(f)
	for scan.Scan() {
		line := scan.Text()
		if strings.HasPrefix(line, field+":") {
			fields := strings.Fields(line)
			kib, _ := strconv.ParseInt(fields[1], 10, 64)
			return kib
		}
	}
	return 0
}

func (s *server) rssKiB() int64 { return s.statusKiB("VmRSS") }
func (s *server) hwmKiB() int64 { return s.statusKiB("VmHWM") }

// resetPeak sets VmHWM back to the current RSS (Linux's clear_refs "5"), so the next peak is the next case's.
func (s *server) resetPeak() {
	_ = os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", s.pid()), []byte("5"), 0)
}

// cpuSeconds is the process's user + system time.
func (s *server) cpuSeconds() float64 {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", s.pid()))
	if err != nil {
		return 0
	}
	// Fields after the parenthesised command name; utime and stime are the 14th and 15th of the whole line.
	rest := strings.Fields(string(raw[strings.LastIndexByte(string(raw), ')')+2:]))
	utime, _ := strconv.ParseFloat(rest[11], 64)
	stime, _ := strconv.ParseFloat(rest[12], 64)
	return (utime + stime) / 100 // USER_HZ
}

// webhookRequests is the sum of controller_runtime_webhook_requests_total over paths and codes (both servers
// export controller-runtime's metric), or -1 when /metrics does not answer.
func (s *server) webhookRequests() float64 {
	resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/metrics", s.metricsPort))
	if err != nil {
		return -1
	}
	defer resp.Body.Close()
	total := 0.0
	scan := bufio.NewScanner(resp.Body)
	scan.Buffer(make([]byte, 1<<16), 1<<20)
	for scan.Scan() {
		line := scan.Text()
		if strings.HasPrefix(line, "controller_runtime_webhook_requests_total{") {
			fields := strings.Fields(line)
			v, _ := strconv.ParseFloat(fields[len(fields)-1], 64)
			total += v
		}
	}
	return total
}

// peakSampler samples VmRSS every 10 ms until stopped; the largest sample in KiB.
type peakSampler struct {
	done chan struct{}
	wg   sync.WaitGroup
	peak int64
}

func samplePeak(s *server) *peakSampler {
	p := &peakSampler{done: make(chan struct{})}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			if rss := s.rssKiB(); rss > p.peak {
				p.peak = rss
			}
			select {
			case <-p.done:
				return
			case <-tick.C:
			}
		}
	}()
	return p
}

func (p *peakSampler) stop() int64 {
	close(p.done)
	p.wg.Wait()
	return p.peak
}

// writeServingCert writes a self-signed certificate for 127.0.0.1 and localhost as tls.crt and tls.key in dir
// (the file names both servers read by default); the certificate's PEM is the caBundle.
func writeServingCert(dir string) []byte {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	check(err, "key")
	template := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "webhook-bench"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1)},
		DNSNames:              []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, template, template, &key.PublicKey, key)
	check(err, "certificate")
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	keyDER, err := x509.MarshalECPrivateKey(key)
	check(err, "key encoding")
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER})
	check(os.WriteFile(filepath.Join(dir, "tls.crt"), certPEM, 0o600), "tls.crt")
	check(os.WriteFile(filepath.Join(dir, "tls.key"), keyPEM, 0o600), "tls.key")
	return certPEM
}

func check(err error, what string) {
	if err != nil {
		fail("%s: %v", what, err)
	}
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "webhook-bench: "+format+"\n", args...)
	os.Exit(1)
}
