package search

// Phases of a trial as the trial engine reports them to progress displays
// while it runs (Outcome.Phases holds the durations, under shorter names).
const (
	PhaseRestoring = "restoring"
	PhaseStarting  = "starting"
	PhaseWarmingUp = "warming up"
	PhaseMeasuring = "measuring"
	PhaseStopping  = "stopping"
)
