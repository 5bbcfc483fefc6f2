// Package strategy holds the strategies that propose configurations to a
// study (search.Strategy): Hybrid (the default: screening, diagnosis and
// probes from the warm start, model-guided local search, multivariate TPE,
// the main-effects model's best), CoordinateDescent (as an engineer does
// it by hand), and goptuna's TPE and random search (Sampler), chosen by
// NewStrategy. It also derives the expert warm start (ExpertConfig) and
// reads a trial's server counters into the knobs that limit it
// (Diagnose). Strategies only propose: every re-measurement is the study
// loop's (search.Confirmation).
package strategy
