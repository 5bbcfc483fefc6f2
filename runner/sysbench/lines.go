package sysbench

import (
	"bufio"
	"errors"
	"fmt"
	"io"
)

// FeedLines calls feed for every line of r (as read, newline included)
// and keeps reading after a line's error. It returns the line errors and a
// read error (named after what), joined; nil when there were none.
func FeedLines(r io.Reader, what string, feed func(line string) error) error {
	br := bufio.NewReader(r)
	var errs []error
	for {
		line, err := br.ReadString('\n')
		if len(line) > 0 || err == nil {
			if ferr := feed(line); ferr != nil {
				errs = append(errs, ferr)
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("reading %s output: %w", what, err))
			break
		}
	}
	return errors.Join(errs...)
}
