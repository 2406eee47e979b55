package main

import "testing"

func TestEditDistance(t *testing.T) {
	tests := []struct {
		a, b  string
		limit int
		want  int
	}{
		{"", "", 3, 0},
		{"getSlot", "getSlot", 3, 0},
		{"getSlto", "getSlot", 3, 2},    // a transposition is two edits
		{"getSlt", "getSlot", 3, 1},     // insert
		{"getSlots", "getSlot", 3, 1},   // delete
		{"getSlat", "getSlot", 3, 1},    // substitute
		{"getBalance", "getSlot", 3, 3}, // far: the limit
		{"x", "getSlot", 3, 3},          // lengths alone exceed it
		{"kitten", "sitting", 10, 3},
		{"héllo", "hello", 3, 1}, // runes, not bytes
	}
	for _, tt := range tests {
		if got := editDistance(tt.a, tt.b, tt.limit); got != tt.want {
			t.Errorf("editDistance(%q, %q, %d) = %d, want %d", tt.a, tt.b, tt.limit, got, tt.want)
		}
	}
}

func TestSuggest(t *testing.T) {
	known := []string{"getSlot", "getSlotLeader", "getBalance", "getBlock", "getBlocks", "sendTransaction"}
	tests := []struct {
		name string
		want string // "" for no suggestion
	}{
		{"getslot", "getSlot"},                // case only
		{"GETBALANCE", "getBalance"},          // case only, however far by edits
		{"getBalanse", "getBalance"},          // one edit
		{"sendTransacton", "sendTransaction"}, // one edit
		{"getBlok", "getBlock"},               // one edit beats getBlocks' two
		{"getBlcks", "getBlocks"},             // one edit
		{"getSlotLeder", "getSlotLeader"},     // one edit
		{"getBlockz", "getBlock"},             // a tie at one edit: the first sorted
		{"getSlot", ""},                       // known
		{"getAssetsByOwner", ""},              // nothing close
		{"gs", ""},                            // nothing close
	}
	for _, tt := range tests {
		got, ok := suggest(tt.name, known)
		if ok != (tt.want != "") || got != tt.want {
			t.Errorf("suggest(%q) = %q, %v; want %q", tt.name, got, ok, tt.want)
		}
	}
}
