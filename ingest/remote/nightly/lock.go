package nightly

import (
	"fmt"
	"os"
	"strings"
	"syscall"
	"time"
)

// lock takes an exclusive flock on path, writing this process's id and
// start time into it for the message another run prints. The kernel drops
// the lock when the process dies, so a killed run never blocks the next.
func lock(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		b, _ := os.ReadFile(path)
		f.Close()
		holder := strings.TrimSpace(string(b))
		if holder == "" {
			holder = "unknown process"
		}
		return nil, fmt.Errorf("%w: %s is held by %s; wait for it to finish (two runs at once would fetch and publish twice)", ErrLocked, path, holder)
	}
	f.Truncate(0)
	fmt.Fprintf(f, "pid %d, started %s\n", os.Getpid(), time.Now().UTC().Format(time.RFC3339))
	return func() {
		f.Truncate(0)
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
