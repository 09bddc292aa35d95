package bbspec

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// Limit is a limit Bitbucket enforces that its published API description
// does not state, with where it is documented or was seen: Max characters
// (runes) of Field in the body of Method on Path, or, with Field "", Max
// items of the body (a JSON array).
type Limit struct {
	Method, Path string
	Field        string
	Max          int
	Source       string
}

const (
	annotationsPath = "/repositories/{workspace}/{repo_slug}/commit/{commit}/reports/{reportId}/annotations"
	statusPath      = "/repositories/{workspace}/{repo_slug}/commit/{commit}/statuses/build"
	commentsPath    = "/repositories/{workspace}/{repo_slug}/pullrequests/{pull_request_id}/comments"
)

// MaxAnnotationsPerReport is how many annotations one report holds: "a
// report can contain up to 1000 annotations" (Code Insights
// documentation). It needs the report's state, so the fake checks it
// where it keeps the report.
const MaxAnnotationsPerReport = 1000

// Limits lists every limit CheckLimits enforces.
var Limits = []Limit{
	{"POST", annotationsPath, "summary", 450, `Bitbucket's 400 "The summary field cannot contain more than 450 characters." (reviewdog/reviewdog#1285, fixed in #1344)`},
	{"POST", annotationsPath, "", 100, `Code Insights documentation: "You can upload up to 100 annotations per POST request" (also the description's maxItems)`},
	{"POST", statusPath, "key", 40, `Bitbucket's 400 "key: Ensure this value has at most 40 characters" (buildbot/buildbot#7049)`},
	{"POST", statusPath, "name", 255, `Bitbucket's 400 for a longer build status name (jenkinsci/bitbucket-branch-source-plugin#928)`},
	{"POST", statusPath, "url", 450, `Bitbucket's 400 for a longer build status url (jenkinsci/bitbucket-branch-source-plugin#928)`},
	{"POST", commentsPath, "content.raw", 32768, `Bitbucket's 400 for a longer comment (ovh/cds#5601, runatlantis/atlantis#1251)`},
	{"PUT", commentsPath + "/{comment_id}", "content.raw", 32768, `as for creating a comment`},
}

// CheckLimits checks the body of a request of method on path (the
// description's path) against Limits; ok is false with the violation, in
// Bitbucket's words, when the body is past one.
func CheckLimits(method, path string, body []byte) (v Violation, ok bool) {
	for _, l := range Limits {
		if l.Method != method || l.Path != path {
			continue
		}
		if msg, field := l.violation(body); msg != "" {
			return Violation{Text: fmt.Sprintf("%s %s: limit: %s: %s", method, path, field, msg), Field: field, Msg: msg}, false
		}
	}
	return Violation{}, true
}

// violation returns Bitbucket's message and the offending field when body
// is past l, else "".
func (l Limit) violation(body []byte) (msg, field string) {
	switch {
	case l.Field == "":
		var arr []json.RawMessage
		if json.Unmarshal(body, &arr) == nil && len(arr) > l.Max {
			return fmt.Sprintf("at most %d annotations per request, got %d", l.Max, len(arr)), ""
		}
	case l.Path == annotationsPath:
		var arr []map[string]any
		_ = json.Unmarshal(body, &arr)
		for i, a := range arr {
			if s, _ := a[l.Field].(string); utf8.RuneCountInString(s) > l.Max {
				return fmt.Sprintf("The %s field cannot contain more than %d characters.", l.Field, l.Max), fmt.Sprintf("%d.%s", i, l.Field)
			}
		}
	case l.Field == "content.raw":
		var in struct {
			Content struct {
				Raw string `json:"raw"`
			} `json:"content"`
		}
		if json.Unmarshal(body, &in) == nil && utf8.RuneCountInString(in.Content.Raw) > l.Max {
			return fmt.Sprintf("Ensure this value has at most %d characters (it has %d).", l.Max, utf8.RuneCountInString(in.Content.Raw)), l.Field
		}
	default:
		var obj map[string]any
		_ = json.Unmarshal(body, &obj)
		if s, _ := obj[l.Field].(string); utf8.RuneCountInString(s) > l.Max {
			return fmt.Sprintf("Ensure this value has at most %d characters (it has %d).", l.Max, utf8.RuneCountInString(s)), l.Field
		}
	}
	return "", ""
}
