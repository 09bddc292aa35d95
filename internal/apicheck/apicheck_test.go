package apicheck

import (
	"net/http"
	"strings"
	"testing"
)

// spec has one operation that lists 200 only, and one whose body's
// elements are a oneOf discriminated by an enum.
const spec = `
openapi: 3.0.0
info: { title: t, version: "1" }
paths:
  /things/{id}:
    parameters: [{ name: id, in: path, required: true, schema: { type: string } }]
    get:
      responses:
        "200": { description: ok, content: { application/json: { schema: { type: object, required: [name], properties: { name: { type: string } } } } } }
  /data:
    post:
      requestBody:
        content:
          application/json:
            schema:
              type: array
              items:
                type: object
                properties: { kind: { type: string, enum: [N, S] } }
                oneOf:
                  - { required: [kind], properties: { kind: { enum: [N] }, value: { type: number } } }
                  - { required: [kind], properties: { kind: { enum: [S] }, value: { type: string } } }
      responses:
        "200": { description: ok }
`

func load(t *testing.T) *Doc {
	t.Helper()
	d, err := Load([]byte(spec))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestUndocumentedStatus: an answer with a status the operation does not
// list is a violation, whatever its body; a listed one is checked against
// its schema; CheckStatus checks the status but not the body.
func TestUndocumentedStatus(t *testing.T) {
	d := load(t)
	r, _ := http.NewRequest(http.MethodGet, "http://x.example/things/1", nil)
	params := map[string]string{"id": "1"}
	h := http.Header{"Content-Type": {"application/json"}}
	if v := d.CheckResponse("/things/{id}", r, params, http.StatusNotFound, h, []byte(`{"type":"error","error":{"message":"gone"}}`)); !strings.Contains(v, "answer 404") || !strings.Contains(v, "status is not supported") {
		t.Errorf("undocumented 404: %q, want a violation", v)
	}
	if v := d.CheckResponse("/things/{id}", r, params, http.StatusOK, h, []byte(`{"name":"a"}`)); v != "" {
		t.Errorf("documented answer: %q", v)
	}
	if v := d.CheckResponse("/things/{id}", r, params, http.StatusOK, h, []byte(`{}`)); !strings.Contains(v, "name") {
		t.Errorf("answer without its required field: %q, want a violation", v)
	}
	if v := d.CheckStatus("/things/{id}", r, params, http.StatusOK, h); v != "" {
		t.Errorf("CheckStatus of a documented status: %q", v)
	}
	if v := d.CheckStatus("/things/{id}", r, params, http.StatusConflict, h); !strings.Contains(v, "status is not supported") {
		t.Errorf("CheckStatus of an undocumented status: %q", v)
	}
}

// TestOneOfNamesTheField: a value that fits no branch of a oneOf is
// reported at the field that is wrong in the branch its discriminator
// chose, or at the discriminator when no branch has its value.
func TestOneOfNamesTheField(t *testing.T) {
	d := load(t)
	for _, tc := range []struct{ body, field, msg string }{
		{`[{"kind":"N","value":1},{"kind":"N","value":"1"}]`, "1.value", ""},
		{`[{"kind":"S","value":2}]`, "0.value", ""},
		{`[{"kind":"X","value":2}]`, "0.kind", `"X" is not a valid choice.`},
	} {
		r, _ := http.NewRequest(http.MethodPost, "http://x.example/data", strings.NewReader(tc.body))
		r.Header.Set("Content-Type", "application/json")
		v, ok := d.CheckRequest("/data", r, nil, []byte(tc.body))
		if ok || v.Field != tc.field || tc.msg != "" && v.Msg != tc.msg {
			t.Errorf("%s: ok %v, field %q, message %q; want %s %s", tc.body, ok, v.Field, v.Msg, tc.field, tc.msg)
		}
	}
}
