package pipeline

import (
	"regexp"
	"strings"
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
// `password := os.Getenv("X")` is left alone.
var secretPatterns = []secretPattern{
	{SecretPrivateKey, regexp.MustCompile(`-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]*?-----END[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----|(?:\r?\n[+\- ]?[A-Za-z0-9+/=:, \-]{16,})*)`), 0, []string{"PRIVATE KEY"}},
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
		[]string{"password", "PASSWORD", "Password", "passwd", "pwd", "PWD", "secret", "SECRET", "Secret", "key", "KEY", "Key", "token", "TOKEN", "Token"}},
}

// RedactionMarker starts every replacement: "[REDACTED:<kind>]".
const RedactionMarker = "[REDACTED:"

// RedactSecrets replaces secrets in s with "[REDACTED:<kind>]" and counts
// them into counts (by kind; counts may be nil when only the text is
// wanted). It returns s itself, not a copy, when nothing matched.
func RedactSecrets(s string, counts map[string]int) string {
	for _, p := range secretPatterns {
		if !containsAny(s, p.keywords) {
			continue
		}
		locs := p.re.FindAllStringSubmatchIndex(s, -1)
		if len(locs) == 0 {
			continue
		}
		var b strings.Builder
		b.Grow(len(s))
		last := 0
		n := 0
		for _, loc := range locs {
			from, to := loc[2*p.group], loc[2*p.group+1]
			if from < 0 || from < last {
				continue
			}
			b.WriteString(s[last:from])
			b.WriteString(RedactionMarker + p.kind + "]")
			keepLines(&b, s[from:to])
			last = to
			n++
		}
		if n == 0 {
			continue
		}
		b.WriteString(s[last:])
		s = b.String()
		if counts != nil {
			counts[p.kind] += n
		}
	}
	return s
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
func redactionNote(n int) string {
	return "Note: prscout replaced " + plural(n, "secret") + " (keys, tokens, passwords) found in the diffs and sources with [REDACTED:<kind>] before building this prompt. Do not ask for them; do report a committed secret as an issue.\n\n"
}
