package search

// warmStart returns the queue of a study run: the pending proposals (the
// baseline, retries of interrupted trials) followed by the warm-start
// proposals not measured yet. A warm-start configuration some finished
// trial measured is dropped; one left interrupted is measured once, as a
// warm-start trial (not as a retry).
func warmStart(trials []Trial, queue []Proposal, ws []Proposal) []Proposal {
	for _, p := range ws {
		key := p.Config.Key()
		done := false
		for _, t := range trials {
			if (t.State == Complete || t.State == Failed) && t.Params.Key() == key {
				done = true
				break
			}
		}
		if done {
			continue
		}
		p.handle = -1
		p.Config = p.Config.Clone()
		replaced := false
		for i, q := range queue {
			if q.Kind == Retry && q.Config.Key() == key {
				queue[i] = p
				replaced = true
			}
		}
		if !replaced {
			queue = append(queue, p)
		}
	}
	return queue
}
