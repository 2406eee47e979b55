#!/usr/bin/env bash
# Regenerates docs/img/dashboard.svg, the picture of the Grafana dashboard
# in this folder filled by the demo (docs/grafana/README.md):
#
#   1. starts a real Prometheus (the `prometheus` on PATH; Debian:
#      apt-get install prometheus) that scrapes 127.0.0.1:$DEMO_PORT every
#      second into a temporary folder;
#   2. runs `solroute demo --duration $DURATION --seed $SEED --metrics
#      127.0.0.1:$DEMO_PORT`;
#   3. runs tools/dashshot (in the tools module, tools/go.mod), which
#      evaluates every panel's own query through that Prometheus's HTTP
#      API over the demo's run and draws the panels as one SVG.
#
# It is not a Grafana screenshot, and it is a manual command: it needs
# Prometheus and takes a minute, so neither `go test ./...` nor .ci/run
# runs it. Run it from anywhere in the repository:
#
#   bash docs/grafana/regenerate.sh
#
# Environment: DURATION (60s), SEED (1), DEMO_PORT (19464), PROM_PORT
# (19090), OUT (docs/img/dashboard.svg; a relative path is from the
# repository's root).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD

duration=${DURATION:-60s}
seed=${SEED:-1}
demo_port=${DEMO_PORT:-19464}
prom_port=${PROM_PORT:-19090}
out=${OUT:-docs/img/dashboard.svg}

if ! command -v prometheus >/dev/null; then
	echo "regenerate.sh: no prometheus on PATH (Debian: apt-get install prometheus)" >&2
	exit 1
fi

tmp=$(mktemp -d)
prom_pid=
cleanup() {
	if [ -n "$prom_pid" ]; then
		kill "$prom_pid" 2>/dev/null || true
		wait "$prom_pid" 2>/dev/null || true
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT

go build -o "$tmp/solroute" ./cmd/solroute

cat >"$tmp/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: solroute-demo
    static_configs:
      - targets: ["127.0.0.1:$demo_port"]
EOF
prometheus --config.file="$tmp/prometheus.yml" --storage.tsdb.path="$tmp/data" \
	--web.listen-address="127.0.0.1:$prom_port" >"$tmp/prometheus.log" 2>&1 &
prom_pid=$!
for _ in $(seq 50); do
	curl -sf "http://127.0.0.1:$prom_port/-/ready" >/dev/null && break
	sleep 0.2
done
if ! curl -sf "http://127.0.0.1:$prom_port/-/ready" >/dev/null; then
	echo "regenerate.sh: Prometheus did not get ready:" >&2
	cat "$tmp/prometheus.log" >&2
	exit 1
fi

start=$(date +%s.%3N)
"$tmp/solroute" demo --duration "$duration" --seed "$seed" --metrics "127.0.0.1:$demo_port" | tee "$tmp/demo.txt"
end=$(date +%s.%3N)

# The notes under the picture's title: the command, the demo's own
# description of its endpoints, and its summary's totals.
notes=(--note "Data: solroute demo --duration $duration --seed $seed --metrics 127.0.0.1:$demo_port, scraped every 1s by that Prometheus (docs/grafana/regenerate.sh). The demo's endpoints:")
while IFS= read -r line; do
	notes+=(--note "• $(echo "$line" | tr -s ' ' | sed 's/^ //')")
done < <(grep -E '^  (primary|backup|last-resort)' "$tmp/demo.txt")
summary=$(grep -E '^(calls|transactions|duplicates delivered):' "$tmp/demo.txt" | sed 's/ (transactions acted on.*//' | paste -sd';' - | sed 's/;/; /g')
notes+=(--note "The demo's summary: $summary.")

case $out in /*) ;; *) out="$root/$out" ;; esac
(cd tools && go run ./dashshot/cmd/dashshot --prometheus "http://127.0.0.1:$prom_port" \
	--dashboard "$root/docs/grafana/solroute-dashboard.json" \
	--start "$start" --end "$end" --out "$out" "${notes[@]}")
echo "regenerate.sh: wrote $out ($(wc -c <"$out") bytes)"
