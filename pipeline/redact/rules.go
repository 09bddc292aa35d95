package redact

import (
	"encoding/base64"
	"regexp"
	"strings"
)

// Kinds: the label of a redaction ("[REDACTED:<kind>]") and of
// prscout_redactions_total{kind}.
const (
	KindPrivateKey         = "private_key"
	KindAWSKey             = "aws_access_key"
	KindAWSSecret          = "aws_secret_key"
	KindGitHubToken        = "github_token"
	KindGitLabToken        = "gitlab_token"
	KindSlackToken         = "slack_token"
	KindAtlassian          = "atlassian_token"
	KindGoogleAPIKey       = "google_api_key"
	KindStripeKey          = "stripe_key"
	KindJWT                = "jwt"
	KindAssignment         = "password_assignment"
	KindGoogleClientSecret = "google_client_secret"
	KindNPMToken           = "npm_token"
	KindPyPIToken          = "pypi_token"
	KindSendGridKey        = "sendgrid_key"
	KindAzureStorageKey    = "azure_storage_key"
	KindAzureClientSecret  = "azure_client_secret"
	KindTwilioKey          = "twilio_key"
	KindHuggingFace        = "huggingface_token"
	KindDigitalOcean       = "digitalocean_token"
	KindDatabricks         = "databricks_token"
	KindDiscord            = "discord_token"
	KindTelegram           = "telegram_bot_token"
	KindShopify            = "shopify_token"
	KindWireGuard          = "wireguard_key"
	KindOpenAI             = "openai_key"
	KindAnthropic          = "anthropic_key"
	KindVault              = "vault_token"
	KindAge                = "age_key"
	KindGrafana            = "grafana_token"
	KindPostman            = "postman_key"
	KindURLPassword        = "url_password"
	KindBasicAuth          = "basic_auth"
	KindBearer             = "bearer_token"
)

// Kinds lists every kind label, for pre-initialised metrics.
var Kinds = []string{
	KindPrivateKey, KindAWSKey, KindAWSSecret, KindGitHubToken, KindGitLabToken, KindSlackToken,
	KindAtlassian, KindGoogleAPIKey, KindStripeKey, KindJWT, KindAssignment,
	KindGoogleClientSecret, KindNPMToken, KindPyPIToken, KindSendGridKey, KindAzureStorageKey,
	KindAzureClientSecret, KindTwilioKey, KindHuggingFace, KindDigitalOcean, KindDatabricks,
	KindDiscord, KindTelegram, KindShopify, KindWireGuard, KindOpenAI, KindAnthropic, KindVault,
	KindAge, KindGrafana, KindPostman, KindURLPassword, KindBasicAuth, KindBearer,
}

// tokenRule is one detector with a fixed prefix or structure: an
// expression, the capture group holding the secret (0: the whole match),
// literal keywords of which one must occur on the line (none: the rule runs
// on lines with a long base64url run), and a validator of the secret that
// drops placeholders and documented example values (nil: keep all).
type tokenRule struct {
	kind     string
	keywords []string
	re       *regexp.Regexp
	group    int
	valid    func(secret string) bool
	// pre, when set, is a cheap necessary condition checked on the line
	// before the expression runs: for rules without a keyword, and for
	// rules whose keyword is common on lines that hold no secret ("://" of
	// every URL, "Bearer" of every header name).
	pre func(line string) bool
}

// tail is the usual end of a token: a character that cannot continue it,
// or the end of the line (RE2 has no look-ahead, so the secret is group 1).
const tail = `(?:[^A-Za-z0-9_\-]|$)`

// tokenRules run before the name/value parser, so a token assigned to a
// secret name is labelled with its own kind. Order matters where formats
// nest: Anthropic's sk-ant- before OpenAI's sk-.
var tokenRules = []tokenRule{
	{KindAWSKey, []string{"AKIA", "ASIA", "ABIA", "ACCA", "A3T"}, regexp.MustCompile(`\b((?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16})\b`), 1, notExample, nil},
	{KindAWSSecret, []string{"aws", "AWS", "Aws", "SecretAccessKey", "secretAccessKey", "secret_access_key", "SECRET_ACCESS_KEY"},
		regexp.MustCompile(`(?i)(?:aws[\w.\-]{0,20}?(?:secret|sk)|secret[_.\-]?access[_.\-]?key)[\w.\-]{0,20}["'\x60]?\s*(?::=|=>|[:=,]|\s)\s*["'\x60]?([A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)`), 1,
		func(s string) bool { return notExample(s) && randomEnough(s, 3.5) }, hasAWSSecretRun},
	{KindGitHubToken, []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"}, regexp.MustCompile(`\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b`), 0, bodyRandom(4, 3), nil},
	{KindGitLabToken, []string{"glpat-", "gldt-", "glrt-", "glptt-", "glcbt-", "glimt-", "glft-", "glsoat-", "glagent-", "gloas-"},
		regexp.MustCompile(`\b(?:glpat|gldt|glrt|glptt|glcbt|glimt|glft|glsoat|glagent|gloas)-[A-Za-z0-9_\-]{20,}(?:\.[0-9a-z]{2}\.[0-9a-z]{7,})?`), 0, bodyRandom(6, 3), nil},
	{KindSlackToken, []string{"xox", "xapp-", "hooks.slack.com"},
		regexp.MustCompile(`\bxox[abposre]-[A-Za-z0-9\-]{10,}|\bxapp-\d-[A-Z0-9]+-\d+-[A-Za-z0-9]{16,}|https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/_\-]{20,}`), 0, bodyRandom(5, 3), nil},
	{KindAtlassian, []string{"ATATT3", "ATBB", "ATCTT3"}, regexp.MustCompile(`\b(?:ATATT3[A-Za-z0-9_\-=]{50,}|ATCTT3[A-Za-z0-9_\-=]{50,}|ATBB[A-Za-z0-9]{28,})`), 0, bodyRandom(4, 3), nil},
	{KindGoogleAPIKey, []string{"AIza"}, regexp.MustCompile(`\b(AIza[0-9A-Za-z_\-]{35})` + tail), 1, bodyRandom(4, 3), nil},
	{KindGoogleClientSecret, []string{"GOCSPX-"}, regexp.MustCompile(`\b(GOCSPX-[A-Za-z0-9_\-]{28})` + tail), 1, bodyRandom(7, 3), nil},
	{KindStripeKey, []string{"sk_live_", "sk_test_", "rk_live_", "rk_test_", "whsec_"},
		regexp.MustCompile(`\b(?:[sr]k_(?:live|test)_[0-9A-Za-z]{10,247}|whsec_[A-Za-z0-9+/=]{24,})\b`), 0, afterUnderscore, nil},
	{KindAnthropic, []string{"sk-ant-"}, regexp.MustCompile(`\b(sk-ant-[a-z]{3,8}\d{2}-[A-Za-z0-9_\-]{32,})` + tail), 1, bodyRandom(14, 3.5), nil},
	{KindOpenAI, []string{"sk-"}, regexp.MustCompile(`\b(sk-(?:[a-z]{2,8}-)?[A-Za-z0-9_\-]{20,})` + tail), 1, openAIKey, nil},
	{KindJWT, []string{"eyJ"}, regexp.MustCompile(`\beyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}`), 0, nil, nil},
	{KindNPMToken, []string{"npm_"}, regexp.MustCompile(`\bnpm_[A-Za-z0-9]{36}\b`), 0, bodyRandom(4, 3), nil},
	{KindPyPIToken, []string{"pypi-AgE"}, regexp.MustCompile(`\bpypi-AgE[A-Za-z0-9_\-]{50,}`), 0, bodyRandom(8, 3), nil},
	{KindSendGridKey, []string{"SG."}, regexp.MustCompile(`\b(SG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43})` + tail), 1, bodyRandom(3, 3.5), nil},
	{KindAzureStorageKey, []string{"AccountKey=", "SharedAccessKey=", "sig="},
		regexp.MustCompile(`(?:AccountKey=([A-Za-z0-9+/]{86}==)|SharedAccessKey=([A-Za-z0-9+/]{43}=)|[?&]sig=([A-Za-z0-9%+/]{30,}(?:%3D|=)*))`), -1, notAzurite, nil},
	{KindAzureClientSecret, []string{"Q~"}, regexp.MustCompile(`(?:^|[^A-Za-z0-9_~.\-])([A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.\-]{31,34})(?:[^A-Za-z0-9_~.\-]|$)`), 1, bodyRandom(0, 3.5), nil},
	{KindTwilioKey, []string{"SK"}, regexp.MustCompile(`\bSK[0-9a-fA-F]{32}\b`), 0, bodyRandom(2, 3), nil},
	{KindHuggingFace, []string{"hf_", "api_org_"}, regexp.MustCompile(`\b(?:hf_|api_org_)[A-Za-z0-9]{30,40}\b`), 0, hfToken, nil},
	{KindDigitalOcean, []string{"dop_v1_", "doo_v1_", "dor_v1_"}, regexp.MustCompile(`\bdo[opr]_v1_[a-f0-9]{64}\b`), 0, bodyRandom(7, 3), nil},
	{KindDatabricks, []string{"dapi"}, regexp.MustCompile(`\bdapi[a-f0-9]{32}(?:-\d)?\b`), 0, bodyRandom(4, 3), nil},
	{KindDiscord, []string{"discord"}, regexp.MustCompile(`https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d+/[A-Za-z0-9_\-]{60,68}`), 0, nil, nil},
	{KindDiscord, nil, regexp.MustCompile(`(?:^|[^A-Za-z0-9_\-.])([MNO][A-Za-z0-9_\-]{23,27}\.[A-Za-z0-9_\-]{6}\.[A-Za-z0-9_\-]{27,38})` + tail), 1, discordToken, discordShape},
	{KindTelegram, nil, regexp.MustCompile(`(?:^|[^0-9A-Za-z_:\-]|bot)(\d{5,16}:[A-Za-z0-9_\-]{35})` + tail), 1, telegramToken, hasDigitColonRun},
	{KindShopify, []string{"shpat_", "shpca_", "shppa_", "shpss_"}, regexp.MustCompile(`\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b`), 0, bodyRandom(6, 3), nil},
	{KindWireGuard, []string{"PrivateKey", "PresharedKey"}, regexp.MustCompile(`(?:PrivateKey|PresharedKey)\s*=\s*([A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=)`), 1, bodyRandom(0, 3.5), nil},
	{KindVault, []string{"hvs.", "hvb.", "hvr."}, regexp.MustCompile(`\bhv[sbr]\.[A-Za-z0-9_\-]{24,}`), 0, bodyRandom(4, 3.5), nil},
	{KindAge, []string{"AGE-SECRET-KEY-1"}, regexp.MustCompile(`\bAGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}\b`), 0, nil, nil},
	{KindGrafana, []string{"glsa_", "glc_"}, regexp.MustCompile(`\b(?:glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|glc_[A-Za-z0-9+/]{32,}={0,2})`), 0, bodyRandom(4, 3.5), nil},
	{KindPostman, []string{"PMAK-"}, regexp.MustCompile(`\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}\b`), 0, bodyRandom(5, 3), nil},
	// Credentials in URLs and headers. The URL password may hold '@' (the
	// last '@' before the host ends it); ':' separates it from the user.
	{KindURLPassword, []string{"://"}, regexp.MustCompile(`\b[A-Za-z][A-Za-z0-9+.\-]{1,30}://[^\s:/?#@'"\x60<>\[\]]*:([^\s/?#'"\x60<>]+)@[^\s@/'"]`), 1, urlPassword, hasURLPassword},
	{KindBasicAuth, basicWords, regexp.MustCompile(`\b(?:Basic|basic|BASIC)\s+([A-Za-z0-9+/]{6,}={0,2})(?:[^A-Za-z0-9+/=]|$)`), 1, basicCredential, hasBasicRun},
	// Passwords on command lines: mysql -pPASSWORD (attached: "-p db"
	// prompts), sshpass -p PASSWORD.
	{KindAssignment, []string{"mysql", "mariadb"}, regexp.MustCompile(`\b(?:mysql|mariadb)[\w-]*\s.*?\s-p(?:'([^'\s]{4,})'|"([^"\s]{4,})"|([^\s'"]{4,}))`), -1, plainPassword, nil},
	{KindAssignment, []string{"sshpass"}, regexp.MustCompile(`\bsshpass\s+-p\s*(?:'([^'\s]{4,})'|"([^"\s]{4,})"|([^\s'"]{4,}))`), -1, plainPassword, nil},
	{KindBasicAuth, []string{"-u", "--user"}, regexp.MustCompile(`(?:^|\s)(?:-u|--user)[\s=]*["']?[^\s:"'@$()]+:([^\s"'@()]+)`), 1, plainPassword, hasUserColon},
	{KindBearer, bearerWords, regexp.MustCompile(`\b(?:Bearer|bearer|BEARER)\s+([A-Za-z0-9\-._~+/]{16,}=*)`), 1, bearerToken, hasBearerRun},
}

// notExample drops AWS's documented example keys, which end in EXAMPLE or
// EXAMPLEKEY.
func notExample(s string) bool { return !strings.Contains(s, "EXAMPLE") }

// notAzurite drops the Azure storage emulator's documented account key.
func notAzurite(s string) bool { return !strings.HasPrefix(s, "Eby8vdM02xNOcqFl") }

// bodyRandom checks a token's part after its skip-byte prefix: no
// placeholder and at least minEntropy bits of Shannon entropy per byte.
func bodyRandom(skip int, minEntropy float64) func(string) bool {
	return func(s string) bool {
		if skip < len(s) {
			s = s[skip:]
		}
		return randomEnough(s, minEntropy)
	}
}

// afterUnderscore checks a Stripe-style key after its last prefix
// underscore.
func afterUnderscore(s string) bool {
	if i := strings.LastIndexByte(s, '_'); i >= 0 {
		s = s[i+1:]
	}
	return randomEnough(s, 3)
}

// randomEnough reports a value that is neither a placeholder run
// ("xxxx", "0000", "****") nor a filler word, with the given entropy.
func randomEnough(s string, minEntropy float64) bool {
	if len(s) == 0 || masked(s) || hasFillerWord(s) {
		return false
	}
	return entropy(s) >= minEntropy
}

// openAIKey: OpenAI keys mix upper and lower case and digits; words joined
// by dashes after "sk-" (a CSS class "sk-spinner-...") do not.
func openAIKey(s string) bool {
	body := strings.TrimPrefix(s, "sk-")
	return classes(body) >= 3 && randomEnough(body, 3.5)
}

// hfToken: Hugging Face tokens mix cases; "hf_hub_download"-like names are
// cut by the expression (no '_' inside), the rest by entropy.
func hfToken(s string) bool {
	body := s[strings.IndexByte(s, '_')+1:]
	if strings.HasPrefix(s, "api_org_") {
		body = s[len("api_org_"):]
	}
	return hasUpper(body) && hasLower(body) && randomEnough(body, 3.5)
}

// discordToken: a bot token's first part is the bot's numeric id in
// base64.
func discordToken(s string) bool {
	first := s[:strings.IndexByte(s, '.')]
	raw, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(first, "="))
	if err != nil || len(raw) < 15 {
		return false
	}
	for _, c := range raw {
		if c < '0' || c > '9' {
			return false
		}
	}
	return randomEnough(s[len(first)+1:], 3.5)
}

// telegramToken: the part after the bot id is random base64url.
func telegramToken(s string) bool {
	body := s[strings.IndexByte(s, ':')+1:]
	return classes(body) >= 3 && randomEnough(body, 3.5)
}

// basicCredential: a Basic credential is base64 of "user:password".
func basicCredential(s string) bool {
	raw, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		raw, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(s, "="))
	}
	if err != nil || len(raw) < 3 {
		return false
	}
	colon := -1
	for i, c := range raw {
		if c < 0x20 || c > 0x7e {
			return false
		}
		if c == ':' && colon < 0 {
			colon = i
		}
	}
	return colon >= 0 && !isPlaceholder(string(raw[colon+1:]))
}

// plainPassword: a password given on a command line (curl -u user:pw).
func plainPassword(s string) bool {
	return len(s) >= 6 && !isPlaceholder(s)
}

// bearerToken: a Bearer credential that is not a placeholder or template.
func bearerToken(s string) bool {
	return !isPlaceholder(s) && looksRandom(s) && !wordsOnly(s) && randomEnough(s, 3)
}

// urlPassword: a password in a URL's user information that is not a
// placeholder, template or format verb.
func urlPassword(s string) bool {
	return len(s) >= 4 && !isPlaceholder(s)
}

// redactLine runs the rules the line's keywords selected and returns the
// line with the secrets they found replaced.
func (sc *scanner) redactLine(line string, m lineMatch, add func(string, int)) (string, bool) {
	reps := sc.reps[:0]
	for i := range tokenRules {
		r := &tokenRules[i]
		if r.keywords == nil && !m.longRun || r.keywords != nil && m.tokens&(1<<uint(i)) == 0 || r.pre != nil && !r.pre(line) {
			continue
		}
		for _, loc := range r.re.FindAllStringSubmatchIndex(line, -1) {
			from, to := -1, -1
			if r.group >= 0 {
				from, to = loc[2*r.group], loc[2*r.group+1]
			} else {
				for g := 1; 2*g < len(loc); g++ {
					if loc[2*g] >= 0 {
						from, to = loc[2*g], loc[2*g+1]
						break
					}
				}
			}
			if from < 0 || from == to || r.valid != nil && !r.valid(line[from:to]) || overlaps(reps, from, to) {
				continue
			}
			reps = append(reps, replacement{from, to, r.kind})
		}
		if len(reps) >= maxReplacements {
			break
		}
	}
	if m.generic && len(line) <= maxLine && len(reps) < maxReplacements {
		reps = sc.assignments(line, reps)
	}
	sc.reps = reps
	if len(reps) == 0 {
		return line, false
	}
	for _, r := range reps {
		add(r.kind, 1)
	}
	if len(reps) >= maxReplacements {
		// A line this full of secrets is cut after its first one, which
		// hides any the rules had no turn to find.
		first := reps[0]
		for _, r := range reps {
			if r.from < first.from {
				first = r
			}
		}
		return line[:first.from] + Marker + first.kind + "]", true
	}
	return apply(line, reps), true
}

// discordShape reports a Discord bot token's shape: a run of 24 base64url
// bytes, '.', six of them, '.', and 27 more (a Java package path
// "com.google.gson" has the dots, not the runs).
func discordShape(line string) bool {
	for i := 0; ; {
		j := strings.IndexByte(line[i:], '.')
		if j < 0 {
			return false
		}
		d := i + j
		i = d + 1
		if d < 24 || d+8+27 > len(line) || line[d+7] != '.' {
			continue
		}
		if allRunBytes(line[d-24:d]) && allRunBytes(line[d+1:d+7]) && allRunBytes(line[d+8:d+8+27]) {
			return true
		}
	}
}

func allRunBytes(s string) bool {
	for i := 0; i < len(s); i++ {
		if !runByte[s[i]] {
			return false
		}
	}
	return true
}

// hasDigitColonRun reports a digit, ':' and a run of 35 base64url bytes,
// as in a Telegram bot token.
func hasDigitColonRun(line string) bool {
	for i := 1; i+35 < len(line); i++ {
		j := strings.IndexByte(line[i:], ':')
		if j < 0 {
			return false
		}
		i += j
		if i+35 >= len(line) || !isDigit(line[i-1]) {
			continue
		}
		run := 0
		for run < 35 && runByte[line[i+1+run]] {
			run++
		}
		if run == 35 {
			return true
		}
	}
	return false
}

// The keywords of the Basic and Bearer rules, which their pre-conditions
// look for too.
var (
	basicWords  = []string{"Basic", "basic", "BASIC"}
	bearerWords = []string{"Bearer", "bearer", "BEARER"}
)

// Bytes that end a part of the URL password, Basic, Bearer and
// curl -u expressions: \s in RE2 is [\t\n\f\r ].
var (
	urlUserStop  = byteSet(" \t\n\f\r:/?#@'\"`<>[]")
	urlPassStop  = byteSet(" \t\n\f\r/?#'\"`<>")
	curlUserStop = byteSet(" \t\n\f\r:\"'@$()")
	curlPassStop = byteSet(" \t\n\f\r\"'@()")
	spaceByte    = byteSet(" \t\n\f\r")
	basicByte    = byteSet("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
	awsByte      = awsBytes()
	bearerByte   = byteSet("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~+/")
)

func byteSet(bytes string) *[256]bool {
	var set [256]bool
	for i := 0; i < len(bytes); i++ {
		set[bytes[i]] = true
	}
	return &set
}

// hasURLPassword reports "://" followed by a user, ':' and a password
// ending at an '@', as the URL password rule's expression needs: most
// URLs (licence headers, links) have no user information.
func hasURLPassword(line string) bool {
	for i := 0; ; {
		j := strings.Index(line[i:], "://")
		if j < 0 {
			return false
		}
		i += j + 3
		k := i
		for k < len(line) && !urlUserStop[line[k]] {
			k++
		}
		if k == len(line) || line[k] != ':' {
			continue
		}
		for p := k + 1; p < len(line) && !urlPassStop[line[p]]; p++ {
			if line[p] == '@' && p > k+1 {
				return true
			}
		}
	}
}

// hasSchemeRun reports one of words followed by blanks and a run of at
// least least bytes of set: a Basic or Bearer credential's shape.
func hasSchemeRun(line string, words []string, set *[256]bool, least int) bool {
	for _, w := range words {
		for i := 0; ; {
			j := strings.Index(line[i:], w)
			if j < 0 {
				break
			}
			i += j + len(w)
			k := i
			for k < len(line) && spaceByte[line[k]] {
				k++
			}
			if k == i {
				continue
			}
			n := k
			for n < len(line) && n-k < least && set[line[n]] {
				n++
			}
			if n-k >= least {
				return true
			}
		}
	}
	return false
}

func hasBasicRun(line string) bool {
	return hasSchemeRun(line, basicWords, basicByte, 6)
}

func hasBearerRun(line string) bool {
	return hasSchemeRun(line, bearerWords, bearerByte, 16)
}

// hasUserColon reports "-u" or "--user" followed by what the curl -u
// rule's expression needs, [\s=]*["']?user:p ("-u" also starts words such
// as "x-user" and "-update", most without a colon after them).
func hasUserColon(line string) bool {
	for i := 0; ; {
		j := strings.Index(line[i:], "-u")
		if j < 0 {
			return false
		}
		i += j + 2
		if userColonAt(line, i) || i >= 3 && line[i-3] == '-' && strings.HasPrefix(line[i:], "ser") && userColonAt(line, i+3) {
			return true
		}
	}
}

// userColonAt reports whether line[q:] can be read as [\s=]*["']? then a
// user of one or more bytes, ':' and a password's first byte. The user
// may take in the '=' that end the blanks before it.
func userColonAt(line string, q int) bool {
	a := q
	for a < len(line) && (spaceByte[line[a]] || line[a] == '=') {
		a++
	}
	if a < len(line) && (line[a] == '"' || line[a] == '\'') && userColonFrom(line, a+1, a+1) {
		return true
	}
	from := a // the user may start at the '=' run before a
	for from > q && line[from-1] == '=' {
		from--
	}
	return userColonFrom(line, a, from)
}

// userColonFrom reports a user from start (its bytes from at on are user
// bytes), ':' and a password's first byte.
func userColonFrom(line string, at, start int) bool {
	k := at
	for k < len(line) && !curlUserStop[line[k]] {
		k++
	}
	return k > start && k+1 < len(line) && line[k] == ':' && !curlPassStop[line[k+1]]
}

// awsBytes is [A-Za-z0-9/+] and every non-ASCII byte: the AWS rule
// ignores case, so the Kelvin sign and the long s match k and s.
func awsBytes() *[256]bool {
	set := byteSet("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/+")
	for c := 0x80; c < 0x100; c++ {
		set[c] = true
	}
	return set
}

// hasAWSSecretRun reports the 40 bytes of awsBytes an AWS secret access
// key takes at least: "aws" is a common word in code that handles none.
func hasAWSSecretRun(line string) bool {
	run := 0
	for i := 0; i < len(line); i++ {
		if !awsByte[line[i]] {
			run = 0
		} else if run++; run == 40 {
			return true
		}
	}
	return false
}
