package measure

// Phases of a trial as the trial engine reports them to progress displays
// while it runs (Outcome.Phases holds the durations, under shorter names).
const (
	PhaseRestoring = "restoring"
	PhaseStarting  = "starting"
	// PhasePreloading: the server loads the buffer pool page list.
	PhasePreloading = "preloading"
	PhaseWarmingUp  = "warming up"
	PhaseMeasuring  = "measuring"
	PhaseStopping   = "stopping"
)
