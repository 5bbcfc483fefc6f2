package space

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Status is what a study does with a catalogue knob.
type Status string

const (
	// Tunable knobs are searched.
	Tunable Status = "tunable"
	// Pinned knobs hold one value in every trial (Entry.Value): the
	// durability policy or a space file's fixed value.
	Pinned Status = "pinned"
	// Excluded knobs are left at the server default by the space file.
	Excluded Status = "excluded"
	// Unsupported knobs are not searched on this server or host
	// (Entry.Reason says why): absent or removed, compile-time, OS-level,
	// a dataset dimension, or nothing to choose from.
	Unsupported Status = "unsupported"
	// Via knobs are searched through another knob (Knob.Via): the
	// compile-time knobs through server_build when two or more builds are
	// listed.
	Via Status = "via"
)

// Entry is one catalogue knob resolved against a server and host.
type Entry struct {
	// Knob is the knob with its range clamped to what the server accepts,
	// its default and dynamic flag taken from the server when known, and
	// the choices left that the server and host offer.
	Knob Knob
	// Variable is the server's system variable for the knob (for SELECT
	// @@GLOBAL and SET GLOBAL), e.g. "tx_isolation" for
	// transaction_isolation on MariaDB 10.11; "" for non-server knobs and
	// knobs the server lacks.
	Variable string
	// Status says what the study does with the knob; Reason explains any
	// status but Tunable.
	Status Status
	Reason string
	// Value is the pinned value (canonical) of a Pinned knob.
	Value string
	// ServerRange is the range or value list the server accepts, as text
	// ("" when unknown).
	ServerRange string

	hard *[2]float64 // the server's numeric range, when known
}

// Durability is the crash-safety policy of a study.
type Durability string

const (
	// Strict pins the durability knobs (innodb_flush_log_at_trx_commit=1,
	// innodb_doublewrite=ON, sync_binlog=1 where binary logging is on): the
	// tuned config is as crash-safe as the defaults.
	Strict Durability = "strict"
	// Relaxed lets the search change them.
	Relaxed Durability = "relaxed"
)

// ParseDurability parses "strict" or "relaxed".
func ParseDurability(s string) (Durability, error) {
	switch Durability(strings.ToLower(strings.TrimSpace(s))) {
	case Strict:
		return Strict, nil
	case Relaxed:
		return Relaxed, nil
	}
	return "", fmt.Errorf("durability %q: want strict or relaxed", s)
}

// ServerVar is one system variable as a running server reports it.
type ServerVar struct {
	// Name is the variable name, lower case.
	Name string
	// Value is the global value of a server started with defaults (the
	// effective default, e.g. 2000 for innodb_io_capacity_max whose
	// DEFAULT_VALUE reads 4294967295 for "auto"); Default is DEFAULT_VALUE.
	Value, Default string
	// Type is the server's type name ("BIGINT UNSIGNED", "BOOLEAN",
	// "ENUM", "DOUBLE", ...); "" when unknown.
	Type string
	// HasRange is true when Min and Max hold the accepted numeric range.
	HasRange bool
	Min, Max float64
	// Block is the granularity of numeric values (0 or 1: any).
	Block int64
	// Enum lists the accepted values of ENUM/SET/BOOLEAN variables.
	Enum []string
	// ReadOnly is true when SET GLOBAL refuses the variable (a restart is
	// needed); meaningful when ReadOnlyKnown.
	ReadOnly, ReadOnlyKnown bool
}

// ServerInfo is what the live server says about itself before a study.
type ServerInfo struct {
	// Version is the parsed SELECT VERSION() (and @@version_comment);
	// VersionText the raw text.
	Version     Version
	VersionText string
	// Vars maps lower-case variable names to their description.
	Vars map[string]ServerVar
	// BinlogOn is @@log_bin.
	BinlogOn bool
	// AIO is the asynchronous I/O backend the server reported at start
	// (runner.Server.AIO: "io_uring", "libaio", "simulated"; "" unknown).
	AIO string
}

// Env is everything Resolve reads besides the catalogue: the server, the
// host's launcher facilities, the builds the user listed, the durability
// policy and the space file.
type Env struct {
	// Server is the live server's description; nil resolves from the
	// catalogue's Avail rows for Version alone.
	Server *ServerInfo
	// Version is the server version when Server is nil.
	Version Version
	// Allocators maps allocator choices other than "system" to the library
	// path found by ldconfig -p ("tcmalloc" → ".../libtcmalloc_minimal.so.4").
	Allocators map[string]string
	// Cores is the number of logical CPUs; Taskset whether taskset exists.
	Cores   int
	Taskset bool
	// NUMANodes is the number of NUMA nodes; Numactl whether numactl exists.
	NUMANodes int
	Numactl   bool
	// HugePages is HugePages_Total of /proc/meminfo (pages reserved).
	HugePages int64
	// ServerBuilds and BenchmarkBuilds are the build names the user listed
	// (--server-build, --benchmark-build), in order; the first is the
	// default.
	ServerBuilds, BenchmarkBuilds []string
	// Durability is the policy; "" means Strict.
	Durability Durability
	// Rules is the space file, if any.
	Rules *Rules
	// BenchTCPOnly, when set, says why the benchmark client cannot use
	// the server's unix socket (go-tpc has no socket option): the
	// benchmark_connection knob is then unsupported with this reason.
	BenchTCPOnly string
}

// Resolve decides, for every knob of cat, whether and how a study searches
// it on the server and host env describes, and returns the space of the
// tunable knobs, with the pinned values and the per-knob report (Entries).
//
// Server knobs: the variable is looked up under the names the catalogue
// gives for the server's flavour and version; a knob the server lacks is
// Unsupported with the catalogue's reason (removed, renamed, another
// flavour's). Ranges are clamped to the server's NUMERIC_MIN/MAX and
// rounded to its block size, choices filtered to its value list, the
// default taken from the running server's global value and the dynamic
// flag from READ_ONLY. Environment and build knobs are offered when the
// host has what they need. The durability policy then pins its knobs, and
// the space file (Rules) includes, excludes, narrows and fixes.
//
// It returns an error when the space file names an unknown knob, narrows
// outside what the server accepts, or fixes an unsupported knob.
func Resolve(cat []Knob, env Env) (*Space, error) {
	if env.Durability == "" {
		env.Durability = Strict
	}
	entries := make([]Entry, 0, len(cat))
	for _, k := range cat {
		entries = append(entries, resolveKnob(k, env))
	}
	for i, e := range entries {
		if e.Knob.Via == "" {
			continue
		}
		for _, o := range entries {
			if o.Knob.Name == e.Knob.Via && o.Status == Tunable {
				entries[i].Status = Via
				entries[i].Reason = "compile-time: searched as " + o.Knob.Name + " over the builds " + strings.Join(o.Knob.Choices, ", ")
			}
		}
	}
	if env.Rules != nil {
		if err := env.Rules.apply(entries); err != nil {
			return nil, err
		}
	}
	s := &Space{index: map[string]int{}, fixed: Config{}, entries: entries, version: env.Version}
	if env.Server != nil {
		s.version = env.Server.Version
		s.rules = readServerRules(*env.Server)
		s.rules.restrict(entries, env.Durability)
	}
	for _, e := range entries {
		switch e.Status {
		case Tunable:
			s.add(e.Knob)
			s.searched = append(s.searched, e.Knob)
		case Pinned:
			s.add(e.Knob)
			s.fixed[e.Knob.Name] = e.Value
		case Excluded:
			s.add(e.Knob)
		}
	}
	return s, nil
}

func unsupported(k Knob, reason string) Entry {
	return Entry{Knob: k, Status: Unsupported, Reason: reason}
}

func resolveKnob(k Knob, env Env) Entry {
	if k.NotSearched != "" {
		return unsupported(k, k.NotSearched)
	}
	switch k.Layer {
	case LayerEnvironment:
		return resolveEnvironment(k, env)
	case LayerBuild:
		return resolveBuild(k, env)
	case LayerDataset:
		return unsupported(k, "a dataset dimension: fixed when the datadir is initialised")
	}
	e := resolveServer(k, env)
	if e.Status != Tunable {
		return e
	}
	if k.Name == "sync_binlog" && (env.Server == nil || !env.Server.BinlogOn) {
		e.Status, e.Reason = Unsupported, "binary logging is off in the sandbox (skip-log-bin), so sync_binlog has no effect; --durability strict would pin it to 1 where binary logging is on"
		return e
	}
	if k.Name == "large_pages" && env.HugePages <= 0 {
		e.Status, e.Reason = Unsupported, "no huge pages reserved in the OS (HugePages_Total = 0 in /proc/meminfo): ON would fall back to normal pages"
		return e
	}
	if k.Durability && env.Durability == Strict {
		e.Status = Pinned
		e.Value = k.StrictValue
		e.Reason = "--durability strict pins it to " + k.Render(k.StrictValue) + " (--durability relaxed searches it)"
	}
	return e
}

// availFor returns the Avail rows of k that apply to flavour fl (MySQL
// rows apply to Percona Server too).
func availFor(k Knob, fl Flavor) []Avail {
	var out []Avail
	for _, a := range k.Avail {
		if family(a.Flavor, fl) {
			out = append(out, a)
		}
	}
	return out
}

// inRange reports whether v lies in [a.Since, a.Until).
func (a Avail) inRange(v Version) bool {
	if a.Since != "" && v.Compare(release(a.Flavor, a.Since)) < 0 {
		return false
	}
	if a.Until != "" && v.Compare(release(a.Flavor, a.Until)) >= 0 {
		return false
	}
	return true
}

// variableNames returns the names to look the knob up under on version v,
// the preferred first, and the reason it is absent when the catalogue says
// it does not exist there ("" when it should).
func variableNames(k Knob, v Version) (names []string, gone string) {
	if len(k.Avail) == 0 {
		return []string{k.Name}, ""
	}
	rows := availFor(k, v.Flavor)
	if len(rows) == 0 {
		var where []string
		for _, a := range k.Avail {
			where = append(where, describeAvail(a))
		}
		gone = "not a " + flavourName(v.Flavor) + " variable (it exists in " + strings.Join(where, ", ") + ")"
		for _, a := range k.Avail {
			if a.Gone != "" {
				gone += "; " + a.Gone
				break
			}
		}
		return nil, gone
	}
	add := func(n string) {
		for _, x := range names {
			if x == n {
				return
			}
		}
		names = append(names, n)
	}
	for _, a := range rows {
		if v.IsZero() || a.inRange(v) {
			add(nameOr(a.Variable, k.Name))
		}
	}
	if len(names) == 0 {
		for _, a := range rows {
			if a.Until != "" && v.Compare(release(a.Flavor, a.Until)) >= 0 && a.Gone != "" {
				return nil, a.Gone
			}
		}
		return nil, "not a variable of " + v.String() + " (the catalogue knows it in " + describeRows(rows) + ")"
	}
	return names, ""
}

func nameOr(n, def string) string {
	if n == "" {
		return def
	}
	return n
}

func flavourName(f Flavor) string {
	switch f {
	case MariaDB:
		return "MariaDB"
	case MySQL:
		return "MySQL"
	case Percona:
		return "Percona Server"
	}
	return string(f)
}

func describeAvail(a Avail) string {
	s := flavourName(a.Flavor)
	switch {
	case a.Since != "" && a.Until != "":
		s += " " + a.Since + " to before " + a.Until
	case a.Since != "":
		s += " since " + a.Since
	case a.Until != "":
		s += " before " + a.Until
	}
	return s
}

func describeRows(rows []Avail) string {
	var out []string
	for _, a := range rows {
		out = append(out, describeAvail(a))
	}
	return strings.Join(out, ", ")
}

// resolveServer resolves a server-option knob.
func resolveServer(k Knob, env Env) Entry {
	v := env.Version
	if env.Server != nil {
		v = env.Server.Version
	}
	names, gone := variableNames(k, v)
	if env.Server == nil {
		if gone != "" {
			return unsupported(k, gone)
		}
		return Entry{Knob: k, Variable: names[0], Status: Tunable}
	}
	var sv ServerVar
	found := false
	for _, n := range names {
		if x, ok := env.Server.Vars[strings.ToLower(n)]; ok {
			sv, found = x, true
			break
		}
	}
	if !found {
		if gone == "" {
			gone = "the server has no variable " + strings.Join(names, " or ")
		}
		return unsupported(k, gone+" (not in the live server's variable list: "+env.Server.VersionText+")")
	}
	e := Entry{Knob: k, Variable: sv.Name, Status: Tunable, ServerRange: serverRange(sv)}
	if k.Kind == Float && integerType(sv.Type) {
		// A fraction on one server, a whole number on another (MySQL's
		// innodb_adaptive_flushing_lwm refuses "68.548" at start).
		e.Knob.Kind, e.Knob.Step = Int, max(e.Knob.Step, 1)
		e.Knob.Min, e.Knob.Max = math.Ceil(e.Knob.Min), math.Floor(e.Knob.Max)
		if d, err := strconv.ParseFloat(e.Knob.Default, 64); err == nil {
			e.Knob.Default = strconv.FormatInt(int64(math.Round(d)), 10)
		}
		k = e.Knob
	}
	if sv.ReadOnlyKnown {
		e.Knob.Dynamic = !sv.ReadOnly
	}
	// Effective default from the running server.
	if d, err := k.Canonical(sv.Value); err == nil && sv.Value != "" {
		e.Knob.Default = d
	}
	switch k.Kind {
	case Int, Bytes, Float:
		if sv.HasRange {
			e.hard = &[2]float64{sv.Min, sv.Max}
			if sv.Min > e.Knob.Min {
				e.Knob.Min = sv.Min
			}
			if sv.Max < e.Knob.Max {
				e.Knob.Max = sv.Max
			}
		}
		if k.Kind != Float && sv.Block > 1 {
			e.Knob.Step = lcm(max(e.Knob.Step, 1), sv.Block)
			step := float64(e.Knob.Step)
			e.Knob.Min = math.Ceil(e.Knob.Min/step) * step
			e.Knob.Max = math.Floor(e.Knob.Max/step) * step
		}
		if e.Knob.Min > e.Knob.Max || (e.Knob.Scale == Log && e.Knob.Min <= 0) {
			return unsupported(e.Knob, fmt.Sprintf("the catalogue's search range %s..%s lies outside what the server accepts (%s)",
				k.format(k.Min), k.format(k.Max), e.ServerRange))
		}
	case Enum:
		var keep []string
		for _, c := range k.Choices {
			if serverAccepts(sv, c) {
				keep = append(keep, c)
			}
		}
		if len(keep) < 2 {
			return unsupported(e.Knob, fmt.Sprintf("the server accepts only %s of the catalogue's values %s: nothing to choose",
				strings.Join(keep, ", "), strings.Join(k.Choices, ", ")))
		}
		e.Knob.Choices = keep
	}
	return e
}

// integerType reports whether a server's type name is a whole number's:
// MariaDB's VARIABLE_TYPE ("INT UNSIGNED", "BIGINT") or MySQL's
// variables_metadata DATA_TYPE ("Integer").
func integerType(t string) bool {
	t = strings.ToUpper(t)
	return strings.Contains(t, "INT") && !strings.Contains(t, "POINT")
}

// serverAccepts reports whether the server's variable takes choice c.
func serverAccepts(sv ServerVar, c string) bool {
	if len(sv.Enum) > 0 {
		for _, x := range sv.Enum {
			if strings.EqualFold(x, c) {
				return true
			}
		}
		return false
	}
	if sv.HasRange {
		f, err := strconv.ParseFloat(c, 64)
		return err == nil && f >= sv.Min && f <= sv.Max
	}
	return true
}

func serverRange(sv ServerVar) string {
	if len(sv.Enum) > 0 {
		return strings.Join(sv.Enum, "|")
	}
	if sv.HasRange {
		s := bound(sv.Min) + ".." + bound(sv.Max)
		if sv.Block > 1 {
			s += " step " + strconv.FormatInt(sv.Block, 10)
		}
		return s
	}
	return ""
}

// bound renders a range end; the unsigned 64-bit maximum (which a float64
// cannot hold exactly) as "2^64-1".
func bound(f float64) string {
	if f >= 1.8e19 {
		return "2^64-1"
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

func lcm(a, b int64) int64 { return a / gcd(a, b) * b }

// resolveEnvironment offers a launcher knob when the host can apply it.
func resolveEnvironment(k Knob, env Env) Entry {
	e := Entry{Knob: k, Status: Tunable}
	switch k.Name {
	case "allocator":
		keep := []string{"system"}
		var found []string
		for _, c := range k.Choices[1:] {
			if p, ok := env.Allocators[c]; ok {
				keep = append(keep, c)
				found = append(found, c+"="+p)
			}
		}
		if len(keep) < 2 {
			return unsupported(k, "neither tcmalloc nor jemalloc is installed (ldconfig -p finds no libtcmalloc_minimal.so.4, libtcmalloc.so.4 or libjemalloc.so.2; Debian: libtcmalloc-minimal4, libjemalloc2)")
		}
		e.Knob.Choices = keep
		e.ServerRange = strings.Join(found, " ")
	case "cpu_placement":
		switch {
		case !env.Taskset:
			return unsupported(k, "taskset is not installed (util-linux)")
		case env.Cores < 2:
			return unsupported(k, "one CPU: nothing to split")
		}
		e.ServerRange = fmt.Sprintf("%d cores", env.Cores)
	case "numa_policy":
		switch {
		case !env.Numactl:
			return unsupported(k, "numactl is not installed")
		case env.NUMANodes < 2:
			return unsupported(k, fmt.Sprintf("%d NUMA node: interleaving changes nothing", max(env.NUMANodes, 1)))
		}
		e.ServerRange = fmt.Sprintf("%d nodes", env.NUMANodes)
	case "benchmark_connection":
		if env.BenchTCPOnly != "" {
			return unsupported(k, env.BenchTCPOnly)
		}
	default:
		return unsupported(k, "no launcher support for this knob")
	}
	return e
}

// resolveBuild offers a build choice when the user listed two or more.
func resolveBuild(k Knob, env Env) Entry {
	var builds []string
	flag := ""
	switch k.Name {
	case "server_build":
		builds, flag = env.ServerBuilds, "--server-build"
	case "benchmark_build":
		builds, flag = env.BenchmarkBuilds, "--benchmark-build"
	default:
		return unsupported(k, "a build setting without a launcher")
	}
	if len(builds) < 2 {
		n := "no build"
		if len(builds) == 1 {
			n = "one build"
		}
		return unsupported(k, fmt.Sprintf("%s listed: give %s NAME=PATH twice or more to choose among builds", n, flag))
	}
	k.Choices = append([]string(nil), builds...)
	k.Default = builds[0]
	return Entry{Knob: k, Status: Tunable, ServerRange: strings.Join(builds, "|")}
}

// Intersect combines the descriptions of several server builds into what
// all of them accept: variables present in every build, ranges
// intersected, value lists intersected, read-only when any build has it
// read-only. The version and values are the first build's. One info is
// returned as is; none gives the zero ServerInfo.
func Intersect(infos []ServerInfo) ServerInfo {
	if len(infos) == 0 {
		return ServerInfo{}
	}
	out := infos[0]
	out.Vars = map[string]ServerVar{}
	for name, v := range infos[0].Vars {
		keep := true
		for _, o := range infos[1:] {
			w, ok := o.Vars[name]
			if !ok {
				keep = false
				break
			}
			if v.HasRange && w.HasRange {
				v.Min, v.Max = math.Max(v.Min, w.Min), math.Min(v.Max, w.Max)
			}
			if len(v.Enum) > 0 && len(w.Enum) > 0 {
				var both []string
				for _, e := range v.Enum {
					for _, f := range w.Enum {
						if strings.EqualFold(e, f) {
							both = append(both, e)
						}
					}
				}
				v.Enum = both
			}
			if w.Block > v.Block {
				v.Block = lcm(max(v.Block, 1), w.Block)
			}
			v.ReadOnly = v.ReadOnly || w.ReadOnly
			v.ReadOnlyKnown = v.ReadOnlyKnown && w.ReadOnlyKnown
		}
		if keep {
			out.Vars[name] = v
		}
	}
	for _, o := range infos[1:] {
		out.BinlogOn = out.BinlogOn || o.BinlogOn
	}
	return out
}

// ToleratedOption reports whether a server of version v accepts the
// startup option name (underscores) as a removed no-op, per the
// catalogue: such an option in a user's my.cnf does not abort the server,
// it is only ignored with a warning.
func ToleratedOption(name string, v Version) bool {
	for _, k := range Catalogue() {
		if k.Name != name {
			continue
		}
		for _, a := range availFor(k, v.Flavor) {
			if a.Tolerated && a.Until != "" && v.Compare(release(a.Flavor, a.Until)) >= 0 {
				return true
			}
		}
	}
	return false
}

// OptionName returns the option that sets knob name on a server of
// version v: the Option of the catalogue's availability row for v, else
// name itself (also for a zero v and a knob the catalogue lacks). The
// option file autotune writes for a trial and the exported my.cnf use it,
// so each server reads its own spelling of one tuning dimension (the redo
// log's size is innodb_log_file_size on MariaDB and MySQL before 8.0.30,
// innodb_redo_log_capacity from MySQL 8.0.30 on).
func OptionName(name string, v Version) string {
	if v.IsZero() {
		return name
	}
	for _, k := range Catalogue() {
		if k.Name != name {
			continue
		}
		for _, a := range k.Avail {
			if family(a.Flavor, v.Flavor) && a.inRange(v) && a.Option != "" {
				return a.Option
			}
		}
	}
	return name
}

// ForServer returns cfg as server version v reads it: where v sizes the
// redo log with innodb_redo_log_capacity (MySQL 8.0.30 and later) and cfg
// also sets innodb_log_files_in_group (a study that searched the older
// spelling, each file innodb_log_file_size), the redo knob becomes the
// capacity those files made (size × files) and the file count, which
// that server ignores, is left out. cfg itself is not changed.
func ForServer(cfg Config, v Version) Config {
	files, ok := cfg["innodb_log_files_in_group"]
	if !ok || OptionName("innodb_log_file_size", v) != "innodb_redo_log_capacity" {
		return cfg
	}
	out := cfg.Clone()
	delete(out, "innodb_log_files_in_group")
	n, err1 := strconv.ParseInt(files, 10, 64)
	size, err2 := ParseBytes(cfg["innodb_log_file_size"])
	if err1 == nil && err2 == nil && n > 0 && size > 0 {
		out["innodb_log_file_size"] = strconv.FormatInt(size*n, 10)
	}
	return out
}

// VariableName returns the system variable that holds knob name on a
// server of version v (e.g. "tx_isolation" for transaction_isolation on
// MariaDB 10.11), per the catalogue; the name itself when the catalogue
// has no other name for it there.
func VariableName(name string, v Version) string {
	for _, k := range Catalogue() {
		if k.Name != name {
			continue
		}
		if names, _ := variableNames(k, v); len(names) > 0 {
			return names[0]
		}
	}
	return name
}
