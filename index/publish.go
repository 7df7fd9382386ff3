package index

import (
	"fmt"

	"github.com/openshelf/openshelf/snapshot"
)

// Publication follows package snapshot's installation protocol (lock,
// leftovers, write into snapshots/.tmp-<id>/, rename, switch current,
// prune): a kill at any point leaves current pointing at the previous,
// complete snapshot.

// workDir is the scratch directory inside a snapshot being written.
const workDir = ".work"

// publish moves the finished tmp directory into place and switches current.
// hook, when set, runs between the rename and the switch (crash tests).
func publish(dataDir, tmp, id string, hook func()) error {
	if err := snapshot.Place(dataDir, tmp, id); err != nil {
		return fmt.Errorf("index: publish: %w", err)
	}
	if hook != nil {
		hook()
	}
	return snapshot.SwitchCurrent(dataDir, id)
}
