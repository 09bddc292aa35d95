//go:build cgo

package candidates

import (
	"strings"
	"testing"
)

// TestSyntaxDeclaredTypes: a call through a variable, parameter or field
// goes to the member of its declared type: a change to Client's send
// lists the file calling it on a Client, not the one calling Mailer's
// send, and a send added on a Client lists Client's file.
func TestSyntaxDeclaredTypes(t *testing.T) {
	type fixture struct {
		name                          string
		client, mailer, user, other   string // paths
		files                         map[string]string
		body, body2, callOld, callNew string
	}
	fixtures := []fixture{
		{
			name: "csharp", client: "src/Client.cs", mailer: "src/Mailer.cs", user: "src/Job.cs", other: "src/Mail.cs",
			files: map[string]string{
				"src/Client.cs": "namespace Acme\n{\n    public class Client\n    {\n        public int Send(int n)\n        {\n            return n;\n        }\n    }\n}\n",
				"src/Mailer.cs": "namespace Acme\n{\n    public class Mailer\n    {\n        public int Send(int n)\n        {\n            return 0;\n        }\n    }\n}\n",
				"src/Job.cs":    "namespace Acme\n{\n    class Job\n    {\n        int Run(Client c)\n        {\n            return c.Send(1);\n        }\n    }\n}\n",
				"src/Mail.cs":   "namespace Acme\n{\n    class Mail\n    {\n        int Run()\n        {\n            Mailer m = new Mailer();\n            return m.Send(2);\n        }\n    }\n}\n",
			},
			body: "return n;", body2: "return n + 1;", callOld: "return c.Send(1);", callNew: "return c.Send(1) + c.Send(3);",
		},
		{
			name: "kotlin", client: "src/Client.kt", mailer: "src/Mailer.kt", user: "src/Job.kt", other: "src/Mail.kt",
			files: map[string]string{
				"src/Client.kt": "package acme\n\nclass Client {\n    fun send(n: Int): Int {\n        return n\n    }\n}\n",
				"src/Mailer.kt": "package acme\n\nclass Mailer {\n    fun send(n: Int): Int {\n        return 0\n    }\n}\n",
				"src/Job.kt":    "package acme\n\nclass Job(private val c: Client) {\n    fun run(): Int {\n        return c.send(1)\n    }\n}\n",
				"src/Mail.kt":   "package acme\n\nfun mail(m: Mailer): Int {\n    return m.send(2)\n}\n",
			},
			body: "return n", body2: "return n + 1", callOld: "return c.send(1)", callNew: "return c.send(1) + c.send(3)",
		},
		{
			name: "rust", client: "src/client.rs", mailer: "src/mailer.rs", user: "src/job.rs", other: "src/mail.rs",
			files: map[string]string{
				"src/client.rs": "pub struct Client {}\n\nimpl Client {\n    pub fn send(&self, n: i32) -> i32 {\n        n\n    }\n}\n",
				"src/mailer.rs": "pub struct Mailer {}\n\nimpl Mailer {\n    pub fn send(&self, n: i32) -> i32 {\n        0\n    }\n}\n",
				"src/job.rs":    "use crate::client::Client;\n\npub fn run(c: &Client) -> i32 {\n    c.send(1)\n}\n",
				"src/mail.rs":   "use crate::mailer::Mailer;\n\npub fn mail(m: &mut Mailer) -> i32 {\n    m.send(2)\n}\n",
			},
			body: "        n\n", body2: "        n + 1\n", callOld: "    c.send(1)", callNew: "    c.send(1) + c.send(3)",
		},
		{
			name: "cpp", client: "src/client.hpp", mailer: "src/mailer.hpp", user: "src/job.cpp", other: "src/mail.cpp",
			files: map[string]string{
				"src/client.hpp": "class Client {\npublic:\n    int send(int n) {\n        return n;\n    }\n};\n",
				"src/mailer.hpp": "class Mailer {\npublic:\n    int send(int n) {\n        return 0;\n    }\n};\n",
				"src/job.cpp":    "#include \"client.hpp\"\n\nint run(Client& c) {\n    return c.send(1);\n}\n",
				"src/mail.cpp":   "#include \"mailer.hpp\"\n\nint mail(Mailer* m) {\n    return m->send(2);\n}\n",
			},
			body: "return n;", body2: "return n + 1;", callOld: "return c.send(1);", callNew: "return c.send(1) + c.send(3);",
		},
	}
	for _, f := range fixtures {
		t.Run(f.name+"/impact", func(t *testing.T) {
			got := repo{base: f.files, changed: map[string]string{f.client: strings.Replace(f.files[f.client], f.body, f.body2, 1)}}.run(t)
			if len(got) != 1 || got[0].Path != f.user || got[0].Kind != KindImpact {
				t.Errorf("want %s impact only, got:\n%s", f.user, dump(got))
			}
		})
		t.Run(f.name+"/uses", func(t *testing.T) {
			got := repo{base: f.files, changed: map[string]string{f.user: strings.Replace(f.files[f.user], f.callOld, f.callNew, 1)}}.run(t)
			for _, c := range got {
				if c.Path == f.mailer || c.Path == f.other {
					t.Errorf("listed %s: %s", c.Path, c.Reason)
				}
			}
			if len(got) == 0 || got[0].Path != f.client || got[0].Kind != KindUses {
				t.Errorf("want %s uses first, got:\n%s", f.client, dump(got))
			}
		})
	}
}
