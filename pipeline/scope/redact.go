package scope

import (
	"regexp"
	"strings"

	"github.com/prscout/prscout/pipeline"
)

// Secret kinds: the label of a redaction, the keys of the Redactions stats
// and the kind label of prscout_redactions_total.
const (
	SecretPrivateKey    = "private_key"
	SecretAWSKey        = "aws_access_key"
	SecretAWSSecret     = "aws_secret_key"
	SecretGitHubToken   = "github_token"
	SecretGitLabToken   = "gitlab_token"
	SecretSlackToken    = "slack_token"
	SecretAtlassian     = "atlassian_token"
	SecretGoogleAPIKey  = "google_api_key"
	SecretStripeKey     = "stripe_key"
	SecretJWT           = "jwt"
	SecretGenericAssign = "password_assignment"
)

// SecretKinds lists every redaction kind (for pre-initialised metrics).
var SecretKinds = []string{
	SecretPrivateKey, SecretAWSKey, SecretAWSSecret, SecretGitHubToken, SecretGitLabToken, SecretSlackToken,
	SecretAtlassian, SecretGoogleAPIKey, SecretStripeKey, SecretJWT, SecretGenericAssign,
}

// secretPattern is one detector: a regular expression, the capture group
// that holds the secret (0: the whole match) and literal keywords of which
// one must occur before the expression runs (a cheap pre-filter, as
// gitleaks does).
type secretPattern struct {
	kind     string
	re       *regexp.Regexp
	group    int
	keywords []string
}

// secretPatterns are high-confidence detectors modelled on gitleaks' rules
// (gitleaks itself drags viper, zerolog and dozens of modules in, for a few
// dozen expressions). Each has a fixed prefix or a structure that rarely
// occurs by chance; the generic assignment needs a quoted value of 8+
// characters without template markers, so code such as
// `password := os.Getenv("X")` is left alone. They run line by line, only
// on lines holding a keyword, so the cost stays linear in the text. PEM
// private keys span lines and have their own scan (redactPrivateKeys).
var secretPatterns = []secretPattern{
	{SecretAWSKey, regexp.MustCompile(`\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b`), 0, []string{"AKIA", "ASIA", "ABIA", "ACCA"}},
	{SecretAWSSecret, regexp.MustCompile(`(?i)aws[_\-.]?(?:secret[_\-.]?(?:access[_\-.]?)?key|sk)["']?\s*[:=]\s*["']?([A-Za-z0-9/+=]{40})\b`), 1, []string{"aws", "AWS", "Aws"}},
	{SecretGitHubToken, regexp.MustCompile(`\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b`), 0, []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"}},
	{SecretGitLabToken, regexp.MustCompile(`\b(?:glpat|gldt|glrt|glptt)-[A-Za-z0-9_\-]{20,}`), 0, []string{"glpat-", "gldt-", "glrt-", "glptt-"}},
	{SecretSlackToken, regexp.MustCompile(`\bxox[abposr]-[A-Za-z0-9-]{10,}|https://hooks\.slack\.com/(?:services|workflows)/[A-Za-z0-9/_\-]{20,}`), 0, []string{"xox", "hooks.slack.com"}},
	{SecretAtlassian, regexp.MustCompile(`\b(?:ATATT3[A-Za-z0-9_\-=]{50,}|ATBB[A-Za-z0-9]{28,})`), 0, []string{"ATATT3", "ATBB"}},
	{SecretGoogleAPIKey, regexp.MustCompile(`\bAIza[0-9A-Za-z_\-]{35}\b`), 0, []string{"AIza"}},
	{SecretStripeKey, regexp.MustCompile(`\b(?:sk|rk)_live_[0-9A-Za-z]{20,}\b`), 0, []string{"_live_"}},
	{SecretJWT, regexp.MustCompile(`\beyJ[A-Za-z0-9_\-]{10,}\.eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}`), 0, []string{"eyJ"}},
	{SecretGenericAssign, regexp.MustCompile(`(?i)\b(?:password|passwd|pwd|secret|client[_\-]?secret|api[_\-]?key|apikey|access[_\-]?token|auth[_\-]?token)["']?\s*(?::=|=>|[:=])\s*["']([^"'\s$%{}<>]{8,})["']`), 1,
		[]string{"password", "PASSWORD", "Password", "passwd", "PASSWD", "pwd", "PWD", "secret", "SECRET", "Secret", "key", "KEY", "Key", "token", "TOKEN", "Token"}},
}

// genericLower is SecretGenericAssign's expression for lower-cased text.
var genericLower = regexp.MustCompile(`\b(?:password|passwd|pwd|secret|client[_\-]?secret|api[_\-]?key|apikey|access[_\-]?token|auth[_\-]?token)["']?\s*(?::=|=>|[:=])\s*["']([^"'\s$%{}<>]{8,})["']`)

// allKeywords is every line pattern's keywords, for the whole-text check.
var allKeywords = func() []string {
	var out []string
	for _, p := range secretPatterns {
		out = append(out, p.keywords...)
	}
	return out
}()

// RedactionMarker starts every replacement: "[REDACTED:<kind>]".
const RedactionMarker = "[REDACTED:"

// maxSecretLine bounds the line a line pattern runs on; longer lines (a
// minified bundle) are scanned in pieces of this size.
const maxSecretLine = 64 << 10

// RedactSecrets replaces secrets in s with "[REDACTED:<kind>]" and counts
// them into counts (by kind; counts may be nil when only the text is
// wanted). It returns s itself, not a copy, when nothing matched, keeps
// every line break, and costs time linear in len(s).
func RedactSecrets(s string, counts map[string]int) string {
	add := func(kind string, n int) {
		if counts != nil && n > 0 {
			counts[kind] += n
		}
	}
	if strings.Contains(s, "PRIVATE KEY") {
		var n int
		s, n = redactPrivateKeys(s)
		add(SecretPrivateKey, n)
	}
	if !containsAny(s, allKeywords) {
		return s
	}
	var b *strings.Builder
	done := 0 // s[:done] is in b (when b != nil)
	for at := 0; at < len(s); {
		end := strings.IndexByte(s[at:], '\n')
		if end < 0 {
			end = len(s)
		} else {
			end += at
		}
		if end-at > maxSecretLine {
			end = at + maxSecretLine
		}
		line := s[at:end]
		if out, changed := redactLine(line, add); changed {
			if b == nil {
				b = &strings.Builder{}
				b.Grow(len(s))
			}
			b.WriteString(s[done:at])
			b.WriteString(out)
			done = end
		}
		at = end
		if at < len(s) && s[at] == '\n' {
			at++
		}
	}
	if b == nil {
		return s
	}
	b.WriteString(s[done:])
	return b.String()
}

// redactLine runs the line patterns whose keywords occur in line.
func redactLine(line string, add func(string, int)) (string, bool) {
	changed := false
	for _, p := range secretPatterns {
		if !containsAny(line, p.keywords) {
			continue
		}
		var locs [][]int
		if p.kind == SecretGenericAssign {
			if !hasQuotedAssign(line) {
				continue // the value must be a quoted literal after = or :
			}
			// Matching the lower-cased line with a case-sensitive program
			// is several times faster than (?i); byte offsets agree when
			// lower-casing kept the length (always for ASCII).
			if lower := strings.ToLower(line); len(lower) == len(line) {
				locs = genericLower.FindAllStringSubmatchIndex(lower, -1)
			} else {
				locs = p.re.FindAllStringSubmatchIndex(line, -1)
			}
		} else {
			locs = p.re.FindAllStringSubmatchIndex(line, -1)
		}
		if len(locs) == 0 {
			continue
		}
		var b strings.Builder
		last, n := 0, 0
		for _, loc := range locs {
			from, to := loc[2*p.group], loc[2*p.group+1]
			if from < 0 || from < last {
				continue
			}
			b.WriteString(line[last:from])
			b.WriteString(RedactionMarker + p.kind + "]")
			last = to
			n++
		}
		if n == 0 {
			continue
		}
		b.WriteString(line[last:])
		line = b.String()
		changed = true
		add(p.kind, n)
	}
	return line, changed
}

var (
	pemBegin = regexp.MustCompile(`-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----`)
	pemEnd   = regexp.MustCompile(`-----END[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----`)
)

// maxPEMBytes bounds how far a BEGIN line looks for its END line.
const maxPEMBytes = 64 << 10

// redactPrivateKeys replaces each PEM private key block, from its BEGIN line
// to its END line (or, without an END within maxPEMBytes, the BEGIN line and
// the base64 lines right after it), keeping line breaks. Linear: each
// search starts where the previous one stopped.
func redactPrivateKeys(s string) (string, int) {
	begins := pemBegin.FindAllStringIndex(s, -1)
	if len(begins) == 0 {
		return s, 0
	}
	var b strings.Builder
	b.Grow(len(s))
	last, n := 0, 0
	endFrom, endAt := 0, []int(nil) // the next END at or after endFrom
	for _, bg := range begins {
		if bg[0] < last {
			continue
		}
		if endAt == nil || endAt[0] < bg[1] {
			endFrom = max(endFrom, bg[1])
			if loc := pemEnd.FindStringIndex(s[endFrom:]); loc != nil {
				endAt = []int{endFrom + loc[0], endFrom + loc[1]}
			} else {
				endAt = []int{len(s) + 1, len(s) + 1}
			}
			endFrom = endAt[1]
		}
		stop := bg[1]
		if endAt[0] <= len(s) && endAt[0]-bg[1] <= maxPEMBytes {
			stop = endAt[1]
		} else {
			stop = skipKeyLines(s, stop)
		}
		b.WriteString(s[last:bg[0]])
		b.WriteString(RedactionMarker + SecretPrivateKey + "]")
		keepLines(&b, s[bg[0]:stop])
		last = stop
		n++
	}
	b.WriteString(s[last:])
	return b.String(), n
}

// skipKeyLines returns the end of the base64-looking lines after at (a
// diff prefix allowed), stopping at the first other line.
func skipKeyLines(s string, at int) int {
	for at < len(s) && s[at] == '\n' {
		next := at + 1
		if next < len(s) && (s[next] == '+' || s[next] == '-' || s[next] == ' ') {
			next++
		}
		end := strings.IndexByte(s[next:], '\n')
		if end < 0 {
			end = len(s)
		} else {
			end += next
		}
		line := s[next:end]
		if len(line) < 16 || strings.Trim(line, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=") != "" {
			return at
		}
		at = end
	}
	return at
}

// hasQuotedAssign reports an '=' or ':' followed, after optional spaces,
// by a quote: the generic assignment's necessary condition.
func hasQuotedAssign(line string) bool {
	for i := 0; i < len(line); i++ {
		if c := line[i]; c != '=' && c != ':' {
			continue
		}
		j := i + 1
		if j < len(line) && line[j] == '>' {
			j++
		}
		for j < len(line) && (line[j] == ' ' || line[j] == '\t') {
			j++
		}
		if j < len(line) && (line[j] == '"' || line[j] == '\'') {
			return true
		}
	}
	return false
}

// keepLines writes one line break for each line break of a redacted match,
// followed by the next line's diff prefix ('+', '-' or ' '), so a redacted
// multi-line key keeps the diff's hunk line counts and the source's line
// numbers (anchors and window labels stay right).
func keepLines(b *strings.Builder, match string) {
	for i := 0; i < len(match); i++ {
		if match[i] != '\n' {
			continue
		}
		b.WriteByte('\n')
		if i+1 < len(match) {
			switch c := match[i+1]; c {
			case '+', '-', ' ':
				b.WriteByte(c)
			}
		}
	}
}

func containsAny(s string, words []string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// redactionNote is the prompt line that says secrets were redacted.
func RedactionNote(n int) string {
	return "Note: prscout replaced " + pipeline.CountNoun(n, "secret") + " (keys, tokens, passwords) found in the diffs and sources with [REDACTED:<kind>] before building this prompt. Do not ask for them; do report a committed secret as an issue.\n\n"
}
