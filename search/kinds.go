package search

// Kinds of trials proposed by the strategies (coordinate descent, hybrid)
// and the expert warm start. They are stored as text in
// trials.db (trials.kind).
const (
	// Expert is the warm-start configuration an expert would try first,
	// derived from the host and the dataset (see ExpertConfig).
	Expert Kind = "expert"
	// Screen is a point of the hybrid's space-filling screening design.
	Screen Kind = "screen"
	// Step is a coordinate-descent step: the incumbent with one knob moved
	// to another level.
	Step Kind = "coordinate"
	// Remeasure measures a configuration the strategy measured before
	// again (the incumbent, the local search's centre, one of the hybrid's
	// final race's two best), for the noise estimate and a firmer mean.
	Remeasure Kind = "repeat"
	// Refine is a local refinement: the incumbent with one or two knobs
	// nudged.
	Refine Kind = "refine"
	// Seed is a configuration the user handed to the study (--seed-from: a
	// my.cnf or the best of an earlier study), measured right after the
	// baseline; Trial.Source names where it came from.
	Seed Kind = "seed"
)

// Known reports whether k is a trial kind this program writes.
func (k Kind) Known() bool {
	switch k {
	case Baseline, Sampled, Retry, Expert, Screen, Step, Remeasure, Refine, Seed:
		return true
	}
	return false
}
