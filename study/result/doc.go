// Package result holds what the modes of package study produce: the
// events a running mode emits (Log, Opened, TrialLength, Phase, Sample,
// TrialEnded, Summary, Done, Interrupted, VerifyRunEnded, NoiseRunEnded)
// and the typed results the modes return (Verification, Noise,
// ServerDiff, ComparedStudy, Minimization). Package study fills them;
// package report renders them (terminal, plain lines, JSON); package cmd
// chooses the renderer. It imports only the vocabulary packages (space,
// measure, search, storage), so a renderer depends on no process,
// engine or store.
package result
