package pipeline

import (
	"errors"
	"net/url"
	"path"
	"regexp"
	"strings"
)

// Path refusal reasons. Each is the exact `error` text of a rejected entry and
// a label of the needs/lookup metrics.
var (
	ErrPathEmpty   = errors.New("empty path")
	ErrPathParent  = errors.New("parent directory segment (..) refused")
	ErrPathControl = errors.New("control character in path")
	ErrPathTooLong = errors.New("path too long")
	ErrPathEncode  = errors.New("invalid percent-encoding in path")
)

// NormalizePath turns a model-chosen path into a clean repository-relative
// path: trimmed, percent-decoding undone, backslashes made slashes, leading
// "/" and "./" stripped, "?query" and "#fragment" cut. It refuses ".."
// segments, NUL and control characters and paths longer than maxLen bytes.
// The root directory normalizes to "".
// TODO(needs): harden with table tests and fuzzing.
func NormalizePath(raw string, maxLen int) (string, error) {
	p := strings.TrimSpace(raw)
	if i := strings.IndexAny(p, "?#"); i >= 0 {
		p = p[:i]
	}
	if strings.Contains(p, "%") {
		u, err := url.PathUnescape(p)
		if err != nil {
			return "", ErrPathEncode
		}
		p = u
	}
	for _, r := range p {
		if r < 0x20 || r == 0x7f {
			return "", ErrPathControl
		}
	}
	p = strings.ReplaceAll(p, "\\", "/")
	for _, seg := range strings.Split(p, "/") {
		if seg == ".." {
			return "", ErrPathParent
		}
	}
	p = path.Clean("/" + p)
	p = strings.TrimPrefix(p, "/")
	if maxLen > 0 && len(p) > maxLen {
		return "", ErrPathTooLong
	}
	return p, nil
}

var secretPath = regexp.MustCompile(`(?i)(^|/)(\.env(\..*)?|\.ssh(/.*)?|id_(rsa|dsa|ecdsa|ed25519)(\.pub)?|[^/]*\.(pem|key|p12|pfx|jks|keystore)|\.npmrc|\.pypirc|\.netrc|_netrc|\.git-credentials|\.gitconfig|\.aws/credentials|\.aws/config|\.docker/config\.json|\.kube/config|credentials\.json|service-account.*\.json|\.htpasswd|secrets?\.(ya?ml|json)|\.git(/.*)?)$`)

// IsSecretPath reports whether a normalized path names a file prscout never
// reads, whoever asks (.env*, .ssh/, id_rsa*, *.pem, *.key, .npmrc, .netrc,
// .git-credentials, cloud credential files, the .git directory, ...).
func IsSecretPath(p string) bool { return secretPath.MatchString(p) }

var noisePath = regexp.MustCompile(`(?i)(^|/)(dist|build|out|target|node_modules|vendor|coverage|\.next|__snapshots__)/|\.(lock|snap|min\.js|min\.css|map|png|jpe?g|svg|gif|ico|webp|bmp|woff2?|ttf|otf|eot)$|(^|/)(package-lock\.json|yarn\.lock|pnpm-lock\.yaml|go\.sum|Cargo\.lock|composer\.lock|Gemfile\.lock|poetry\.lock)$`)

// IsNoisePath reports whether a path is build output, vendored code, a lock
// file, a snapshot, minified or a map, an image or a font (the seed's list).
func IsNoisePath(p string) bool { return noisePath.MatchString(p) }
