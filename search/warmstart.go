package search

import "github.com/autotune/autotune/space"

// warmStart returns the queue of a study run: the pending proposals (the
// baseline, retries of interrupted trials) followed by the warm-start
// proposals not measured yet, in order. A warm-start proposal whose
// configuration, or whose kind and source, some finished trial
// (State.Finished) measured is dropped, as is one whose configuration is
// queued already; one left interrupted is measured once, as a warm-start
// trial (not as a retry). params maps a
// proposal to the configuration its trial records (Shape.Of: the base
// merged in, repaired), so it compares with recorded trials; nil records
// the proposal's configuration as it is.
func warmStart(trials []Trial, queue []Proposal, ws []Proposal, params func(Proposal) space.Config) []Proposal {
	for _, p := range ws {
		rec := p.Config
		if params != nil {
			rec = params(p)
		}
		key := rec.Key()
		done := false
		for _, t := range trials {
			// The same configuration, or a finished trial of the same
			// warm-start kind and source: an expert configuration derived
			// again on resume (or by another worker) from a new fsync
			// probe is still the study's one warm start, and a seed
			// study's best that moved since is still the same seed.
			if t.State.Finished() && (t.Params.Key() == key || (p.Kind != Sampled && t.Kind == p.Kind && t.Source == p.Source)) {
				done = true
				break
			}
		}
		if done {
			continue
		}
		p.Handle = -1
		p.Config = p.Config.Clone()
		replaced, queued := false, false
		for i, q := range queue {
			if q.Kind == Retry && q.Config.Key() == key {
				queue[i] = p
				replaced = true
			} else if q.Kind != Retry && q.Kind != Baseline {
				qk := q.Config.Key()
				if params != nil {
					qk = params(q).Key()
				}
				queued = queued || qk == key
			}
		}
		if !replaced && !queued {
			queue = append(queue, p)
		}
	}
	return queue
}
