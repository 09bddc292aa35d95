package pipeline

import (
	"errors"
	"fmt"
)

// Sentinel errors that adapters wrap so stages and the HTTP layer can tell
// failures apart with errors.Is.
var (
	ErrNotFound = errors.New("not found")
	ErrBinary   = errors.New("binary file")
	ErrTooLarge = errors.New("file too large")
	ErrIsDir    = errors.New("is a directory")
	ErrNotDir   = errors.New("not a directory")
	ErrSecret   = errors.New("secret path refused")
	ErrUpstream = errors.New("upstream error")
)

// InvalidError reports bad input: Field is the JSON path of the offending
// field (for example "files[2].path"), Message says what is wrong with it.
type InvalidError struct {
	Field   string
	Message string
}

func (e *InvalidError) Error() string {
	if e.Field == "" {
		return e.Message
	}
	return e.Field + ": " + e.Message
}

// Invalidf builds an *InvalidError for field.
func Invalidf(field, format string, args ...any) error {
	return &InvalidError{Field: field, Message: fmt.Sprintf(format, args...)}
}
