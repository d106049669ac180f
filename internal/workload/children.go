package workload

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/keybench/keybench/internal/keys"
)

// RoleChild is the child table's role among a cell's relations (its index: RoleChild + "_index").
const RoleChild = "child"

// ChildTable is the cell's child table (001's foreign_table_id): each
// parent row of the keyed table has its children there, by a foreign key
// column of the key's type, with its index (the parent_id index). Its
// indexes and its foreign key come after its fill (fillChildren).
func ChildTable(at Place, key *keys.Resolved) *Table {
	t := OwnTable(at, "child", RoleChild,
		fmt.Sprintf("id bigint GENERATED ALWAYS AS IDENTITY, parent_id %s NOT NULL, data bigint NOT NULL", key.ColumnType()),
		Index{Suffix: "parent_idx", Columns: "parent_id"})
	t.DeferIndexes = true
	t.DistributeBy, t.ColocateWith = "parent_id", at.Schema+"."+at.Table
	return t
}

// FillChildren gives each parent row n children (in the parents' heap
// order, so children of one parent are stored together), then builds the
// child's index and adds its foreign key to the parent's key.
func FillChildren(ctx context.Context, conn *pgx.Conn, parent, child *Table, n int) error {
	if n > 0 {
		if _, err := conn.Exec(ctx, fmt.Sprintf(`INSERT INTO %s (parent_id, data) SELECT p.id, g FROM %s p, generate_series(1, %d) g ORDER BY p.ctid, g`,
			child.Qualified(), parent.Qualified(), n)); err != nil {
			return fmt.Errorf("filling the child table: %w", err)
		}
	}
	if err := BuildIndexes(ctx, conn, child); err != nil {
		return err
	}
	if len(KeyIndexNames(parent)) == 0 || parent.Key.Index != keys.IndexPK && parent.Key.Index != keys.IndexUnique {
		return fmt.Errorf("a foreign key needs the parent's key to be unique (index=pk or unique), not index=%s", parent.Key.Index)
	}
	_, err := conn.Exec(ctx, fmt.Sprintf("ALTER TABLE %s ADD CONSTRAINT %s_parent_fk FOREIGN KEY (parent_id) REFERENCES %s (id)",
		child.Qualified(), child.Name, parent.Qualified()))
	return err
}

// ChildrenOption is the child rows per parent row of the workloads with a
// child table (fk-insert, join), from lo.
func ChildrenOption(p *int, lo, def int) Option {
	return Int("children", p, def, lo, 1000, "child rows per parent row, in a child table whose foreign key has the key's type")
}

// AcceptsForeignKey: the parent's key must be unique for a foreign key to reference it.
func AcceptsForeignKey(s *keys.Spec) string {
	if s.Index != keys.IndexPK && s.Index != keys.IndexUnique {
		return fmt.Sprintf("a foreign key references a unique key (index=pk or unique), not index=%s", s.Index)
	}
	return ""
}
