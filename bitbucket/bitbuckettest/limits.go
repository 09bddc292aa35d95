package bitbuckettest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"unicode/utf8"
)

// Limit is a limit Bitbucket enforces that its published API description
// (testdata/bitbucket-openapi.json) does not state, with where it is
// documented or was seen. The fake answers a request past one with the
// 400 Bitbucket sends, before the operation runs.
type Limit struct {
	Op     string // operation name
	Field  string // the body field, "" for the body as a whole
	Max    int    // characters (runes), or items for a list
	Source string
}

// Limits lists every enforced limit the fake checks beyond the published
// description. MaxAnnotationsPerReport is checked where the report's
// annotations are known (postAnnotations).
var Limits = []Limit{
	{OpPostAnnotations, "summary", 450, `Bitbucket's 400 "The summary field cannot contain more than 450 characters." (reviewdog/reviewdog#1285, #1344)`},
	{OpPostAnnotations, "", MaxAnnotationsPerRequest, `Code Insights documentation: "You can upload up to 100 annotations per POST request"`},
	{OpPostAnnotations, "(report)", MaxAnnotationsPerReport, `Code Insights documentation: "a report can contain up to 1000 annotations"`},
	{OpSetStatus, "key", 40, `Bitbucket's 400 "key: Ensure this value has at most 40 characters" (buildbot/buildbot#7049)`},
	{OpSetStatus, "name", 255, `Bitbucket's 400 for a longer build status name (jenkinsci/bitbucket-branch-source-plugin#928)`},
	{OpSetStatus, "url", 450, `Bitbucket's 400 for a longer build status url (jenkinsci/bitbucket-branch-source-plugin#928)`},
	{OpCreateComment, "content.raw", 32768, `Bitbucket's 400 for a longer comment (ovh/cds#5601, runatlantis/atlantis#1251)`},
	{OpUpdateComment, "content.raw", 32768, `as create_comment`},
}

// checkLimits answers 400 and reports false when the request of op is past
// one of Limits.
func checkLimits(w http.ResponseWriter, op string, body []byte) bool {
	for _, l := range Limits {
		if l.Op != op || l.Field == "(report)" {
			continue
		}
		if msg, field := limitViolation(l, body); msg != "" {
			if field == "" {
				writeError(w, http.StatusBadRequest, msg)
			} else {
				writeFieldError(w, field, msg)
			}
			return false
		}
	}
	return true
}

// limitViolation returns Bitbucket's message and the offending field when
// body is past l, else "".
func limitViolation(l Limit, body []byte) (msg, field string) {
	switch {
	case l.Op == OpPostAnnotations && l.Field == "":
		var arr []json.RawMessage
		if json.Unmarshal(body, &arr) == nil && len(arr) > l.Max {
			return fmt.Sprintf("body: at most %d annotations per request, got %d", l.Max, len(arr)), ""
		}
	case l.Op == OpPostAnnotations:
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
