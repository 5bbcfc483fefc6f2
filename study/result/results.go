package result

import (
	"time"

	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
	"github.com/autotune/autotune/storage"
)

// How a setting can be changed on a running server (ServerDiffRow.Change).
const (
	// ChangeDynamic: SET GLOBAL changes it.
	ChangeDynamic = "SET GLOBAL"
	// ChangeRestart: only an option file and a restart change it.
	ChangeRestart = "restart"
	// ChangeUnknown: neither the server nor the catalogue says.
	ChangeUnknown = "unknown"
)

// NoiseRun is one measured repeat of `autotune noise`.
type NoiseRun struct {
	// Outcome is the trial's outcome.
	Outcome measure.Outcome
	// Steal, Idle (percent of CPU time) and Load1 describe the host during
	// the first level's window; nil when not sampled.
	Steal, Idle, Load1 *float64
}

// VerifyRun is one run of `autotune verify`: the file's configuration
// (File) or the baseline, in pair (round) Pair (from 1). Arm names the
// configuration when verify compares several files ("" for one: the line
// then says "file" or "baseline").
type VerifyRun struct {
	Pair    int
	File    bool
	Arm     string
	Outcome measure.Outcome
	Took    time.Duration
}

// VerifyArm is one configuration of a verify run over several files: its
// runs, its geometric mean, and its gains from the per-round log-ratios
// over the baseline and over the reference file.
type VerifyArm struct {
	// Name is the file's path, or what the baseline is.
	Name string
	// File is false for the baseline; Reference marks the reference.
	File, Reference bool
	// Runs counted of Rounds; OverLimit runs over --max-p95 (not counted).
	Runs, Rounds, OverLimit int
	// Mean is the geometric mean of the counted runs' objective values.
	Mean float64
	// VsBase and VsRef are the gains over the baseline and the reference
	// (zero with an error, or for the arm itself).
	VsBase, VsRef       search.Gain
	VsBaseErr, VsRefErr error
}

// ServerDiffRow is one setting `autotune diff --dsn` compared: the
// server's variable against the value a file or trial wants.
type ServerDiffRow struct {
	// Variable is the server's system variable (what SET GLOBAL names);
	// Option the option that sets it in an option file, in this server's
	// spelling (space.OptionName).
	Variable, Option string
	// Knob is the catalogue's knob, nil for a variable the catalogue does
	// not know.
	Knob *space.Knob
	// Running is the server's value and Wanted the file's or trial's, as
	// shown: a knob's values in its rendering (sizes with K/M/G), others
	// as given.
	Running, Wanted string
	// Value is the wanted value the SET statement and option line carry: a
	// knob's canonical value, else the value as given.
	Value string
	// Differs is true when the two differ by the server's rules.
	Differs bool
	// Change is ChangeDynamic, ChangeRestart or ChangeUnknown; Source says
	// who told: "server" (its READ_ONLY flag) or "catalogue".
	Change, Source string
}

// ServerDiff is what `autotune diff --dsn` prints.
type ServerDiff struct {
	// Server is the redacted DSN and Version what the server reports.
	Server, Version string
	// Against names the other side: an option file's path, or a trial
	// (`trial 3 of study "fix" (sampled)`).
	Against string
	// Rows are the settings compared, in the order of the file or the
	// catalogue.
	Rows []ServerDiffRow
	// NotCompared are the settings left out, each with why.
	NotCompared []string
	// Notes are observations on the input (the option-file reader's).
	Notes []string
}

// ComparedStudy is one column of autotune compare.
type ComparedStudy struct {
	// Label names the study in the columns: "STUDY", or "FILE:STUDY" when
	// the studies come from several stores.
	Label string
	// Study is the study row (host, server version, settings).
	Study storage.StudyRecord
	// Trials are the study's trials, ordered by number.
	Trials []search.Trial
	// Minimal is the study's minimal configuration (the smallest set of
	// changes that carries the best's gain), Number −1 when it has none;
	// Minimized is its accepted minimisation (search.Minimize), which says
	// how many of the best's changes it keeps and how it compared with
	// the full best.
	Minimal   search.Trial
	Minimized search.Minimized
}

// Verification is what autotune verify measured: with one file (File
// set), its gain over the baseline from Pairs complete pairs of Rounds;
// with several (Arms set), a row per configuration, the baseline last.
type Verification struct {
	Goal   measure.Goal
	Rounds int
	// File is the one file verified ("" with several); Pairs the pairs
	// complete; OverLimit its runs over --max-p95 (not counted); GainErr
	// why no gain can be stated ("" when Gains[0] is one).
	File      string
	Pairs     int
	OverLimit int
	GainErr   string
	// Gains are the gains over the baseline, in the order of the files.
	Gains []search.Gain
	// Arms are the rows of a verification of several files; Failed
	// names each file whose gain over the baseline is not shown, with why.
	Arms   []VerifyArm
	Failed []string
	// Claims are what each file's export header says of its study's gain.
	Claims []ExportClaim
}

// ExportClaim is what the header of a file autotune export wrote says of
// its study's gain: Gain is the header's "gain over the baseline" text
// ("" without); Differs names the conditions that differ from the
// verifying run's ("" when none does).
type ExportClaim struct {
	File, Gain, Differs string
}

// StudyReport is what a report shows: one study and its trials.
type StudyReport struct {
	// Study is the study name.
	Study string
	// ServerVersion is the tuned server's version string.
	ServerVersion string
	// Goal is the study's objective, for the paired gain (tps when empty).
	Goal measure.Goal
	// Settings is the study's benchmark settings as a JSON object (shown
	// key by key, so settings added later need no change here); may be empty.
	Settings string
	// Workload is what the study measured, on one line
	// (storage.WorkloadText); "" unknown.
	Workload string
	// Cores and RAMBytes describe the study's host (RAM in bytes).
	Cores    int
	RAMBytes int64
	// Created is when the study was created; Spent the budget used.
	Created time.Time
	Spent   time.Duration
	// Generated is the report's date.
	Generated time.Time
	// Space is the knob space the trials were drawn from (defaults,
	// rendering, scales).
	Space *space.Space
	// Trials is every trial of the study, ordered by number.
	Trials []search.Trial
	// BaselineSamples and BestSamples are the per-second samples of the
	// baseline and of the best trial (warm-up included).
	BaselineSamples, BestSamples []measure.Sample
	// Minimized is the stored minimisation of the best trial (nil: none):
	// the page then shows its steps and a waterfall from the baseline to
	// the minimal configuration.
	Minimized *search.Minimized
}

// TrialDetail is everything stored about one trial of a study, for
// autotune show: the study's name, the trial, the study's
// complete baseline and best (Number −1 when none), all its trials, and
// the trial's per-second samples when WithSamples.
type TrialDetail struct {
	Study          string
	Trial          search.Trial
	Baseline, Best search.Trial
	Trials         []search.Trial
	Samples        []measure.Sample
	WithSamples    bool
}

// FileDiff is an option file set against a trial of a study, for
// autotune diff: the file's effective options (the groups the trial's
// server version reads) and the option-file reader's notes.
type FileDiff struct {
	File, Study string
	Trial       search.Trial
	Options     []space.Option
	Notes       []string
}

// Exported is what autotune export wrote to File: Trial (of Trials),
// or its minimal configuration when Minimal, of a study optimising Goal.
type Exported struct {
	File    string
	Minimal bool
	Trial   search.Trial
	Trials  []search.Trial
	Goal    measure.Goal
}
