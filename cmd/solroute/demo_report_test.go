package main

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/solroute/solroute/fixtures"
)

// postSend delivers a sendTransaction of wire to s directly, bypassing the
// pool. The answer does not matter (a reset is one of the cases).
func postSend(s *fixtures.Server, wire string) {
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	body := `{"jsonrpc":"2.0","id":1,"method":"sendTransaction","params":["` + wire + `",{"encoding":"base64"}]}`
	resp, err := (&http.Client{Transport: tr}).Post(s.URL(), "application/json", strings.NewReader(body))
	if err == nil {
		_ = resp.Body.Close()
	}
}

func TestDemoResultCountsDuplicates(t *testing.T) {
	tx, err := fixtures.SignedTransaction(99)
	if err != nil {
		t.Fatal(err)
	}
	wire, err := fixtures.EncodeTransaction(tx)
	if err != nil {
		t.Fatal(err)
	}
	sig := tx.Signatures[0].String()
	tests := []struct {
		name                              string
		faults                            []fixtures.Fault // one server per fault, each gets the send once
		deliveries, forwarded, duplicates int
	}{
		{"once", []fixtures.Fault{{}}, 1, 1, 0},
		{"refused then forwarded", []fixtures.Fault{fixtures.Status(429, "1"), {}}, 2, 1, 0},
		{"node behind then forwarded", []fixtures.Fault{fixtures.RPC(-32005), {}}, 2, 1, 0},
		{"forwarded twice", []fixtures.Fault{{}, {}}, 2, 2, 1},
		{"reset after read then forwarded", []fixtures.Fault{{Kind: fixtures.ResetAfterRead}, {}}, 2, 2, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var members []fixtures.Member
			for i, f := range tt.faults {
				members = append(members, fixtures.Member{Name: string(rune('a' + i)), Options: fixtures.Options{Script: fixtures.Always(f)}})
			}
			c := fixtures.NewCluster(members)
			defer c.Close()
			for _, s := range c.Servers {
				postSend(s, wire)
			}
			stats := newDemoStats()
			stats.sent(sig, nil)
			stats.call(time.Millisecond, nil)
			res := newDemoResult(stats, c, nil, time.Second)
			if res.deliveries != tt.deliveries || res.forwarded != tt.forwarded || res.duplicates != tt.duplicates {
				t.Fatalf("deliveries %d forwarded %d duplicates %d, want %d %d %d",
					res.deliveries, res.forwarded, res.duplicates, tt.deliveries, tt.forwarded, tt.duplicates)
			}
			var out bytes.Buffer
			res.write(&out)
			want := "duplicates delivered: " + string(rune('0'+tt.duplicates)) + "\n"
			if !strings.Contains(out.String(), want) {
				t.Fatalf("summary lacks %q:\n%s", want, out.String())
			}
		})
	}
}
