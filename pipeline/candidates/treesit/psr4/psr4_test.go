package psr4

import "testing"

// TestDecodeAndFile: a composer.json's autoload and autoload-dev PSR-4
// prefixes map to their directories (the first of several), and a
// namespaced name resolves under its longest prefix; a name under none,
// or a composer.json that does not decode, resolves to nothing.
func TestDecodeAndFile(t *testing.T) {
	m := Decode([]byte(`{"autoload": {"psr-4": {"App\\": "src/", "App\\Legacy\\": ["old/", "older/"]}},
		"autoload-dev": {"psr-4": {"Tests": "tests"}}}`))
	for _, c := range []struct {
		imp, want string
		ok        bool
	}{
		{`App\Models\User`, "src/Models/User", true},
		{`App\Legacy\Form`, "old/Form", true},
		{`Tests\UserTest`, "tests/UserTest", true},
		{`Vendor\Lib`, "", false},
	} {
		if got, ok := File(c.imp, `\`, m); got != c.want || ok != c.ok {
			t.Errorf("%s: %q %v, want %q %v", c.imp, got, ok, c.want, c.ok)
		}
	}
	if m := Decode([]byte(`{"autoload": 1}`)); len(m) != 0 {
		t.Errorf("undecodable composer.json maps %v", m)
	}
}
