package scope

import (
	"strings"
	"testing"
)

// Test values are assembled at run time so this file itself holds no
// string a secret scanner would flag.
func TestRedactSecrets(t *testing.T) {
	key := "-----BEGIN RSA " + "PRIVATE KEY-----\n+MIIEowIBAAKCAQEAx4Vn1ZyQ3kF9\n+abcdefghijklmnopqrstuv\n+-----END RSA " + "PRIVATE KEY-----"
	tests := []struct {
		name, in, want, kind string
	}{
		{"pem block", "+const k = `" + key + "`\n", "+const k = `[REDACTED:private_key]\n+\n+\n+`\n", SecretPrivateKey},
		{"pem without end", "+-----BEGIN OPENSSH " + "PRIVATE KEY-----\n+b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAE\n+ctx := 1\n", "+[REDACTED:private_key]\n+\n+ctx := 1\n", SecretPrivateKey},
		{"aws access key", `+aws_key = "` + "AKIA" + `IOSFODNN7EXAMPLE"`, `+aws_key = "[REDACTED:aws_access_key]"`, SecretAWSKey},
		{"aws secret", "AWS_SECRET_ACCESS_KEY=" + "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "AWS_SECRET_ACCESS_KEY=[REDACTED:aws_secret_key]", SecretAWSSecret},
		{"github token", "token: gh" + "p_" + strings.Repeat("a1B2", 9), "token: [REDACTED:github_token]", SecretGitHubToken},
		{"gitlab token", "GL=glpat" + "-" + "xxxxxxxxxxxxxxxxxxxx1", "GL=[REDACTED:gitlab_token]", SecretGitLabToken},
		{"slack token", "x = xox" + "b-123456789012-abcdefghij", "x = [REDACTED:slack_token]", SecretSlackToken},
		{"atlassian token", "t=ATATT3" + strings.Repeat("xFfGF0", 12), "t=[REDACTED:atlassian_token]", SecretAtlassian},
		{"jwt", "Authorization: Bearer eyJ" + "hbGciOiJIUzI1NiJ9.eyJ" + "zdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", "Authorization: Bearer [REDACTED:jwt]", SecretJWT},
		{"password quoted", `+  password: "hunter2hunter2"`, `+  password: "[REDACTED:password_assignment]"`, SecretGenericAssign},
		{"go assignment", `apiKey := "s3cr3tv4lu3xyz"`, `apiKey := "[REDACTED:password_assignment]"`, SecretGenericAssign},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			counts := map[string]int{}
			got := RedactSecrets(tt.in, counts)
			if got != tt.want {
				t.Errorf("RedactSecrets =\n%q\nwant\n%q", got, tt.want)
			}
			if strings.Count(got, "\n") != strings.Count(tt.in, "\n") {
				t.Errorf("line count changed: %q", got)
			}
			if counts[tt.kind] != 1 {
				t.Errorf("counts = %v, want one %s", counts, tt.kind)
			}
		})
	}
	// Left alone: code reading secrets, placeholders, short values, prose.
	for _, in := range []string{
		`password := os.Getenv("DB_PASSWORD")`,
		`password: "${DB_PASSWORD}"`,
		`token = "{{ .Token }}"`,
		`pwd = "short"`,
		"the AKIA prefix marks AWS access keys",
		"func parseJWT(s string) (eyJ, error)",
	} {
		counts := map[string]int{}
		if got := RedactSecrets(in, counts); got != in || len(counts) != 0 {
			t.Errorf("RedactSecrets(%q) = %q, %v; want it unchanged", in, got, counts)
		}
	}
}

func FuzzRedactSecrets(f *testing.F) {
	f.Add("password = \"abcdefgh1234\"")
	f.Add("-----BEGIN EC " + "PRIVATE KEY-----\nabc\n-----END EC " + "PRIVATE KEY-----")
	f.Add("AKIA" + "ABCDEFGHIJKLMNOP eyJ" + "aaaaaaaaaaaa.eyJbbbbbbbbbbbb.cccccccccccc")
	f.Fuzz(func(t *testing.T, s string) {
		counts := map[string]int{}
		out := RedactSecrets(s, counts)
		n := 0
		for _, v := range counts {
			n += v
		}
		if strings.Count(out, "\n") != strings.Count(s, "\n") {
			t.Fatalf("line count changed: %q -> %q", s, out)
		}
		if n == 0 && out != s {
			t.Fatalf("changed without counting: %q -> %q", s, out)
		}
		if strings.Count(out, RedactionMarker) < n {
			t.Fatalf("%d redactions counted, %d markers in %q", n, strings.Count(out, RedactionMarker), out)
		}
		again := map[string]int{}
		if RedactSecrets(out, again) != out && again[SecretAWSKey]+again[SecretGitHubToken]+again[SecretPrivateKey] > 0 {
			t.Fatalf("a high-confidence secret survived redaction: %q", out)
		}
	})
}

// TestRedactLinear guards against quadratic inputs: many BEGIN lines
// without END, many keyword lines. (Timing asserts nothing exact: the
// input would take tens of seconds if the scan were quadratic.)
func TestRedactLinear(t *testing.T) {
	in := strings.Repeat("+-----BEGIN RSA "+"PRIVATE KEY-----\n+x := 1\n", 20000)
	counts := map[string]int{}
	out := RedactSecrets(in, counts)
	if counts[SecretPrivateKey] != 20000 || strings.Count(out, "\n") != strings.Count(in, "\n") {
		t.Fatalf("counts %v", counts)
	}
}

// BenchmarkRedactSecrets measures the scan over code that mentions keys and
// tokens on every line (the slow path) and plain code.
func BenchmarkRedactSecrets(b *testing.B) {
	for name, in := range map[string]string{
		"keywords": strings.Repeat("\tcfg.Token = lookup(\"api_key\", key)\n", 30000),
		"plain":    strings.Repeat("\tfor i := range items { total += items[i].Size }\n", 20000),
	} {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			for b.Loop() {
				RedactSecrets(in, nil)
			}
		})
	}
}
