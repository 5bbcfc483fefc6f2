package study

import (
	"context"
	"sync"
	"time"

	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/search"
)

// liveStore is what the live writer needs of the store
// (storage.DB.AppendLiveSamples).
type liveStore interface {
	AppendLiveSamples(ctx context.Context, study string, number int, ss []measure.Sample) error
}

// liveSample is one per-second sample of a running trial.
type liveSample struct {
	study  string
	number int
	s      measure.Sample
}

// liveWriter writes the running trial's per-second samples to the store
// as they arrive (for autotune dashboard), off the measurement's path: add
// never blocks (a sample that finds the queue full is dropped), and a
// failed write never fails the trial; the first one is logged, the others
// are not.
type liveWriter struct {
	db     liveStore
	logf   func(string, ...any)
	queue  chan liveSample
	done   chan struct{}
	failed bool
	// mu guards closed: add after close (a benchmark's last sample
	// arriving while the run is torn down) drops the sample.
	mu     sync.Mutex
	closed bool
}

// liveQueue is how many samples wait for the writer (minutes of samples).
const liveQueue = 256

// liveTimeout bounds one write: the store's busy timeout and then some.
const liveTimeout = 10 * time.Second

func newLiveWriter(db liveStore, logf func(string, ...any)) *liveWriter {
	w := &liveWriter{db: db, logf: logf, queue: make(chan liveSample, liveQueue), done: make(chan struct{})}
	go w.run()
	return w
}

// add queues sample s of trial t; nil w, or a closed one, does nothing.
func (w *liveWriter) add(t search.Trial, s measure.Sample) {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return
	}
	select {
	case w.queue <- liveSample{study: t.Study, number: t.Number, s: s}:
	default:
	}
}

// close writes what is queued and stops the writer.
func (w *liveWriter) close() error {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	if !w.closed {
		w.closed = true
		close(w.queue)
	}
	w.mu.Unlock()
	<-w.done
	return nil
}

// run writes the queue in batches: whatever arrived while the previous
// write ran goes in one transaction per trial.
func (w *liveWriter) run() {
	defer close(w.done)
	for first := range w.queue {
		batch := []liveSample{first}
	drain:
		for {
			select {
			case s, ok := <-w.queue:
				if !ok {
					break drain
				}
				batch = append(batch, s)
			default:
				break drain
			}
		}
		for len(batch) > 0 {
			n := 1
			for n < len(batch) && batch[n].study == batch[0].study && batch[n].number == batch[0].number {
				n++
			}
			ss := make([]measure.Sample, n)
			for i := range ss {
				ss[i] = batch[i].s
			}
			w.write(batch[0].study, batch[0].number, ss)
			batch = batch[n:]
		}
	}
}

func (w *liveWriter) write(study string, number int, ss []measure.Sample) {
	ctx, cancel := context.WithTimeout(context.Background(), liveTimeout)
	defer cancel()
	if err := w.db.AppendLiveSamples(ctx, study, number, ss); err != nil && !w.failed {
		w.failed = true
		w.logf("the running trial's samples could not be written for autotune dashboard (the trial goes on; this is said once): %v", err)
	}
}
