package api

import (
	"errors"
	"testing"
)

type decodeProbe struct {
	Ref   string `json:"ref"`
	Files []struct {
		Path  string `json:"path"`
		Needs []struct {
			Op string `json:"op"`
		} `json:"needs"`
	} `json:"files"`
	Limit *int `json:"limit"`
	Meta  struct {
		Count int `json:"count"`
	} `json:"meta"`
}

func TestUnmarshalStrictNamesTheField(t *testing.T) {
	cases := []struct {
		name, body, field, msg string
	}{
		{"string for int", `{"limit":"12"}`, "limit", "limit must be an integer, got string"},
		{"index of the bad element", `{"files":[{"path":"a"},{"path":"b"},{"path":7}]}`, "files[2].path", "files[2].path must be a string, got number"},
		{"nested index", `{"files":[{"path":"a","needs":[{"op":"get_file"},{"op":false}]}]}`, "files[0].needs[1].op", "files[0].needs[1].op must be a string, got bool"},
		{"object for array", `{"files":{"path":"a"}}`, "files", "files must be an array, got object"},
		{"nested object", `{"meta":{"count":[1]}}`, "meta.count", "meta.count must be an integer, got array"},
		{"not an object", `[1,2]`, "", "request body must be a JSON object, got an array"},
		{"string body", `"hello"`, "", "request body must be a JSON object, got a string"},
		{"truncated", `{"ref":`, "", "invalid JSON: unexpected end of input"},
		{"syntax", "{\n\"ref\": x}", "", "invalid JSON at line 2, column 9: invalid character 'x' looking for beginning of value"},
		{"two values", `{} {}`, "", "request body holds more than one JSON value"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var v decodeProbe
			err := unmarshalStrict([]byte(tc.body), &v)
			var he *httpError
			if !errors.As(err, &he) {
				t.Fatalf("err = %v, want an *httpError", err)
			}
			if he.status != 400 || he.field != tc.field || he.msg != tc.msg {
				t.Errorf("got %d field=%q msg=%q, want 400 field=%q msg=%q", he.status, he.field, he.msg, tc.field, tc.msg)
			}
		})
	}
}

func TestUnmarshalStrictAcceptsUnknownFields(t *testing.T) {
	// n8n hands stages whole answers of earlier stages: extra fields are fine.
	var v decodeProbe
	if err := unmarshalStrict([]byte(`{"ref":"abc","skip":true,"stats":{"x":1}}`), &v); err != nil || v.Ref != "abc" {
		t.Fatalf("err=%v ref=%q", err, v.Ref)
	}
}

func FuzzUnmarshalStrict(f *testing.F) {
	for _, s := range []string{`{"files":[{"path":7}]}`, `{"limit":"x"}`, `[`, `{"meta":{"count":{}}}`, `{"files":[[[]]]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var v decodeProbe
		err := unmarshalStrict(data, &v)
		if err == nil {
			return
		}
		var he *httpError
		if !errors.As(err, &he) || he.status != 400 || he.msg == "" {
			t.Fatalf("decode error %v is not a 400 with a message", err)
		}
	})
}
