package bitbuckettest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/prscout/prscout/bitbucket/bitbuckettest/bbspec"
)

// This file fakes the commit build statuses and the Code Insights reports
// and annotations. The API description (bbspec) checks every request's
// shape and enums, and the limits beyond it, before these handlers run;
// they add what Bitbucket does beyond the description:
//
//   - POST .../commit/{commit}/statuses/build: key, state and url are
//     required; url must be an absolute http(s) URL (Bitbucket answers 400
//     "url: Enter a valid URL." otherwise, as captured in public bug
//     reports). A second POST with the same key replaces the status; every
//     state posted is kept (CommitStatus.States).
//   - PUT .../commit/{commit}/reports/{reportId}: title and report_type are
//     required (a datum's value fitting its type is the description's
//     rule, as bbspec words it). A PUT replaces the report's fields. Bitbucket's
//     documentation does not say what a PUT does to the report's
//     annotations; the fake keeps them (so a client must remove stale ones
//     itself), which is the stricter assumption for a client.
//   - POST .../reports/{reportId}/annotations: each needs external_id,
//     summary and annotation_type; line is a whole number >= 0. Annotations
//     are upserted by external_id. A report holds at most 1,000
//     annotations: a request that would pass that is refused whole with 400.
//   - GET .../annotations lists them paged (creation order); DELETE
//     .../annotations/{id} (external id or uuid) and DELETE .../reports/{id}
//     (which removes its annotations) answer 204.
//
// Unknown commits answer 404; annotations of an unknown report answer 404
// (both listed, with their reasons, among the departures in the header of
// bbspec's description).

// Operation names of the statuses and Code Insights endpoints.
const (
	OpSetStatus        = "set_status"        // POST .../commit/{c}/statuses/build
	OpGetStatus        = "get_status"        // GET .../commit/{c}/statuses/build/{key}
	OpPutReport        = "put_report"        // PUT .../commit/{c}/reports/{id}
	OpGetReport        = "get_report"        // GET .../commit/{c}/reports/{id}
	OpDeleteReport     = "delete_report"     // DELETE .../commit/{c}/reports/{id}
	OpPostAnnotations  = "post_annotations"  // POST .../reports/{id}/annotations
	OpListAnnotations  = "list_annotations"  // GET .../reports/{id}/annotations
	OpDeleteAnnotation = "delete_annotation" // DELETE .../reports/{id}/annotations/{aid}
)

// InsightsOps lists the operations of the statuses and Code Insights
// endpoints, e.g. for DenyScope.
var InsightsOps = []string{
	OpSetStatus, OpGetStatus, OpPutReport, OpGetReport, OpDeleteReport,
	OpPostAnnotations, OpListAnnotations, OpDeleteAnnotation,
}

// MaxAnnotationsPerReport is how many annotations a report holds
// (bbspec.MaxAnnotationsPerReport); the 1 to 100 per request are the API
// description's and bbspec's.
const MaxAnnotationsPerReport = bbspec.MaxAnnotationsPerReport

// ScopeErrorBody is the 403 answer of a token without the scope an
// operation needs, in the API description's error shape (error.detail a
// string).
const ScopeErrorBody = `{"type": "error", "error": {"message": "Your credentials lack one or more required privilege scopes.", "detail": "Required scopes: write:repository:bitbucket. Granted: read:repository:bitbucket, read:pullrequest:bitbucket, write:pullrequest:bitbucket."}}`

// CommitStatus is a build status held by the fake.
type CommitStatus struct {
	Key         string
	State       string
	Name        string
	Description string
	URL         string
	// RefName is the refname sent (the pull request's source branch).
	RefName string
	// States lists every state posted for the key, oldest first.
	States []string
}

// Report is a Code Insights report held by the fake.
type Report struct {
	ExternalID string
	UUID       string
	Title      string
	Details    string
	ReportType string
	Result     string
	Reporter   string
	Link       string
	// Data is the report's data array as sent (JSON).
	Data json.RawMessage
	// Puts counts the PUTs that wrote the report.
	Puts int
}

// Annotation is a report annotation held by the fake.
type Annotation struct {
	ExternalID     string
	UUID           string
	Path           string
	Line           int
	Summary        string
	Details        string
	Severity       string
	AnnotationType string
	Result         string
	Link           string
}

type storedReport struct {
	Report
	annotations []*Annotation // creation order
}

// DenyScope makes the given operations answer 403 with ScopeErrorBody, as
// Bitbucket does for a token without the scope (DenyScope(InsightsOps...)
// denies every status and report call). Calling it with no operation lifts
// every denial.
func (s *Server) DenyScope(ops ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(ops) == 0 {
		s.denied = nil
		return
	}
	if s.denied == nil {
		s.denied = map[string]bool{}
	}
	for _, op := range ops {
		s.denied[op] = true
	}
}

func (s *Server) scopeDenied(op string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.denied[op]
}

func writeScopeError(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(http.StatusForbidden)
	_, _ = w.Write([]byte(ScopeErrorBody))
}

// Status returns the commit's build status for key.
func (s *Server) Status(ws, slug, commit, key string) (CommitStatus, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rd := s.repo(ws, slug)
	id, _ := s.resolve(rd, commit)
	st := rd.statuses[id][key]
	if st == nil {
		return CommitStatus{}, false
	}
	out := *st
	out.States = slices.Clone(st.States)
	return out, true
}

// Reports returns the commit's reports, by external id.
func (s *Server) Reports(ws, slug, commit string) map[string]Report {
	s.mu.Lock()
	defer s.mu.Unlock()
	rd := s.repo(ws, slug)
	id, _ := s.resolve(rd, commit)
	out := map[string]Report{}
	for k, r := range rd.reports[id] {
		out[k] = r.Report
	}
	return out
}

// Annotations returns the annotations of the commit's report (by external
// id or uuid), in creation order.
func (s *Server) Annotations(ws, slug, commit, reportID string) []Annotation {
	s.mu.Lock()
	defer s.mu.Unlock()
	rd := s.repo(ws, slug)
	id, _ := s.resolve(rd, commit)
	rep := findReport(rd.reports[id], reportID)
	if rep == nil {
		return nil
	}
	out := make([]Annotation, 0, len(rep.annotations))
	for _, a := range rep.annotations {
		out = append(out, *a)
	}
	return out
}

// writeFieldError answers 400 for a bad field, its message naming the
// field as Bitbucket's does, in the description's error object (which
// has no room for a per-field list):
// {"type":"error","error":{"message":"url: Enter a valid URL."}}.
func writeFieldError(w http.ResponseWriter, field, msg string) {
	writeError(w, http.StatusBadRequest, field+": "+msg)
}

// fakeUUID derives a stable braced uuid from parts.
func fakeUUID(parts ...string) string {
	h := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	x := hex.EncodeToString(h[:16])
	return "{" + x[:8] + "-" + x[8:12] + "-" + x[12:16] + "-" + x[16:20] + "-" + x[20:] + "}"
}

func findReport(m map[string]*storedReport, id string) *storedReport {
	if r := m[id]; r != nil {
		return r
	}
	for _, r := range m {
		if r.UUID == id {
			return r
		}
	}
	return nil
}

// decodeStrict decodes body keeping numbers as json.Number.
func decodeStrict(body []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	return dec.Decode(v)
}

// fields reads optional string fields of obj; a non-string is an error
// naming the field.
func stringFields(obj map[string]any, names ...string) (map[string]string, string) {
	out := map[string]string{}
	for _, n := range names {
		v, ok := obj[n]
		if !ok || v == nil {
			continue
		}
		s, isStr := v.(string)
		if !isStr {
			return nil, n
		}
		out[n] = s
	}
	return out, ""
}

func validURL(s string) bool {
	u, err := url.ParseRequestURI(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// insights serves the statuses and Code Insights operations; s.mu is held.
func (s *Server) insights(c *call) {
	w, r, op, rd, body := c.w, c.r, c.op, c.rd, c.body
	commit, ok := s.resolve(rd, r.PathValue("commit"))
	if !ok {
		writeError(w, http.StatusNotFound, "Commit not found")
		return
	}
	switch op {
	case OpSetStatus:
		s.setStatus(w, rd, commit, body)
	case OpGetStatus:
		st := rd.statuses[commit][r.PathValue("key")]
		if st == nil {
			writeError(w, http.StatusNotFound, "No such build status")
			return
		}
		writeJSON(w, http.StatusOK, statusJSON(commit, st))
	case OpPutReport:
		s.putReport(w, rd, commit, r.PathValue("report"), body)
	case OpGetReport, OpDeleteReport:
		rep := findReport(rd.reports[commit], r.PathValue("report"))
		if rep == nil {
			writeError(w, http.StatusNotFound, "Report not found")
			return
		}
		if op == OpDeleteReport {
			delete(rd.reports[commit], rep.ExternalID)
			w.WriteHeader(http.StatusNoContent)
			return
		}
		writeJSON(w, http.StatusOK, reportJSON(commit, &rep.Report))
	case OpPostAnnotations, OpListAnnotations, OpDeleteAnnotation:
		rep := findReport(rd.reports[commit], r.PathValue("report"))
		if rep == nil {
			writeError(w, http.StatusNotFound, "Report not found")
			return
		}
		switch op {
		case OpPostAnnotations:
			postAnnotations(w, rep, body)
		case OpListAnnotations:
			vals := make([]any, 0, len(rep.annotations))
			for _, a := range rep.annotations {
				vals = append(vals, annotationJSON(a))
			}
			s.writePage(w, r, vals, 10)
		default:
			aid := r.PathValue("annotation")
			i := slices.IndexFunc(rep.annotations, func(a *Annotation) bool { return a.ExternalID == aid || a.UUID == aid })
			if i < 0 {
				writeError(w, http.StatusNotFound, "Annotation not found")
				return
			}
			rep.annotations = slices.Delete(rep.annotations, i, i+1)
			w.WriteHeader(http.StatusNoContent)
		}
	}
}

func (s *Server) setStatus(w http.ResponseWriter, rd *repoData, commit string, body []byte) {
	var in map[string]any
	if err := decodeStrict(body, &in); err != nil || in == nil {
		writeError(w, http.StatusBadRequest, "body: a JSON object is required")
		return
	}
	f, bad := stringFields(in, "key", "state", "url", "name", "description", "refname")
	switch {
	case bad != "":
		writeFieldError(w, bad, "Not a valid string.")
		return
	case f["key"] == "":
		writeFieldError(w, "key", "This field is required.")
		return
	case f["state"] == "":
		writeFieldError(w, "state", "This field is required.")
		return
	case !validURL(f["url"]):
		writeFieldError(w, "url", "Enter a valid URL.")
		return
	}
	if rd.statuses[commit] == nil {
		rd.statuses[commit] = map[string]*CommitStatus{}
	}
	st := rd.statuses[commit][f["key"]]
	if st == nil {
		st = &CommitStatus{Key: f["key"]}
		rd.statuses[commit][f["key"]] = st
	}
	st.State, st.Name, st.Description, st.URL, st.RefName = f["state"], f["name"], f["description"], f["url"], f["refname"]
	st.States = append(st.States, f["state"])
	writeJSON(w, http.StatusCreated, statusJSON(commit, st))
}

func statusJSON(commit string, st *CommitStatus) map[string]any {
	return map[string]any{
		"type": "build", "key": st.Key, "state": st.State, "name": st.Name, "description": st.Description,
		"url": st.URL, "commit": map[string]any{"type": "commit", "hash": commit}, "refname": st.RefName,
		"created_on": "2026-11-02T10:06:00.000000+00:00", "updated_on": "2026-11-02T10:06:00.000000+00:00",
	}
}

func (s *Server) putReport(w http.ResponseWriter, rd *repoData, commit, id string, body []byte) {
	var in map[string]any
	if err := decodeStrict(body, &in); err != nil || in == nil {
		writeError(w, http.StatusBadRequest, "body: a JSON object is required")
		return
	}
	f, bad := stringFields(in, "title", "details", "report_type", "result", "reporter", "link", "external_id")
	switch {
	case bad != "":
		writeFieldError(w, bad, "Not a valid string.")
		return
	case f["title"] == "":
		writeFieldError(w, "title", "This field is required.")
		return
	case f["report_type"] == "":
		writeFieldError(w, "report_type", "This field is required.")
		return
	case f["link"] != "" && !validURL(f["link"]):
		writeFieldError(w, "link", "Enter a valid URL.")
		return
	}
	var data json.RawMessage // its shape is the description's (checkSpec)
	if d, ok := in["data"]; ok && d != nil {
		data, _ = json.Marshal(d)
	}
	if rd.reports[commit] == nil {
		rd.reports[commit] = map[string]*storedReport{}
	}
	rep := findReport(rd.reports[commit], id)
	if rep == nil {
		rep = &storedReport{Report: Report{ExternalID: id, UUID: fakeUUID("report", commit, id)}}
		rd.reports[commit][id] = rep
	}
	puts := rep.Puts + 1
	rep.Report = Report{
		ExternalID: rep.ExternalID, UUID: rep.UUID, Title: f["title"], Details: f["details"],
		ReportType: f["report_type"], Result: f["result"], Reporter: f["reporter"], Link: f["link"],
		Data: data, Puts: puts,
	}
	writeJSON(w, http.StatusOK, reportJSON(commit, &rep.Report))
}

func reportJSON(commit string, r *Report) map[string]any {
	m := map[string]any{
		"type": "report", "uuid": r.UUID, "external_id": r.ExternalID, "commit_hash": commit,
		"title": r.Title, "report_type": r.ReportType,
		"created_on": "2026-11-02T10:06:00.000000+00:00", "updated_on": "2026-11-02T10:06:00.000000+00:00",
	}
	// Fields not sent are left out, not echoed empty: "" is no value of
	// the result enum nor a link.
	for k, v := range map[string]string{"details": r.Details, "result": r.Result, "reporter": r.Reporter, "link": r.Link} {
		if v != "" {
			m[k] = v
		}
	}
	if r.Data != nil {
		m["data"] = r.Data
	} else {
		m["data"] = []any{}
	}
	return m
}

func postAnnotations(w http.ResponseWriter, rep *storedReport, body []byte) {
	var in []map[string]any
	if err := decodeStrict(body, &in); err != nil {
		writeError(w, http.StatusBadRequest, "body: a JSON array of annotations is required")
		return
	}
	parsed := make([]Annotation, 0, len(in))
	for i, obj := range in {
		a, field, msg := parseAnnotation(obj)
		if field != "" {
			writeFieldError(w, fmt.Sprintf("%d.%s", i, field), msg)
			return
		}
		parsed = append(parsed, a)
	}
	// The cap applies to the report after the upsert; a request that would
	// pass it is refused whole.
	next := map[string]bool{}
	for _, a := range rep.annotations {
		next[a.ExternalID] = true
	}
	for _, a := range parsed {
		next[a.ExternalID] = true
	}
	if len(next) > MaxAnnotationsPerReport {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("A report can contain up to %d annotations; this request would make %d", MaxAnnotationsPerReport, len(next)))
		return
	}
	out := make([]any, 0, len(parsed))
	for _, a := range parsed {
		i := slices.IndexFunc(rep.annotations, func(x *Annotation) bool { return x.ExternalID == a.ExternalID })
		if i >= 0 {
			a.UUID = rep.annotations[i].UUID
			*rep.annotations[i] = a
			out = append(out, annotationJSON(rep.annotations[i]))
			continue
		}
		a.UUID = fakeUUID("annotation", rep.UUID, a.ExternalID)
		na := a
		rep.annotations = append(rep.annotations, &na)
		out = append(out, annotationJSON(&na))
	}
	writeJSON(w, http.StatusOK, out)
}

func parseAnnotation(obj map[string]any) (Annotation, string, string) {
	if obj == nil {
		return Annotation{}, "external_id", "This field is required."
	}
	f, bad := stringFields(obj, "external_id", "path", "summary", "details", "severity", "annotation_type", "result", "link", "title")
	if bad != "" {
		return Annotation{}, bad, "Not a valid string."
	}
	switch {
	case f["external_id"] == "":
		return Annotation{}, "external_id", "This field is required."
	case f["summary"] == "":
		return Annotation{}, "summary", "This field is required."
	case f["annotation_type"] == "":
		return Annotation{}, "annotation_type", "This field is required."
	case f["link"] != "" && !validURL(f["link"]):
		return Annotation{}, "link", "Enter a valid URL."
	}
	a := Annotation{
		ExternalID: f["external_id"], Path: f["path"], Summary: f["summary"], Details: f["details"],
		Severity: f["severity"], AnnotationType: f["annotation_type"], Result: f["result"], Link: f["link"],
	}
	if v, ok := obj["line"]; ok && v != nil {
		n, isNum := v.(json.Number)
		line, err := n.Int64()
		if !isNum || err != nil || line < 0 {
			return Annotation{}, "line", "A valid integer >= 0 is required."
		}
		a.Line = int(line)
	}
	return a, "", ""
}

func annotationJSON(a *Annotation) map[string]any {
	m := map[string]any{
		"type": "report_annotation", "uuid": a.UUID, "external_id": a.ExternalID,
		"summary": a.Summary, "annotation_type": a.AnnotationType,
		"created_on": "2026-11-02T10:06:00.000000+00:00", "updated_on": "2026-11-02T10:06:00.000000+00:00",
	}
	for k, v := range map[string]string{"path": a.Path, "details": a.Details, "severity": a.Severity, "result": a.Result, "link": a.Link} {
		if v != "" {
			m[k] = v
		}
	}
	if a.Line > 0 {
		m["line"] = a.Line
	}
	return m
}
