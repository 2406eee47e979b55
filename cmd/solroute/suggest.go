package main

import (
	"slices"
	"strings"
)

// maxSuggestDistance is how many single-character edits (insert, delete,
// substitute) a known method may be from an unknown one to be suggested.
const maxSuggestDistance = 2

// suggest returns the known name closest to name, for a "did you mean"
// line: one equal to it but for case, else the one fewest edits away
// within maxSuggestDistance, the first in sorted order on a tie. ok is
// false when none is close or name is itself known.
func suggest(name string, known []string) (_ string, ok bool) {
	sorted := slices.Sorted(slices.Values(known))
	if slices.Contains(sorted, name) {
		return "", false
	}
	for _, k := range sorted {
		if strings.EqualFold(k, name) {
			return k, true
		}
	}
	best, bestDist := "", maxSuggestDistance+1
	for _, k := range sorted {
		if d := editDistance(name, k, bestDist); d < bestDist {
			best, bestDist = k, d
		}
	}
	return best, best != ""
}

// editDistance is the Levenshtein distance between a and b, counted in
// runes; any distance of limit or more is reported as limit, so that far
// names cost little.
func editDistance(a, b string, limit int) int {
	ra, rb := []rune(a), []rune(b)
	if d := len(ra) - len(rb); d >= limit || -d >= limit {
		return limit
	}
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			rowMin = min(rowMin, cur[j])
		}
		if rowMin >= limit {
			return limit
		}
		prev, cur = cur, prev
	}
	return min(prev[len(rb)], limit)
}
