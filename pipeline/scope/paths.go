package scope

import (
	"errors"
	"net/url"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/prscout/prscout/pipeline"
)

// Refusal reason codes: the stable snake_case Reason of a Rejected entry, the
// keys of NeedsStats.Reasons and a metrics label. ReasonMessage gives the
// default sentence for each; the Error of a rejection may be more specific.
const (
	ReasonEmpty         = "empty"          // no path (get_file of the root, blank path, non-string path)
	ReasonBadEncoding   = "bad_encoding"   // invalid or double percent-encoding, invalid UTF-8
	ReasonControlChar   = "control_char"   // NUL, C0/C1 controls, DEL, invisible format characters (bidi overrides)
	ReasonParentEscape  = "parent_escape"  // a ".." segment
	ReasonTooLong       = "too_long"       // longer than Limits.MaxPathLen bytes
	ReasonURL           = "url"            // "https://...", "file:///..." and other scheme URLs
	ReasonHomeDir       = "home_dir"       // "~/..." or "~user/..."
	ReasonDrivePath     = "drive_path"     // "C:\..." Windows drive paths
	ReasonSecret        = "secret"         // IsSecretPath
	ReasonNoise         = "noise"          // IsDefaultPath
	ReasonChangedFile   = "changed_file"   // already in the prompt as a changed file
	ReasonDuplicate     = "duplicate"      // same op and path asked before
	ReasonPerFileCap    = "per_file_cap"   // Limits.NeedsPerFile reached for the changed file
	ReasonTotalCap      = "total_cap"      // Limits.NeedsTotal reached
	ReasonUnsupportedOp = "unsupported_op" // op other than get_file / list_dir
	ReasonInvalidNeed   = "invalid_need"   // neither a path string nor an {op, path} object, or a non-string path
)

// Reasons lists every reason code, in check order. The API may pre-initialise
// metric label values from it.
var Reasons = []string{
	ReasonEmpty, ReasonBadEncoding, ReasonControlChar, ReasonParentEscape, ReasonTooLong,
	ReasonURL, ReasonHomeDir, ReasonDrivePath, ReasonSecret, ReasonNoise, ReasonChangedFile,
	ReasonDuplicate, ReasonPerFileCap, ReasonTotalCap, ReasonUnsupportedOp, ReasonInvalidNeed,
}

var reasonMessages = map[string]string{
	ReasonEmpty:         "empty path",
	ReasonBadEncoding:   "invalid percent-encoding in path",
	ReasonControlChar:   "control character in path",
	ReasonParentEscape:  "parent directory segment (..) refused",
	ReasonTooLong:       "path too long",
	ReasonURL:           "URL refused: give a path relative to the repository root",
	ReasonHomeDir:       "home directory path (~) refused: give a path relative to the repository root",
	ReasonDrivePath:     "drive letter path refused: give a path relative to the repository root",
	ReasonSecret:        "secret path refused",
	ReasonNoise:         "default path refused (build output, vendored, dependency or generated code, lock file, snapshot, minified file, map, fixture, image or font)",
	ReasonChangedFile:   "changed file refused: it is already in the review prompt",
	ReasonDuplicate:     "duplicate request refused",
	ReasonPerFileCap:    "per-file request cap reached",
	ReasonTotalCap:      "total request cap reached",
	ReasonUnsupportedOp: "unsupported op refused: use get_file or list_dir",
	ReasonInvalidNeed:   "need refused: it is neither a path string nor an {op, path} object",
}

// ReasonMessage returns the default human sentence for a reason code ("" for
// an unknown code).
func ReasonMessage(reason string) string { return reasonMessages[reason] }

// Sentinel errors by refusal; a *PathError unwraps to
// the one matching its reason, so errors.Is(err, errPathParent) works.
var (
	ErrPathEmpty   = errors.New("empty path")
	errPathParent  = errors.New("parent directory segment (..) refused")
	errPathControl = errors.New("control character in path")
	errPathTooLong = errors.New("path too long")
	errPathEncode  = errors.New("invalid percent-encoding in path")
	// errPathNotRelative is the sentinel of the url, home_dir and drive_path reasons.
	errPathNotRelative = errors.New("path is not relative to the repository root")
)

// PathError is a refused path: Reason is one of the Reason* codes, Msg the
// specific sentence a Rejected entry shows as its error.
type PathError struct {
	Reason string
	Msg    string
}

func (e *PathError) Error() string { return e.Msg }

// Unwrap maps the reason to the package's sentinel errors (ErrSecret for a
// secret path), so callers can test with errors.Is.
func (e *PathError) Unwrap() error {
	switch e.Reason {
	case ReasonEmpty:
		return ErrPathEmpty
	case ReasonParentEscape:
		return errPathParent
	case ReasonControlChar:
		return errPathControl
	case ReasonTooLong:
		return errPathTooLong
	case ReasonBadEncoding:
		return errPathEncode
	case ReasonURL, ReasonHomeDir, ReasonDrivePath:
		return errPathNotRelative
	case ReasonSecret:
		return pipeline.ErrSecret
	}
	return nil
}

func refuse(reason, msg string) *PathError {
	if msg == "" {
		msg = reasonMessages[reason]
	}
	return &PathError{Reason: reason, Msg: msg}
}

// reasonOf returns the reason code of a refusal error ("" when err is not a
// *PathError).
func reasonOf(err error) string {
	var pe *PathError
	if errors.As(err, &pe) {
		return pe.Reason
	}
	return ""
}

// NormalizePath turns a model-chosen path into a clean repository-relative
// path. Steps, in order:
//
//  1. trim white space and one pair of surrounding quotes or backticks;
//  2. cut "?query" and "#fragment";
//  3. undo percent-encoding once; an invalid escape, invalid UTF-8, an escape
//     left over that still decodes to '/', '\', '.', '%' or a control
//     character (double encoding such as %252e%252e), or a '%', '?' or '#'
//     produced by decoding is refused (bad_encoding);
//  4. refuse NUL, C0/C1 controls, DEL, line separators and invisible format
//     characters such as the U+202E right-to-left override (control_char);
//  5. make backslashes slashes;
//  6. refuse URLs with a scheme (url), "~/" home paths (home_dir) and "C:"
//     drive paths (drive_path) rather than guess what part is repository-relative;
//  7. strip leading "/" and "./", trim white space around each segment, drop
//     "." and empty segments (so "src//a.go", "src/./a.go" and "src/ a.go" are
//     "src/a.go"), refuse any ".." segment (parent_escape);
//  8. refuse results longer than maxLen bytes (too_long; maxLen <= 0: no limit).
//
// The repository root ("", ".", "/") normalizes to "" with no error; callers
// decide whether the root is acceptable (list_dir) or not (get_file).
// Errors are *PathError values carrying the reason code.
//
// The result is a fixed point: NormalizePath(NormalizePath(x)) == NormalizePath(x),
// so a later stage re-checking a request gets the same path back. To keep it
// so, a '%', '?' or '#' that percent-decoding produced is refused, and the
// quote and space tidying is repeated until nothing changes.
func NormalizePath(raw string, maxLen int) (string, error) {
	if isClean(raw) {
		if maxLen > 0 && len(raw) > maxLen {
			return "", refuse(ReasonTooLong, tooLongMsg(maxLen))
		}
		if err := notRelative(raw); err != nil {
			return "", err
		}
		return raw, nil
	}
	if p, ok := trimSimple(raw, maxLen); ok {
		return p, nil
	}
	return normalizeSlow(raw, maxLen)
}

// normalizeSlow is NormalizePath for any path: normalizeOnce until it
// settles.
func normalizeSlow(raw string, maxLen int) (string, error) {
	p, err := normalizeOnce(raw, maxLen)
	for i := 0; err == nil && i < 4; i++ {
		if p == "" || isClean(p) {
			return p, nil
		}
		q, err2 := normalizeOnce(p, maxLen)
		if err2 != nil {
			return "", err2
		}
		if q == p {
			return p, nil
		}
		p = q
	}
	if err != nil {
		return "", err
	}
	return "", refuse(ReasonBadEncoding, "path does not settle: too many nested quotes")
}

// trimSimple is the second fast path, for the paths models write most
// often besides clean ones: "./src/a.go", "/src/a.go", "src/dir/",
// "src//a.go" and "src/a.go?raw=1#L10". When the part before any '?' or
// '#' holds only the bytes isClean allows and slashes, cutting the query,
// the leading "./" and "/", the trailing "/" and the empty and "."
// segments leaves a clean path within maxLen: the answer normalizeOnce
// would give, as a substring of raw when nothing inside was dropped.
// Otherwise ok is false.
func trimSimple(raw string, maxLen int) (string, bool) {
	if maxLen > 0 && len(raw) > 4*maxLen+64 {
		return "", false
	}
	p := raw
	if i := strings.IndexAny(p, "?#"); i >= 0 {
		p = p[:i]
	}
	for i := 0; i < len(p); i++ {
		if c := p[i]; !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-' || c == '/') {
			return "", false
		}
	}
	for {
		if strings.HasPrefix(p, "./") {
			p = p[2:]
		} else if strings.HasPrefix(p, "/") {
			p = p[1:]
		} else {
			break
		}
	}
	p = strings.TrimRight(p, "/")
	if !isClean(p) {
		// Empty and "." segments inside ("a//b", "a/./b"): join the
		// others, once. A ".." is refused by the full normalization.
		var b strings.Builder
		b.Grow(len(p))
		for seg := range strings.SplitSeq(p, "/") {
			switch seg {
			case "", ".":
				continue
			case "..":
				return "", false
			}
			if b.Len() > 0 {
				b.WriteByte('/')
			}
			b.WriteString(seg)
		}
		p = b.String()
		if !isClean(p) {
			return "", false
		}
	}
	if maxLen > 0 && len(p) > maxLen {
		return "", false
	}
	return p, true
}

// isClean is the fast path: plain ASCII names separated by single slashes,
// no leading or trailing slash, no "." or ".." segment, nothing any step of
// normalizeOnce would change or refuse (URL, drive and home checks aside).
func isClean(p string) bool {
	if p == "" {
		return false
	}
	segStart := 0
	for i := 0; i <= len(p); i++ {
		if i == len(p) || p[i] == '/' {
			seg := p[segStart:i]
			if seg == "" || seg == "." || seg == ".." {
				return false
			}
			segStart = i + 1
			continue
		}
		c := p[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

func normalizeOnce(raw string, maxLen int) (string, error) {
	// Refuse absurd input before doing any work on it.
	if maxLen > 0 && len(raw) > 4*maxLen+64 {
		return "", refuse(ReasonTooLong, tooLongMsg(maxLen))
	}
	p := unquote(strings.TrimSpace(raw))
	if i := strings.IndexAny(p, "?#"); i >= 0 {
		p = strings.TrimSpace(p[:i])
	}
	if strings.IndexByte(p, '%') >= 0 {
		u, err := url.PathUnescape(p)
		if err != nil {
			return "", refuse(ReasonBadEncoding, "invalid percent-encoding in path")
		}
		if doubleEncoded(u) {
			return "", refuse(ReasonBadEncoding, "double percent-encoding refused")
		}
		if strings.ContainsAny(u, "%?#") {
			return "", refuse(ReasonBadEncoding, "percent-encoded '%', '?' or '#' refused")
		}
		p = strings.TrimSpace(u)
	}
	if !utf8.ValidString(p) || strings.ContainsRune(p, utf8.RuneError) {
		return "", refuse(ReasonBadEncoding, "path is not valid UTF-8")
	}
	for _, r := range p {
		if r == 0 {
			return "", refuse(ReasonControlChar, "NUL character in path")
		}
		if isControl(r) {
			return "", refuse(ReasonControlChar, "control or invisible formatting character in path")
		}
	}
	p = strings.ReplaceAll(p, "\\", "/")
	if err := notRelative(p); err != nil {
		return "", err
	}
	segs := strings.Split(p, "/")
	out := segs[:0]
	for _, s := range segs {
		s = strings.TrimSpace(s)
		switch s {
		case "", ".":
			continue
		case "..":
			return "", refuse(ReasonParentEscape, "")
		}
		out = append(out, s)
	}
	p = strings.Join(out, "/")
	// Again on the cleaned path: "/C:/x" and "./~/x" hide behind a prefix.
	if err := notRelative(p); err != nil {
		return "", err
	}
	if maxLen > 0 && len(p) > maxLen {
		return "", refuse(ReasonTooLong, tooLongMsg(maxLen))
	}
	return p, nil
}

func tooLongMsg(maxLen int) string {
	return "path too long: more than " + strconv.Itoa(maxLen) + " bytes"
}

// unquote removes one pair of matching surrounding quotes or backticks, as
// models write `src/a.go` or "src/a.go".
func unquote(p string) string {
	if len(p) >= 2 {
		switch f, l := p[0], p[len(p)-1]; {
		case f == l && (f == '"' || f == '\'' || f == '`'):
			return strings.TrimSpace(p[1 : len(p)-1])
		}
	}
	return p
}

// doubleEncoded reports whether a once-decoded path still holds an escape that
// decodes to a character the checks care about.
func doubleEncoded(p string) bool {
	for i := 0; i+2 < len(p); i++ {
		if p[i] != '%' {
			continue
		}
		h, ok1 := unhex(p[i+1])
		l, ok2 := unhex(p[i+2])
		if !ok1 || !ok2 {
			continue
		}
		switch c := h<<4 | l; {
		case c == '/', c == '\\', c == '.', c == '%', c < 0x20, c == 0x7f:
			return true
		}
	}
	return false
}

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// isControl is true for Unicode controls (C0, DEL, C1), format characters
// (bidi overrides and isolates, zero-width characters, BOM, soft hyphen) and
// the line and paragraph separators. Tabs and newlines inside a path count.
func isControl(r rune) bool {
	if r < 0x80 {
		return r < 0x20 || r == 0x7f // no ASCII rune is Cf, Zl or Zp
	}
	return unicode.IsControl(r) || unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp)
}

// hasScheme reports a "scheme://" URL or a well-known scheme without slashes
// (file:, data:, javascript:, mailto:).
func hasScheme(p string) bool {
	i := strings.IndexByte(p, ':')
	if i <= 0 {
		return false
	}
	scheme := p[:i]
	for j := 0; j < len(scheme); j++ {
		c := scheme[j]
		alpha := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
		if !alpha && (j == 0 || !('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return false
		}
	}
	if strings.HasPrefix(p[i+1:], "//") && len(scheme) > 1 {
		return true
	}
	switch strings.ToLower(scheme) {
	case "file", "data", "javascript", "mailto", "http", "https", "ssh", "git", "ftp":
		return true
	}
	return false
}

// notRelative refuses URLs, drive paths and home paths.
func notRelative(p string) error {
	switch {
	case hasScheme(p):
		return refuse(ReasonURL, "")
	case isDrivePath(p):
		return refuse(ReasonDrivePath, "")
	case p == "~" || strings.HasPrefix(p, "~") && strings.Contains(p, "/"):
		return refuse(ReasonHomeDir, "")
	}
	return nil
}

// isDrivePath reports "C:" or "C:/..." (after backslashes became slashes).
func isDrivePath(p string) bool {
	if len(p) < 2 || p[1] != ':' {
		return false
	}
	c := p[0]
	if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
		return false
	}
	return len(p) == 2 || p[2] == '/'
}

// CheckRequestPath normalizes a model-chosen path (NormalizePath with
// lim.MaxPathLen, 1024 when unset) and refuses secret paths. On refusal it
// returns the reason code and a *PathError whose text is the Rejected entry's
// error. The root comes back as "" with no error: get_file callers must refuse
// it (ReasonEmpty), list_dir callers may list the root. The batch stage uses
// this as its last line of defence.
func CheckRequestPath(raw string, lim pipeline.Limits) (clean, reason string, err error) {
	maxLen := lim.MaxPathLen
	if maxLen <= 0 {
		maxLen = pipeline.DefaultLimits().MaxPathLen
	}
	p, err := NormalizePath(raw, maxLen)
	if err != nil {
		return "", reasonOf(err), err
	}
	if kind := secretKind(p); kind != "" {
		return p, ReasonSecret, refuse(ReasonSecret, "secret path refused: "+kind+" are never read")
	}
	return p, "", nil
}

// normalizeOp maps an op as a model wrote it to get_file or list_dir: case,
// surrounding space and '-' vs '_' are forgiven ("Get-File"), and a missing op
// is get_file. Anything else is refused (ok false),
// rather than read as get_file: a typo must not fetch a file.
func normalizeOp(op string) (string, bool) {
	switch op {
	case pipeline.OpGetFile, "":
		return pipeline.OpGetFile, true
	case pipeline.OpListDir:
		return pipeline.OpListDir, true
	}
	o := strings.ToLower(strings.TrimSpace(op))
	o = opReplacer.Replace(o)
	switch o {
	case "", "get_file", "getfile":
		return pipeline.OpGetFile, true
	case "list_dir", "listdir":
		return pipeline.OpListDir, true
	}
	return strings.TrimSpace(op), false
}

var opReplacer = strings.NewReplacer("-", "_", " ", "_")

// CheckNeed validates one (op, path) pair the way /v1/needs and the batch
// stage do before any repository read: the op (NormalizeOp), the path
// (CheckRequestPath) and the root (list_dir only). It returns the normalized
// need, or the reason code and a *PathError for the Rejected entry; on refusal
// the returned need holds the op as normalized so far and the path normalized
// (secret) or as given (normalization failed).
func CheckNeed(op, rawPath string, lim pipeline.Limits) (pipeline.Need, string, error) {
	o, ok := normalizeOp(op)
	if !ok {
		return pipeline.Need{Op: o, Path: rawPath}, ReasonUnsupportedOp,
			refuse(ReasonUnsupportedOp, "unsupported op "+quoteShort(o)+" refused: use get_file or list_dir")
	}
	p, reason, err := CheckRequestPath(rawPath, lim)
	if err != nil {
		if p == "" {
			p = rawPath // normalization failed: show the path as given
		}
		return pipeline.Need{Op: o, Path: p}, reason, err
	}
	if p == "" && o == pipeline.OpGetFile {
		msg := "empty path: get_file needs a file path"
		if strings.TrimSpace(rawPath) != "" {
			msg = "get_file of the repository root refused: it is a directory, use list_dir"
		}
		return pipeline.Need{Op: o, Path: rawPath}, ReasonEmpty, refuse(ReasonEmpty, msg)
	}
	return pipeline.Need{Op: o, Path: p}, "", nil
}

// quoteShort quotes s for an error text, cut to 40 bytes.
func quoteShort(s string) string {
	if len(s) > 40 {
		s = s[:40]
		for !utf8.ValidString(s) {
			s = s[:len(s)-1]
		}
		s += "..."
	}
	return "\"" + s + "\""
}

// secret rules, matched on the lower-cased normalized path.
var (
	// A path with one of these segments anywhere is secret.
	secretDirs = map[string]string{
		".ssh":    "SSH keys and configuration",
		".gnupg":  "GnuPG keys",
		".aws":    "cloud credentials",
		".azure":  "cloud credentials",
		".gcloud": "cloud credentials",
		".kube":   "cluster credentials",
		".docker": "registry credentials",
		".git":    "git internals (.git/config may hold credentials)",
	}
	// Exact base names.
	secretNames = map[string]string{
		".npmrc":            "package registry credentials",
		".yarnrc.yml":       "package registry credentials",
		".pypirc":           "package registry credentials",
		".netrc":            "login credentials",
		"_netrc":            "login credentials",
		".git-credentials":  "git credentials",
		".gitconfig":        "git user configuration",
		".htpasswd":         "password files",
		".pgpass":           "password files",
		".my.cnf":           "password files",
		".vault-token":      "vault tokens",
		".boto":             "cloud credentials",
		".s3cfg":            "cloud credentials",
		".dockercfg":        "registry credentials",
		".terraformrc":      "terraform credentials",
		"credentials.json":  "credential files",
		"kubeconfig":        "cluster credentials",
		"secrets.yml":       "secret files",
		"secrets.yaml":      "secret files",
		"secrets.json":      "secret files",
		"secret.yml":        "secret files",
		"secret.yaml":       "secret files",
		"secret.json":       "secret files",
		".envrc":            ".env files",
		"terraform.tfstate": "terraform state files (they hold secrets)",
		"terraform.tfvars":  "terraform variable files",
		"master.key":        "private keys",
		// cloud and service credentials under their usual names
		"serviceaccountkey.json":               "cloud credentials",
		"application_default_credentials.json": "cloud credentials",
		"local.settings.json":                  "function app settings (they hold connection strings)",
		"rclone.conf":                          "cloud credentials",
		"secrets.toml":                         "secret files",
		"secring.gpg":                          "GnuPG keys",
	}
	// Base-name extensions.
	secretExts = map[string]string{
		".pem":      "private keys and certificates",
		".key":      "private keys",
		".p8":       "private keys",
		".p12":      "key stores",
		".pfx":      "key stores",
		".jks":      "key stores",
		".keystore": "key stores",
		".ppk":      "private keys",
		".kdbx":     "password databases",
		".env":      ".env files",
		".tfstate":  "terraform state files (they hold secrets)",
		".tfvars":   "terraform variable files",
		".asc":      "ASCII-armored keys",
	}
	// Base-name suffixes that span more than one extension.
	secretSuffixes = []struct{ suffix, kind string }{
		{".tfvars.json", "terraform variable files"},
		{".env.local", ".env files"},
	}
	// Whole-path suffixes: files secret only in a known place.
	secretPathSuffixes = []struct{ suffix, kind string }{
		{".config/gh/hosts.yml", "GitHub CLI credentials"},
		{".config/gh/hosts.yaml", "GitHub CLI credentials"},
	}
	// Base-name prefixes.
	secretPrefixes = []struct{ prefix, kind string }{
		{".env.", ".env files"},
		{"id_rsa", "SSH keys"},
		{"id_dsa", "SSH keys"},
		{"id_ecdsa", "SSH keys"},
		{"id_ed25519", "SSH keys"},
		{"client_secret", "OAuth client secrets"},
		{"service-account", "cloud credentials"},
		{"terraform.tfstate.", "terraform state files (they hold secrets)"},
		{"firebase-adminsdk", "cloud credentials"},
	}
)

// secretKind returns what kind of secret a normalized path names ("" when it
// is not secret), for error texts such as "secret path refused: .env files are
// never read". Matching is case-insensitive and looks at every segment, so
// "config/.env.production" and "deploy/.ssh/known_hosts" are secret.
//
// Decisions: .env.example, .env.sample and .env.template are secret too (people
// paste real values into them, and a review loses little without them); public
// keys next to private ones (id_rsa.pub) are refused with them.
func secretKind(p string) string {
	lp := strings.ToLower(p)
	base := lp[strings.LastIndexByte(lp, '/')+1:]
	for rest := lp; ; {
		seg, after, more := strings.Cut(rest, "/")
		if !more {
			break
		}
		if k, ok := secretDirs[seg]; ok {
			return k
		}
		rest = after
	}
	if k, ok := secretDirs[base]; ok && base != "" {
		return k // listing .ssh or .git is as bad as reading inside it
	}
	if base == ".env" {
		return ".env files"
	}
	if base == "" {
		return ""
	}
	if k := secretNames[base]; k != "" {
		return k
	}
	for _, sp := range secretPrefixes {
		if strings.HasPrefix(base, sp.prefix) {
			return sp.kind
		}
	}
	for _, ss := range secretSuffixes {
		if strings.HasSuffix(base, ss.suffix) {
			return ss.kind
		}
	}
	for _, ps := range secretPathSuffixes {
		// lp is the suffix, or ends with "/" and the suffix.
		if n := len(lp) - len(ps.suffix); n >= 0 && lp[n:] == ps.suffix && (n == 0 || lp[n-1] == '/') {
			return ps.kind
		}
	}
	if i := strings.LastIndexByte(base, '.'); i > 0 {
		if k, ok := secretExts[base[i:]]; ok {
			return k
		}
	}
	return ""
}

// IsSecretPath reports whether a normalized path names a file prscout never
// reads, whoever asks (.env*, .ssh/, id_rsa*, *.pem, *.key, .npmrc, .netrc,
// .git-credentials, cloud credential files, the .git directory, ...). See
// SecretKind for the rules.
func IsSecretPath(p string) bool { return secretKind(p) != "" }
