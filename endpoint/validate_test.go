package endpoint

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

func validSpec(name string) Spec {
	return Spec{
		Name: name,
		URL:  NewSecret("https://rpc.example.com/"),
		Roles: map[Role]Limits{
			RoleRead: {RequestsPerSecond: 10, MaxConcurrentRequests: 4},
		},
	}
}

// problems is what Validate reported, leaf by leaf.
type problems struct{ Problems []Problem }

// problemsOf returns the problems of a joined error of Validate, each of
// which must be a *Problem.
func problemsOf(t *testing.T, err error) problems {
	t.Helper()
	j, ok := err.(interface{ Unwrap() []error })
	if !ok {
		t.Fatalf("Validate = %v (%T), want problems joined", err, err)
	}
	var out problems
	for _, e := range j.Unwrap() {
		var p *Problem
		if !errors.As(e, &p) {
			t.Fatalf("%T %v, want a *Problem", e, e)
		}
		out.Problems = append(out.Problems, *p)
	}
	return out
}

func TestValidateAcceptsValidSpecs(t *testing.T) {
	a := validSpec("a")
	b := validSpec("b")
	b.Tier = 1
	b.Capabilities = []string{"archive"}
	b.Headers = map[string]Secret{"Authorization": NewSecret("Bearer x\ty")}
	b.Roles = map[Role]Limits{RoleRead: {}, RoleSend: {RequestsPerSecond: 0.5, BurstCapacity: 3, RequestTimeout: time.Second, PauseAfterRateLimit: time.Minute}}
	if err := Validate([]Spec{a, b}); err != nil {
		t.Fatalf("Validate = %v, want nil", err)
	}
}

func TestValidateReportsEveryProblemWithItsPath(t *testing.T) {
	const secret = "SECRET-MARKER"
	bad := Spec{
		Name:         "",
		URL:          NewSecret("ftp://user:" + secret + "@/path/" + secret + "?key=" + secret),
		Headers:      map[string]Secret{"Bad Header": NewSecret(secret), "X-Key": NewSecret("a\n" + secret)},
		Tier:         -1,
		Capabilities: []string{"archive", "", "archive"},
		Roles: map[Role]Limits{
			RoleRead: {RequestsPerSecond: -1, BurstCapacity: -2, MaxConcurrentRequests: -3, RequestTimeout: -time.Second, PauseAfterRateLimit: -time.Second},
			RoleSend: {BurstCapacity: 5},
		},
	}
	dup := validSpec("a")
	noRoles := validSpec("c")
	noRoles.Roles = nil
	noRoles.URL = NewSecret("https://[::1" + secret)
	inf := validSpec("d")
	inf.Roles = map[Role]Limits{RoleRead: {RequestsPerSecond: math.Inf(1)}, Role(7): {}}
	inf.URL = NewSecret("https:///" + secret)
	fast := validSpec("e")
	fast.Roles = map[Role]Limits{RoleSend: {RequestsPerSecond: 2e9}}
	fast.Name = " e"
	latin1 := validSpec("caf\xe9")

	err := Validate([]Spec{validSpec("a"), bad, dup, noRoles, inf, fast, latin1})
	ve := problemsOf(t, err)
	want := []string{
		"endpoints[1].name",
		"endpoints[1].url", // scheme
		"endpoints[1].url", // host
		"endpoints[1].headers",
		"endpoints[1].headers",
		"endpoints[1].tier",
		"endpoints[1].capabilities[1]",
		"endpoints[1].capabilities[2]",
		"endpoints[1].roles.read.requests_per_second",
		"endpoints[1].roles.read.burst_capacity",
		"endpoints[1].roles.read.max_concurrent_requests",
		"endpoints[1].roles.read.request_timeout",
		"endpoints[1].roles.read.pause_after_rate_limit",
		"endpoints[1].roles.send.burst_capacity",
		"endpoints[2].name",
		"endpoints[3].url",
		"endpoints[3].roles",
		"endpoints[4].url",
		"endpoints[4].roles",
		"endpoints[4].roles.read.requests_per_second",
		"endpoints[5].name",
		"endpoints[5].roles.send.requests_per_second",
		"endpoints[6].name",
	}
	var got []string
	for _, p := range ve.Problems {
		got = append(got, p.Path)
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("problem paths:\n%s\nwant:\n%s\nerror:\n%v", strings.Join(got, "\n"), strings.Join(want, "\n"), err)
	}
	if strings.Contains(err.Error(), secret) {
		t.Errorf("error quotes a secret:\n%v", err)
	}
	if !strings.Contains(err.Error(), `endpoints[2].name: "a" is already the name of endpoints[0]`) {
		t.Errorf("duplicate name not explained:\n%v", err)
	}
}

func TestValidateEmpty(t *testing.T) {
	if err := Validate(nil); len(problemsOf(t, err).Problems) != 1 || problemsOf(t, err).Problems[0].Path != "endpoints" {
		t.Fatalf("Validate(nil) = %v", err)
	}
}

// TestValidateRanges walks every bounded number of Limits across its
// bounds: the last valid value passes, the first invalid one is reported.
func TestValidateRanges(t *testing.T) {
	for _, tt := range []struct {
		name   string
		limits Limits
		path   string // "" when valid
		msg    string
	}{
		{"unlimited rate", Limits{}, "", ""},
		{"slowest rate", Limits{RequestsPerSecond: minRequestsPerSecond}, "", ""},
		{"below the slowest rate", Limits{RequestsPerSecond: math.Nextafter(minRequestsPerSecond, 0)}, "requests_per_second", "at least one request an hour"},
		{"tiny rate", Limits{RequestsPerSecond: 1e-11}, "requests_per_second", "at least one request an hour"},
		{"fastest rate", Limits{RequestsPerSecond: maxRequestsPerSecond}, "", ""},
		{"above the fastest rate", Limits{RequestsPerSecond: math.Nextafter(maxRequestsPerSecond, math.Inf(1))}, "requests_per_second", "at most 1e+09"},
		{"NaN rate", Limits{RequestsPerSecond: math.NaN()}, "requests_per_second", "finite"},
		{"longest timeout", Limits{RequestTimeout: maxRequestTimeout}, "", ""},
		{"timeout too long", Limits{RequestTimeout: maxRequestTimeout + 1}, "request_timeout", "at most 1h"},
		{"timeout near the longest Duration", Limits{RequestTimeout: math.MaxInt64}, "request_timeout", "at most 1h"},
		{"longest pause", Limits{PauseAfterRateLimit: maxPauseAfterRateLimit}, "", ""},
		{"pause too long", Limits{PauseAfterRateLimit: 2562047 * time.Hour}, "pause_after_rate_limit", "at most 1h"},
		{"negative pause", Limits{PauseAfterRateLimit: -1}, "pause_after_rate_limit", "default 1s"},
		{"burst without a rate", Limits{BurstCapacity: 1}, "burst_capacity", "a burst needs a rate"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := validSpec("a")
			s.Roles = map[Role]Limits{RoleRead: tt.limits}
			err := Validate([]Spec{s})
			if tt.path == "" {
				if err != nil {
					t.Fatalf("Validate = %v, want nil", err)
				}
				return
			}
			if ve := problemsOf(t, err); len(ve.Problems) != 1 {
				t.Fatalf("Validate = %v, want one problem", err)
			}
			p := problemsOf(t, err).Problems[0]
			if p.Path != "endpoints[0].roles.read."+tt.path || !strings.Contains(p.Message, tt.msg) {
				t.Errorf("problem %q, want %s: ...%s...", p, tt.path, tt.msg)
			}
		})
	}
}

// TestValidateQuotesNoValue: messages say what was expected, never what was
// given (only the endpoint's name, its non-secret label, is quoted).
func TestValidateQuotesNoValue(t *testing.T) {
	s := validSpec("a")
	s.Tier = -987654
	s.Capabilities = []string{"cap-MARKER", "cap-MARKER"}
	s.Roles = map[Role]Limits{
		RoleRead: {RequestsPerSecond: -987654, BurstCapacity: -987654, MaxConcurrentRequests: -987654,
			RequestTimeout: -987654 * time.Second, PauseAfterRateLimit: 987654 * time.Hour},
		RoleSend: {RequestsPerSecond: 9.87654e-9},
	}
	err := Validate([]Spec{s})
	if err == nil {
		t.Fatal("Validate accepted the spec")
	}
	for _, value := range []string{"987654", "9.87654", "MARKER", "274348h"} {
		if strings.Contains(err.Error(), value) {
			t.Errorf("the error quotes %q:\n%v", value, err)
		}
	}
	if !strings.Contains(err.Error(), "endpoints[0].capabilities[1]: repeats endpoints[0].capabilities[0]") {
		t.Errorf("a repeated capability is not explained by its first place:\n%v", err)
	}
}

func TestShortDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{time.Hour: "1h", 90 * time.Minute: "1h30m", time.Second: "1s",
		10 * time.Minute: "10m", time.Hour + time.Second: "1h0m1s", 250 * time.Millisecond: "250ms"} {
		if got := shortDuration(d); got != want {
			t.Errorf("shortDuration(%v) = %q, want %q", d, got, want)
		}
	}
}
