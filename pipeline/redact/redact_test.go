package redact_test

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/prscout/prscout/pipeline/redact"
	"github.com/prscout/prscout/pipeline/redact/corpus"
)

// Secret-shaped test values are assembled at run time (prefix + body) so
// this file holds no string a secret scanner would flag.
var (
	body40 = "Xk9fLm2pQrT7vW3yZ8bN4cD6eF1gH5jK0mP2qR7s" // 40 base62 characters
	b62x36 = body40[:36]
	hex32  = "9f86d081884c7d659a2feaa0c55ad015" // 32 hex digits
)

// TestSecretsKinds checks one line per kind: the secret is replaced by its
// kind's marker and counted once under that kind.
func TestSecretsKinds(t *testing.T) {
	tests := []struct {
		name, in, want, kind string
	}{
		{"aws access key", `aws_key = "` + "AKIA" + `Q2V3R4T5Y6U7I2O3"`, `aws_key = "[REDACTED:aws_access_key]"`, redact.KindAWSKey},
		{"aws secret ending in slash", "AWS_SECRET_ACCESS_KEY=" + body40[:39] + "/", "AWS_SECRET_ACCESS_KEY=[REDACTED:aws_secret_key]", redact.KindAWSSecret},
		{"aws secret ending in plus", `"aws_secret_access_key": "` + body40[:39] + `+",`, `"aws_secret_access_key": "[REDACTED:aws_secret_key]",`, redact.KindAWSSecret},
		{"github token", "token: gh" + "p_" + b62x36, "token: [REDACTED:github_token]", redact.KindGitHubToken},
		{"gitlab token", "GL=glpat" + "-" + body40[:20], "GL=[REDACTED:gitlab_token]", redact.KindGitLabToken},
		{"slack app token", "SLACK_APP_TOKEN=xapp" + "-1-A0123ABCD-1234567890123-" + hex32 + hex32, "SLACK_APP_TOKEN=[REDACTED:slack_token]", redact.KindSlackToken},
		{"google api key", "key=AI" + "za" + body40[:35], "key=[REDACTED:google_api_key]", redact.KindGoogleAPIKey},
		{"stripe test key", `stripe.api_key = "sk` + "_test_" + body40[:24] + `"`, `stripe.api_key = "[REDACTED:stripe_key]"`, redact.KindStripeKey},
		{"stripe webhook secret", "WHSEC=whsec" + "_" + body40[:32], "WHSEC=[REDACTED:stripe_key]", redact.KindStripeKey},
		{"npm token", "//registry.npmjs.org/:_authToken=npm" + "_" + b62x36, "//registry.npmjs.org/:_authToken=[REDACTED:npm_token]", redact.KindNPMToken},
		{"pypi token", "password = pypi" + "-AgEIcHlwaS5vcmc" + body40 + body40, "password = [REDACTED:pypi_token]", redact.KindPyPIToken},
		{"sendgrid key", "SG" + "." + body40[:22] + "." + body40 + "abc", "[REDACTED:sendgrid_key]", redact.KindSendGridKey},
		{"hugging face token", "HF_TOKEN=hf" + "_" + body40[:34], "HF_TOKEN=[REDACTED:huggingface_token]", redact.KindHuggingFace},
		{"digitalocean token", "do_token: dop" + "_v1_" + hex32 + hex32, "do_token: [REDACTED:digitalocean_token]", redact.KindDigitalOcean},
		{"databricks token", "DATABRICKS_TOKEN=dapi" + hex32, "DATABRICKS_TOKEN=[REDACTED:databricks_token]", redact.KindDatabricks},
		{"shopify token", "X-Shopify-Access-Token: shpat" + "_" + hex32, "X-Shopify-Access-Token: [REDACTED:shopify_token]", redact.KindShopify},
		{"twilio api key", "TWILIO_API_KEY=S" + "K" + hex32, "TWILIO_API_KEY=[REDACTED:twilio_key]", redact.KindTwilioKey},
		{"openai project key unquoted", "my key is sk" + "-proj-" + body40 + body40 + " ok", "my key is [REDACTED:openai_key] ok", redact.KindOpenAI},
		{"anthropic key", "x-api-key: sk" + "-ant-api03-" + body40 + body40 + "AA", "x-api-key: [REDACTED:anthropic_key]", redact.KindAnthropic},
		{"wireguard private key", "PrivateKey = " + body40 + "abQ=", "PrivateKey = [REDACTED:wireguard_key]", redact.KindWireGuard},
		{"jwt", "Authorization: Bearer ey" + "JhbGciOiJIUzI1NiJ9.ey" + "JzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", "Authorization: Bearer [REDACTED:jwt]", redact.KindJWT},
		{"url password", "DATABASE_URL=postgres://app:" + "Tr0ub4dor-3x@db:5432/app", "DATABASE_URL=postgres://app:[REDACTED:url_password]@db:5432/app", redact.KindURLPassword},
		{"basic auth header", "Authorization: Basic " + "YWRtaW46czNjcjN0UGFzcw==", "Authorization: Basic [REDACTED:basic_auth]", redact.KindBasicAuth},
		{"bearer token", `req.Header.Set("Authorization", "Bearer ` + body40 + `")`, `req.Header.Set("Authorization", "Bearer [REDACTED:bearer_token]")`, redact.KindBearer},
		{"unquoted env", "+DB_PASSWORD=" + "s3cr3t-Pa55", "+DB_PASSWORD=[REDACTED:password_assignment]", redact.KindAssignment},
		{"yaml", "  password: " + "hunter2hunter2", "  password: [REDACTED:password_assignment]", redact.KindAssignment},
		{"camelCase name", `dbPassword := "` + "Tr0ub4dor&3" + `"`, `dbPassword := "[REDACTED:password_assignment]"`, redact.KindAssignment},
		{"setenv argument", `os.Setenv("DB_PASS", "` + "Tr0ub4dor&3" + `")`, `os.Setenv("DB_PASS", "[REDACTED:password_assignment]")`, redact.KindAssignment},
		{"setProperty argument", `System.setProperty("db.password", "` + "Tr0ub4dor&3" + `");`, `System.setProperty("db.password", "[REDACTED:password_assignment]");`, redact.KindAssignment},
		{"punctuation", `password = "` + `p@ss:w0rd!#;x` + `"`, `password = "[REDACTED:password_assignment]"`, redact.KindAssignment},
		{"xml element", "<password>" + "Tr0ub4dor&3" + "</password>", "<password>[REDACTED:password_assignment]</password>", redact.KindAssignment},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			counts := map[string]int{}
			got := redact.Secrets(tt.in, counts)
			if got != tt.want {
				t.Errorf("Secrets(%q) =\n%q\nwant\n%q", tt.in, got, tt.want)
			}
			if counts[tt.kind] != 1 || len(counts) != 1 {
				t.Errorf("counts = %v, want one %s", counts, tt.kind)
			}
			if !slices.Contains(redact.Kinds, tt.kind) {
				t.Errorf("kind %s missing from Kinds", tt.kind)
			}
		})
	}
}

// TestLeftAlone checks placeholders, documented examples, fixtures and
// code that names a secret without holding one: nothing changes.
func TestLeftAlone(t *testing.T) {
	for _, in := range []string{
		// Placeholders and templates.
		"API_KEY=REPLACE_ME",
		"token: xxxx",
		`apiKey: "your-api-key-here"`,
		"Authorization: Bearer <token>",
		`password: "${DB_PASSWORD}"`,
		"DB_PASS=${DB_PASS}",
		`password: "{{ .Values.db.password }}"`,
		`password: "={{ $credentials.password }}"`,
		`token = "%s"`,
		"OPENAI_API_KEY=sk-...",
		"gh" + "p_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX",
		"SECRET_KEY=changeme",
		`password = "********"`,
		`password: "[REDACTED:password_assignment]"`,
		// AWS's documented example keys.
		"AWS_ACCESS_KEY_ID=" + "AKIA" + "IOSFODNN7EXAMPLE",
		"AWS_SECRET_ACCESS_KEY=" + "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
		// Obvious fixtures.
		`password: "test1234"`,
		`secret: "dummy-secret"`,
		`api_key = "fake-api-key"`,
		// Code.
		`password := os.Getenv("DB_PASSWORD")`,
		"const token = process.env.GITHUB_TOKEN;",
		"password := req.Password",
		`if token == "" {`,
		"type Password string",
		"func (c *Client) Token() string { return c.token }",
		"password: string;",
		"this.password = password;",
		"password: hashPassword(input.password),",
		"ClientAuth:   tls.RequireAndVerifyClientCert,",
		"type PrivateKey = ed25519.PrivateKey",
		`<token type="Keyword"/>`,
		"const passwordMinLength = 12",
		"max_tokens: 4096",
		`eos_token: "</s>"`,
		`"password": "Password",`,
		`username, password := "username", "password"`,
		// Hashes, ids, digests.
		`"integrity": "sha512-` + strings.Repeat("q83vEjRWeJq8", 7) + `==",`,
		"github.com/google/go-cmp v0.7.0 h1:" + strings.Repeat("Qx3v", 10) + "=",
		"commit " + hex32 + "1a2b3c4d",
		"id: 550e8400-e29b-41d4-a716-446655440000",
		`"jsonwebtoken": "^9.0.2",`,
		"image: ghcr.io/team/app@sha256:" + hex32 + hex32,
		// Prose.
		"The password must be at least 12 characters long.",
		"// Token: the bearer token sent by n8n (see README).",
		"--- PASS: TestAddrStringAllocs/ipv6+zone (0.00s)",
		"-----BEGIN PUBLIC KEY-----",
		`const pemHeader = "-----BEGIN RSA ` + `PRIVATE KEY-----"`,
	} {
		counts := map[string]int{}
		if got := redact.Secrets(in, counts); got != in || len(counts) != 0 {
			t.Errorf("Secrets(%q) = %q, %v; want it unchanged", in, got, counts)
		}
	}
}

// TestPrivateKeyLines checks that a PEM key spanning lines in a diff is
// one redaction and keeps every line and its diff prefix.
func TestPrivateKeyLines(t *testing.T) {
	key := "-----BEGIN RSA " + "PRIVATE KEY-----\n+MIIEowIBAAKCAQEAx4Vn1ZyQ3kF9abcdefghijklmnopqrstuvwxyz\n+abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKL\n+-----END RSA " + "PRIVATE KEY-----"
	in := "@@ -1,2 +1,6 @@\n ctx := 1\n+const k = `" + key + "`\n x := 2\n"
	counts := map[string]int{}
	got := redact.Secrets(in, counts)
	want := "@@ -1,2 +1,6 @@\n ctx := 1\n+const k = `[REDACTED:private_key]\n+\n+\n+`\n x := 2\n"
	if got != want || counts[redact.KindPrivateKey] != 1 {
		t.Errorf("got %q, counts %v\nwant %q", got, counts, want)
	}
	// Without its END line (a cut diff), the BEGIN line and the key lines
	// after it go.
	in = "+-----BEGIN OPENSSH " + "PRIVATE KEY-----\n+b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAE\n+ctx := 1\n"
	if got := redact.Secrets(in, nil); got != "+[REDACTED:private_key]\n+\n+ctx := 1\n" {
		t.Errorf("without END: %q", got)
	}
}

// TestLineStructure checks on the corpus that redaction never adds or
// removes a line, and that redacting twice changes nothing more.
func TestLineStructure(t *testing.T) {
	classes := loadCorpus(t)
	samples, err := corpus.Samples(classes, 7)
	if err != nil {
		t.Fatal(err)
	}
	var all strings.Builder
	for _, s := range samples {
		out := redact.Secrets(s.Text, nil)
		if strings.Count(out, "\n") != strings.Count(s.Text, "\n") {
			t.Errorf("line %d: line count changed: %q -> %q", s.Item.Line, s.Text, out)
		}
		if again := redact.Secrets(out, nil); again != out {
			t.Errorf("line %d: not idempotent: %q -> %q", s.Item.Line, out, again)
		}
		all.WriteString(s.Text)
		all.WriteByte('\n')
	}
	// The whole corpus as one text: the same lines, line by line.
	in := all.String()
	out := redact.Secrets(in, nil)
	if strings.Count(out, "\n") != strings.Count(in, "\n") {
		t.Fatalf("corpus text: %d lines became %d", strings.Count(in, "\n"), strings.Count(out, "\n"))
	}
}

// TestLineGrowthBounded checks a line of many short secrets: it may not
// grow by more than MaxLineGrowth bytes.
func TestLineGrowthBounded(t *testing.T) {
	in := strings.Repeat(`pwd="Tr0ub4&" `, 200)
	counts := map[string]int{}
	out := redact.Secrets(in, counts)
	if len(out) > len(in)+redact.MaxLineGrowth {
		t.Errorf("line grew from %d to %d bytes", len(in), len(out))
	}
	if counts[redact.KindAssignment] < 64 || !strings.Contains(out, redact.Marker) || strings.Contains(out, "Tr0ub4&") {
		t.Errorf("counts %v; output %.120q", counts, out)
	}
}

// TestLinear guards against quadratic inputs: many BEGIN lines without an
// END, many keyword lines, one long line full of keywords, one long line
// of base64, an unclosed quoted value. The work is counted, not timed:
// each input at four times its size allocates at most about four times
// the bytes, and at most a few bytes per byte of input.
func TestLinear(t *testing.T) {
	for name, in := range map[string]func(n int) string{
		"begin lines": func(n int) string { return strings.Repeat("+-----BEGIN RSA "+"PRIVATE KEY-----\n+x := 1\n", n) },
		"keyword lines": func(n int) string {
			return strings.Repeat("\tcfg.Token = lookup(\"api_key\", key) // password: x\n", n)
		},
		"keyword line": func(n int) string { return strings.Repeat(`password="`, 5*n) },
		"base64 line":  func(n int) string { return strings.Repeat("QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo", 3*n/2) },
		"unclosed":     func(n int) string { return "token = \"" + strings.Repeat("a", 50*n) },
	} {
		once := func(s string) uint64 {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			out := redact.Secrets(s, nil)
			runtime.ReadMemStats(&after)
			if strings.Count(out, "\n") != strings.Count(s, "\n") {
				t.Errorf("%s: line count changed", name)
			}
			return after.TotalAlloc - before.TotalAlloc
		}
		small, large := in(5000), in(20000)
		as, al := once(small), once(large)
		if al > 5*as+64<<10 || al > perByteAlloc*uint64(len(large))+1<<20 {
			t.Errorf("%s: %d KiB allocated for %d KiB, %d KiB for %d KiB: not linear", name, as>>10, len(small)>>10, al>>10, len(large)>>10)
		}
	}
}

// TestLongLineTokensOnly checks that past the longest line the name/value
// parser skips, token rules still run.
func TestLongLineTokensOnly(t *testing.T) {
	pad := strings.Repeat("x", 70<<10)
	in := pad + ` password="Tr0ub4dor&3" gh` + "p_" + b62x36 + " " + pad
	counts := map[string]int{}
	redact.Secrets(in, counts)
	if counts[redact.KindGitHubToken] != 1 || counts[redact.KindAssignment] != 0 {
		t.Errorf("counts %v, want only the GitHub token", counts)
	}
}

func TestKinds(t *testing.T) {
	seen := map[string]bool{}
	for _, k := range redact.Kinds {
		if seen[k] || k == "" || strings.ContainsAny(k, "[]: ") {
			t.Errorf("kind %q duplicated or not a label", k)
		}
		seen[k] = true
	}
	if !seen[redact.KindAssignment] || !seen[redact.KindPrivateKey] {
		t.Error("Kinds misses the pipeline's earlier kinds")
	}
}

func TestCountAndNote(t *testing.T) {
	if redact.Note(0) != "" {
		t.Errorf("Note(0) = %q", redact.Note(0))
	}
	if n := redact.Note(1); !strings.HasPrefix(n, "Note: prscout replaced 1 secret ") || !strings.HasSuffix(n, "\n\n") {
		t.Errorf("Note(1) = %q", n)
	}
	if n := redact.Note(3); !strings.Contains(n, "replaced 3 secrets") || strings.Count(n, "\n") != 2 {
		t.Errorf("Note(3) = %q", n)
	}
	if redact.Count(redact.Note(5)) != 0 {
		t.Error("the note holds a marker: Count of a prompt would count it")
	}
	out := redact.Secrets("a: gh"+"p_"+b62x36+"\nDB_PASSWORD="+"s3cr3t-Pa55\n", nil)
	if redact.Count(out) != 2 {
		t.Errorf("Count(%q) = %d, want 2", out, redact.Count(out))
	}
}

func TestNilCountsAndEmpty(t *testing.T) {
	if redact.Secrets("", nil) != "" {
		t.Error("empty input")
	}
	in := "plain text\nno secret here\n"
	if got := redact.Secrets(in, nil); got != in {
		t.Errorf("changed %q", got)
	}
}

func ExampleSecrets() {
	counts := map[string]int{}
	diff := "+DB_PASSWORD=" + "s3cr3t-Pa55\n+url: postgres://app:" + "Tr0ub4dor-3x@db/app\n+password := os.Getenv(\"DB_PASSWORD\")\n"
	fmt.Print(redact.Secrets(diff, counts))
	fmt.Println(counts)
	// Output:
	// +DB_PASSWORD=[REDACTED:password_assignment]
	// +url: postgres://app:[REDACTED:url_password]@db/app
	// +password := os.Getenv("DB_PASSWORD")
	// map[password_assignment:1 url_password:1]
}

// TestValueBelowName checks a secret name and its value on separate lines
// (Kubernetes env lists, HCL variables): the value goes, the lines between
// are still scanned, and the line count stays.
func TestValueBelowName(t *testing.T) {
	in := "+        - name: DB_PASSWORD\n+          value: Tr0ub4dor&3x\n+        - name: LOG_LEVEL\n+          value: debug\n" +
		"variable \"db_password\" {\n  description = \"token gh" + "p_" + b62x36 + "\"\n  default     = \"Tr0ub4dor&3y\"\n}\n"
	want := "+        - name: DB_PASSWORD\n+          value: [REDACTED:password_assignment]\n+        - name: LOG_LEVEL\n+          value: debug\n" +
		"variable \"db_password\" {\n  description = \"token [REDACTED:github_token]\"\n  default     = \"[REDACTED:password_assignment]\"\n}\n"
	counts := map[string]int{}
	if got := redact.Secrets(in, counts); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if counts[redact.KindAssignment] != 2 || counts[redact.KindGitHubToken] != 1 {
		t.Errorf("counts %v", counts)
	}
}
