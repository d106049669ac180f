package runner

import "github.com/keybench/keybench/internal/scenario"

// groups splits the plan into the cells that run together: with rounds,
// the cells of one cache, client count, table size and repetition, whose
// rounds interleave (each on its own table, the n-th of a group at
// workload.PlaceOf(schema, n)); without, each cell alone. A group is every
// cell of the plan with its cache, clients, rows and repetition, wherever
// the plan lists it; groups keep the order of their first cells.
func groups(plan []scenario.Cell, rounds int) [][]scenario.Cell {
	type shape struct {
		cache   int64
		clients int
		rows    int64
		repeat  int
	}
	var out [][]scenario.Cell
	at := map[shape]int{}
	for _, c := range plan {
		if rounds <= 1 {
			out = append(out, []scenario.Cell{c})
			continue
		}
		s := shape{c.Cache, c.Clients, c.Rows, c.Repeat}
		i, ok := at[s]
		if !ok {
			i = len(out)
			at[s] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], c)
	}
	return out
}
