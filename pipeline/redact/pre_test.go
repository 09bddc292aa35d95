package redact

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/prscout/prscout/pipeline/redact/corpus"
)

// preCases are lines on the edges of the pre-conditions' shapes.
var preCases = []string{
	"postgres://user:pass@host/db", "postgres://:pw@host", "postgres://u:@host", "x://u:p@",
	"https://www.apache.org/licenses/LICENSE-2.0", "see http://a:b/c@d and ftp://u:p:q@@h",
	"redis://default:s3cr3t@redis:6379 http://x", "a://u[:p@h", "a://u:p\t@h", "a://u:p@@",
	"Authorization: Basic dXNlcjpwYXNz", "basic  abcdef", "BASIC\tabcde", "Basic abcdef==",
	"Bearer abcdefghijklmnop", "bearer\fabcdefghijklmno", "BEARER  a.b-c_d~e+f/g0123456789=",
	"Bearer " + strings.Repeat("x", 15), "xBearer abcdefghijklmnopq", "Bearer\nabcdefghijklmnopq",
	"curl -u bob:pw1234 x", "curl -u =:pw1234", "curl --user  ==bob:pw1234", `curl -u "bob:pw1234"`,
	`curl -u '':pw1234`, "curl --user=bob:pw1234", "curl -ubob:pw1234", "curl -u\tbob:", "x-user: abc",
	"x MTk4NjIyNDgzNDcxOTI1MjQ4.Cl2FMQ.ZnCjm1XVW7vRze4b7Cq4se7kKWs y", "com.google.gson.internal.bind.TypeAdapters",
	"M23456789012345678901234.abcdef.123456789012345678901234567", "M2345678901234567890123.abcdef.123456789012345678901234567",
	"aws_secret_access_key = " + strings.Repeat("\u212a", 40), "AWS_SECRET=" + strings.Repeat("a", 39) + "\u017f",
	"aws_secret_access_key = " + strings.Repeat("a", 39),
	`curl -u ="bob:pw1234`, `curl -u= 'b:pw1234`, "curl -u = =b:pw1234", "a --user:pw1234", "-u'x':pw1234",
}

// checkPre fails when a rule's expression matches line but its
// pre-condition says no line of that shape can match.
func checkPre(t *testing.T, line string) {
	t.Helper()
	for i := range tokenRules {
		r := &tokenRules[i]
		if r.pre != nil && r.re.MatchString(line) && !r.pre(line) {
			t.Fatalf("rule %d (%s) matches %q, its pre-condition says no", i, r.kind, line)
		}
	}
}

// TestPreConditionsNecessary: a pre-condition may only skip lines on which
// its expression finds nothing, so it never changes what is redacted.
func TestPreConditionsNecessary(t *testing.T) {
	classes, err := corpus.Load("testdata/corpus.txt")
	if err != nil {
		t.Fatal(err)
	}
	samples, err := corpus.Samples(classes, 3)
	if err != nil {
		t.Fatal(err)
	}
	lines := append([]string(nil), preCases...)
	for _, s := range samples {
		lines = append(lines, strings.Split(s.Text, "\n")...)
	}
	matched := 0
	for _, line := range lines {
		checkPre(t, line)
		for i := range tokenRules {
			if tokenRules[i].pre != nil && tokenRules[i].re.MatchString(line) {
				matched++
			}
		}
	}
	if matched < 20 {
		t.Fatalf("only %d lines matched a rule with a pre-condition: the test checks too little", matched)
	}
	for _, line := range []string{"https://www.apache.org/licenses/LICENSE-2.0", "Bearer " + strings.Repeat("x", 15), "basic auth", "headers['x-user'] = user",
		"import com.google.gson.internal.bind.ReflectiveTypeAdapterFactory;"} {
		for i := range tokenRules {
			if r := &tokenRules[i]; r.pre != nil && r.keywords != nil && r.pre(line) {
				t.Errorf("rule %d (%s): pre-condition passes %q, which holds no secret", i, r.kind, line)
			}
		}
	}
}

func FuzzPreConditions(f *testing.F) {
	for _, c := range preCases {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, line string) {
		checkPre(t, strings.ReplaceAll(line, "\n", " "))
	})
}

// TestPreConditionsRandom holds the pre-conditions to their expressions on
// short random lines built from the bytes their shapes are made of.
func TestPreConditionsRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	pieces := []string{"-u", "--user", "://", "Basic", "bearer", "BEARER", " ", "\t", "=", ":", "@", "'", `"`,
		"$", "(", ")", "/", "?", "#", "[", "]", "<", "a", "b9", "+", ".", "~", "abcdefghij", "ABCDEFGH"}
	const n = 20000
	matched := 0
	for range n {
		var b strings.Builder
		for range 1 + rng.IntN(12) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		line := b.String()
		checkPre(t, line)
		for i := range tokenRules {
			if tokenRules[i].pre != nil && tokenRules[i].re.MatchString(line) {
				matched++
			}
		}
	}
	if matched < n/200 {
		t.Fatalf("only %d of %d lines matched a rule with a pre-condition", matched, n)
	}
	t.Logf("%d of %d lines matched", matched, n)
}
