package study

import (
	"context"
	"io"
)

// WriteFitFixture writes the trials of study name in the store dbPath as
// a lab.FitFixture (the form the built-in fitted landscapes are kept
// in), about saying where they come from. A study not in the store is a
// UsageError; a store that cannot be read, an error. Errors name them as
// cmd/fitfixture's -db and -study.
func WriteFitFixture(ctx context.Context, dbPath, name, about string, w io.Writer) error {
	fix, err := fitFixture(ctx, dbPath, name, about, "-db", "-study")
	if err != nil {
		return err
	}
	return fix.Write(w)
}
