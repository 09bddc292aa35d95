package java

import (
	"strings"
	"testing"
)

// javaTailPending answers as the plain suffix test does.
func TestJavaTailPending(t *testing.T) {
	pending := map[string]bool{"com/acme/A.java": true, "B.java": true, "x/C.java": true}
	plain := func(p string) bool {
		for tail := range pending {
			if p == tail || strings.HasSuffix(p, "/"+tail) {
				return true
			}
		}
		return false
	}
	for _, p := range []string{"com/acme/A.java", "src/main/java/com/acme/A.java", "src/main/java/xcom/acme/A.java", "B.java", "a/B.java",
		"aB.java", "x/C.java", "yx/C.java", "y/x/C.java", "C.java", "", "/", "com/acme/A.java/", "//B.java"} {
		if got, want := javaTailPending(pending, p), plain(p); got != want {
			t.Errorf("javaTailPending(%q) = %t, want %t", p, got, want)
		}
	}
}
