package main

import (
	"context"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/solroute/solroute"
	"github.com/solroute/solroute/metrics"
)

// metricsServer serves a client's Prometheus series at /metrics, for
// "solroute demo --metrics".
type metricsServer struct {
	url  string // http://ADDR/metrics, with the port the listener got
	srv  *http.Server
	done chan struct{} // closed when Serve has returned
}

// serveMetrics listens on addr (host:port; port 0 picks a free one) and
// serves c's series there until close. The registry holds c's series
// alone.
func serveMetrics(addr string, c *solroute.Client) (*metricsServer, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(metrics.New(c, metrics.Options{}))
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	m := &metricsServer{
		url:  "http://" + ln.Addr().String() + "/metrics",
		srv:  &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second},
		done: make(chan struct{}),
	}
	go func() {
		defer close(m.done)
		_ = m.srv.Serve(ln) // it closes ln when it returns
	}()
	return m, nil
}

// close stops the server and returns once it has stopped: a scrape under
// way gets a second to finish (it reads the client, which the demo closes
// next), then is cut.
func (m *metricsServer) close() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if m.srv.Shutdown(ctx) != nil {
		_ = m.srv.Close()
	}
	<-m.done
}
