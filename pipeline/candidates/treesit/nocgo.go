//go:build !cgo

package treesit

import (
	"context"
	"errors"
)

// Built reports whether this build reads the languages of the table: the
// grammars need cgo, and this build has none, so Reader reads nothing and
// these languages fall back to the identifier search.
const Built = false

var errNoCgo = errors.New("treesit: built without cgo")

// parse reads nothing without the grammars.
func parse(context.Context, *language, string, []byte, bool) (*file, error) { return nil, errNoCgo }

// prepareLanguage has no query to compile without the grammars.
func prepareLanguage(*language) {}

// parseChange reads neither side without the grammars.
func parseChange(context.Context, *language, string, []byte, string, []byte, map[int]bool, map[int]bool) (*file, *file, error, error) {
	return nil, nil, errNoCgo, errNoCgo
}
