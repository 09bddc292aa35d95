// Package sariftest validates SARIF logs against the official SARIF 2.1.0
// JSON schema (testdata/sarif-schema-2.1.0.json, source in
// testdata/README.md), for tests of any package that writes SARIF.
package sariftest

import (
	"bytes"
	_ "embed"
	"fmt"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

//go:embed testdata/sarif-schema-2.1.0.json
var schemaJSON []byte

var (
	once      sync.Once
	schema    *jsonschema.Schema
	schemaErr error
)

// Schema returns the compiled SARIF 2.1.0 schema, with format assertions
// on (a bad URI reference or date-time fails too).
func Schema() (*jsonschema.Schema, error) {
	once.Do(func() {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemaJSON))
		if err != nil {
			schemaErr = fmt.Errorf("read the SARIF schema: %w", err)
			return
		}
		c := jsonschema.NewCompiler()
		c.AssertFormat()
		const loc = "sarif-schema-2.1.0.json"
		if err := c.AddResource(loc, doc); err != nil {
			schemaErr = fmt.Errorf("add the SARIF schema: %w", err)
			return
		}
		schema, schemaErr = c.Compile(loc)
	})
	return schema, schemaErr
}

// Validate checks a SARIF document against the schema; the error lists
// every violation with its JSON pointer.
func Validate(doc []byte) error {
	sch, err := Schema()
	if err != nil {
		return err
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	return sch.Validate(v)
}
