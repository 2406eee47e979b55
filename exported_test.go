package solroute_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// exportedBudget is what each importable package may export (issue 21:
// "export only what users set, match on or call"): the counts of
// /work/shared/tools/exported after the cuts of plans/000's "What each face
// exports". A package that needs another name raises its line here, in
// the commit that says which user names it. Issue 23's subscriptions
// raised three: the root by 22 (the six Subscribe calls, Subscription and
// its methods, their options, filter and errors), endpoint by 5
// (SubscribeLimits and its bounds), the kit by 21 (the fake PubSub endpoint
// a user's test drives, and the ledger's account changes). Issue 23's
// observability raised the root by 3: Client.SubscriptionStats and the
// two types it returns (SubscriptionStats, SubscriptionEndpointStats), the
// subscriptions' counters a bot reads without Prometheus (and package
// metrics exports); the events metrics and tracing see go through an
// internal interface (pubsub.Watcher), no name. Stop 28 cut nine that no
// user names: fmt's %#v and encoding/json already reach Format and
// MarshalText (Secret.GoString, Secret.MarshalJSON, Endpoint.GoString),
// the library never reads back its own records (UnmarshalText of Cause,
// DispatchState, Fault, Rule), and the bounds of SubscribeLimits are
// stated in Validate's message as the others' are. Issue 24's priority
// fees raised the root by 2: Client.PriorityFee, which a bot calls before
// it sets its compute-unit price, and PriorityFeeEstimate, the result it
// names to keep or pass on. Issue 25's bulk reads raised the root by 9:
// the three calls, BulkOptions, BulkResult, BulkError (its Error and
// Unwrap) and BulkChunk (a range not read, and why). Issue 23's CLI and
// redundancy knob raised the root by 2 (Subscription.Counts and
// SubscriptionCounts: what solroute watch prints and a bot logs, its
// duplicates suppressed and failovers) and config by 1 (Subscribe, the
// [subscribe] table). Issue 25's response byte budget raised three
// packages: the root (ErrBusy, matched on; Client.ResponseBudget, read) by
// 2, transport by 1 (ResponseBudget, what that returns), retrypolicy by 1
// (RuleBusy, the decision a refused answer gets). Issue 24's bundles
// raised the root by 1 (Client.SendBundle, the call a bot makes) and the
// kit by 6: the fake block engine and sender a bot's test sends to
// (BlockEngine, Sender, their constructors, and their URL, the paths a
// document names; every other method is the embedded Server's). Issue
// 24's fan-out raised three by 1 each: the root (Client.SendToMany, the
// raw path's one call a bot makes to send one transaction to several
// endpoints), confirm (Copy, each endpoint's outcome a bot reads in
// Result.Copies and SendToMany's answer) and config (Send, the [send]
// table holding fan_out); its events reach metrics through an internal
// interface (resolve.CopyWatcher), no name. Stop 28's second pass cut
// eleven: endpoint.Commitment and its values and String (solana-go's
// rpc.CommitmentType is the one users hold), the three genesis constants
// (GenesisOf holds the hashes), Spec.GoString, endpoint.Problem.String
// and redislimit.Stats.OpsPerAdmission. Stop 29 cut three helpers only
// the module's own packages called: endpoint.GenesisOf (internal/genesis)
// and endpoint.ValidHeaderName and ValidHeaderValue (internal/httpheader).
// Stop 32 cut two constructors of the root that another door already
// gives: NewSession (a Session's zero value is ready, as its doc says:
// new(solroute.Session)) and OpenWith (config.Load, then FromDocument,
// the door a [limits] backend = "redis" document already needs for its
// limiter). The durable-nonce fields added no name.
var exportedBudget = map[string]int{
	".": 98, "config": 21, "confirm": 12, "endpoint": 51, "fixtures": 104, "methods": 8,
	"metrics": 12, "pool": 6, "redislimit": 14, "retrypolicy": 64, "tracing": 5, "transport": 26,
}

// TestExportedNamesWithinBudget counts the exported funcs, methods on
// exported types, types, consts and vars of every importable package
// (outside internal/, cmd/, tools/, soak/, smoke/ and tests) and holds each
// to its budget, and the totals to issue 21's targets: at most 300 with
// the test kit, 250 without (where they are not met yet, the budget is
// the ceiling: it only goes down).
func TestExportedNamesWithinBudget(t *testing.T) {
	got := exportedNames(t, ".")
	total := 0
	for pkg, n := range got {
		total += n
		budget, ok := exportedBudget[pkg]
		switch {
		case !ok:
			t.Errorf("package %s exports %d names and has no budget", pkg, n)
		case n > budget:
			t.Errorf("package %s exports %d names, its budget is %d", pkg, n, budget)
		}
	}
	ceiling := 0
	for _, n := range exportedBudget {
		ceiling += n
	}
	if total > ceiling {
		t.Errorf("%d exported names, the budget's total is %d", total, ceiling)
	}
	t.Logf("%d exported names, %d without fixtures: %v", total, total-got["fixtures"], got)
}

// exportedNames counts the exported names of each package under root.
func exportedNames(t *testing.T, root string) map[string]int {
	t.Helper()
	skip := map[string]bool{"cmd": true, "internal": true, "testdata": true, "soak": true, "smoke": true, "tools": true}
	per := map[string]int{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != root && (skip[d.Name()] || strings.HasPrefix(d.Name(), ".") || strings.HasPrefix(d.Name(), "_") || hasGoMod(p)) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		if f.Name.Name != "main" {
			per[filepath.ToSlash(filepath.Dir(p))] += countExported(f)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return per
}

// hasGoMod reports whether dir is a module of its own.
func hasGoMod(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "go.mod"))
	return err == nil
}

// countExported counts f's exported top-level names and its exported
// methods on exported types.
func countExported(f *ast.File) int {
	n := 0
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			if d.Name.IsExported() && (d.Recv == nil || receiverExported(d.Recv.List[0].Type)) {
				n++
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					if s.Name.IsExported() {
						n++
					}
				case *ast.ValueSpec:
					for _, name := range s.Names {
						if name.IsExported() {
							n++
						}
					}
				}
			}
		}
	}
	return n
}

// receiverExported reports whether a method's receiver type is exported.
func receiverExported(t ast.Expr) bool {
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	if ix, ok := t.(*ast.IndexExpr); ok {
		t = ix.X
	}
	id, ok := t.(*ast.Ident)
	return !ok || id.IsExported()
}
