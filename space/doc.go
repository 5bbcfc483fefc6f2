// Package space holds autotune's knob catalogue and configurations.
//
// A Knob is one tunable server setting (an InnoDB or server variable): its
// type, range, scale, unit, default, and whether changing it needs a server
// restart. Knobs are rows of a data table (Catalogue), never code per knob.
// A Config maps knob names to canonical values; it is validated and rounded
// by the knobs, and rendered as a my.cnf option group with full option names
// (the server silently matches unique prefixes, so abbreviations are never
// written; see shared/design/mariadb-on-this-machine.md §2.5).
//
// The package imports the standard library only.
package space
