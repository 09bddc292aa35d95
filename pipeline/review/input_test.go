package review

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/prscout/prscout/pipeline"
)

func TestModelsNames(t *testing.T) {
	for _, tc := range []struct {
		m    *Models
		want []string
	}{
		{nil, nil},
		{&Models{}, nil},
		{&Models{Scout: "a"}, []string{"a (scout)"}},
		{&Models{Review: " b\n"}, []string{"b (review)"}},
		{&Models{Scout: "a", Review: "b"}, []string{"a (scout)", "b (review)"}},
		{&Models{Scout: "a", Review: "a"}, []string{"a (scout, review)"}},
	} {
		if got := tc.m.Names(); !cmp.Equal(got, tc.want) {
			t.Errorf("%+v.Names() = %q, want %q", tc.m, got, tc.want)
		}
	}
}

func TestWantsSARIF(t *testing.T) {
	for _, tc := range []struct {
		formats []string
		want    bool
		field   string
	}{
		{nil, false, ""},
		{[]string{"json"}, false, ""},
		{[]string{"SARIF"}, true, ""},
		{[]string{"json", "sarif"}, true, ""},
		{[]string{"sarif", "csv"}, false, "formats[1]"},
	} {
		got, err := CommentsInput{Formats: tc.formats}.WantsSARIF()
		field := ""
		if ie, ok := err.(*pipeline.InvalidError); ok {
			field = ie.Field
		}
		if got != tc.want || field != tc.field {
			t.Errorf("%q: %v, %v; want %v, error on %q", tc.formats, got, err, tc.want, tc.field)
		}
	}
}
