//go:build cgo

package treesit

import "testing"

// Every language's query file compiles against its grammar, with only the
// captures the reader knows.
func TestQueriesCompile(t *testing.T) {
	for _, name := range Languages() {
		if _, err := compile(languages[name]); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}
