// Package bbspec holds Bitbucket Cloud's published API description for the
// operations prscout sends (testdata/bitbucket-openapi.yaml, with its
// source and date) and the limits Bitbucket enforces beyond it (Limits,
// each with its source). The fake Bitbucket (package bitbuckettest) checks
// every request and answer against both.
package bbspec

import (
	_ "embed"
	"sync"

	"github.com/prscout/prscout/internal/apicheck"
)

//go:embed testdata/bitbucket-openapi.yaml
var specYAML []byte

// Spec returns the parsed API description.
var Spec = sync.OnceValues(func() (*apicheck.Doc, error) { return apicheck.Load(specYAML) })

// Violation is a request that does not fit the description or a limit.
type Violation = apicheck.Violation
