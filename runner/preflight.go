package runner

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/autotune/autotune/space"
)

// sysbenchRowBytes is the disk a sysbench oltp row takes in an InnoDB
// datadir, indexes included: 8 tables × 500,000 rows came to about 1.1 GB
// on MariaDB 10.11 here (README, make demo).
const sysbenchRowBytes = 275

// tpccWarehouseBytes is the disk one go-tpc warehouse takes in an InnoDB
// datadir, about 100 MB (go-tpc's data per warehouse, indexes included).
const tpccWarehouseBytes = 100 << 20

// EstimatedBytes is the disk the dataset takes in a datadir, estimated
// from its size (sysbench rows, TPC-C warehouses); 0 when it cannot be
// told before loading (a replay's dump).
func (d Dataset) EstimatedBytes() int64 {
	switch {
	case d.Warehouses > 0:
		return int64(d.Warehouses) * tpccWarehouseBytes
	case d.Tables > 0 && d.TableSize > 0:
		return int64(d.Tables) * int64(d.TableSize) * sysbenchRowBytes
	}
	return 0
}

// Preflight is what a study needs of the host before its first server
// start.
type Preflight struct {
	// Dir is the sandbox's directory (--workdir).
	Dir string
	// DataBytes is the dataset's estimated size (Dataset.EstimatedBytes;
	// 0: not checked); Snapshot says whether the snapshot of it exists
	// already (a resume needs one working copy, a new study the snapshot
	// and a copy).
	DataBytes int64
	Snapshot  bool
}

// preflightSlack is the disk a server needs beyond its data: redo and
// undo logs, temporary files, the error log.
const preflightSlack = 512 << 20

// Check returns the host limits that would refuse the study's first
// servers, each with what to change, joined in one error naming them; nil
// when none. It checks the free space of Dir's file system against the
// dataset's copies; what cannot be read is not checked. (What a server's
// asynchronous I/O asks of the host is checked before every start:
// ReadHostAIO, AIONeedOf.)
func (p Preflight) Check() error {
	var problems []string
	if p.DataBytes > 0 {
		copies := int64(2)
		if p.Snapshot {
			copies = 1
		}
		need := copies*p.DataBytes + preflightSlack
		if free, err := freeBytes(p.Dir); err == nil && free < need {
			problems = append(problems, fmt.Sprintf("disk: %s free on the file system of %s, the dataset needs about %s (%d × %s estimated, plus %s for logs): free space there, or give --workdir on a larger disk",
				space.HumanBytes(free), p.Dir, space.HumanBytes(need), copies, space.HumanBytes(p.DataBytes), space.HumanBytes(preflightSlack)))
		}
	}
	if len(problems) == 0 {
		return nil
	}
	return fmt.Errorf("the host cannot run this study's servers (checked before the first start):\n  %s", strings.Join(problems, "\n  "))
}

// freeBytes returns the bytes an unprivileged process may still write on
// the file system of dir, or of its nearest existing parent while dir does
// not exist yet (statfs: available blocks × block size).
func freeBytes(dir string) (int64, error) {
	d := filepath.Clean(dir)
	for {
		var st syscall.Statfs_t
		err := syscall.Statfs(d, &st)
		if err == nil {
			return int64(st.Bavail) * st.Bsize, nil
		}
		if !os.IsNotExist(err) || d == filepath.Dir(d) {
			return 0, err
		}
		d = filepath.Dir(d)
	}
}
