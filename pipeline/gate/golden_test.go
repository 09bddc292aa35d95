package gate

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// TestGoldenReports pins the error report format (text and JSON) for each
// testdata/golden/<case>.json: adding a case means adding a file and running
// go test ./pipeline/gate -run TestGoldenReports -update.
func TestGoldenReports(t *testing.T) {
	inputs, err := filepath.Glob("testdata/golden/*.json")
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no golden inputs: %v", err)
	}
	for _, in := range inputs {
		name := strings.TrimSuffix(filepath.Base(in), ".json")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			rep := CheckExport(filepath.Base(in), data, Options{Expressions: true})
			var text, js bytes.Buffer
			if err := rep.WriteText(&text); err != nil {
				t.Fatal(err)
			}
			if err := rep.WriteJSON(&js); err != nil {
				t.Fatal(err)
			}
			compareGolden(t, strings.TrimSuffix(in, ".json")+".text.golden", text.Bytes())
			compareGolden(t, strings.TrimSuffix(in, ".json")+".json.golden", js.Bytes())
		})
	}
}

func compareGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs:\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}
