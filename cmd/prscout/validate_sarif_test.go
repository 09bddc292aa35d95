package main

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/prscout/prscout/sarif"
	"github.com/prscout/prscout/sarif/sariftest"
)

// TestValidateWorkflowSARIF: --format sarif over a broken export gives a
// schema-valid SARIF log with one result per invalid node, located in the
// export, and the same exit code as the other formats.
func TestValidateWorkflowSARIF(t *testing.T) {
	var out, errOut bytes.Buffer
	code := runValidateWorkflow([]string{"--format", "sarif", "../../sarif/testdata/broken-export.json", "testdata/validate/good"}, &out, &errOut)
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, errOut.String())
	}
	if err := sariftest.Validate(out.Bytes()); err != nil {
		t.Fatalf("invalid SARIF: %v\n%s", err, out.String())
	}
	var l sarif.Log
	if err := json.Unmarshal(out.Bytes(), &l); err != nil {
		t.Fatal(err)
	}
	res := l.Runs[0].Results
	if len(res) != 4 {
		t.Fatalf("%d results, want 4 (one per invalid node)", len(res))
	}
	pl := res[0].Locations[0].PhysicalLocation
	if pl.ArtifactLocation.URI != "../../sarif/testdata/broken-export.json" || pl.Region == nil || pl.Region.StartLine != 13 || pl.Region.StartColumn != 44 {
		t.Errorf("first result at %+v %+v", pl.ArtifactLocation, pl.Region)
	}

	out.Reset()
	if code := runValidateWorkflow([]string{"--format", "sarif", "testdata/validate/good"}, &out, &errOut); code != 0 {
		t.Fatalf("good folder: exit %d", code)
	}
	if err := sariftest.Validate(out.Bytes()); err != nil || !bytes.Contains(out.Bytes(), []byte(`"results": []`)) {
		t.Fatalf("good folder: %v\n%s", err, out.String())
	}
}
