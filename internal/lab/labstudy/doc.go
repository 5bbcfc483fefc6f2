// Package labstudy is the lab's side of a study store and of
// `autotune-lab bench-search`: it reads the trials of a real study from a
// trials.db (or a MySQL store) to fit a landscape to them
// (FittedLandscape) or to write them as the fixture a built-in fitted
// landscape is kept in (WriteFitFixture, cmd/fitfixture), and it runs the
// strategy comparison over the landscape a BenchSearch names
// (RunBenchSearch: built-in, fitted to a store, or a shell command) and
// prints its tables.
//
// Only the lab's commands (cmd/autotune-lab, cmd/fitfixture) import it,
// so the product binary links neither the lab nor its fixtures.
package labstudy
