package pipeline

import "strings"

// Jira issue keys are <project key>-<number>. A project key starts with a
// letter and holds upper-case letters, digits and underscores (Jira's default
// pattern is letters only). ExtractKeys accepts project keys of 2 to 10
// characters whose first two characters are letters, and numbers of 1 to 9
// digits without a leading zero.
const (
	minProjectKeyLen = 2
	maxProjectKeyLen = 10
	maxIssueDigits   = 9
)

// notProjectKeys are prefixes of well-known identifiers that look like issue
// keys ("UTF-8", "SHA-256", "ISO-8601", "CVE-2024-1234", "UTC-5"). They are
// never taken from free text, in any case.
var notProjectKeys = setOf(
	"UTF", "UCS", "SHA", "MD", "ISO", "RFC", "CVE", "CWE", "GHSA", "ECMA", "IEEE",
	"ANSI", "AES", "RSA", "DES", "HMAC", "TLS", "SSL", "HTTP", "HTTPS", "IPV",
	"UTC", "GMT", "CP", "WIN", "COVID", "GPT", "PEP", "ES", "JSR", "LATIN", "BASE",
)

// notBranchProjectKeys are words that branch names put before a number
// ("release-2024", "hotfix-12", "renovate/node-18"). They are refused only in
// lower or mixed case, as a branch usually spells them; an upper-case
// "FIX-12" in a branch is still taken as a key.
var notBranchProjectKeys = setOf(
	"RELEASE", "RELEASES", "HOTFIX", "FEATURE", "FEATURES", "BUGFIX", "FIX", "FEAT",
	"CHORE", "DOCS", "REFACTOR", "TEST", "TESTS", "WIP", "RC", "REV", "VERSION",
	"VER", "BUILD", "SPRINT", "NODE", "PYTHON", "JAVA", "JDK", "RUBY", "PHP", "GO",
	"ISSUE", "ISSUES", "PR", "MR", "PULL", "STEP", "PART", "PHASE", "DAY", "WEEK",
	"DEPS", "BUMP", "UPDATE", "UPGRADE", "REVERT", "MAIN", "MASTER", "DEV", "DEVELOP",
)

func setOf(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// IsIssueKey reports whether s, as given, is a well-formed upper-case Jira
// issue key under ExtractKeys' rules ("PROJ-123"). The deny-list of
// non-key prefixes does not apply: an explicit key is the caller's choice.
func IsIssueKey(s string) bool {
	project, number, ok := strings.Cut(s, "-")
	return ok && validProjectKey(project) && validIssueNumber(number) && strings.ToUpper(s) == s
}

func validProjectKey(p string) bool {
	if len(p) < minProjectKeyLen || len(p) > maxProjectKeyLen {
		return false
	}
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c >= 'A' && c <= 'Z':
		case i >= 2 && (c >= '0' && c <= '9' || c == '_'):
		default:
			return false
		}
	}
	return true
}

func validIssueNumber(n string) bool {
	if n == "" || len(n) > maxIssueDigits || n[0] == '0' {
		return false
	}
	for i := 0; i < len(n); i++ {
		if n[i] < '0' || n[i] > '9' {
			return false
		}
	}
	return true
}

// ExtractKeys returns the distinct Jira issue keys, upper-cased, in priority
// order: explicit keys (the request's jiraKeys, any case, trimmed; malformed
// ones dropped), then keys found in the title, the source branch and the
// description, each in order of appearance.
//
// Title and description only yield upper-case keys ("PROJ-123: fix"), as Jira
// and Bitbucket write them; branches also yield lower-case ones
// ("feature/proj-123-login"), where an underscore separates words
// ("bugfix_proj-7" is PROJ-7). Well-known non-key prefixes ("UTF-8",
// "SHA-256", "ISO-8601", "CVE-2024-1"), version-like tails ("node-18.2") and
// common branch words ("release-2024") are not keys.
func ExtractKeys(explicit []string, title, branch, description string) []string {
	return ExtractKeysFrom(KeySources{Explicit: explicit, Title: title, Branch: branch, Description: description})
}

// MaxCommitMessages is how many of a pull request's commits are read for
// Jira keys (the first ones the provider lists).
const MaxCommitMessages = 50

// KeySources are the texts Jira issue keys are taken from.
type KeySources struct {
	// Explicit keys (the request's jiraKeys) come first, in any case; they
	// are the caller's choice: Projects does not filter them.
	Explicit []string
	// Title, Branch and Description are the pull request's.
	Title, Branch, Description string
	// Commits are commit messages (at most MaxCommitMessages are read);
	// like the title they only yield upper-case keys ("Fixes SHOP-12",
	// Smart Commits "SHOP-12 #comment ...").
	Commits []string
	// Projects are the project keys whose issues link (PRSCOUT_JIRA_PROJECTS,
	// any case); empty accepts every project.
	Projects []string
}

// ExtractKeysFrom returns the distinct Jira issue keys of src, upper-cased,
// in priority order: explicit keys (trimmed; malformed ones dropped), then
// keys found in the title, the source branch, the description and the commit
// messages, each in order of appearance. Found keys of projects outside
// src.Projects are dropped. The rules are ExtractKeys'.
func ExtractKeysFrom(src KeySources) []string {
	var keys []string
	seen := make(map[string]bool)
	add := func(k string) {
		if !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	var projects map[string]bool
	for _, p := range src.Projects {
		if p = strings.ToUpper(strings.TrimSpace(p)); p != "" {
			if projects == nil {
				projects = map[string]bool{}
			}
			projects[p] = true
		}
	}
	addFound := func(found []string) {
		for _, k := range found {
			if projects == nil || projects[k[:strings.IndexByte(k, '-')]] {
				add(k)
			}
		}
	}
	for _, e := range src.Explicit {
		if k := strings.ToUpper(strings.TrimSpace(e)); IsIssueKey(k) {
			add(k)
		}
	}
	addFound(findKeys(src.Title, false))
	addFound(findKeys(src.Branch, true))
	addFound(findKeys(src.Description, false))
	for i, m := range src.Commits {
		if i == MaxCommitMessages {
			break
		}
		addFound(findKeys(m, false))
	}
	return keys
}

// IsProjectKey reports whether s, as given, is a well-formed upper-case Jira
// project key under ExtractKeys' rules ("SHOP", "MY_PROJ").
func IsProjectKey(s string) bool { return validProjectKey(s) }

// findKeys scans text for keys. With anyCase (branch names) lower- and
// mixed-case keys are accepted too.
func findKeys(text string, anyCase bool) []string {
	var keys []string
	// A candidate is [A-Za-z][A-Za-z0-9_]*-[0-9]+: find each "-digit" and
	// walk back over the word before it (one pass, no regexp).
	for i := 0; i+1 < len(text); i++ {
		if text[i] != '-' || !isDigitByte(text[i+1]) {
			continue
		}
		end := i + 1
		for end < len(text) && isDigitByte(text[end]) {
			end++
		}
		dash := i
		start := dash
		for start > 0 && isASCIIWordByte(text[start-1]) {
			start--
		}
		i = end - 1
		if start == dash || !isLetterByte(text[start]) {
			continue
		}
		// Boundaries: the key is not glued to a preceding word or digit, and
		// is not followed by a letter, a digit or a ".digit" version tail.
		if start > 0 && isWordByte(text[start-1]) {
			continue
		}
		if end < len(text) && isAlnumByte(text[end]) {
			continue
		}
		if end+1 < len(text) && text[end] == '.' && isDigitByte(text[end+1]) {
			continue
		}
		project, number := text[start:dash], text[dash+1:end]
		upper := strings.ToUpper(project) == project
		if !upper {
			if !anyCase {
				continue
			}
			// A lower-case branch uses '_' as a word separator.
			if u := strings.LastIndexByte(project, '_'); u >= 0 {
				project = project[u+1:]
			}
			if notBranchProjectKeys[strings.ToUpper(project)] {
				continue
			}
		}
		project = strings.ToUpper(project)
		if notProjectKeys[project] || !validProjectKey(project) || !validIssueNumber(number) {
			continue
		}
		keys = append(keys, project+"-"+number)
	}
	return keys
}

func isDigitByte(c byte) bool { return c >= '0' && c <= '9' }

func isLetterByte(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isAlnumByte(c byte) bool { return isDigitByte(c) || isLetterByte(c) }

func isASCIIWordByte(c byte) bool { return isAlnumByte(c) || c == '_' }

// isWordByte also counts bytes of multi-byte UTF-8 characters, so a key glued
// to a non-ASCII letter is not a key.
func isWordByte(c byte) bool { return isAlnumByte(c) || c == '_' || c >= 0x80 }
