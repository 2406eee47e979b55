package metrics_test

import (
	"bufio"
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/solroute/solroute"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/metrics"
)

// A client's series on a registry of their own, served at /metrics: two
// lines of Go, then any call shows up in the next scrape.
func ExampleNew() {
	provider := fixtures.NewServer(fixtures.Options{Name: "provider"}) // a fake endpoint on loopback
	defer provider.Close()
	c, err := solroute.New(solroute.Options{Endpoints: []solroute.Endpoint{
		{Name: "primary", URL: provider.URL(), Read: &endpoint.Limits{RequestsPerSecond: 50}},
	}})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()

	reg := prometheus.NewRegistry()
	reg.MustRegister(metrics.New(c, metrics.Options{}))
	// In a program: http.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	srv := httptest.NewServer(promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	defer srv.Close()

	if err := c.GetHealth(context.Background()); err != nil {
		log.Fatal(err)
	}
	resp, err := http.Get(srv.URL + "/metrics")
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	for sc := bufio.NewScanner(resp.Body); sc.Scan(); {
		for _, name := range []string{"solroute_calls_total", "solroute_attempts_total", "solroute_endpoint_info"} {
			if strings.HasPrefix(sc.Text(), name+"{") {
				fmt.Println(sc.Text())
			}
		}
	}
	// Output:
	// solroute_attempts_total{endpoint="primary",method="getHealth",outcome="ok",role="read"} 1
	// solroute_calls_total{method="getHealth",outcome="ok",role="read"} 1
	// solroute_endpoint_info{endpoint="primary",role="read",tier="0"} 1
}
