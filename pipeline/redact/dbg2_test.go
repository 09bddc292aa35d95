package redact
import ("testing"; "github.com/prscout/prscout/pipeline/redact/corpus")
func TestDbg2(t *testing.T) {
	cl, _ := corpus.Load("testdata/corpus.txt")
	var tot corpus.Score
	for seed := uint64(1); seed < 60; seed++ {
		ss, _ := corpus.Samples(cl, seed)
		for _, s := range ss {
			var sc corpus.Score
			out := Secrets(s.Text, nil)
			tot.Add(s, out)
			if !sc.Add(s, out) && s.Item.Class != "context" { t.Logf("seed %d: %q -> %q", seed, s.Text, out) }
		}
	}
	t.Logf("%+v %.4f %.4f", tot, tot.Recall(), tot.AlarmRate())
}
