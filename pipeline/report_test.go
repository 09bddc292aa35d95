package pipeline

import (
	"errors"
	"testing"
)

func TestBuildStatusValidate(t *testing.T) {
	ok := BuildStatus{Key: "prscout", State: StatusInProgress, URL: "https://bitbucket.example/ws/repo/pull-requests/1"}
	tests := []struct {
		name  string
		edit  func(*BuildStatus)
		field string
	}{
		{"ok", func(*BuildStatus) {}, ""},
		{"no key", func(s *BuildStatus) { s.Key = " " }, "key"},
		{"lower-case state", func(s *BuildStatus) { s.State = "successful" }, "state"},
		{"no url", func(s *BuildStatus) { s.URL = "" }, "url"},
		{"relative url", func(s *BuildStatus) { s.URL = "/ws/repo" }, "url"},
		{"url without host", func(s *BuildStatus) { s.URL = "https:///x" }, "url"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := ok
			tt.edit(&s)
			checkInvalidField(t, s.Validate(), tt.field)
		})
	}
}

func TestInsightsReportValidate(t *testing.T) {
	ok := InsightsReport{Title: "prscout review", ReportType: ReportTypeBug, Result: ReportPassed, Data: []ReportDatum{
		{Title: "High", Type: DatumNumber, Value: 2},
		{Title: "Coverage", Type: DatumPercentage, Value: 93.3},
		{Title: "Safe", Type: DatumBoolean, Value: true},
		{Title: "Mode", Type: DatumText, Value: "full"},
		{Title: "Summary", Type: DatumLink, Value: ReportLink{Text: "comment", Href: "https://bitbucket.example/c/1"}},
	}}
	tests := []struct {
		name  string
		edit  func(*InsightsReport)
		field string
	}{
		{"ok", func(*InsightsReport) {}, ""},
		{"no title", func(r *InsightsReport) { r.Title = "" }, "title"},
		{"bad type", func(r *InsightsReport) { r.ReportType = "LINT" }, "reportType"},
		{"bad result", func(r *InsightsReport) { r.Result = "OK" }, "result"},
		{"bad datum type", func(r *InsightsReport) { r.Data[0].Type = "COUNT" }, "data[0].type"},
		{"text in a number", func(r *InsightsReport) { r.Data[0].Value = "2" }, "data[0].value"},
		{"percentage above 100", func(r *InsightsReport) { r.Data[1].Value = 101 }, "data[1].value"},
		{"link without href", func(r *InsightsReport) { r.Data[4].Value = ReportLink{Text: "x"} }, "data[4].value"},
		{"datum without title", func(r *InsightsReport) { r.Data[3].Title = "" }, "data[3].title"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := ok
			r.Data = append([]ReportDatum(nil), ok.Data...)
			tt.edit(&r)
			checkInvalidField(t, r.Validate(), tt.field)
		})
	}
}

func TestAnnotationValidate(t *testing.T) {
	ok := Annotation{ExternalID: "prscout-1", Path: "a.go", Line: 3, Summary: "nil deref", Severity: AnnotationHigh, AnnotationType: AnnotationBug}
	tests := []struct {
		name  string
		edit  func(*Annotation)
		field string
	}{
		{"ok", func(*Annotation) {}, ""},
		{"no line is fine", func(a *Annotation) { a.Line = 0 }, ""},
		{"no path nor line is fine", func(a *Annotation) { a.Line, a.Path = 0, "" }, ""},
		{"no external id", func(a *Annotation) { a.ExternalID = "" }, "externalId"},
		{"no summary", func(a *Annotation) { a.Summary = "\n" }, "summary"},
		{"no type", func(a *Annotation) { a.AnnotationType = "" }, "annotationType"},
		{"bad severity", func(a *Annotation) { a.Severity = "high" }, "severity"},
		{"bad result", func(a *Annotation) { a.Result = "PENDING" }, "result"},
		{"line without path", func(a *Annotation) { a.Path = "" }, "path"},
		{"negative line", func(a *Annotation) { a.Line = -1 }, "line"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := ok
			tt.edit(&a)
			checkInvalidField(t, a.Validate(), tt.field)
		})
	}
}

func checkInvalidField(t *testing.T, err error, field string) {
	t.Helper()
	if field == "" {
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		return
	}
	var ie *InvalidError
	if !errors.As(err, &ie) {
		t.Fatalf("want an *InvalidError for %s, got %v", field, err)
	}
	if ie.Field != field {
		t.Fatalf("field = %q, want %q (%v)", ie.Field, field, err)
	}
}
