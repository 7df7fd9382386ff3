package bench

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// serverProc is the `openshelf serve` child process.
type serverProc struct {
	cmd     *exec.Cmd
	base    string
	startup time.Duration
	done    chan error
	log     *os.File
}

// Memory is a process's resident memory, in bytes.
type Memory struct {
	RSS, HWM int64 // VmRSS now, VmHWM (peak)
	// File and Anon split RSS: mapped file pages (the search index, page
	// cache the kernel may reclaim) and the heap.
	File, Anon int64
}

// freePort asks the kernel for an unused loopback port.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// startServer runs the server on a free loopback port and waits until it
// answers /api/stats (loading a large snapshot takes a while).
func startServer(ctx context.Context, cfg *Config, dataDir string) (*serverProc, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	args := append(append([]string(nil), cfg.Server[1:]...),
		"-data", dataDir, "-addr", addr, "-rate", "0", "-watch", "0", "-log-level", "warn")
	args = append(args, cfg.ServerArgs...)
	logPath := filepath.Join(cfg.Dir, "server.log")
	lf, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(cfg.Server[0], args...)
	cmd.Stdout, cmd.Stderr = lf, lf
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		lf.Close()
		return nil, fmt.Errorf("bench: start server: %w", err)
	}
	s := &serverProc{cmd: cmd, base: "http://" + addr, done: make(chan error, 1), log: lf}
	go func() { s.done <- cmd.Wait() }()
	client := &http.Client{Timeout: 2 * time.Second}
	deadline := time.Now().Add(15 * time.Minute)
	for {
		select {
		case err := <-s.done:
			lf.Close()
			return nil, fmt.Errorf("bench: server exited during start-up (%v); see %s", err, logPath)
		case <-ctx.Done():
			s.stop()
			return nil, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
		res, err := client.Get(s.base + "/api/stats")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				s.startup = time.Since(start)
				return s, nil
			}
		}
		if time.Now().After(deadline) {
			s.stop()
			return nil, fmt.Errorf("bench: server not ready after 15 minutes; see %s", logPath)
		}
	}
}

func (s *serverProc) memory() Memory { return procMemory(s.cmd.Process.Pid) }

// stop ends the server with SIGTERM (graceful), then SIGKILL.
func (s *serverProc) stop() {
	if s.cmd.Process == nil {
		return
	}
	stopChild(s.cmd, s.done, 30*time.Second)
	s.log.Close()
}

// stopChild sends cmd's process SIGTERM and waits for done (its Wait)
// up to grace, then kills it.
func stopChild(cmd *exec.Cmd, done <-chan error, grace time.Duration) {
	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-done:
	case <-time.After(grace):
		cmd.Process.Kill()
		<-done
	}
}

// procMemory reads VmRSS and VmHWM of a process.
func procMemory(pid int) Memory {
	var m Memory
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return m
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		f := strings.Fields(v)
		if len(f) != 2 || f[1] != "kB" {
			continue
		}
		n, _ := strconv.ParseInt(f[0], 10, 64)
		switch k {
		case "VmRSS":
			m.RSS = n << 10
		case "VmHWM":
			m.HWM = n << 10
		case "RssFile":
			m.File = n << 10
		case "RssAnon":
			m.Anon = n << 10
		}
	}
	return m
}

// loadAverage returns /proc/loadavg's first three fields.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}
