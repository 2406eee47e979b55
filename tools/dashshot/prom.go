package dashshot

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Prometheus asks a Prometheus server's HTTP API (/api/v1) with plain
// JSON over HTTP.
type Prometheus struct {
	// URL is the server's base URL ("http://127.0.0.1:9090").
	URL string
	// HTTP sends the requests; nil means http.DefaultClient.
	HTTP *http.Client
}

// Point is one sample of a series.
type Point struct {
	// T is the sample's time.
	T time.Time
	// V is its value; NaN and infinities are kept as Prometheus sent them.
	V float64
}

// Series is one series of a query's result.
type Series struct {
	// Labels are the series' labels (__name__ included when kept).
	Labels map[string]string
	// Points are its samples in time order.
	Points []Point
}

// QueryRange evaluates expr at every step from start to end
// (/api/v1/query_range) and returns the result's series.
func (p Prometheus) QueryRange(ctx context.Context, expr string, start, end time.Time, step time.Duration) ([]Series, error) {
	form := url.Values{
		"query": {expr},
		"start": {formatTime(start)},
		"end":   {formatTime(end)},
		"step":  {strconv.FormatFloat(step.Seconds(), 'f', -1, 64)},
	}
	var data struct {
		ResultType string          `json:"resultType"`
		Result     json.RawMessage `json:"result"`
	}
	if err := p.post(ctx, "/api/v1/query_range", form, &data); err != nil {
		return nil, err
	}
	if data.ResultType != "matrix" {
		return nil, fmt.Errorf("query_range: result type %q, want matrix", data.ResultType)
	}
	return parseMatrix(data.Result)
}

// Version returns the server's version (/api/v1/status/buildinfo).
func (p Prometheus) Version(ctx context.Context) (string, error) {
	var data struct {
		Version string `json:"version"`
	}
	if err := p.get(ctx, "/api/v1/status/buildinfo", &data); err != nil {
		return "", err
	}
	return data.Version, nil
}

// formatTime writes t as Unix seconds with up to millisecond precision.
func formatTime(t time.Time) string {
	return strconv.FormatFloat(float64(t.UnixMilli())/1e3, 'f', -1, 64)
}

func (p Prometheus) post(ctx context.Context, path string, form url.Values, data any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimSuffix(p.URL, "/")+path,
		strings.NewReader(form.Encode()))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return p.do(req, data)
}

func (p Prometheus) get(ctx context.Context, path string, data any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(p.URL, "/")+path, nil)
	if err != nil {
		return err
	}
	return p.do(req, data)
}

// do sends req and decodes the data of the API's envelope
// ({"status": "success", "data": ...}) into data, or returns the error
// the API reported.
func (p Prometheus) do(req *http.Request, data any) error {
	c := p.HTTP
	if c == nil {
		c = http.DefaultClient
	}
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return err
	}
	var env struct {
		Status    string          `json:"status"`
		Data      json.RawMessage `json:"data"`
		ErrorType string          `json:"errorType"`
		Error     string          `json:"error"`
	}
	if err := json.Unmarshal(body, &env); err != nil {
		return fmt.Errorf("%s %s: %s: not the API's JSON: %w", req.Method, req.URL.Path, resp.Status, err)
	}
	if env.Status != "success" {
		return fmt.Errorf("%s %s: %s: %s: %s", req.Method, req.URL.Path, resp.Status, env.ErrorType, env.Error)
	}
	return json.Unmarshal(env.Data, data)
}

// parseMatrix reads a matrix result:
// [{"metric": {...}, "values": [[1700000000.5, "1.25"], ...]}, ...].
func parseMatrix(raw json.RawMessage) ([]Series, error) {
	var result []struct {
		Metric map[string]string    `json:"metric"`
		Values [][2]json.RawMessage `json:"values"`
	}
	if err := json.Unmarshal(raw, &result); err != nil {
		return nil, fmt.Errorf("matrix: %w", err)
	}
	out := make([]Series, 0, len(result))
	for _, r := range result {
		s := Series{Labels: r.Metric, Points: make([]Point, 0, len(r.Values))}
		if s.Labels == nil {
			s.Labels = map[string]string{}
		}
		for _, v := range r.Values {
			var ts float64
			var val string
			if err := json.Unmarshal(v[0], &ts); err != nil {
				return nil, fmt.Errorf("matrix: sample time: %w", err)
			}
			if err := json.Unmarshal(v[1], &val); err != nil {
				return nil, fmt.Errorf("matrix: sample value: %w", err)
			}
			f, err := strconv.ParseFloat(val, 64)
			if err != nil {
				return nil, fmt.Errorf("matrix: sample value: %w", err)
			}
			sec, frac := math.Modf(ts)
			s.Points = append(s.Points, Point{T: time.Unix(int64(sec), int64(math.Round(frac*1e3))*1e6).UTC(), V: f})
		}
		out = append(out, s)
	}
	return out, nil
}
