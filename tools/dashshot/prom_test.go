package dashshot

import (
	"context"
	"errors"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/solroute/solroute/tools/dashboard"
)

// form is the last query_range form a fakeAPI was sent.
type form struct {
	mu sync.Mutex
	v  url.Values
}

func (f *form) get(k string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.v.Get(k)
}

// fakeAPI answers the Prometheus API paths with canned bodies, and keeps
// the last query_range form it was sent.
func fakeAPI(t *testing.T, rangeBody string) (Prometheus, *form) {
	t.Helper()
	seen := &form{}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/v1/query_range", func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseForm(); err != nil {
			t.Error(err)
		}
		seen.mu.Lock()
		seen.v = r.Form
		seen.mu.Unlock()
		if strings.Contains(r.Form.Get("query"), "bad(") {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"status":"error","errorType":"bad_data","error":"parse error: unexpected"}`))
			return
		}
		_, _ = w.Write([]byte(rangeBody))
	})
	mux.HandleFunc("GET /api/v1/status/buildinfo", func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"status":"success","data":{"version":"2.42.0+ds","revision":"x"}}`))
	})
	srv := httptest.NewServer(mux)
	tr := &http.Transport{}
	t.Cleanup(func() {
		tr.CloseIdleConnections()
		srv.Close()
	})
	return Prometheus{URL: srv.URL + "/", HTTP: &http.Client{Transport: tr}}, seen
}

func TestQueryRange(t *testing.T) {
	p, seen := fakeAPI(t, `{"status":"success","data":{"resultType":"matrix","result":[
		{"metric":{"endpoint":"primary-a"},"values":[[1767323045,"1.5"],[1767323046.5,"NaN"],[1767323047,"+Inf"]]},
		{"metric":{},"values":[]}]}}`)
	start := time.Unix(1767323045, 0)
	got, err := p.QueryRange(context.Background(), `rate(x[4s])`, start, start.Add(time.Minute), 1500*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]string{"query": "rate(x[4s])", "start": "1767323045", "end": "1767323105", "step": "1.5"} {
		if v := seen.get(k); v != want {
			t.Errorf("form %s = %q, want %q", k, v, want)
		}
	}
	if len(got) != 2 || got[0].Labels["endpoint"] != "primary-a" || got[1].Labels == nil {
		t.Fatalf("series %+v", got)
	}
	pts := got[0].Points
	if len(pts) != 3 || pts[0].V != 1.5 || !math.IsNaN(pts[1].V) || !math.IsInf(pts[2].V, 1) {
		t.Fatalf("points %+v", pts)
	}
	if want := time.UnixMilli(1767323046500); !pts[1].T.Equal(want) {
		t.Errorf("time %v, want %v", pts[1].T, want)
	}
	if v, err := p.Version(context.Background()); err != nil || v != "2.42.0+ds" {
		t.Errorf("Version = %q, %v", v, err)
	}
}

func TestQueryRangeErrors(t *testing.T) {
	p, _ := fakeAPI(t, `{"status":"success","data":{"resultType":"vector","result":[]}}`)
	ctx := context.Background()
	now := time.Unix(1767323045, 0)
	if _, err := p.QueryRange(ctx, "bad(", now, now.Add(time.Minute), time.Second); err == nil ||
		!strings.Contains(err.Error(), "bad_data: parse error") {
		t.Errorf("a query Prometheus refused: %v, want its error", err)
	}
	if _, err := p.QueryRange(ctx, "x", now, now.Add(time.Minute), time.Second); err == nil ||
		!strings.Contains(err.Error(), "vector") {
		t.Errorf("a vector result: %v, want an error", err)
	}
	for _, body := range []string{
		`not json`,
		`{"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":[[1,"x"]]}]}}`,
		`{"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":[["1","2"]]}]}}`,
	} {
		p, _ := fakeAPI(t, body)
		if _, err := p.QueryRange(ctx, "x", now, now.Add(time.Minute), time.Second); err == nil {
			t.Errorf("body %s: nil error", body)
		}
	}
}

// fakeQuerier answers every query with one series named after it, or an
// error for a query holding "fail".
type fakeQuerier struct{ exprs []string }

func (f *fakeQuerier) QueryRange(_ context.Context, expr string, start, _ time.Time, _ time.Duration) ([]Series, error) {
	f.exprs = append(f.exprs, expr)
	if strings.Contains(expr, "fail") {
		return nil, errors.New("no such thing")
	}
	return []Series{{Labels: map[string]string{"q": expr}, Points: []Point{{T: start, V: 1}}}}, nil
}

func TestEvaluate(t *testing.T) {
	d, err := dashboard.Parse([]byte(`{"panels":[
		{"id":1,"type":"row","title":"r"},
		{"id":2,"type":"timeseries","targets":[
			{"refId":"A","expr":"rate(a{e=~\"$endpoint\"}[$__rate_interval])","legendFormat":"{{e}}"},
			{"refId":"B","expr":"fail"}]},
		{"id":3,"type":"row","collapsed":true,"panels":[
			{"id":4,"type":"stat","targets":[{"refId":"A","expr":"b"}]}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	q := &fakeQuerier{}
	now := time.Unix(1767323045, 0)
	got, err := Evaluate(context.Background(), q, d, map[string]string{"endpoint": ".*", "__rate_interval": "4s"},
		now, now.Add(time.Minute), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{`rate(a{e=~".*"}[4s])`, "fail", "b"}; !reflect.DeepEqual(q.exprs, want) {
		t.Errorf("queries %q, want %q", q.exprs, want)
	}
	if len(got[2]) != 2 || got[2][0].Legend != "{{e}}" || got[2][0].Err != nil || got[2][1].Err == nil {
		t.Errorf("panel 2's results %+v", got[2])
	}
	if len(got[4]) != 1 || got[4][0].RefID != "A" {
		t.Errorf("a collapsed row's panel: %+v", got[4])
	}
	if _, err := Evaluate(context.Background(), q, d, map[string]string{}, now, now.Add(time.Minute), time.Second); err == nil {
		t.Error("Evaluate with no variables: nil error")
	}
}
