package candidates

import (
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
)

// The Python failure classes: each fixture is a small repository whose
// truth (the files a reviewer needs) is written by hand, as jedi's goto and
// references answer it.

// checkPaths compares the listed paths, in any order, with want.
func checkPaths(t *testing.T, got []Candidate, want ...string) {
	t.Helper()
	var paths []string
	for _, c := range got {
		paths = append(paths, c.Path)
	}
	sort.Strings(paths)
	sort.Strings(want)
	if !slices.Equal(paths, want) {
		t.Errorf("listed %v, want %v\n%s", paths, want, dump(got))
	}
}

// A package's __init__.py re-exports names (from ._impl import *, from
// .util import helper): a name reached through the package leads on to the
// file declaring it, and a change there reaches the package's users.
func TestFindPythonReexports(t *testing.T) {
	base := map[string]string{
		"pkg/__init__.py": "from ._impl import *\nfrom .util import helper\n",
		"pkg/_impl.py":    "__all__ = ['run']\n\n\ndef run():\n    return 1\n",
		"pkg/util.py":     "def helper():\n    return 2\n",
		"pkg/sub.py":      "def thing():\n    return 3\n",
		"app.py":          "import pkg\n\n\ndef main():\n    return 0\n",
	}
	got := repo{base: base, changed: map[string]string{
		"app.py": strings.Replace(base["app.py"], "    return 0", "    pkg.run()\n    return pkg.helper()", 1),
	}}.run(t)
	checkPaths(t, got, "pkg/__init__.py", "pkg/_impl.py", "pkg/util.py")

	// import pkg.sub binds pkg: pkg.sub.thing is the submodule's.
	got = repo{base: base, changed: map[string]string{
		"app.py": "import pkg.sub\n\n\ndef main():\n    return pkg.sub.thing()\n",
	}}.run(t)
	checkPaths(t, got, "pkg/__init__.py", "pkg/sub.py")

	base["app.py"] = "import pkg\nfrom pkg import run\n\n\ndef main():\n    run()\n    return pkg.helper()\n"
	got = repo{base: base, changed: map[string]string{
		"pkg/util.py": "def helper():\n    return 4\n",
	}}.run(t)
	checkPaths(t, got, "app.py")
	got = repo{base: base, changed: map[string]string{
		"pkg/_impl.py": strings.Replace(base["pkg/_impl.py"], "return 1", "return 5", 1),
	}}.run(t)
	checkPaths(t, got, "app.py")
}

// A changed __init__ reaches the constructions C(...) of its class, not
// the other references to the class.
func TestFindPythonInitReachesConstructions(t *testing.T) {
	base := map[string]string{
		"pkg/__init__.py":         "from .models import Client\n",
		"pkg/models.py":           "class Client:\n    def __init__(self, url):\n        self.url = url\n",
		"tests/test_client.py":    "import pkg\n\n\ndef test_client():\n    assert pkg.Client('u').url == 'u'\n",
		"pkg/check.py":            "from .models import Client\n\n\ndef is_client(x):\n    return isinstance(x, Client)\n",
		"tests/test_direct.py":    "from pkg.models import Client\n\n\ndef test_direct():\n    c = Client(\n        'v')\n    assert c\n",
		"tests/test_unrelated.py": "def test_other():\n    Client = dict\n    assert Client(a=1)\n",
	}
	got := repo{base: base, changed: map[string]string{
		"pkg/models.py": strings.Replace(base["pkg/models.py"], "self.url = url", "self.url = url.strip()", 1),
	}}.run(t)
	checkPaths(t, got, "tests/test_client.py", "tests/test_direct.py")
}

// from . import x names the sibling module pkg/x.py.
func TestFindPythonFromDotImport(t *testing.T) {
	base := map[string]string{
		"pkg/__init__.py": "",
		"pkg/x.py":        "def fetch():\n    return 1\n",
		"pkg/a.py":        "from . import x\n\n\ndef g():\n    return 0\n",
	}
	got := repo{base: base, changed: map[string]string{
		"pkg/a.py": strings.Replace(base["pkg/a.py"], "return 0", "return x.fetch()", 1),
	}}.run(t)
	checkPaths(t, got, "pkg/x.py")
	base["pkg/a.py"] = "from . import x\n\n\ndef g():\n    return x.fetch()\n"
	got = repo{base: base, changed: map[string]string{"pkg/x.py": "def fetch():\n    return 2\n"}}.run(t)
	checkPaths(t, got, "pkg/a.py")
}

// Names declared under if TYPE_CHECKING: (and other module-level blocks)
// are the module's declarations.
func TestFindPythonTypeCheckingNames(t *testing.T) {
	base := map[string]string{
		"pkg/__init__.py": "",
		"pkg/_types.py":   "import typing\n\nif typing.TYPE_CHECKING:\n    HeaderTypes = typing.Mapping[str, str]\nelse:\n    HeaderTypes = dict\n",
		"pkg/api.py":      "from ._types import HeaderTypes\n\n\ndef send(h):\n    return h\n",
	}
	got := repo{base: base, changed: map[string]string{
		"pkg/api.py": strings.Replace(base["pkg/api.py"], "def send(h):", "def send(h: HeaderTypes):", 1),
	}}.run(t)
	checkPaths(t, got, "pkg/_types.py")
	base["pkg/api.py"] = "from ._types import HeaderTypes\n\n\ndef send(h: HeaderTypes):\n    return h\n"
	got = repo{base: base, changed: map[string]string{
		"pkg/_types.py": strings.Replace(base["pkg/_types.py"], "    HeaderTypes = dict", "    HeaderTypes = typing.Dict", 1),
	}}.run(t)
	checkPaths(t, got, "pkg/api.py")
}

// pkg.func and _t.Name reach the module's declarations, in both
// directions.
func TestFindPythonModuleReceiver(t *testing.T) {
	base := map[string]string{
		"pkg/__init__.py": "",
		"pkg/_types.py":   "class Name:\n    pass\n\n\ndef make():\n    return Name()\n",
		"pkg/app.py":      "from pkg import _types as _t\n\n\ndef f(x):\n    return x\n",
		"pkg/other.py":    "def make():\n    return None\n",
	}
	got := repo{base: base, changed: map[string]string{
		"pkg/app.py": strings.Replace(base["pkg/app.py"], "    return x", "    return _t.Name(), _t.make()", 1),
	}}.run(t)
	checkPaths(t, got, "pkg/_types.py")
	base["pkg/app.py"] = "from pkg import _types as _t\nimport pkg.other\n\n\ndef f(x):\n    return _t.make(), pkg.other.make()\n"
	got = repo{base: base, changed: map[string]string{
		"pkg/_types.py": strings.Replace(base["pkg/_types.py"], "    return Name()", "    return Name() or None", 1),
	}}.run(t)
	checkPaths(t, got, "pkg/app.py")
}

// A package whose directory starts with "_" is an ordinary Python package:
// the folder rule of the go tool does not hide it.
func TestFindPythonUnderscorePackage(t *testing.T) {
	base := map[string]string{
		"pkg/__init__.py":       "",
		"pkg/_impl/__init__.py": "",
		"pkg/_impl/core.py":     "def helper():\n    return 1\n",
		"pkg/_impl/user.py":     "from .core import helper\n\n\ndef use():\n    return helper()\n",
		"pkg/app.py":            "from pkg._impl.core import helper\n\n\ndef main():\n    return 0\n",
	}
	got := repo{base: base, changed: map[string]string{
		"pkg/app.py": strings.Replace(base["pkg/app.py"], "return 0", "return helper()", 1),
	}}.run(t)
	checkPaths(t, got, "pkg/_impl/core.py")
	got = repo{base: base, changed: map[string]string{"pkg/_impl/core.py": "def helper():\n    return 2\n"}}.run(t)
	checkPaths(t, got, "pkg/_impl/user.py")
}

// A builtin-looking name that the repository binds (its own print, str)
// is a name like any other.
func TestFindPythonReboundBuiltin(t *testing.T) {
	base := map[string]string{
		"pkg/__init__.py": "",
		"pkg/compat.py":   "import builtins\n\n\ndef print(*args):\n    builtins.print(*args)\n",
		"pkg/app.py":      "from .compat import print\n\n\ndef main():\n    return 0\n",
		"pkg/plain.py":    "def main():\n    print('builtin')\n",
	}
	got := repo{base: base, changed: map[string]string{
		"pkg/app.py": strings.Replace(base["pkg/app.py"], "    return 0", "    print('x')", 1),
	}}.run(t)
	checkPaths(t, got, "pkg/compat.py")
	base["pkg/app.py"] = "from .compat import print\n\n\ndef main():\n    print('x')\n"
	got = repo{base: base, changed: map[string]string{
		"pkg/compat.py": strings.Replace(base["pkg/compat.py"], "builtins.print(*args)", "builtins.print('>', *args)", 1),
	}}.run(t)
	checkPaths(t, got, "pkg/app.py")
}

// A member's receiver is typed by the declared-type model: x = C(),
// self.x = C(), with C() as x, parameter and return annotations, and the
// class's bases declaring the member.
func TestFindPythonTypedReceivers(t *testing.T) {
	base := map[string]string{
		"pkg/__init__.py": "",
		"pkg/base.py":     "class Base:\n    def close(self):\n        pass\n",
		"pkg/client.py":   "from .base import Base\nfrom .session import Session\n\n\nclass Client(Base):\n    def send(self, r):\n        return r\n\n    def session(self) -> Session:\n        return Session()\n",
		"pkg/session.py":  "class Session:\n    def request(self):\n        pass\n\n    def __enter__(self):\n        return self\n",
		"pkg/noise.py":    "class Other:\n    def send(self, r):\n        pass\n\n    def request(self):\n        pass\n\n    def close(self):\n        pass\n",
		"pkg/app.py":      "from .client import Client\nfrom .session import Session\n\n\nclass App:\n    def __init__(self):\n        self.client = Client()\n\n    def run(self, s: Session):\n        return 0\n",
	}
	for _, tc := range []struct {
		line string
		want []string
	}{
		{"c = Client()\n        c.send(1)", []string{"pkg/client.py"}},
		{"self.client.close()", []string{"pkg/base.py"}},
		{"s.request()", []string{"pkg/session.py"}},
		{"Client().session().request()", []string{"pkg/client.py", "pkg/session.py"}},
		{"with Session() as t:\n            t.request()", []string{"pkg/session.py"}},
	} {
		got := repo{base: base, changed: map[string]string{
			"pkg/app.py": strings.Replace(base["pkg/app.py"], "        return 0", "        "+tc.line, 1),
		}}.run(t)
		checkPaths(t, got, tc.want...)
	}
	// The other direction: a changed method reaches the typed callers only.
	base["pkg/user.py"] = "from .client import Client\n\n\ndef f(c: Client, o):\n    c.send(1)\n    o.send(2)\n"
	base["pkg/other_user.py"] = "from .noise import Other\n\n\ndef g():\n    Other().send(3)\n"
	got := repo{base: base, changed: map[string]string{
		"pkg/client.py": strings.Replace(base["pkg/client.py"], "        return r\n", "        return r or None\n", 1),
	}}.run(t)
	checkPaths(t, got, "pkg/user.py")
}

// An edit of a docstring or a comment changes no behaviour: nothing is
// listed.
func TestFindPythonDocstringEdit(t *testing.T) {
	base := map[string]string{
		"pkg/__init__.py": "",
		"pkg/util.py":     "def helper():\n    \"\"\"Help.\n\n    More.\n    \"\"\"\n    # a comment\n    return 1\n",
		"pkg/app.py":      "from .util import helper\n\n\ndef main():\n    return helper()\n",
	}
	got := repo{base: base, changed: map[string]string{
		"pkg/util.py": strings.Replace(strings.Replace(base["pkg/util.py"], "More.", "More help.", 1), "a comment", "another comment", 1),
	}}.run(t)
	checkPaths(t, got)
	got = repo{base: base, changed: map[string]string{
		"pkg/util.py": strings.Replace(base["pkg/util.py"], "return 1", "return 2", 1),
	}}.run(t)
	checkPaths(t, got, "pkg/app.py")
}

// A name nothing resolves lists at most a few textual candidates, labelled
// as such; a member of an unknown receiver declared widely lists none.
func TestFindPythonUnresolvedIsNotPadded(t *testing.T) {
	base := map[string]string{
		"app.py": "def main(obj):\n    return 0\n",
	}
	for i := 0; i < 6; i++ {
		base["m"+string(rune('a'+i))+".py"] = "class C:\n    def serialize(self):\n        pass\n"
	}
	base["only.py"] = "class D:\n    def distinctive_name(self):\n        pass\n"
	got := repo{base: base, changed: map[string]string{
		"app.py": strings.Replace(base["app.py"], "return 0", "return obj.serialize(), obj.distinctive_name()", 1),
	}}.run(t)
	checkPaths(t, got, "only.py")
	if len(got) == 1 && got[0].Method != MethodTextual {
		t.Errorf("the unresolved name's candidate is %s %q, want it labelled textual", got[0].Method, got[0].Reason)
	}
}

// Python readings are shared by every search that reads the same path and
// content: concurrent searches, run first while the cache fills, answer as
// one search alone does (run with -race: the facts a shared file reads on
// first use, its types and local names, are read once).
func TestFindPythonSharedReadings(t *testing.T) {
	store := "class Store:\n    def fetch_value(self, k):\n        return k\n"
	main := "from pkg.store import Store\n\n\ndef run():\n    s = Store()\n    return s.fetch_value(\"k\")\n"
	other := "def get(k):\n    local = k\n    return local\n\n\ndef use(store):\n    return store.fetch_value(1)\n"
	r := repo{base: map[string]string{
		"pkg/__init__.py": "",
		"pkg/store.py":    store,
		"app/main.py":     main,
		"app/other.py":    other,
	}, changed: map[string]string{"pkg/store.py": strings.Replace(store, "return k", "return k.strip()", 1)}}
	var wg sync.WaitGroup
	got := make([]string, 8)
	for i := range got {
		wg.Go(func() { got[i] = dump(r.run(t)) })
	}
	wg.Wait()
	want := dump(r.run(t))
	if !strings.Contains(want, "app/main.py") {
		t.Fatalf("app/main.py, which calls Store.fetch_value on an instance, not listed:\n%s", want)
	}
	for i := range got {
		if got[i] != want {
			t.Errorf("concurrent run %d:\n%s\nwant\n%s", i, got[i], want)
		}
	}
}

// Names in an f-string's replacement fields are references: a function
// called only inside f"{...}" is a use of the change's and reaches the
// change's callers, while the field-like text of a plain string does not.
func TestFindPythonFStringFields(t *testing.T) {
	base := map[string]string{
		"pkg/fmt.py":   "def pretty(v):\n    return str(v)\n",
		"pkg/log.py":   "from pkg.fmt import pretty\n\n\ndef line(v):\n    return f\"value: {pretty(v)!r:>10}\"\n",
		"pkg/plain.py": "from pkg.fmt import pretty\n\n\ndef text(v):\n    return \"value: {pretty(v)}\".format()\n",
		"app.py":       "def main():\n    return 0\n",
	}
	got := repo{base: base, changed: map[string]string{
		"pkg/fmt.py": strings.Replace(base["pkg/fmt.py"], "return str(v)", "return repr(v)", 1),
	}}.run(t)
	checkPaths(t, got, "pkg/log.py")

	got = repo{base: base, changed: map[string]string{
		"app.py": "from pkg.fmt import pretty\n\n\ndef main():\n    return f'{pretty(0)}'\n",
	}}.run(t)
	checkPaths(t, got, "pkg/fmt.py")
}
